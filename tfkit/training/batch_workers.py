"""A ``PyDataset``'s batches read ahead by worker threads or processes, in index order (Keras 3's enqueuer).

    settings = WorkerSettings.of(batches, "the PyDataset Batches passed as x")
    for index, batch in read_in_order(batches, range(len(batches)), settings):
        ...                                   # batch 0, 1, 2 ... as batches[index] returns them

Keras 3 reads a ``PyDataset`` in a pool when its ``workers`` is above 1, or above 0
with ``use_multiprocessing=True``: threads, or processes; at most ``max_queue_size``
batches are requested ahead of the one the step takes. Otherwise the batches are read
where they are consumed. A pool lives for one pass over the data (one epoch), so
processes, started then, see what ``on_epoch_end`` changed (shuffled indices). Processes
start by the platform's default method, as Keras's do: forked (nothing pickled) on Linux,
spawned (the dataset pickled) elsewhere. Unlike Keras's ``multiprocessing.Pool``, a worker
process that dies is an error (``BrokenProcessPool``), not a wait that never ends.
"""

from __future__ import annotations

import collections
import concurrent.futures
import operator
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

_SOURCE: Any = None  # in a worker process: the dataset it reads, set by the pool's initializer


def _start_worker(source: Any) -> None:
    global _SOURCE
    _SOURCE = source


def _read(index: int) -> Any:
    return _SOURCE[index]


@dataclass(frozen=True)
class WorkerSettings:
    """How a dataset's batches are read: Keras 3 ``PyDataset``'s ``workers``, ``use_multiprocessing`` and
    ``max_queue_size`` (1, False and 10 where the object has none, as a tf-keras ``Sequence``)."""

    workers: int = 1
    use_multiprocessing: bool = False
    max_queue_size: int = 10

    @classmethod
    def of(cls, source: Any, label: str) -> "WorkerSettings":
        """The settings ``source`` holds; ``ValueError`` naming ``label`` and the attribute for a bad one."""
        values = {}
        for name, default in (("workers", 1), ("max_queue_size", 10)):
            value = getattr(source, name, default)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{label}: {name} must be a non-negative integer, got {value!r}")
            values[name] = value
        return cls(values["workers"], bool(getattr(source, "use_multiprocessing", False)), values["max_queue_size"])

    @property
    def pooled(self) -> bool:
        """Whether a pool reads the batches (Keras's rule: ``workers > 1``, or ``workers > 0`` and processes)."""
        return self.workers > 1 or (self.workers > 0 and self.use_multiprocessing)


def read_in_order(
    source: Any, indices: Iterable[int], settings: WorkerSettings, count: int | None = None
) -> Iterator[tuple[int, Any]]:
    """``(index, source[index])`` for each index in turn, read by ``settings``'s workers when it has a pool.

    ``count`` is the number of indices (``None``: endless); it bounds the reading ahead when
    ``max_queue_size`` is 0, which Keras takes as no bound. The pool stops when the
    iteration ends or is abandoned (the generator closed).
    """
    if not settings.pooled:
        for index in indices:
            yield index, source[index]
        return
    if settings.use_multiprocessing:
        pool: concurrent.futures.Executor = concurrent.futures.ProcessPoolExecutor(
            settings.workers, initializer=_start_worker, initargs=(source,)
        )

        def submit(index: int) -> concurrent.futures.Future:
            return pool.submit(_read, index)
    else:
        pool = concurrent.futures.ThreadPoolExecutor(settings.workers, thread_name_prefix="py_dataset_worker")

        def submit(index: int) -> concurrent.futures.Future:
            return pool.submit(operator.getitem, source, index)

    ahead = settings.max_queue_size or count or settings.workers
    pending: collections.deque = collections.deque()
    finished = False
    try:
        for index in indices:
            pending.append((index, submit(index)))
            if len(pending) >= ahead:
                index, future = pending.popleft()
                yield index, future.result()
        while pending:
            index, future = pending.popleft()
            yield index, future.result()
        finished = True
    finally:
        pool.shutdown(wait=finished, cancel_futures=not finished)
