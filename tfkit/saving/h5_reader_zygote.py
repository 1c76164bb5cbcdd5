"""A reader zygote: one waiting process that forks a fresh, limited HDF5 reader per load.

    served = run_reader(script, env, path, limits, data_paths, timeout)   # (returncode, output) or None
    # the first call starts the zygote (~0.15 s: Python, h5py, numpy); later ones fork (a few ms)

Starting ``h5_reader_child.py`` costs a Python start and the h5py and numpy imports on every
load; the zygote pays them once. It never opens a file: each request forks a child that sets the
memory and CPU limits, parses the one file, writes its result into a pipe this process reads, and
exits; no child is reused after seeing a file. The zygote is restarted when this process's
environment or resource limits changed since it started (a reader sees the limits its caller
has), and any trouble with it (it cannot start, died, answered nonsense, another thread is using
it) falls back to the one-shot child, which gives the same result. ``TFKIT_H5_ZYGOTE=0`` turns it
off. It ends when this process closes its socket (at exit, or :func:`stop`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from typing import Any

_DISABLE_ENV = "TFKIT_H5_ZYGOTE"
_REPLY_MARGIN_SECONDS = 5.0  # the zygote kills the child at the timeout; this covers its answer


def _inherited_limits() -> tuple:
    import resource  # noqa: PLC0415 - POSIX only; enabled() rules the others out first

    kinds = [
        getattr(resource, name)
        for name in ("RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CPU")
        if hasattr(resource, name)
    ]
    return tuple(resource.getrlimit(kind) for kind in kinds)


class _Zygote:
    def __init__(self, script: str, env: dict[str, str]) -> None:
        self.key = (tuple(sorted(env.items())), _inherited_limits())
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", script, "--serve"],
                stdin=theirs.fileno(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )
        finally:
            theirs.close()
        self.channel = mine

    def usable(self, key: tuple) -> bool:
        return self.key == key and self.process.poll() is None

    def read(self, request: dict[str, Any], timeout: float) -> tuple[int, bytes]:
        """Send the request with a fresh pipe; read the child's output to its end, then the zygote's answer."""
        readable, writable = os.pipe()
        try:
            socket.send_fds(self.channel, [json.dumps(request).encode("utf-8")], [writable])
        finally:
            os.close(writable)
        deadline = time.monotonic() + timeout + _REPLY_MARGIN_SECONDS
        chunks = []
        with open(readable, "rb", buffering=0) as pipe:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([pipe], [], [], left)[0]:
                    raise TimeoutError("the reader zygote's child neither finished nor was stopped")
                chunk = pipe.read(1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        left = max(0.0, deadline - time.monotonic())
        if not select.select([self.channel], [], [], left)[0]:
            raise TimeoutError("the reader zygote did not answer")
        reply = json.loads(self.channel.recv(1 << 12) or b"null")
        if not isinstance(reply, dict):
            raise OSError("the reader zygote ended or answered nonsense")
        if reply.get("timeout"):
            raise subprocess.TimeoutExpired("h5_reader_child", timeout)
        code = reply.get("returncode")
        if not isinstance(code, int) or isinstance(code, bool):
            raise OSError("the reader zygote answered nonsense")
        return code, b"".join(chunks)

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.channel.close()
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_lock = threading.Lock()
_zygote: _Zygote | None = None


def stop() -> None:
    """End the zygote (the next load starts another)."""
    global _zygote
    with _lock:
        if _zygote is not None:
            _zygote.stop()
            _zygote = None


atexit.register(stop)


def enabled() -> bool:
    return (
        os.environ.get(_DISABLE_ENV, "1").strip() != "0"
        and hasattr(os, "fork")
        and hasattr(socket, "send_fds")
        and sys.platform.startswith("linux")
    )


def run_reader(
    script: str, env: dict[str, str], path: str, limits: dict[str, Any], data_paths: list[str], timeout: float
) -> tuple[int, bytes] | None:
    """``(returncode, output)`` of one reader forked by the zygote, or None when the zygote cannot serve
    (the caller runs the one-shot child). A reader past ``timeout`` raises ``subprocess.TimeoutExpired``."""
    global _zygote
    if not enabled() or not _lock.acquire(blocking=False):
        return None
    try:
        key = (tuple(sorted(env.items())), _inherited_limits())
        if _zygote is not None and not _zygote.usable(key):
            _zygote.stop()
            _zygote = None
        if _zygote is None:
            _zygote = _Zygote(script, env)
        # The zygote keeps the working folder it started in: a relative path would name another file
        # after the caller's os.chdir.
        request = {
            "path": os.path.abspath(path),
            "limits": limits,
            "data_paths": [os.path.abspath(p) for p in data_paths],
            "timeout": timeout,
        }
        try:
            return _zygote.read(request, timeout)
        except subprocess.TimeoutExpired:
            raise
        except (OSError, ValueError, TimeoutError):
            _zygote.stop()
            _zygote = None
            return None
    except OSError:
        return None
    finally:
        _lock.release()
