"""Writing an HDF5 file so that libhdf5 never meets an I/O error: a full disk is one clean ``OSError``.

    with h5_writer.create(tmp) as f:          # an h5py.File writing through tfkit's own file object
        f.create_dataset("x", data=array)
    # a full disk or a file-size limit: OSError(ENOSPC or EFBIG) here, after libhdf5 closed normally

libhdf5 handles a failed write badly: the error surfaces in ``close`` (small
datasets and the metadata are written there), h5py's object ids are left in a
state that crashes the process at exit (SIGSEGV), and the error text is all
that says the disk was full. Here libhdf5 writes through h5py's ``fileobj``
driver into :class:`QuietFile`, which writes with plain ``os.pwrite`` and
never reports a failure to libhdf5: the first ``OSError`` is recorded, every
later write is kept in memory (so whatever libhdf5 reads back is what it
wrote, and it finishes its close as if the disk had room), and the error is
raised once the file is closed. Memory stays flat while writes succeed (each
array goes straight from the variable's copy to the disk); after a failure the
rest of that file is held in memory until the error is raised. Ctrl-C
(any signal with a Python handler) is held back while the file is open and
delivered when it is closed, so that its exception never surfaces inside a
write libhdf5 is waiting for.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Iterator

import h5py


class QuietFile:
    """A seekable binary file for h5py's ``fileobj`` driver whose writes never fail in libhdf5's sight.

    ``error`` is the first error a write, truncate or close met (None while all went well).
    """

    def __init__(self, path: str) -> None:
        # O_EXCL: the path is a fresh temporary name; never write into a file someone else made.
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        self.path = path
        self.error: Exception | None = None
        self._pos = 0
        self._size = 0
        self._kept: list[tuple[int, bytes]] = []  # (offset, data) written after the first failure

    # ----------------------------------------------------- file-object protocol
    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._pos, os.SEEK_END: self._size}[whence]
        self._pos = base + offset
        return self._pos

    def tell(self) -> int:
        return self._pos

    def write(self, data: bytes | memoryview) -> int:
        view = memoryview(data).cast("B")
        try:
            if self.error is None:
                done = 0
                while done < len(view):
                    done += os.pwrite(self._fd, view[done:], self._pos + done)
        except Exception as error:  # noqa: BLE001  ENOSPC, EFBIG, EIO ...: recorded, raised after close
            self.error = error
        if self.error is not None:
            try:
                self._kept.append((self._pos, bytes(view)))
            except MemoryError:
                pass  # read back as zeros; the save has failed anyway
        self._pos += len(view)
        self._size = max(self._size, self._pos)
        return len(view)

    def readinto(self, buffer: memoryview | bytearray) -> int:
        view = memoryview(buffer).cast("B")
        want = max(0, min(len(view), self._size - self._pos))
        got = 0
        try:
            while got < want:
                count = os.preadv(self._fd, [view[got:want]], self._pos + got)
                if count == 0:
                    break
                got += count
        except Exception:  # noqa: BLE001  what could not be read back is zeros, as in a sparse file
            pass
        view[got:] = bytes(len(view) - got)
        for offset, data in self._kept:  # writes that never reached the disk
            start, stop = max(offset, self._pos), min(offset + len(data), self._pos + len(view))
            if start < stop:
                view[start - self._pos : stop - self._pos] = data[start - offset : stop - offset]
        self._pos += len(view)
        return len(view)

    def read(self, size: int = -1) -> bytes:
        buffer = bytearray(max(0, self._size - self._pos) if size is None or size < 0 else size)
        self.readinto(buffer)
        return bytes(buffer)

    def truncate(self, size: int | None = None) -> int:
        size = self._pos if size is None else size
        if self.error is None:
            try:
                os.ftruncate(self._fd, size)
            except Exception as error:  # noqa: BLE001
                self.error = error
        self._size = size
        return size

    def flush(self) -> None:
        """Nothing is buffered here; the saver's ``fsync`` makes the file durable."""

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            try:
                os.close(fd)
            except OSError as error:
                self.error = self.error or error
        self._kept = []

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold back Python signal handlers (Ctrl-C's ``KeyboardInterrupt``) until the block ends, then run them.

    A handler's exception raised inside :class:`QuietFile`'s methods would reach libhdf5 as a failed write;
    this way it is raised when the file is closed. Only the main thread runs Python handlers, so only there
    is anything to hold back.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    saved = {}
    for number in signal.valid_signals():
        try:
            handler = signal.getsignal(number)
        except (ValueError, OSError):
            continue
        if callable(handler):
            saved[number] = handler
            signal.signal(number, lambda received, frame: caught.append(received))
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(caught):
            signal.raise_signal(number)  # the user's handler runs now (Ctrl-C: KeyboardInterrupt)


@contextlib.contextmanager
def create(path: str) -> Iterator[h5py.File]:
    """A new HDF5 file at ``path`` (which must not exist); raises the first write error after closing it.

    Signals that have Python handlers are held back while the file is open (see :func:`signals_deferred`).
    """
    with signals_deferred():
        sink = QuietFile(path)
        try:
            with h5py.File(sink, "w") as f:
                yield f
        finally:
            sink.close()
    if sink.error is not None:
        raise sink.error
