"""``PyDataset``: batches produced by Python code, indexed like a list (Keras's ``keras.utils.PyDataset``).

    class Batches(tfkit.utils.PyDataset):
        def __len__(self): return 10
        def __getitem__(self, index): return x[index * 32:(index + 1) * 32], y[index * 32:(index + 1) * 32]
    model.fit(Batches(), epochs=3)          # __getitem__(0..9) each epoch, then on_epoch_end()
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf


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


def as_dataset(source: PyDataset) -> tuple[tf.data.Dataset, int]:
    """``(tf.data.Dataset, batches per epoch)``: each pass reads ``source[0..len-1]``.

    ``source.on_epoch_end()`` is not called from the pass: the trainer calls it when an
    epoch ends (``DatasetData.end_epoch``), so it runs exactly once per epoch even when
    the epoch stops before the generator is exhausted.
    """
    count = len(source)
    if not isinstance(count, int) or count <= 0:
        raise ValueError(f"{type(source).__name__}.__len__() must return a positive int, got {count!r}")
    first = _as_tuple(source[0])

    def spec(value: Any) -> tf.TensorSpec:
        t = tf.convert_to_tensor(value)
        if t.dtype == tf.float64:
            t = tf.cast(t, tf.float32)
        return tf.TensorSpec((None, *t.shape[1:]), t.dtype)

    signature = tf.nest.map_structure(spec, first)

    def one_pass() -> Any:
        for index in range(count):
            batch = _as_tuple(source[index])
            yield tf.nest.map_structure(lambda v, s: np.asarray(v).astype(s.dtype.as_numpy_dtype, copy=False),
                                        batch, signature)

    dataset = tf.data.Dataset.from_generator(one_pass, output_signature=signature)
    return dataset.apply(tf.data.experimental.assert_cardinality(count)), count


def _as_tuple(batch: Any) -> tuple:
    if isinstance(batch, tuple):
        return batch
    if isinstance(batch, list) and len(batch) in (2, 3):
        return tuple(batch)
    return (batch,)
