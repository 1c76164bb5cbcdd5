"""Comparisons and elementwise tests of ``keras.ops`` on TensorFlow: closeness, infinities, membership.

    import tfkit.ops as ops
    ok = ops.allclose(got, expected, rtol=1e-5)            # a scalar bool tensor
    mask = ops.isin(labels, [3, 5, 7]); neg = ops.signbit(x)

Every function here returns a bool tensor; comparisons promote their operands
first (``equal(int_tensor, 2.5)`` compares as float). ``isclose`` follows numpy: values
are close when ``|x1 - x2| <= atol + rtol * |x2|`` or when they are equal (so
``inf`` is close to ``inf``); NaNs are close to each other only with ``equal_nan``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import operands


def equal(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return tf.equal(a, b)


def not_equal(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return tf.not_equal(a, b)


def greater(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return tf.greater(a, b)


def greater_equal(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return tf.greater_equal(a, b)


def less(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return tf.less(a, b)


def less_equal(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2)
    return tf.less_equal(a, b)


def logical_and(x1: Any, x2: Any) -> tf.Tensor:
    return tf.logical_and(tf.cast(tensor(x1), tf.bool), tf.cast(tensor(x2), tf.bool))


def logical_or(x1: Any, x2: Any) -> tf.Tensor:
    return tf.logical_or(tf.cast(tensor(x1), tf.bool), tf.cast(tensor(x2), tf.bool))


def logical_not(x: Any) -> tf.Tensor:
    return tf.logical_not(tf.cast(tensor(x), tf.bool))


def isnan(x: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.math.is_nan(x) if x.dtype.is_floating else tf.zeros_like(x, tf.bool)


def isinf(x: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.math.is_inf(x) if x.dtype.is_floating else tf.zeros_like(x, tf.bool)


def isfinite(x: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.math.is_finite(x) if x.dtype.is_floating else tf.ones_like(x, tf.bool)


def isclose(x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> tf.Tensor:
    a, b = operands(x1, x2, weak_scalars=False)
    if not (a.dtype.is_floating or a.dtype.is_complex):
        return tf.equal(a, b)
    tolerance = tf.cast(atol, tf.abs(b).dtype) + tf.cast(rtol, tf.abs(b).dtype) * tf.abs(b)
    finite = tf.math.is_finite(tf.abs(a)) & tf.math.is_finite(tf.abs(b))  # infinities: close only when equal
    close = tf.equal(a, b) | (finite & (tf.abs(a - b) <= tolerance))
    if equal_nan:
        close = close | (tf.math.is_nan(tf.abs(a)) & tf.math.is_nan(tf.abs(b)))
    return close


def allclose(x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> tf.Tensor:
    return tf.reduce_all(isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isposinf(x: Any) -> tf.Tensor:
    x = tensor(x)
    if not x.dtype.is_floating:
        return tf.zeros_like(x, dtype=tf.bool)
    return tf.equal(x, tf.constant(float("inf"), x.dtype))


def isneginf(x: Any) -> tf.Tensor:
    x = tensor(x)
    if not x.dtype.is_floating:
        return tf.zeros_like(x, dtype=tf.bool)
    return tf.equal(x, tf.constant(float("-inf"), x.dtype))


def isreal(x: Any) -> tf.Tensor:
    x = tensor(x)
    if x.dtype.is_complex:
        return tf.equal(tf.math.imag(x), 0)
    return tf.ones_like(x, dtype=tf.bool)


def signbit(x: Any) -> tf.Tensor:
    """True where the sign bit is set: negative numbers, ``-0.0`` and negative NaNs."""
    x = tensor(x)
    if x.dtype.is_bool or x.dtype.is_unsigned:
        return tf.zeros_like(x, dtype=tf.bool)
    if x.dtype.is_integer:
        return x < 0
    if x.dtype.is_complex:
        raise TypeError(f"signbit does not support complex inputs; got x of dtype {x.dtype.name}")
    as_int = tf.bitcast(x, tf.int64) if x.dtype == tf.float64 else tf.bitcast(tf.cast(x, tf.float32), tf.int32)
    return as_int < 0


def logical_xor(x1: Any, x2: Any) -> tf.Tensor:
    return tf.math.logical_xor(tf.cast(tensor(x1), tf.bool), tf.cast(tensor(x2), tf.bool))


def isin(x1: Any, x2: Any, assume_unique: bool = False, invert: bool = False) -> tf.Tensor:
    """For each element of ``x1``, whether it occurs anywhere in ``x2`` (shape of ``x1``)."""
    a, b = operands(x1, x2, weak_scalars=False)
    flat = tf.reshape(b, [-1])
    if not assume_unique:
        flat = tf.unique(flat)[0]
    found = tf.reduce_any(tf.equal(tf.expand_dims(a, -1), flat), axis=-1)
    return tf.logical_not(found) if invert else found


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
