"""``split_dataset``: cut arrays, tuples/lists/dicts of arrays or a finite ``tf.data.Dataset`` in two datasets.

    train, test = tfkit.utils.split_dataset((x, y), left_size=0.8, shuffle=True, seed=1)
    int(train.cardinality())   # 80 of 100 samples; test holds the other 20
    left, right = tfkit.utils.split_dataset(dataset.batch(32), right_size=100)   # batched again by 32

Keras 3's arguments, sizes, errors and order: an int size counts samples, a
float in (0, 1) is a fraction (rounded); the missing side is the rest; the left
split is the first ``left_size`` samples and the right split the last
``right_size`` (samples in between, when both sizes are given, are in
neither). ``shuffle`` permutes the samples first, with the permutation Keras
draws for the same ``seed`` (Python's ``random``, on a generator of its own).
Both splits are ``tf.data.Dataset``s of the samples; a dataset that ends in
``batch`` is split by sample and batched again with its batch size. A dict of
arrays (not accepted by Keras) is split like a tuple.
"""

from __future__ import annotations

import numbers
import random
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.utils import dataset_format

_SEQUENCE_KINDS = {list: "list", tuple: "tuple", dict: "dict"}


def _as_array(value: Any, where: str) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, tf.Tensor):
        return value.numpy()
    raise ValueError(f"Expected a {where} of `numpy.ndarray` objects, Received: {type(value).__name__}.")


def _columns(dataset: Any) -> tuple[Any, int, int | None]:
    """``(structure of numpy arrays, number of samples, batch size to restore)`` for any accepted dataset."""
    if isinstance(dataset, np.ndarray):
        if dataset.ndim == 0:
            raise ValueError("Received a 0-d array as `dataset`: there are no samples to split.")
        return dataset, len(dataset), None
    kind = _SEQUENCE_KINDS.get(type(dataset))
    if kind is not None:
        if not dataset:
            raise ValueError(f"Received an empty {kind} dataset. Please provide a non-empty {kind} of arrays.")
        items = dataset.items() if kind == "dict" else enumerate(dataset)
        arrays = {key: _as_array(value, f"{kind}") for key, value in items}
        lengths = {key: (len(a) if a.ndim else None) for key, a in arrays.items()}
        first_key = next(iter(arrays))
        for key, length in lengths.items():
            if length != lengths[first_key]:
                raise ValueError(
                    f"Received a {kind} of NumPy arrays with different lengths. Mismatch found at "
                    f"{'key' if kind == 'dict' else 'index'} {key!r}: expected shape={arrays[first_key].shape}, "
                    f"received shape={arrays[key].shape}. Please provide a {kind} of NumPy arrays of the same length."
                )
        if lengths[first_key] is None:
            raise ValueError(f"Received a {kind} of 0-d arrays as `dataset`: there are no samples to split.")
        structure = arrays if kind == "dict" else tuple(arrays.values())  # tf.data wants tuples, as in Keras
        return structure, lengths[first_key], None
    if isinstance(dataset, tf.data.Dataset):
        return _dataset_columns(dataset)
    raise TypeError(
        "The `dataset` argument must be either a `tf.data.Dataset` object, or a list/tuple of arrays "
        f"(tfkit also takes a dict of arrays). Received: dataset={str(dataset)[:100]} of type "
        f"{type(dataset)}"
    )


def _dataset_columns(dataset: tf.data.Dataset) -> tuple[Any, int, int | None]:
    if dataset.cardinality() == tf.data.INFINITE_CARDINALITY:
        raise ValueError(
            "Received an infinite `dataset` (it repeats forever): split_dataset needs a finite one; "
            "split it before `.repeat()`."
        )
    batch_size = getattr(dataset, "_batch_size", None)  # as Keras: a dataset whose last step is `batch`
    if batch_size is not None:
        dataset = dataset.unbatch()
        batch_size = int(batch_size)
    samples = [tf.nest.map_structure(lambda t: t.numpy(), element) for element in dataset]
    if not samples:
        raise ValueError(
            "Received an empty dataset. Argument `dataset` must be a non-empty list/tuple of "
            "`numpy.ndarray` objects or `tf.data.Dataset` objects."
        )
    flat = [tf.nest.flatten(sample) for sample in samples]
    columns = []
    for position in range(len(flat[0])):
        shape = np.shape(flat[0][position])
        for index, sample in enumerate(flat):
            if np.shape(sample[position]) != shape:
                raise ValueError(
                    f"All `dataset` samples must have same shape, Expected shape: {shape} Received "
                    f"shape: {np.shape(sample[position])} at index {index}."
                )
        columns.append(np.stack([sample[position] for sample in flat]))
    return tf.nest.pack_sequence_as(samples[0], columns), len(samples), batch_size


