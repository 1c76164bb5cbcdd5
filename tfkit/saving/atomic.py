"""Atomic saves: write beside the target, flush to disk, then rename over it.

    with atomic_file("model.h5") as tmp:     # tmp == "model.h5.tmp-3f9c1a2b7d4e5f60"
        write_everything_to(tmp)
    # model.h5 is either the old file or the complete new one, never half of each

A save killed midway (power loss, SIGKILL) leaves the previous target intact.
The temporary name ``<target>.tmp-<pid>-<16 hex digits>`` sits in the same
folder (a rename is only atomic within one file system); loads never look at
such names, and a later save of the same target removes those left by killed
saves, recognised by their process id no longer running, so two processes
saving the same path never delete each other's work in progress.

Directories (SavedModel exports) are published by swapping the new folder
with the old one in one ``renameat2(RENAME_EXCHANGE)`` call where Linux
offers it; elsewhere the old folder is moved aside first, and if the process
dies before the new one is in place, the next save or load of that target
moves it back. TensorFlow Serving ignores version folders whose names are not
numbers, so it never sees a half-written ``1.tmp-...`` folder.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import secrets
import shutil
from typing import Iterator

_TEMP_SUFFIX = re.compile(r"\.(tmp|old)-(?:(\d+)-)?[0-9a-f]{16}$")


def temp_name(target: str, kind: str = "tmp") -> str:
    """``<target>.tmp-<pid>-<random hex>`` in the target's folder."""
    return f"{target}.{kind}-{os.getpid()}-{secrets.token_hex(8)}"


def _owner_alive(suffix_match: re.Match) -> bool:
    """Whether the process that made a temporary name still runs (names without a pid count as stale)."""
    pid = suffix_match.group(2)
    if pid is None:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return int(pid) > 0 and not isinstance(pid, bool)
    return True


def is_temp_name(path: str) -> bool:
    """Whether ``path`` is a temporary name made by :func:`temp_name`."""
    return _TEMP_SUFFIX.search(os.path.basename(path)) is not None


def _fsync_file(path: str) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder or ".", os.O_RDONLY)
    except OSError:
        return  # some platforms cannot open folders; the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_tree(root: str) -> None:
    for folder, _, files in os.walk(root):
        for name in files:
            _fsync_file(os.path.join(folder, name))
        _fsync_dir(folder)


def remove_stale_temps(target: str) -> list[str]:
    """Clean up after saves of ``target`` that were killed; returns what was removed.

    Only names whose process is gone are touched. A ``.old-*`` folder whose
    target is missing is the previous version of an interrupted directory
    swap: it is moved back into place, never deleted.
    """
    folder = os.path.dirname(os.path.abspath(target))
    base = os.path.basename(target)
    removed = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return removed
    for name in names:
        match = _TEMP_SUFFIX.fullmatch(name[len(base):]) if name.startswith(base + ".") else None
        if match is None or _owner_alive(match):
            continue
        path = os.path.join(folder, name)
        try:
            if match.group(1) == "old" and not os.path.lexists(os.path.join(folder, base)):
                os.replace(path, os.path.join(folder, base))   # put the previous version back
                continue
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
            removed.append(path)
        except OSError:
            pass
    return removed


def recover(target: str) -> None:
    """Before reading ``target``: restore it if a killed directory swap left it missing."""
    target = os.path.abspath(os.fspath(target))
    if not os.path.lexists(target):
        remove_stale_temps(target)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: str, b: str) -> bool:
    """Swap two paths atomically (Linux ``renameat2``); False where the system cannot."""
    try:
        # The process's own symbol scope (libc is in it): an LD_PRELOAD wrapper, such as the
        # kill-point tests' library, sees this call like any other rename.
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), b)


def check_target(target: str, overwrite: bool, directory: bool = False) -> str:
    """The absolute target path; ``ValueError`` if it exists and ``overwrite`` is False."""
    target = os.path.abspath(os.fspath(target))
    if os.path.lexists(target):
        if not overwrite:
            raise ValueError(f"{target} already exists and overwrite=False; pass overwrite=True to replace it")
        if directory != os.path.isdir(target):
            what = "a folder" if os.path.isdir(target) else "a file"
            raise ValueError(f"{target} exists and is {what}; refusing to replace it with a {'folder' if directory else 'file'}")
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        os.makedirs(parent, exist_ok=True)
    return target


_NO_SPACE = ("No space left", "File too large", "errno = 28", "errno = 27", "Disk quota exceeded")


def _no_space(error: BaseException) -> bool:
    """Whether ``error`` (from Python, h5py or TensorFlow) means the disk or the file size limit is full."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return True
    return any(marker in str(error) for marker in _NO_SPACE)


def _space_error(target: str, error: BaseException) -> OSError:
    return OSError(errno.ENOSPC, f"Not enough disk space to save {target}: the write failed ({type(error).__name__}). "
                                 f"The previous file is unchanged and the partial new one was removed", target)


@contextlib.contextmanager
def atomic_file(target: str, overwrite: bool = True) -> Iterator[str]:
    """Yield a temporary path; on success fsync it and rename it over ``target``."""
    target = check_target(target, overwrite)
    tmp = temp_name(target)
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, target)
        _fsync_dir(os.path.dirname(target))
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        if _no_space(error):
            raise _space_error(target, error) from error
        raise
    remove_stale_temps(target)


@contextlib.contextmanager
def atomic_directory(target: str, overwrite: bool = True) -> Iterator[str]:
    """Yield a temporary folder path; on success publish it as ``target``.

    An existing ``target`` is swapped with the new folder in one system call
    where possible (then removed); otherwise it is renamed aside, and a kill
    before the new folder is in place is undone by :func:`recover`.
    """
    target = check_target(target, overwrite, directory=True)
    recover(target)
    tmp = temp_name(target)
    try:
        yield tmp
        _fsync_tree(tmp)
        if os.path.isdir(target) and _exchange(tmp, target):
            _fsync_dir(os.path.dirname(target))
            shutil.rmtree(tmp, ignore_errors=True)   # tmp now holds the previous version
        else:
            old = None
            if os.path.isdir(target):
                old = temp_name(target, "old")
                os.replace(target, old)
            try:
                os.replace(tmp, target)
            except BaseException:
                if old is not None:
                    os.replace(old, target)
                raise
            _fsync_dir(os.path.dirname(target))
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
    except BaseException as error:
        shutil.rmtree(tmp, ignore_errors=True)
        if _no_space(error):
            raise _space_error(target, error) from error
        raise
    remove_stale_temps(target)
