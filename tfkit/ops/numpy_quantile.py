"""Quantiles of ``keras.ops`` on TensorFlow: ``quantile``, ``percentile``, ``median`` and their NaN-skipping twins.

    import tfkit.ops as ops
    q = ops.quantile(x, [0.25, 0.5, 0.75], axis=-1)      # shape (3,) + x.shape[:-1]
    m = ops.nanmedian(x, axis=0, keepdims=True)          # NaNs ignored

As numpy: ``q`` may be a scalar or a list (its shape comes first in the
result); ``method`` is one of linear, lower, higher, midpoint, nearest. A
slice holding a NaN gives NaN, except in the ``nan*`` functions, where only an
all-NaN slice does. Ints are computed as float32; floats keep their dtype.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import result_type

METHODS = ("linear", "lower", "higher", "midpoint", "nearest")
Axis = int | Sequence[int] | None


def _check(q: Any, method: str, top: float, name: str) -> tf.Tensor:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    static = None if tf.is_tensor(q) and not hasattr(q, "numpy") else np.asarray(q)
    if static is not None and static.dtype.kind in "biuf" and (np.any(static < 0) or np.any(static > top)):
        raise ValueError(f"{name} must lie in [0, {top:g}]; got {name}={static.tolist()}")
    if static is not None and static.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a number or numbers in [0, {top:g}]; got {q!r}")
    return tf.cast(tensor(q), tf.float64)


def _axes(axis: Axis, rank: int) -> list[int] | None:
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of bounds for a tensor of rank {rank}")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"axis holds a repeated axis: {axis}")
    return out


def _quantile(x: tf.Tensor, q: tf.Tensor, axis: Axis, method: str, keepdims: bool, skip_nan: bool) -> tf.Tensor:
    x = tf.cast(x, result_type(x.dtype, float))
    rank = len(x.shape)
    axes = _axes(axis, rank)
    shape = tf.shape(x)
    if axes is None:
        kept: list[int] = []
        rows = tf.reshape(x, [1, -1])
    else:
        kept = [i for i in range(rank) if i not in axes]
        moved = tf.transpose(x, kept + axes)
        rows = tf.reshape(moved, tf.stack([tf.reduce_prod(tf.gather(shape, kept)), -1]))
    missing = tf.math.is_nan(rows)
    values = tf.sort(tf.where(missing, tf.constant(np.inf, rows.dtype), rows), axis=-1)
    length = tf.shape(values)[-1]
    count = tf.reduce_sum(tf.cast(~missing, tf.int32), axis=-1) if skip_nan else tf.fill([tf.shape(values)[0]], length)

    qs = tf.reshape(q, [-1])
    position = tf.cast(tf.maximum(count - 1, 0), tf.float64)[:, None] * qs[None, :]
    last = tf.maximum(count - 1, 0)[:, None]

    def at(index: tf.Tensor) -> tf.Tensor:
        index = tf.minimum(tf.cast(index, tf.int32), last)
        return tf.gather(values, index, axis=1, batch_dims=1)

    low, high = tf.floor(position), tf.math.ceil(position)
    if method == "lower":
        out = at(low)
    elif method == "higher":
        out = at(high)
    elif method == "nearest":
        out = at(tf.round(position))
    elif method == "midpoint":
        out = (at(low) + at(high)) / 2
    else:
        below, above = at(low), at(high)
        fraction = tf.cast(position - low, values.dtype)
        out = tf.where(tf.equal(fraction, 0), below, below + (above - below) * fraction)
    empty = tf.equal(count, 0) if skip_nan else tf.reduce_any(missing, axis=-1) | tf.equal(count, 0)
    out = tf.where(empty[:, None], tf.constant(np.nan, out.dtype), out)

    # rows x quantiles -> q.shape + kept dims (+ ones where the reduced axes were, with keepdims)
    kept_shape = tf.gather(shape, kept) if kept else tf.zeros([0], tf.int32)
    if keepdims:
        kept_shape = tf.tensor_scatter_nd_update(shape, [[a] for a in (axes or range(rank))],
                                                 tf.ones([len(axes or range(rank))], tf.int32)) if rank else kept_shape
    out = tf.transpose(out)
    out = tf.reshape(out, tf.concat([tf.shape(q), kept_shape], 0))
    static = [x.shape[i] for i in kept] if not keepdims else \
        [1 if axes is None or i in axes else x.shape[i] for i in range(rank)]
    return tf.ensure_shape(out, list(q.shape) + static)


def quantile(x: Any, q: Any, axis: Axis = None, method: str = "linear", keepdims: bool = False) -> tf.Tensor:
    return _quantile(tensor(x), _check(q, method, 1.0, "q"), axis, method, keepdims, skip_nan=False)


def percentile(x: Any, q: Any, axis: Axis = None, method: str = "linear", keepdims: bool = False) -> tf.Tensor:
    q = _check(q, method, 100.0, "q") / 100.0
    return _quantile(tensor(x), q, axis, method, keepdims, skip_nan=False)


def median(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    return _quantile(tensor(x), tf.constant(0.5, tf.float64), axis, "linear", keepdims, skip_nan=False)


def nanquantile(x: Any, q: Any, axis: Axis = None, method: str = "linear", keepdims: bool = False) -> tf.Tensor:
    return _quantile(tensor(x), _check(q, method, 1.0, "q"), axis, method, keepdims, skip_nan=True)


def nanpercentile(x: Any, q: Any, axis: Axis = None, method: str = "linear", keepdims: bool = False) -> tf.Tensor:
    q = _check(q, method, 100.0, "q") / 100.0
    return _quantile(tensor(x), q, axis, method, keepdims, skip_nan=True)


def nanmedian(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    x = tensor(x)
    if isinstance(axis, (tuple, list)) and not axis:
        return x
    return _quantile(x, tf.constant(0.5, tf.float64), axis, "linear", keepdims, skip_nan=True)


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
