"""Atomic saves: write in a folder of the save's own beside the target, then rename over it.

    with atomic_file("model.h5") as tmp:     # tmp == "model.h5.tmp-<32 hex>/model.h5"
        write_everything_to(tmp)
    # model.h5 is either the old file or the complete new one, never half of each

A save killed midway (power loss, SIGKILL) leaves the previous target intact.
The new file is written in a temporary folder claimed by this process
(``temporaries.Claim``: locked while the process lives, whatever its PID
namespace or machine), fsynced, and renamed over the target while the
target's folder is held exclusively (``folder_lock``). Loads never look at
such names. A later save of the same target removes what killed saves left:
only temporaries it can lock, that is whose writer the kernel knows is gone,
so two processes saving the same path never delete each other's work.

Directories (SavedModel exports) are published by swapping the new folder
with the old one in one ``renameat2(RENAME_EXCHANGE)`` call where Linux
offers it; elsewhere the old folder is first moved into the save's temporary
folder, and if the process dies before the new one is in place the next save
of that target moves it back. TensorFlow Serving ignores version folders whose
names are not numbers, so it never sees a half-written ``1.tmp-...`` folder.

A target that is a symbolic link is written through: the new file or folder
replaces the link's destination, and the link stays.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
from typing import Iterator

from tfkit.files import temporaries
from tfkit.files.folder_lock import exclusive
from tfkit.files.temporaries import Claim

_PREVIOUS = "previous"  # inside a directory save's claim: the old version, moved aside when no swap exists


def is_temp_name(path: str) -> bool:
    """Whether ``path`` lies in, or is, a temporary folder made by a save."""
    path = os.path.abspath(path)
    for candidate in (path, os.path.dirname(path)):
        name = os.path.basename(candidate)
        stem, dot, rest = name.rpartition(".")
        if dot and temporaries.is_temporary_name(candidate, os.path.join(os.path.dirname(candidate), stem)):
            return True
    return False


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

    Call it while holding the target's folder exclusively. Only temporaries
    this process can lock are touched (their writer is dead). A previous
    version that an interrupted directory swap moved aside, with the target
    now missing, is moved back into place, never deleted.
    """
    target = os.path.abspath(target)
    removed = []
    for claim in temporaries.abandoned(target):
        previous = claim.join(_PREVIOUS)
        if os.path.isdir(previous) and not os.path.lexists(target):
            os.replace(previous, target)
        claim.remove()
        removed.append(claim.path)
    for path in temporaries.legacy(target):  # an earlier tfkit's leftovers (it took no locks)
        if ".old-" in os.path.basename(path) and not os.path.lexists(target):
            os.replace(path, target)
            continue
        with contextlib.suppress(OSError):
            temporaries.remove_path(path)
            removed.append(path)
    return removed


def recover(target: str) -> None:
    """Before replacing ``target``: restore it if a killed directory swap left it missing."""
    target = os.path.abspath(os.fspath(target))
    if not os.path.lexists(target):
        with exclusive(os.path.dirname(target)) as locked:
            if locked:
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


def resolve_target(target: str) -> str:
    """The absolute path a save of ``target`` replaces: a symbolic link's destination, the link itself kept."""
    target = os.path.abspath(os.fspath(target))
    return os.path.realpath(target) if os.path.islink(target) else target


def check_target(target: str, overwrite: bool, directory: bool = False) -> str:
    """The absolute target path; ``ValueError`` if it exists and ``overwrite`` is False."""
    target = resolve_target(target)
    if os.path.lexists(target):
        if not overwrite:
            raise ValueError(f"{target} already exists and overwrite=False; pass overwrite=True to replace it")
        if directory != os.path.isdir(target):
            what = "a folder" if os.path.isdir(target) else "a file"
            raise ValueError(
                f"{target} exists and is {what}; refusing to replace it with a {'folder' if directory else 'file'}"
            )
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        os.makedirs(parent, exist_ok=True)
    return target


