"""Tracing a compiled function on a helper thread while the main thread runs other compiled calls.

    ahead = TraceAhead(lambda: loop.get_concrete_function(*args))
    ...                  # the main thread runs its compiled steps meanwhile
    ahead.wait()         # before the first call of ``loop``: its trace is ready

TensorFlow releases the GIL while it executes a compiled call, so a trace (Python
work) made on another thread overlaps the main thread's steps instead of adding to
the epoch. The trainer uses it for an epoch's short last batch, whose function (a
static batch size of its own) would otherwise be traced only when that batch comes,
a full trace at the end of the first epoch. It starts only when no callback runs
code between batches, so nothing else touches the model while the trace runs.
An iterator epoch's first loop is traced the same way while the main thread
creates the ``tf.data`` iterator (a dataset's optimization and set-up, C++ work
that releases the GIL).
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import tensorflow as tf
from tensorflow.python.eager import context


class TraceAhead:
    """Runs ``work`` (a trace) on a daemon thread; ``wait`` joins it; ``seconds`` is how long the work took.

    The work runs under the caller's device scope (TensorFlow keeps it per thread).
    """

    def __init__(self, work: Callable[[], object]) -> None:
        self.seconds = 0.0
        device = context.context().device_name
        self._thread = threading.Thread(target=self._run, args=(work, device), name="tfkit-trace-ahead", daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[], object], device: str | None) -> None:
        start = time.perf_counter()
        try:
            with tf.device(device):
                work()
        except Exception:  # noqa: BLE001 - the main thread calls the function itself and raises the real error
            pass
        self.seconds = time.perf_counter() - start

    def wait(self) -> None:
        self._thread.join()
