"""``PyDataset``: batches produced by Python code, indexed like a list (Keras's ``keras.utils.PyDataset``).

    class Batches(tfkit.utils.PyDataset):
        def __len__(self): return 10
        def __getitem__(self, index): return x[index * 32:(index + 1) * 32], y[index * 32:(index + 1) * 32]
    model.fit(Batches(), epochs=3)          # __getitem__(0..9) each epoch, then on_epoch_end()

``fit`` reads it through ``tfkit.training.python_batches.py_dataset_dataset``: the first
batch fixes the dtypes and shapes, and a later batch that does not fit them is
an error naming its index (float labels after integer ones are not truncated).
"""

from __future__ import annotations

from typing import Any


class PyDataset:
    """Subclass it with ``__len__`` (batches per epoch) and ``__getitem__(index)`` returning one batch.

    ``workers``, ``use_multiprocessing`` and ``max_queue_size`` are accepted for
    Keras compatibility; tfkit reads batches in order in the training thread
    (tf.data prefetches one ahead), so ``__getitem__`` needs no thread safety.
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10) -> None:
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    @property
    def workers(self) -> int:
        return getattr(self, "_workers", 1)

    @property
    def use_multiprocessing(self) -> bool:
        return getattr(self, "_use_multiprocessing", False)

    @property
    def max_queue_size(self) -> int:
        return getattr(self, "_max_queue_size", 10)

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__ (the number of batches per epoch)")

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(index) returning one batch")

    def on_epoch_end(self) -> None:
        """Called after each full pass (shuffle your indices here)."""

    @property
    def num_batches(self) -> int:
        return len(self)


Sequence = PyDataset   # tf-keras's older name
