"""NaN-skipping reductions of ``keras.ops`` on TensorFlow, and ``nan_to_num``.

    import tfkit.ops as ops
    m = ops.nanmean(x, axis=-1)              # the mean of the non-NaN entries
    clean = ops.nan_to_num(x, nan=0.0, posinf=1e6)

Each ``nan*`` reduction treats NaN as missing; a slice with nothing but NaN
gives NaN (``nanargmax``/``nanargmin``: -1; ``nansum``: 0; ``nanprod``: 1).
Non-float inputs hold no NaN and reduce as the plain function does; result
dtypes follow ``keras.ops`` (``nansum`` of int8 is int32, ``nanmean`` of ints float32).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import FLOATX, result_type

Axis = int | Sequence[int] | None
_WIDENED = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


def _axis(axis: Axis) -> Any:
    return list(axis) if isinstance(axis, (list, tuple)) else axis


def _nan(x: tf.Tensor) -> tf.Tensor:
    return tf.math.is_nan(x) if x.dtype.is_floating else tf.zeros_like(x, dtype=tf.bool)


def nan_to_num(x: Any, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> tf.Tensor:
    """NaN -> ``nan``, inf -> ``posinf`` (default: the dtype's max), -inf -> ``neginf`` (its min)."""
    x = tensor(x)
    if not x.dtype.is_floating:
        return x
    top = x.dtype.max if posinf is None else posinf
    bottom = x.dtype.min if neginf is None else neginf
    x = tf.where(tf.math.is_nan(x), tf.constant(nan, x.dtype), x)
    x = tf.where(tf.equal(x, np.inf), tf.constant(top, x.dtype), x)
    return tf.where(tf.equal(x, -np.inf), tf.constant(bottom, x.dtype), x)


def nansum(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    x = tensor(x)
    x = tf.where(_nan(x), tf.zeros_like(x), x)
    return tf.reduce_sum(tf.cast(x, _WIDENED.get(x.dtype.name, x.dtype.name)), axis=_axis(axis), keepdims=keepdims)


def nanprod(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    x = tensor(x)
    x = tf.where(_nan(x), tf.ones_like(x), x)
    return tf.reduce_prod(tf.cast(x, _WIDENED.get(x.dtype.name, x.dtype.name)), axis=_axis(axis), keepdims=keepdims)


def _extreme(x: Any, axis: Axis, keepdims: bool, largest: bool) -> tf.Tensor:
    x = tensor(x)
    reduce = tf.reduce_max if largest else tf.reduce_min
    if x.dtype.is_bool:
        return (tf.reduce_any if largest else tf.reduce_all)(x, axis=_axis(axis), keepdims=keepdims)
    if not x.dtype.is_floating:
        return reduce(x, axis=_axis(axis), keepdims=keepdims)
    missing = tf.math.is_nan(x)
    filler = tf.constant(-np.inf if largest else np.inf, x.dtype)
    out = reduce(tf.where(missing, filler, x), axis=_axis(axis), keepdims=keepdims)
    return tf.where(tf.reduce_all(missing, axis=_axis(axis), keepdims=keepdims), tf.constant(np.nan, x.dtype), out)


def nanmax(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    return _extreme(x, axis, keepdims, largest=True)


def nanmin(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    return _extreme(x, axis, keepdims, largest=False)


def nanmean(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    x = tensor(x)
    if isinstance(axis, (tuple, list)) and not axis:
        return x
    if not x.dtype.is_floating:
        return tf.reduce_mean(tf.cast(x, FLOATX), axis=_axis(axis), keepdims=keepdims)
    valid = ~tf.math.is_nan(x)
    total = tf.reduce_sum(tf.where(valid, x, tf.zeros_like(x)), axis=_axis(axis), keepdims=keepdims)
    return total / tf.reduce_sum(tf.cast(valid, x.dtype), axis=_axis(axis), keepdims=keepdims)


def nanvar(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    x = tensor(x)
    x = tf.cast(x, result_type(x.dtype, float))
    valid = ~_nan(x)
    count = tf.reduce_sum(tf.cast(valid, x.dtype), axis=_axis(axis), keepdims=True)
    mean = tf.reduce_sum(tf.where(valid, x, tf.zeros_like(x)), axis=_axis(axis), keepdims=True) / count
    centered = tf.where(valid, x - mean, tf.zeros_like(x))
    squares = tf.math.real(centered * tf.math.conj(centered)) if x.dtype.is_complex else tf.square(centered)
    count = tf.reduce_sum(tf.cast(valid, squares.dtype), axis=_axis(axis), keepdims=keepdims)
    return tf.reduce_sum(squares, axis=_axis(axis), keepdims=keepdims) / count


def nanstd(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    return tf.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def _arg_extreme(x: Any, axis: int | None, keepdims: bool, largest: bool) -> tf.Tensor:
    x = tensor(x)
    rank = len(x.shape)
    missing = _nan(x)
    if x.dtype.is_floating:
        x = tf.where(missing, tf.constant(-np.inf if largest else np.inf, x.dtype), x)
    elif x.dtype.is_bool:
        x = tf.cast(x, tf.int32)
    pick = tf.argmax if largest else tf.argmin
    if axis is None:
        out = pick(tf.reshape(x, [-1]), axis=0, output_type=tf.int32)
        all_missing = tf.reduce_all(missing)
        if keepdims:
            out, all_missing = tf.reshape(out, [1] * rank), tf.reshape(all_missing, [1] * rank)
    else:
        if not -rank <= axis < rank:
            raise ValueError(f"axis {axis} is out of bounds for a tensor of rank {rank}")
        out = pick(x, axis=axis, output_type=tf.int32)
        all_missing = tf.reduce_all(missing, axis=axis)
        if keepdims:
            out, all_missing = tf.expand_dims(out, axis), tf.expand_dims(all_missing, axis)
    return tf.where(all_missing, tf.constant(-1, tf.int32), out)


def nanargmax(x: Any, axis: int | None = None, keepdims: bool = False) -> tf.Tensor:
    return _arg_extreme(x, axis, keepdims, largest=True)


def nanargmin(x: Any, axis: int | None = None, keepdims: bool = False) -> tf.Tensor:
    return _arg_extreme(x, axis, keepdims, largest=False)


def _cumulative(x: Any, axis: int | None, dtype: Any, fill: float, op: Any) -> tf.Tensor:
    x = tensor(x, dtype)
    if x.dtype.is_floating:
        x = tf.where(tf.math.is_nan(x), tf.constant(fill, x.dtype), x)
    elif x.dtype.is_bool:
        x = tf.cast(x, tf.int32)
    if axis is None:
        return op(tf.reshape(x, [-1]), axis=0)
    return op(x, axis=axis)


def nancumsum(x: Any, axis: int | None = None, dtype: Any = None) -> tf.Tensor:
    return _cumulative(x, axis, dtype, 0.0, tf.math.cumsum)


def nancumprod(x: Any, axis: int | None = None, dtype: Any = None) -> tf.Tensor:
    return _cumulative(x, axis, dtype, 1.0, tf.math.cumprod)


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