_NO_SPACE = ("No space left", "File too large", "errno = 28", "errno = 27", "Disk quota exceeded")
_READ_ONLY = ("Read-only file system", "Permission denied", "errno = 30", "errno = 13")


def _no_space(error: BaseException) -> bool:
    """Whether ``error`` (from Python, h5py or TensorFlow) means the disk or the file size limit is full."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return True
    return any(marker in str(error) for marker in _NO_SPACE)


def _space_error(target: str, error: BaseException) -> OSError:
    return OSError(
        errno.ENOSPC,
        f"Not enough disk space to save {target}: the write failed ({type(error).__name__}). "
        f"The previous file is unchanged and the partial new one was removed",
        target,
    )


def as_os_error(target: str, error: BaseException) -> BaseException | None:
    """The ``OSError`` a failed save of ``target`` should raise instead of ``error``, or None to raise it as it is.

    TensorFlow reports a full disk or a read-only folder as its own
    ``ResourceExhaustedError``/``PermissionDeniedError``; an ``.h5`` save
    meets the same faults as ``OSError``, so every save kind raises that.
    """
    if _no_space(error):
        return _space_error(target, error)
    if isinstance(error, OSError) or not type(error).__module__.startswith("tensorflow"):
        return None
    if type(error).__name__ == "PermissionDeniedError" or any(marker in str(error) for marker in _READ_ONLY):
        code = errno.EROFS if "Read-only" in str(error) or "errno = 30" in str(error) else errno.EACCES
        return OSError(
            code,
            f"Cannot save {target}: {os.strerror(code)} ({type(error).__name__}). The previous file is unchanged",
            target,
        )
    return None


@contextlib.contextmanager
def claimed(target: str) -> Iterator[Claim]:
    """A claimed temporary folder beside ``target``; removed when the block ends, however it ends."""
    try:
        claim = Claim.beside(target)
    except OSError as error:  # a read-only or full folder: nothing was written
        raise (as_os_error(target, error) or error) from error
    try:
        yield claim
    except BaseException as error:
        claim.remove()
        better = as_os_error(target, error)
        if better is not None:
            raise better from error
        raise
    claim.remove()


def _publish(target: str, swap: callable) -> None:
    """Run ``swap()`` holding the target's folder, then remove what killed saves of ``target`` left."""
    folder = os.path.dirname(target)
    with exclusive(folder) as locked:
        swap()
        _fsync_dir(folder)
        if locked:  # without the lock no temporary can be proven abandoned
            remove_stale_temps(target)


@contextlib.contextmanager
def atomic_file(target: str, overwrite: bool = True) -> Iterator[str]:
    """Yield a temporary path; on success fsync it and rename it over ``target``."""
    target = check_target(target, overwrite)
    with claimed(target) as claim:
        tmp = claim.join(os.path.basename(target))
        yield tmp
        _fsync_file(tmp)
        _publish(target, lambda: os.replace(tmp, target))


@contextlib.contextmanager
def atomic_directory(target: str, overwrite: bool = True) -> Iterator[str]:
    """Yield a temporary folder path (not yet created); on success publish it as ``target``.

    An existing ``target`` is swapped with the new folder in one system call
    where possible; otherwise it is moved into this save's temporary folder
    first, and a kill before the new folder is in place is undone by the next
    save. The previous version goes with the temporary folder.
    """
    target = check_target(target, overwrite, directory=True)
    recover(target)
    with claimed(target) as claim:
        tmp = claim.join(os.path.basename(target))
        yield tmp
        _fsync_tree(tmp)

        def swap() -> None:
            if os.path.isdir(target) and _exchange(tmp, target):
                return  # tmp now holds the previous version
            if os.path.isdir(target):
                os.replace(target, claim.join(_PREVIOUS))
            try:
                os.replace(tmp, target)
            except BaseException:
                if os.path.isdir(claim.join(_PREVIOUS)):
                    os.replace(claim.join(_PREVIOUS), target)
                raise

        _publish(target, swap)
