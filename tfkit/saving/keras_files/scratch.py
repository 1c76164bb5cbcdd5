"""A private temporary file with its space reserved before a byte is written, wherever there is room.

    with scratch_file(size, "model.weights.h5 of m.keras") as (out, name):
        copy_into(out)                  # cannot run out of space: ``size`` bytes are already reserved
    # removed here; OSError(ENOSPC) naming every folder tried if none had room

Folders are tried in order: the temporary folder (``TMPDIR``), then the
guarded HDF5 reader's first choice (/dev/shm or ``TFKIT_SHM_DIR``). The space
is reserved with ``posix_fallocate`` (or, where a file system cannot, checked
with ``statvfs``), so a full folder is found before anything is copied and
is reported as a lack of space, never as a damaged archive.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from typing import BinaryIO, Iterator

from tfkit.saving.h5_snapshot import data_folders

_UNSUPPORTED = (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS)


def scratch_folders() -> list[str]:
    """The temporary folder, then the HDF5 reader's data folders (each once)."""
    folders = [os.path.abspath(tempfile.gettempdir())]
    return folders + [folder for folder in data_folders() if folder not in folders]


def _free_bytes(folder: str) -> int | None:
    try:
        info = os.statvfs(folder)
    except OSError:
        return None
    return info.f_bavail * info.f_frsize


def _reserve(handle: int, folder: str, size: int) -> str | None:
    """None once ``size`` bytes are reserved for the file ``handle`` in ``folder``; else why not."""
    if size == 0:
        return None
    try:
        os.posix_fallocate(handle, 0, size)
        return None
    except OSError as error:
        free = _free_bytes(folder)
        if error.errno in _UNSUPPORTED:
            return None if free is not None and free >= size else f"{free} bytes free"
        if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            return f"{error.strerror}; {'?' if free is None else free} bytes free"
        raise


@contextlib.contextmanager
def scratch_file(size: int, what: str) -> Iterator[tuple[BinaryIO, str]]:
    """``(open file, its path)`` with ``size`` bytes reserved; the file is removed when the block ends."""
    tried = []
    for folder in scratch_folders():
        try:
            handle, name = tempfile.mkstemp(prefix="tfkit-keras-", suffix=".h5", dir=folder)
        except OSError as error:
            if error.errno in (errno.EMFILE, errno.ENFILE):
                raise
            tried.append(f"{folder} ({error.strerror})")
            continue
        try:
            refused = _reserve(handle, folder, size)
        except BaseException:
            os.close(handle)
            os.remove(name)
            raise
        if refused is None:
            break
        os.close(handle)
        os.remove(name)
        tried.append(f"{folder} ({refused})")
    else:
        raise OSError(
            errno.ENOSPC,
            f"Not enough space to unpack {what} ({size} bytes): tried "
            f"{', '.join(tried) or 'no writable folder'}. The file itself was not judged: "
            f"point TMPDIR at a folder with room, and load it again",
        )
    try:
        with os.fdopen(handle, "r+b") as out:
            yield out, name
    finally:
        with contextlib.suppress(OSError):
            os.remove(name)
