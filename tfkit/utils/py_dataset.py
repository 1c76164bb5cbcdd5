"""``PyDataset``: batches produced by Python code, indexed like a list (Keras's ``keras.utils.PyDataset``).

    class Batches(tfkit.utils.PyDataset):
        def __len__(self): return 10
        def __getitem__(self, index): return x[index * 32:(index + 1) * 32], y[index * 32:(index + 1) * 32]
    model.fit(Batches(), epochs=3)          # __getitem__(0..9) each epoch, then on_epoch_end()

``fit`` takes any object of this shape, by protocol (``is_py_dataset``): Keras 3's
``keras.utils.PyDataset`` subclasses (imbalanced-learn's ``BalancedBatchGenerator``),
tf-keras's ``Sequence`` and plain classes with ``__len__`` and ``__getitem__``. It reads
them through ``tfkit.training.python_batches.py_dataset_dataset``: the first batch fixes
the dtypes and shapes, and a later batch that does not fit them is an error naming its
index (float labels after integer ones are not truncated).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import tensorflow as tf


class PyDataset:
    """Base class for datasets whose batches are produced by Python code, indexed like a list.

    Subclass it with `__len__` (the number of batches per epoch) and
    `__getitem__(index)` returning one batch (`x`, `(x, y)` or
    `(x, y, sample_weight)`), and optionally `on_epoch_begin` and
    `on_epoch_end` (to shuffle between epochs). Pass an instance to `fit`,
    `evaluate` or `predict` as `x` (not `y`). Subclasses must call
    `super().__init__(**kwargs)`. The first batch fixes the dtypes and
    shapes; a later batch that does not fit them is an error naming its
    index. `tfkit.utils.Sequence` is the same class (tf-keras's older name).

    As in Keras 3, `workers` and `use_multiprocessing` say how `fit` reads
    the batches: in the training thread (the default, so `__getitem__` needs
    no thread safety), in `workers` threads when `workers > 1`, or in
    `workers` processes when `use_multiprocessing=True` (then the dataset is
    copied into each process, forked at the start of each epoch, so the
    processes see what `on_epoch_end` changed). Batches always arrive in
    index order. `fit` takes any object of this shape, not only subclasses:
    Keras's own `keras.utils.PyDataset` (imbalanced-learn's
    `BalancedBatchGenerator`, for one) and tf-keras's `Sequence` work as they
    are.

    Args:
        workers: Number of threads (or processes) reading batches ahead of
            the training step. `1` reads them in the training thread (or in
            one process with `use_multiprocessing=True`); `0` always in the
            training thread. Defaults to `1`.
        use_multiprocessing: Whether the `workers` are processes (the
            dataset must then be safe to copy into them, and picklable
            where processes are spawned rather than forked) instead of
            threads. Defaults to `False`.
        max_queue_size: The most batches requested ahead of the one the
            training step takes, when `workers` read them. Defaults to `10`.

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
        >>> history = model.fit(Batches(workers=2), epochs=1, verbose=0)  # read by two threads
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10) -> None:
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    @property
    def workers(self) -> int:
        """The number of threads (or processes) that read batches ahead (see the class)."""
        return getattr(self, "_workers", 1)

    @workers.setter
    def workers(self, value: int) -> None:
        self._workers = value

    @property
    def use_multiprocessing(self) -> bool:
        """Whether the `workers` are processes rather than threads."""
        return getattr(self, "_use_multiprocessing", False)

    @use_multiprocessing.setter
    def use_multiprocessing(self, value: bool) -> None:
        self._use_multiprocessing = value

    @property
    def max_queue_size(self) -> int:
        """The most batches the `workers` request ahead of the training step."""
        return getattr(self, "_max_queue_size", 10)

    @max_queue_size.setter
    def max_queue_size(self, value: int) -> None:
        self._max_queue_size = value

    def __len__(self) -> int:
        """The number of batches per epoch; subclasses must define it."""
        raise NotImplementedError(f"{type(self).__name__} must define __len__ (the number of batches per epoch)")

    def __getitem__(self, index: int) -> Any:
        """Returns batch number `index`; subclasses must define it."""
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(index) returning one batch")

    def on_epoch_begin(self) -> None:
        """Called at the start of each epoch (and of each `evaluate` or `predict` pass)."""

    def on_epoch_end(self) -> None:
        """Called at the end of each epoch; override it to shuffle your indices."""

    @property
    def num_batches(self) -> int | None:
        """The number of batches per epoch (`len(self)`); `None` for an endless dataset (then pass `steps_per_epoch`)."""
        return len(self)


Sequence = PyDataset  # tf-keras's older name

_CONTAINERS = (str, bytes, bytearray, list, tuple, dict, range, Mapping, np.ndarray, np.generic, tf.data.Dataset)


def is_py_dataset(x: Any) -> bool:
    """Whether `fit`, `evaluate` and `predict` read `x` as a `PyDataset`: by its methods, not its class.

    Keras 3 takes `keras.utils.PyDataset` subclasses, tf-keras takes
    `keras.utils.Sequence` ones; tfkit takes any object with their shape: a
    `__getitem__(index)` returning one batch, and `__len__` or a
    `num_batches` property counting the batches of an epoch. `on_epoch_begin`,
    `on_epoch_end` and Keras 3's `workers`, `use_multiprocessing` and
    `max_queue_size` are used when present. Arrays and array-likes (anything
    with a `shape` and a `dtype`, or `__array__`), tensors, `tf.data`
    datasets, strings, lists, tuples and dicts are data, never a `PyDataset`.

    Args:
        x: The object passed as `x` (or `validation_data`).

    Returns:
        `True` if `x` is read batch by batch through `x[index]`.

    Example:
        >>> class Batches:
        ...     def __len__(self):
        ...         return 2
        ...     def __getitem__(self, index):
        ...         return np.ones((4, 3)), np.zeros((4, 1))
        >>> from tfkit.utils.py_dataset import is_py_dataset
        >>> is_py_dataset(Batches()), is_py_dataset([np.ones(3)]), is_py_dataset(np.ones((4, 3)))
        (True, False, False)
    """
    if isinstance(x, PyDataset):
        return True
    if isinstance(x, _CONTAINERS) or tf.is_tensor(x):
        return False
    kind = type(x)
    if not hasattr(kind, "__getitem__") or not (hasattr(kind, "__len__") or hasattr(kind, "num_batches")):
        return False
    array_like = hasattr(x, "__array__") or hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__")
    return not array_like and not (hasattr(x, "shape") and hasattr(x, "dtype"))
