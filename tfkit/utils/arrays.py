"""Small array utilities with Keras's names: one-hot labels, padded sequences, normalized rows.

y = tfkit.utils.to_categorical([0, 2, 1], num_classes=3)
x = tfkit.utils.pad_sequences([[1, 2], [3]], maxlen=4)        # [[0 0 1 2] [0 0 0 3]]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit import ops
from tfkit.base.symbolic import SymbolicTensor


def to_categorical(x: Any, num_classes: int | None = None) -> np.ndarray:
    """Converts a class vector (integers) to a binary class matrix (one-hot rows).

    A trailing axis of size 1 is dropped first, as in Keras, so labels of
    shape `(n, 1)` give `(n, num_classes)`.

    Args:
        x: Array-like of non-negative integer class labels, of any shape.
        num_classes: Total number of classes. Defaults to `None` (the
            largest label plus one).

    Returns:
        A float32 NumPy array of shape `x.shape + (num_classes,)`.

    Raises:
        ValueError: If a label is negative or not below `num_classes`.

    Example:
        >>> tfkit.utils.to_categorical([0, 2, 1], num_classes=3)
        array([[1., 0., 0.],
               [0., 0., 1.],
               [0., 1., 0.]], dtype=float32)
    """
    labels = np.asarray(x, dtype="int64")
    shape = labels.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    labels = labels.ravel()
    if labels.size and labels.min() < 0:
        raise ValueError(f"to_categorical expects non-negative integer labels, got {int(labels.min())}")
    num_classes = int(labels.max()) + 1 if num_classes is None else int(num_classes)
    if labels.size and labels.max() >= num_classes:
        raise ValueError(f"to_categorical: label {int(labels.max())} is out of range for num_classes={num_classes}")
    out = np.zeros((labels.size, num_classes), dtype="float32")
    out[np.arange(labels.size), labels] = 1
    return out.reshape(*shape, num_classes)


def normalize(x: Any, axis: int = -1, order: int = 2) -> np.ndarray:
    """Normalizes an array: divides it by its norm along an axis.

    Rows whose norm is zero stay zero. Integer inputs are converted to
    float32. A tensor, or a symbolic tensor of a functional model, goes to
    `tfkit.ops.normalize` (as in Keras), which returns a tensor.

    Args:
        x: Array-like to normalize.
        axis: The axis along which to compute the norm. Defaults to `-1`.
        order: The norm order (as `np.linalg.norm`'s `ord`; 2 is the
            Euclidean norm). Defaults to `2`.

    Returns:
        A NumPy array of `x`'s shape (a tensor for a tensor).

    Example:
        >>> tfkit.utils.normalize([[3.0, 4.0], [0.0, 0.0]])
        array([[0.6, 0.8],
               [0. , 0. ]])
    """
    if isinstance(x, (tf.Tensor, tf.Variable, SymbolicTensor)):  # as Keras: tensors go to ops.normalize
        return ops.normalize(x, axis=axis, order=order)
    x = np.asarray(x, dtype="float32") if not np.issubdtype(np.asarray(x).dtype, np.floating) else np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def pad_sequences(
    sequences: Sequence[Sequence[Any]],
    maxlen: int | None = None,
    dtype: str = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: float = 0.0,
) -> np.ndarray:
    """Pads sequences to the same length.

    Each sequence is padded with `value` (or truncated) to `maxlen`, at the
    start (`"pre"`) or the end (`"post"`). Sequences of vectors keep their
    sample shape.

    Args:
        sequences: A list of sequences (lists or arrays).
        maxlen: The length of every output sequence. Defaults to `None` (the
            longest sequence's length).
        dtype: The output's dtype. Defaults to `"int32"`.
        padding: `"pre"` or `"post"`: where to pad. Defaults to `"pre"`.
        truncating: `"pre"` or `"post"`: where to cut sequences longer than
            `maxlen`. Defaults to `"pre"`.
        value: The padding value. Defaults to `0.0`.

    Returns:
        A NumPy array of shape `(len(sequences), maxlen, ...)`.

    Raises:
        ValueError: If `padding` or `truncating` is not `"pre"` or
            `"post"`, or `sequences` has no length.

    Example:
        >>> tfkit.utils.pad_sequences([[1, 2], [3]], maxlen=4)
        array([[0, 0, 1, 2],
               [0, 0, 0, 3]], dtype=int32)
        >>> tfkit.utils.pad_sequences([[1, 2, 3], [4]], maxlen=2, padding="post", truncating="post")
        array([[1, 2],
               [4, 0]], dtype=int32)
    """
    if padding not in ("pre", "post") or truncating not in ("pre", "post"):
        raise ValueError(
            f"pad_sequences: padding and truncating must be 'pre' or 'post', got {padding!r}, {truncating!r}"
        )
    if not hasattr(sequences, "__len__"):
        raise ValueError("pad_sequences expects a list of sequences")
    lengths = [len(s) for s in sequences]
    maxlen = max(lengths, default=0) if maxlen is None else int(maxlen)
    sample_shape = ()
    for s in sequences:
        if len(s):
            sample_shape = np.asarray(s).shape[1:]
            break
    out = np.full((len(sequences), maxlen, *sample_shape), value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s) or maxlen == 0:
            continue
        trunc = np.asarray(s[-maxlen:] if truncating == "pre" else s[:maxlen], dtype=dtype)
        if padding == "post":
            out[i, : len(trunc)] = trunc
        else:
            out[i, -len(trunc) :] = trunc
    return out
