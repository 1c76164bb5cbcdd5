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
    """Base class for datasets whose batches are produced by Python code, indexed like a list.

    Subclass it with `__len__` (the number of batches per epoch) and
    `__getitem__(index)` returning one batch (`x`, `(x, y)` or
    `(x, y, sample_weight)`), and optionally `on_epoch_end` (to shuffle
    between epochs). Pass an instance to `fit`, `evaluate` or `predict` as
    `x` (not `y`). Subclasses must call `super().__init__(**kwargs)`. The
    first batch fixes the dtypes and shapes; a later batch that does not fit
    them is an error naming its index. tfkit reads the batches in order in
    the training thread (`tf.data` prefetches one ahead), so `__getitem__`
    needs no thread safety. `tfkit.utils.Sequence` is the same class
    (tf-keras's older name).

    Args:
        workers: Accepted for Keras compatibility (batches are read in the
            training thread). Defaults to `1`.
        use_multiprocessing: Accepted for Keras compatibility; no processes
            are started. Defaults to `False`.
        max_queue_size: Accepted for Keras compatibility. Defaults to `10`.

    Example:
        >>> class Batches(tfkit.utils.PyDataset):
        ...     def __init__(self, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.x, self.y = np.ones((10, 3)), np.zeros((10, 1))
        ...     def __len__(self):
        ...         return 5
        ...     def __getitem__(self, index):
        ...         rows = slice(2 * index, 2 * index + 2)
        ...         return self.x[rows], self.y[rows]
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> history = model.fit(Batches(), epochs=2, verbose=0)
        >>> len(history.history["loss"])
        2
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10) -> None:
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    @property
    def workers(self) -> int:
        """The `workers` argument (unused by tfkit)."""
        return getattr(self, "_workers", 1)

    @property
    def use_multiprocessing(self) -> bool:
        """The `use_multiprocessing` argument (unused by tfkit)."""
        return getattr(self, "_use_multiprocessing", False)

    @property
    def max_queue_size(self) -> int:
        """The `max_queue_size` argument (unused by tfkit)."""
        return getattr(self, "_max_queue_size", 10)

    def __len__(self) -> int:
        """The number of batches per epoch; subclasses must define it."""
        raise NotImplementedError(f"{type(self).__name__} must define __len__ (the number of batches per epoch)")

    def __getitem__(self, index: int) -> Any:
        """Returns batch number `index`; subclasses must define it."""
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(index) returning one batch")

    def on_epoch_end(self) -> None:
        """Called at the end of each epoch; override it to shuffle your indices."""

    @property
    def num_batches(self) -> int:
        """The number of batches per epoch (`len(self)`)."""
        return len(self)


Sequence = PyDataset  # tf-keras's older name
