"""Keras 3's numpy-style ops on TensorFlow: ``tfkit.ops.mean(x, axis=1)`` as ``keras.ops.mean``.

    import tfkit.ops as ops
    y = ops.mean(ops.square(x - ops.expand_dims(m, -1)), axis=-1)
    idx = ops.argmax(logits, axis=-1)

Names, arguments and result dtypes follow ``keras.ops`` (means, square roots
and divisions of integers are float32; ``arange`` of ints is int32). Every op
runs eagerly, inside ``tf.function`` and under XLA, and records a graph node
when called on ``tfkit.Input``-derived tensors.

This file holds arithmetic, reductions, products and shapes; the other
families live beside it and are re-exported here: ``numpy_math``
(trigonometry, logs, float pairs), ``numpy_logic`` (comparisons, isclose,
isin ...), ``numpy_bits`` (bitwise, gcd),
``numpy_nan`` (NaN-skipping reductions), ``numpy_quantile``, ``numpy_stats``
(histogram, bincount ...), ``numpy_unique``, ``numpy_shapes`` (splits, flips,
diagonals), ``numpy_build`` (zeros, arange, tri ...), ``numpy_products`` (kron, cross ...),
``numpy_windows`` and ``numpy_vectorize``; ``numpy_dtypes`` holds Keras's
dtype promotion.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.ops import (
    numpy_bits,
    numpy_build,
    numpy_logic,
    numpy_math,
    numpy_nan,
    numpy_products,
    numpy_quantile,
    numpy_shapes,
    numpy_stats,
    numpy_unique,
    numpy_vectorize,
    numpy_windows,
)
from tfkit.ops._convert import export, float_of, promote, tensor
from tfkit.ops.numpy_bits import *  # noqa: F401,F403
from tfkit.ops.numpy_build import *  # noqa: F401,F403
from tfkit.ops.numpy_dtypes import operands
from tfkit.ops.numpy_logic import *  # noqa: F401,F403
from tfkit.ops.numpy_math import *  # noqa: F401,F403
from tfkit.ops.numpy_nan import *  # noqa: F401,F403
from tfkit.ops.numpy_products import *  # noqa: F401,F403
from tfkit.ops.numpy_quantile import *  # noqa: F401,F403
from tfkit.ops.numpy_shapes import *  # noqa: F401,F403
from tfkit.ops.numpy_stats import *  # noqa: F401,F403
from tfkit.ops.numpy_unique import *  # noqa: F401,F403
from tfkit.ops.numpy_vectorize import *  # noqa: F401,F403
from tfkit.ops.numpy_windows import *  # noqa: F401,F403

Axis = int | Sequence[int] | None


def _axis(axis: Axis) -> Any:
    return list(axis) if isinstance(axis, (list, tuple)) else axis


# ------------------------------------------------------------------ arithmetic

def add(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return a + b


def subtract(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return a - b


def multiply(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return a * b


def divide(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return float_of(a) / float_of(b)


def true_divide(x1: Any, x2: Any) -> tf.Tensor:
    return divide(x1, x2)


def floor_divide(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return tf.math.floordiv(a, b)


def mod(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2, weak_scalars=False)
    if a.dtype.is_bool:
        a, b = tf.cast(a, tf.int32), tf.cast(b, tf.int32)
    return tf.math.floormod(a, b)


def power(x1: Any, x2: Any) -> tf.Tensor:
    a, b = promote(x1, x2)
    return tf.pow(a, b)


def negative(x: Any) -> tf.Tensor:
    return -tensor(x)


def abs(x: Any) -> tf.Tensor:  # noqa: A001  (Keras's name)
    x = tensor(x)
    return x if x.dtype.is_bool or x.dtype.is_unsigned else tf.abs(x)


def absolute(x: Any) -> tf.Tensor:
    x = tensor(x)
    return x if x.dtype.is_bool or x.dtype.is_unsigned else tf.abs(x)


def square(x: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.square(tf.cast(x, tf.int32) if x.dtype.is_bool else x)


def sqrt(x: Any) -> tf.Tensor:
    return tf.sqrt(float_of(tensor(x)))


def exp(x: Any) -> tf.Tensor:
    return tf.exp(float_of(tensor(x)))


def log(x: Any) -> tf.Tensor:
    return tf.math.log(float_of(tensor(x)))


def log1p(x: Any) -> tf.Tensor:
    return tf.math.log1p(float_of(tensor(x)))


def expm1(x: Any) -> tf.Tensor:
    return tf.math.expm1(float_of(tensor(x)))


def sin(x: Any) -> tf.Tensor:
    return tf.sin(float_of(tensor(x)))


def cos(x: Any) -> tf.Tensor:
    return tf.cos(float_of(tensor(x)))


def tanh(x: Any) -> tf.Tensor:
    return tf.tanh(float_of(tensor(x)))


def sign(x: Any) -> tf.Tensor:
    x = tensor(x)
    if x.dtype.is_unsigned:  # no unsigned kernel: 1 where positive, else 0
        return tf.cast(x > 0, x.dtype)
    return tf.sign(x)


def floor(x: Any) -> tf.Tensor:
    return tf.floor(float_of(tensor(x)))


def ceil(x: Any) -> tf.Tensor:
    return tf.math.ceil(float_of(tensor(x)))


def round(x: Any, decimals: int = 0) -> tf.Tensor:  # noqa: A001
    x = tensor(x)
    if decimals == 0:
        return tf.round(x)
    factor = tf.cast(10.0 ** decimals, float_of(x).dtype)
    return tf.round(float_of(x) * factor) / factor


def maximum(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return tf.maximum(a, b)


def minimum(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return tf.minimum(a, b)


def clip(x: Any, x_min: Any, x_max: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.clip_by_value(x, tf.cast(x_min, x.dtype), tf.cast(x_max, x.dtype))


# ------------------------------------------------------------------ reductions

def mean(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    return tf.reduce_mean(float_of(tensor(x)), axis=_axis(axis), keepdims=keepdims)


# sums and products of small ints accumulate in 32 bits, as in Keras (and JAX)
_WIDENED = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


def sum(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:  # noqa: A001
    x = tensor(x)
    return tf.reduce_sum(tf.cast(x, _WIDENED.get(x.dtype.name, x.dtype)), axis=_axis(axis), keepdims=keepdims)


def prod(x: Any, axis: Axis = None, keepdims: bool = False, dtype: Any = None) -> tf.Tensor:
    x = tensor(x, dtype)
    if dtype is None:
        x = tf.cast(x, _WIDENED.get(x.dtype.name, x.dtype))
    return tf.reduce_prod(x, axis=_axis(axis), keepdims=keepdims)


def max(x: Any, axis: Axis = None, keepdims: bool = False, initial: Any = None) -> tf.Tensor:  # noqa: A001
    out = tf.reduce_max(tensor(x), axis=_axis(axis), keepdims=keepdims)
    return out if initial is None else tf.maximum(out, tf.cast(initial, out.dtype))


def min(x: Any, axis: Axis = None, keepdims: bool = False, initial: Any = None) -> tf.Tensor:  # noqa: A001
    out = tf.reduce_min(tensor(x), axis=_axis(axis), keepdims=keepdims)
    return out if initial is None else tf.minimum(out, tf.cast(initial, out.dtype))


def amax(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    return tf.reduce_max(tensor(x), axis=_axis(axis), keepdims=keepdims)


def amin(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    return tf.reduce_min(tensor(x), axis=_axis(axis), keepdims=keepdims)


def std(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    return tf.math.reduce_std(float_of(tensor(x)), axis=_axis(axis), keepdims=keepdims)


def var(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    return tf.math.reduce_variance(float_of(tensor(x)), axis=_axis(axis), keepdims=keepdims)


def any(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:  # noqa: A001
    return tf.reduce_any(tf.cast(tensor(x), tf.bool), axis=_axis(axis), keepdims=keepdims)


def all(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:  # noqa: A001
    return tf.reduce_all(tf.cast(tensor(x), tf.bool), axis=_axis(axis), keepdims=keepdims)


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> tf.Tensor:
    x = tensor(x)
    if axis is None:
        out = tf.argmax(tf.reshape(x, [-1]), output_type=tf.int32)
        return tf.reshape(out, [1] * len(x.shape)) if keepdims else out
    out = tf.argmax(x, axis=axis, output_type=tf.int32)
    return tf.expand_dims(out, axis) if keepdims else out


def argmin(x: Any, axis: int | None = None, keepdims: bool = False) -> tf.Tensor:
    x = tensor(x)
    if axis is None:
        out = tf.argmin(tf.reshape(x, [-1]), output_type=tf.int32)
        return tf.reshape(out, [1] * len(x.shape)) if keepdims else out
    out = tf.argmin(x, axis=axis, output_type=tf.int32)
    return tf.expand_dims(out, axis) if keepdims else out


def argsort(x: Any, axis: int = -1) -> tf.Tensor:
    return tf.argsort(tensor(x), axis=axis, stable=True)


def sort(x: Any, axis: int = -1) -> tf.Tensor:
    return tf.sort(tensor(x), axis=axis)


def cumsum(x: Any, axis: int | None = None, dtype: Any = None) -> tf.Tensor:
    x = tensor(x, dtype)
    x = tf.cast(x, tf.int32) if x.dtype.is_bool else x
    return tf.cumsum(tf.reshape(x, [-1]) if axis is None else x, axis=0 if axis is None else axis)


def cumprod(x: Any, axis: int | None = None, dtype: Any = None) -> tf.Tensor:
    x = tensor(x, dtype)
    x = tf.cast(x, tf.int32) if x.dtype.is_bool else x
    return tf.math.cumprod(tf.reshape(x, [-1]) if axis is None else x, axis=0 if axis is None else axis)


def count_nonzero(x: Any, axis: Axis = None) -> tf.Tensor:
    return tf.math.count_nonzero(tensor(x), axis=_axis(axis), dtype=tf.int32)


def average(x: Any, axis: Axis = None, weights: Any = None) -> tf.Tensor:
    x = float_of(tensor(x))
    if weights is None:
        return tf.reduce_mean(x, axis=_axis(axis))
    w = tf.cast(tensor(weights), x.dtype)
    if axis is not None and len(w.shape) == 1 and len(x.shape) > 1:
        shape = [1] * len(x.shape)
        shape[axis] = -1
        w = tf.reshape(w, shape)
    return tf.reduce_sum(x * w, axis=_axis(axis)) / tf.reduce_sum(w * tf.ones_like(x), axis=_axis(axis))


# ------------------------------------------------------------------ linear algebra

def matmul(x1: Any, x2: Any) -> tf.Tensor:
    a, b = promote(x1, x2)
    return tf.matmul(a, b)


def dot(x1: Any, x2: Any) -> tf.Tensor:
    a, b = promote(x1, x2)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return a * b
    if len(b.shape) == 1:
        return tf.tensordot(a, b, axes=[[len(a.shape) - 1], [0]])
    return tf.tensordot(a, b, axes=[[len(a.shape) - 1], [len(b.shape) - 2]])


def tensordot(x1: Any, x2: Any, axes: Any = 2) -> tf.Tensor:
    a, b = promote(x1, x2)
    return tf.tensordot(a, b, axes=axes)


def einsum(subscripts: str, *operands: Any) -> tf.Tensor:
    return tf.einsum(subscripts, *promote(*operands))


def outer(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2, weak_scalars=False)
    return tf.reshape(a, [-1, 1]) * tf.reshape(b, [1, -1])


def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> tf.Tensor:
    x = tensor(x)
    return tf.reduce_sum(tf.linalg.diag_part(tf.experimental.numpy.moveaxis(x, [axis1, axis2], [-2, -1]), k=offset),
                         axis=-1)


# ------------------------------------------------------------------ shapes

def reshape(x: Any, newshape: Any) -> tf.Tensor:
    return tf.reshape(tensor(x), newshape)


def transpose(x: Any, axes: Sequence[int] | None = None) -> tf.Tensor:
    return tf.transpose(tensor(x), perm=axes)


def expand_dims(x: Any, axis: int | Sequence[int]) -> tf.Tensor:
    x = tensor(x)
    for a in sorted(axis) if isinstance(axis, (list, tuple)) else [axis]:
        x = tf.expand_dims(x, a)
    return x


def squeeze(x: Any, axis: Axis = None) -> tf.Tensor:
    return tf.squeeze(tensor(x), axis=_axis(axis))


def stack(x: Sequence[Any], axis: int = 0) -> tf.Tensor:
    return tf.stack(promote(*x), axis=axis)


def concatenate(xs: Sequence[Any], axis: int | None = 0) -> tf.Tensor:
    tensors = promote(*xs)
    if axis is None:
        return tf.concat([tf.reshape(t, [-1]) for t in tensors], axis=0)
    return tf.concat(tensors, axis=axis)


def vstack(xs: Sequence[Any]) -> tf.Tensor:
    return tf.concat([tf.reshape(t, [1, -1]) if len(t.shape) == 1 else t for t in promote(*xs)], axis=0)


def hstack(xs: Sequence[Any]) -> tf.Tensor:
    tensors = promote(*xs)
    return tf.concat(tensors, axis=0 if len(tensors[0].shape) == 1 else 1)


def append(x1: Any, x2: Any, axis: int | None = None) -> tf.Tensor:
    return concatenate([x1, x2], axis=axis)


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[tf.Tensor]:
    x = tensor(x)
    if isinstance(indices_or_sections, int):
        return tf.split(x, indices_or_sections, axis=axis)
    size = x.shape[axis]
    bounds = [0, *indices_or_sections, size]
    return tf.split(x, [bounds[i + 1] - bounds[i] for i in range(len(bounds) - 1)], axis=axis)


def tile(x: Any, repeats: Any) -> tf.Tensor:
    x = tensor(x)
    repeats = [repeats] if isinstance(repeats, int) else list(repeats)
    while len(repeats) < len(x.shape):
        repeats = [1, *repeats]
    while len(x.shape) < len(repeats):
        x = tf.expand_dims(x, 0)
    return tf.tile(x, repeats)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> tf.Tensor:
    x = tensor(x)
    return tf.repeat(tf.reshape(x, [-1]) if axis is None else x, repeats, axis=0 if axis is None else axis)


def flip(x: Any, axis: Axis = None) -> tf.Tensor:
    x = tensor(x)
    axes = list(range(len(x.shape))) if axis is None else [axis] if isinstance(axis, int) else list(axis)
    return tf.reverse(x, axes)


def roll(x: Any, shift: Any, axis: Axis = None) -> tf.Tensor:
    x = tensor(x)
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, axis=0), tf.shape(x))
    return tf.roll(x, shift, axis=axis)


def swapaxes(x: Any, axis1: int, axis2: int) -> tf.Tensor:
    x = tensor(x)
    perm = list(range(len(x.shape)))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return tf.transpose(x, perm)


def moveaxis(x: Any, source: Any, destination: Any) -> tf.Tensor:
    return tf.experimental.numpy.moveaxis(tensor(x), source, destination)


def ravel(x: Any) -> tf.Tensor:
    return tf.reshape(tensor(x), [-1])


def broadcast_to(x: Any, shape: Any) -> tf.Tensor:
    return tf.broadcast_to(tensor(x), shape)


def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = None) -> tf.Tensor:
    x = tensor(x)
    widths = [[int(w), int(w)] if isinstance(w, (int, np.integer)) else list(w) for w in
              (pad_width if isinstance(pad_width, (list, tuple)) else [pad_width] * len(x.shape))]
    if len(widths) == 1 and len(x.shape) > 1:
        widths = widths * len(x.shape)
    if mode == "constant":
        return tf.pad(x, widths, constant_values=0 if constant_values is None else constant_values)
    return tf.pad(x, widths, mode=mode.upper())


def where(condition: Any, x1: Any = None, x2: Any = None) -> Any:
    condition = tf.cast(tensor(condition), tf.bool)
    if x1 is None and x2 is None:
        indices = tf.where(condition)
        return tuple(tf.cast(indices[:, i], tf.int32) for i in range(len(condition.shape)))
    a, b = promote(x1, x2)
    return tf.where(condition, a, b)


def take(x: Any, indices: Any, axis: int | None = None) -> tf.Tensor:
    x, indices = tensor(x), tensor(indices)
    if axis is None:
        return tf.gather(tf.reshape(x, [-1]), indices)
    return tf.gather(x, indices, axis=axis)


def take_along_axis(x: Any, indices: Any, axis: int | None = None) -> tf.Tensor:
    return tf.experimental.numpy.take_along_axis(tensor(x), tensor(indices), axis=axis)


def triu(x: Any, k: int = 0) -> tf.Tensor:
    x = tensor(x)
    rows, cols = tf.shape(x)[-2], tf.shape(x)[-1]
    keep = tf.range(cols)[None, :] - tf.range(rows)[:, None] >= k
    return tf.where(keep, x, tf.zeros_like(x))


def tril(x: Any, k: int = 0) -> tf.Tensor:
    x = tensor(x)
    rows, cols = tf.shape(x)[-2], tf.shape(x)[-1]
    keep = tf.range(cols)[None, :] - tf.range(rows)[:, None] <= k
    return tf.where(keep, x, tf.zeros_like(x))


def diag(x: Any, k: int = 0) -> tf.Tensor:
    x = tensor(x)
    return tf.linalg.diag(x, k=k) if len(x.shape) == 1 else tf.linalg.diag_part(x, k=k)


def meshgrid(*x: Any, indexing: str = "xy") -> list[tf.Tensor]:
    return tf.meshgrid(*[tensor(v) for v in x], indexing=indexing)


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
# the families kept in files of their own (numpy_math.py ...), one namespace as in keras.ops.numpy
for _family in (numpy_bits, numpy_build, numpy_logic, numpy_math, numpy_nan, numpy_products, numpy_quantile,
                numpy_shapes, numpy_stats, numpy_unique, numpy_vectorize, numpy_windows):
    __all__ += _family.__all__