def _size(value: Any, name: str) -> Any:
    if value is None or isinstance(value, bool):
        return value if value is None else _bad_type(value, name)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return _bad_type(value, name)


def _bad_type(value: Any, name: str) -> None:
    raise TypeError(f"Invalid `{name}` Type. Expected: int or float or None, Received: type({name})={type(value)}.")


def _split_sizes(left_size: Any, right_size: Any, total: int) -> tuple[int, int]:
    """Keras's rules: the sizes as sample counts, or its errors."""
    left_size, right_size = _size(left_size, "left_size"), _size(right_size, "right_size")
    if left_size == 0 and right_size == 0:
        raise ValueError(
            "Both `left_size` and `right_size` are zero. At least one of the split sizes must be non-zero."
        )
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if isinstance(size, int) and not 0 < size < total or isinstance(size, float) and not 0 < size < 1:
            raise ValueError(
                f"`{name}` should be either a positive integer smaller than {total}, or a float "
                f"within the range `[0, 1]`. Received: {name}={size}"
            )
    if isinstance(left_size, float) and isinstance(right_size, float) and left_size + right_size > 1:
        raise ValueError(
            "The sum of `left_size` and `right_size` is greater than 1. It must be less than or equal to 1."
        )
    left = round(left_size * total) if isinstance(left_size, float) else left_size
    right = round(right_size * total) if isinstance(right_size, float) else right_size
    left = total - right if left is None else left
    right = total - left if right is None else right
    if left + right > total:
        raise ValueError(
            f"The sum of `left_size` and `right_size` should be smaller than the {total}. Received: "
            f"left_size + right_size = {left + right} and total_length = {total}"
        )
    for side, count in (("left", left), ("right", right)):
        if count == 0:
            raise ValueError(
                f"With `dataset` of length={total}, `left_size`={left} and `right_size`={right}. "
                f"Resulting {side} side dataset split will be empty. Adjust any of the aforementioned "
                "parameters"
            )
    return int(left), int(right)


def split_dataset(
    dataset: Any,
    left_size: int | float | None = None,
    right_size: int | float | None = None,
    shuffle: bool = False,
    seed: int | None = None,
    preferred_backend: str | None = None,
) -> tuple[tf.data.Dataset, tf.data.Dataset]:
    """Splits a dataset into a left and a right `tf.data.Dataset` (for example train and test).

    The left split is the first `left_size` samples and the right split the
    last `right_size` (samples in between, when both sizes are given, are in
    neither). `shuffle` permutes the samples first, with the permutation
    Keras draws for the same `seed`. A dataset that ends in `batch` is split
    by sample and each split is batched again with its batch size. A dict of
    arrays (not accepted by Keras) is split like a tuple.

    Args:
        dataset: A NumPy array, a list, tuple or dict of arrays of the same
            length, or a finite `tf.data.Dataset`.
        left_size: Number of samples (int) or fraction in (0, 1) (float,
            rounded) of the left split. Defaults to `None`: what the right
            one leaves.
        right_size: Number of samples (int) or fraction (float) of the right
            split. Defaults to `None`: what the left one leaves.
        shuffle: Whether to shuffle the samples before splitting. Defaults to
            `False`.
        seed: Optional shuffling seed (a random one when `None`). Defaults to
            `None`.
        preferred_backend: `None` or `"tensorflow"` (Keras's other backends'
            datasets do not apply to tfkit). Defaults to `None`.

    Returns:
        A tuple of two `tf.data.Dataset` objects, `(left, right)`.

    Raises:
        ValueError: If both sizes are `None`, the sizes do not fit the
            number of samples, the arrays differ in length, or the dataset is
            empty or infinite.

    Example:
        >>> x, y = np.arange(10).reshape(10, 1), np.arange(10)
        >>> train, test = tfkit.utils.split_dataset((x, y), left_size=0.8)
        >>> int(train.cardinality()), int(test.cardinality())
        (8, 2)
        >>> [int(label) for _, label in test]
        [8, 9]
    """
    dataset_format.check_backend(preferred_backend, "split_dataset")
    if left_size is None and right_size is None:
        raise ValueError(
            "At least one of the `left_size` or `right_size` must be specified. Received: "
            "left_size=None and right_size=None"
        )
    columns, total, batch_size = _columns(dataset)
    left, right = _split_sizes(left_size, right_size, total)
    order = list(range(total))
    if shuffle:
        random.Random(random.randint(0, int(1e6)) if seed is None else seed).shuffle(order)
    pieces = []
    for indices in (order[:left], order[total - right :]):
        taken = tf.nest.map_structure(lambda column: np.take(column, indices, axis=0), columns)
        piece = tf.data.Dataset.from_tensor_slices(taken)
        if batch_size is not None:
            piece = piece.batch(batch_size)
        pieces.append(piece.prefetch(tf.data.AUTOTUNE))
    return pieces[0], pieces[1]
