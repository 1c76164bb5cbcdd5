"""Counting and statistics of ``keras.ops`` on TensorFlow: histograms, bins, sorted search, correlation.

    import tfkit.ops as ops
    counts, edges = ops.histogram(x, bins=5)
    bucket = ops.digitize(x, [0.0, 0.5, 1.0]); where = ops.searchsorted(edges, x, side="right")

Indices and counts are int32, as in ``keras.ops`` (``unique`` lives in ``numpy_unique``). ``correlate`` is numpy's
(1-D, modes valid/same/full); ``corrcoef`` treats rows as variables;
``trapezoid`` integrates along ``axis``; ``argpartition`` returns a full stable
sort, which is one valid partition for every ``kth``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import FLOATX, operands, result_type, wide_float_type

Axis = int | Sequence[int] | None


def _static(value: Any) -> np.ndarray | None:
    """``value`` as a numpy array when it is known now (Python data, numpy, eager tensors)."""
    if tf.is_tensor(value):
        return value.numpy() if hasattr(value, "numpy") else None
    return np.asarray(value)


def histogram(x: Any, bins: int = 10,
              range: tuple[float, float] | None = None) -> tuple[tf.Tensor, tf.Tensor]:  # noqa: A002
    """Counts of ``x`` (1-D) in ``bins`` equal bins over ``range`` (default: ``x``'s min and max), and the edges."""
    if not isinstance(bins, int) or isinstance(bins, bool):
        raise TypeError(f"bins must be an int; got bins={bins!r}")
    if bins < 0:
        raise ValueError(f"bins must be a non-negative int; got bins={bins}")
    if range is not None:
        if not isinstance(range, (tuple, list)) or len(range) != 2:
            raise ValueError(f"range must be a tuple (min, max); got range={range!r}")
        if range[1] < range[0]:
            raise ValueError(f"range must have min <= max; got range={range!r}")
    x = tensor(x)
    if len(x.shape) != 1:
        raise ValueError(f"histogram needs a 1-D x; got x of shape {tuple(x.shape)}")
    counts_dtype = x.dtype if x.dtype.is_floating else tf.int32
    values = tf.cast(x, x.dtype if x.dtype.is_floating else FLOATX)
    if range is None:
        low, high = tf.reduce_min(values), tf.reduce_max(values)
        same = tf.equal(low, high)  # numpy widens an empty range to +-0.5
        low, high = tf.where(same, low - 0.5, low), tf.where(same, high + 0.5, high)
    else:
        low, high = tf.constant(range[0], values.dtype), tf.constant(range[1], values.dtype)
    edges = tf.cast(tf.linspace(tf.cast(low, tf.float64), tf.cast(high, tf.float64), bins + 1), values.dtype)
    inside = tf.boolean_mask(values, (values >= low) & (values <= high))
    index = tf.searchsorted(edges[1:-1], inside, side="right", out_type=tf.int32)
    counts = tf.math.unsorted_segment_sum(tf.ones_like(index, counts_dtype), index, bins)
    return counts, edges


def bincount(x: Any, weights: Any = None, minlength: int = 0, sparse: bool = False) -> Any:
    """How often each non-negative int occurs in ``x`` (1-D, or 2-D counted per row), optionally weighted."""
    x = tensor(x)
    if not (x.dtype.is_integer or x.dtype.is_bool):
        raise TypeError(f"bincount needs non-negative integers in x; got x of dtype {x.dtype.name}")
    if len(x.shape) not in (1, 2):
        raise ValueError(f"bincount needs a 1-D or 2-D x; got x of shape {tuple(x.shape)}")
    if not isinstance(minlength, int) or minlength < 0:
        raise ValueError(f"minlength must be a non-negative int; got minlength={minlength!r}")
    if x.dtype not in (tf.int32, tf.int64):
        x = tf.cast(x, tf.int32)
    if weights is None:
        dtype = "int32"
    else:
        weights = tensor(weights)
        dtype = result_type(x.dtype, weights.dtype)
        if weights.dtype.name not in ("int32", "int64", "float32", "float64"):
            weights = tf.cast(weights, tf.int32 if weights.dtype.is_integer or weights.dtype.is_bool else tf.float32)
    counts = tf.cast(tf.math.bincount(x, weights=weights, minlength=minlength, axis=-1), dtype)
    return tf.sparse.from_dense(counts) if sparse else counts


def digitize(x: Any, bins: Any) -> tf.Tensor:
    """The index of the bin each value of ``x`` falls in (numpy's ``digitize`` with ``right=False``)."""
    x = tensor(x)
    edges = tensor(bins)
    if len(edges.shape) != 1:
        raise ValueError(f"bins must be 1-D; got bins of shape {tuple(edges.shape)}")
    compute = "float64" if x.dtype in (tf.int64, tf.float64, tf.uint32, tf.uint64) else FLOATX
    values, edges = tf.cast(tf.reshape(x, [-1]), compute), tf.cast(edges, compute)
    known = _static(bins)
    if known is not None and known.size > 1 and np.all(np.diff(known) <= 0) and np.any(np.diff(known) < 0):
        out = tf.size(edges) - tf.searchsorted(tf.reverse(edges, [0]), values, side="left", out_type=tf.int32)
    else:
        if known is not None and known.size > 1 and np.any(np.diff(known) < 0):
            raise ValueError(f"bins must be monotonically increasing or decreasing; got bins={known.tolist()}")
        out = tf.searchsorted(edges, values, side="right", out_type=tf.int32)
    return tf.reshape(out, tf.shape(x))


def searchsorted(sorted_sequence: Any, values: Any, side: str = "left") -> tf.Tensor:
    """Where ``values`` would be inserted into the 1-D ``sorted_sequence`` to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right'; got side={side!r}")
    sequence, values = operands(sorted_sequence, values, weak_scalars=False)
    if len(sequence.shape) != 1:
        raise ValueError(f"searchsorted needs a 1-D sorted_sequence; got shape {tuple(sequence.shape)}")
    out = tf.searchsorted(sequence, tf.reshape(values, [-1]), side=side, out_type=tf.int32)
    return tf.reshape(out, tf.shape(values))


def ptp(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Peak to peak: ``max - min`` along ``axis``."""
    x = tensor(x)
    if x.dtype.is_bool:
        raise TypeError("ptp does not support bool inputs (max - min of booleans); cast x to an int first")
    axes = list(axis) if isinstance(axis, (list, tuple)) else axis
    return tf.reduce_max(x, axis=axes, keepdims=keepdims) - tf.reduce_min(x, axis=axes, keepdims=keepdims)


def corrcoef(x: Any) -> tf.Tensor:
    """Pearson correlation coefficients between the rows of ``x`` (a 1-D ``x`` is one row: 1.0)."""
    x = tensor(x)
    if len(x.shape) > 2:
        raise ValueError(f"corrcoef needs a 1-D or 2-D x; got x of shape {tuple(x.shape)}")
    x = tf.cast(x, wide_float_type(x.dtype))
    rows = tf.reshape(x, [1, -1]) if len(x.shape) < 2 else x
    centered = rows - tf.reduce_mean(rows, axis=-1, keepdims=True)
    covariance = tf.matmul(centered, centered, adjoint_b=True)
    scale = tf.sqrt(tf.math.real(tf.linalg.diag_part(covariance)))
    scale = tf.cast(scale[:, None] * scale[None, :], covariance.dtype)
    out = covariance / scale
    if out.dtype.is_complex:
        out = tf.complex(tf.clip_by_value(tf.math.real(out), -1, 1), tf.clip_by_value(tf.math.imag(out), -1, 1))
    else:
        out = tf.clip_by_value(out, -1, 1)
    return tf.reshape(out, []) if len(x.shape) < 2 else out


def correlate(x1: Any, x2: Any, mode: str = "valid") -> tf.Tensor:
    """numpy's cross-correlation of two 1-D tensors: ``c[k] = sum_n x1[n + k] * x2[n]``."""
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"mode must be 'valid', 'same' or 'full'; got mode={mode!r}")
    a, b = tensor(x1), tensor(x2)
    for name, value in (("x1", a), ("x2", b)):
        if len(value.shape) != 1:
            raise ValueError(f"correlate needs 1-D tensors; got {name} of shape {tuple(value.shape)}")
    dtype = result_type(a.dtype, b.dtype)
    dtype = "float64" if dtype == "int64" else dtype if dtype in ("bfloat16", "float16", "float64") else FLOATX
    a, b = tf.cast(a, dtype), tf.cast(b, dtype)
    n, m = tf.shape(a)[0], tf.shape(b)[0]
    padded = tf.pad(a, [[m - 1, m - 1]])
    full = tf.nn.conv1d(tf.reshape(padded, [1, -1, 1]), tf.reshape(b, [-1, 1, 1]), stride=1, padding="VALID")
    full = tf.reshape(full, [-1])
    if mode == "full":
        return full
    longest, shortest = tf.maximum(n, m), tf.minimum(n, m)
    if mode == "same":
        return tf.slice(full, [tf.where(n >= m, (m - 1) // 2, n // 2)], [longest])  # numpy's centring
    return tf.slice(full, [shortest - 1], [longest - shortest + 1])


def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> tf.Tensor:
    """The integral of ``y`` along ``axis`` by the trapezoid rule, at points ``x`` or spacing ``dx``."""
    y = tensor(y)
    y = tf.cast(y, result_type(y.dtype, float))
    rank = len(y.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of bounds for y of rank {rank}")
    y = tf.experimental.numpy.moveaxis(y, axis, -1)
    if x is None:
        spacing = tf.cast(dx, y.dtype)
    else:
        x = tf.cast(tensor(x), y.dtype)
        if len(x.shape) != 1:
            x = tf.experimental.numpy.moveaxis(x, axis, -1)
        spacing = x[..., 1:] - x[..., :-1]
    return tf.reduce_sum((y[..., 1:] + y[..., :-1]) * spacing, axis=-1) / 2


def argpartition(x: Any, kth: int, axis: int | None = -1) -> tf.Tensor:
    """Indices that put the ``kth`` element where a sort would, smaller ones before it and larger after."""
    if not isinstance(kth, (int, np.integer)) or isinstance(kth, bool):
        raise ValueError(f"kth must be an int; got kth={kth!r}")
    x = tensor(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of bounds for a tensor of rank {rank}")
    length = x.shape[axis]
    if length is not None and not -length <= kth < length:
        raise ValueError(f"kth={kth} is out of bounds for an axis of length {length}")
    if x.dtype.is_bool:
        x = tf.cast(x, tf.int32)
    return tf.argsort(x, axis=axis, stable=True)


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
