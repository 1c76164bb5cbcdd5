"""Locks the kernel drops when their holder dies: who is saving, told without process ids.

    with exclusive("ckpt"):              # one tfkit publisher in ckpt/ at a time
        os.replace("ckpt/w.tmp-.../new.index", "ckpt/w.index")
    with shared("ckpt"):                 # a reader sees no publish half done
        read("ckpt/w")

``flock(2)`` on the folder itself, opened read-only: no lock file is ever
created, so a reader writes nothing, and a process that is killed releases
its locks with its open files. The kernel keeps one lock table per file
system object, so processes in different PID namespaces (two containers on
one volume) see each other's locks where they could not see each other's
process ids. Each call opens its own descriptor: two threads of one process
exclude each other too.

Where the file system refuses ``flock`` on a folder (NFS turns it into a
POSIX lock, which needs a file open for writing) or the platform has none,
the context yields False and nothing is locked: callers then skip what needs
proof that another process is gone, such as removing its temporary files.
"""

from __future__ import annotations

import contextlib
import errno
import os
from typing import Iterator

try:
    import fcntl
except ImportError:  # Windows: no flock; saves stay atomic, concurrent ones are not serialised
    fcntl = None

# flock cannot be had here: the file system or the platform has no such lock.
_UNSUPPORTED = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EBADF, errno.EINVAL, errno.ENOSYS}
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _open(path: str) -> int | None:
    try:
        return os.open(path, _OPEN_FLAGS)
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.EPERM):
            return None
        raise


@contextlib.contextmanager
def _locked(folder: str, operation: int) -> Iterator[bool]:
    if fcntl is None:
        yield False
        return
    fd = _open(folder)
    if fd is None:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, operation)
        except OSError as error:
            if error.errno not in _UNSUPPORTED:
                raise
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the only descriptor releases the lock


def exclusive(folder: str) -> contextlib.AbstractContextManager[bool]:
    """Hold ``folder`` alone (waits for other holders); yields whether the lock is held."""
    return _locked(folder, fcntl.LOCK_EX if fcntl else 0)


def shared(folder: str) -> contextlib.AbstractContextManager[bool]:
    """Hold ``folder`` beside other readers, excluding :func:`exclusive` holders; yields whether it is held."""
    return _locked(folder, fcntl.LOCK_SH if fcntl else 0)


class Held:
    """An exclusive lock on one folder, kept until :meth:`release` (or the process's death).

    held = Held.take("m.h5.tmp-9f...")     # None: the folder is gone or locking is unsupported
    ...
    held.release()
    """

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def take(cls, folder: str, wait: bool = True) -> Held | None:
        """Lock ``folder``; None where it is gone, where it cannot be locked, or (``wait=False``) it is held."""
        if fcntl is None:
            return None
        fd = _open(folder)
        if fd is None:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError as error:
            os.close(fd)
            if error.errno in _UNSUPPORTED or error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return None
            raise
        return cls(fd)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
