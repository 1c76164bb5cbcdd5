"""Elementwise math of ``keras.ops`` on TensorFlow: trigonometry, logs, rounding, float-pair functions.

    import tfkit.ops as ops
    angle = ops.arctan2(y, x); bits = ops.log2(counts)        # ints give float32
    soft_max = ops.logaddexp(a, b); r = ops.hypot(dx, dy)

Result dtypes follow ``keras.ops``: the trigonometric and log functions turn
ints and bools into float32 and keep float dtypes; ``cbrt``, ``deg2rad``,
``rad2deg``, ``hypot``, ``heaviside`` and ``i0`` turn int64 into float64.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import (
    FLOATX,
    float_type,
    is_integer,
    operands,
    result_type,
    wide_float_type,
)


def _float(x: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.cast(x, float_type(x.dtype))


def _wide(x: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.cast(x, wide_float_type(x.dtype))


# ------------------------------------------------------------------ one argument, float result

def tan(x: Any) -> tf.Tensor:
    return tf.tan(_float(x))


def arcsin(x: Any) -> tf.Tensor:
    return tf.asin(_float(x))


def arccos(x: Any) -> tf.Tensor:
    return tf.acos(_float(x))


def arctan(x: Any) -> tf.Tensor:
    return tf.atan(_float(x))


def sinh(x: Any) -> tf.Tensor:
    return tf.sinh(_float(x))


def cosh(x: Any) -> tf.Tensor:
    return tf.cosh(_float(x))


def arcsinh(x: Any) -> tf.Tensor:
    return tf.asinh(_float(x))


def arccosh(x: Any) -> tf.Tensor:
    return tf.acosh(_float(x))


def arctanh(x: Any) -> tf.Tensor:
    return tf.atanh(_float(x))


def log2(x: Any) -> tf.Tensor:
    x = _float(x)
    return tf.math.log(x) / tf.math.log(tf.constant(2.0, x.dtype))


def log10(x: Any) -> tf.Tensor:
    x = _float(x)
    return tf.math.log(x) / tf.math.log(tf.constant(10.0, x.dtype))


def exp2(x: Any) -> tf.Tensor:
    x = tensor(x)
    if is_integer(x.dtype) or x.dtype.is_bool:
        x = tf.cast(x, FLOATX)
    return tf.pow(tf.constant(2.0, x.dtype), x)


def sinc(x: Any) -> tf.Tensor:
    """``sin(pi x) / (pi x)``, 1 at 0 (with a finite gradient there)."""
    x = _float(x)
    at_zero = tf.equal(x, 0)
    pi_x = tf.where(at_zero, tf.ones_like(x), x) * tf.constant(math.pi, x.dtype)
    return tf.where(at_zero, tf.ones_like(x), tf.sin(pi_x) / pi_x)


def angle(x: Any) -> tf.Tensor:
    """The complex argument; for real ``x`` 0 where ``x >= 0`` and pi where it is negative."""
    x = tensor(x)
    if x.dtype.is_complex:
        return tf.math.angle(x)
    x = _float(x)
    return tf.where(x < 0, tf.constant(math.pi, x.dtype), tf.zeros_like(x))


def fabs(x: Any) -> tf.Tensor:
    x = tensor(x)
    if x.dtype.is_complex:
        raise TypeError(f"fabs does not support complex inputs; got x of dtype {x.dtype.name}. Use abs for a modulus")
    if not x.dtype.is_floating:
        x = tf.cast(x, FLOATX)
    return tf.abs(x)


def cbrt(x: Any) -> tf.Tensor:
    x = _wide(x)
    return tf.sign(x) * tf.pow(tf.abs(x), tf.constant(1.0 / 3.0, x.dtype))


def deg2rad(x: Any) -> tf.Tensor:
    x = _wide(x)
    return x * tf.constant(math.pi / 180.0, x.dtype)


def rad2deg(x: Any) -> tf.Tensor:
    x = _wide(x)
    return x * tf.constant(180.0 / math.pi, x.dtype)


def i0(x: Any) -> tf.Tensor:
    """The modified Bessel function of the first kind, order 0."""
    x = tensor(x)
    name = x.dtype.name
    dtype = "float64" if name in ("int64", "float64") else name if name in ("float16", "bfloat16") else FLOATX
    compute = "float64" if dtype == "float64" else FLOATX
    return tf.cast(tf.math.bessel_i0(tf.cast(x, compute)), dtype)


def reciprocal(x: Any) -> tf.Tensor:
    x = tensor(x)
    if x.dtype.is_bool:
        x = tf.cast(x, FLOATX)
    return tf.math.reciprocal(x)


def trunc(x: Any) -> tf.Tensor:
    x = tensor(x)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        return x
    return tf.where(x < 0, tf.math.ceil(x), tf.floor(x))


def conjugate(x: Any) -> tf.Tensor:
    return tf.math.conj(tensor(x))


def conj(x: Any) -> tf.Tensor:
    return tf.math.conj(tensor(x))


def real(x: Any) -> tf.Tensor:
    return tf.math.real(tensor(x))


def imag(x: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.math.imag(x) if x.dtype.is_complex else tf.zeros_like(x)


# ------------------------------------------------------------------ two arguments

def arctan2(x1: Any, x2: Any) -> tf.Tensor:
    a, b = operands(x1, x2, extra=(float,), weak_scalars=False)
    return tf.atan2(a, b)


def hypot(x1: Any, x2: Any) -> tf.Tensor:
    """``sqrt(x1**2 + x2**2)`` without overflow for large inputs."""
    a, b = tensor(x1), tensor(x2)
    dtype = wide_float_type(result_type(a.dtype, b.dtype))
    a, b = tf.abs(tf.cast(a, dtype)), tf.abs(tf.cast(b, dtype))
    big, small = tf.maximum(a, b), tf.minimum(a, b)
    ratio = tf.math.divide_no_nan(small, big)
    return big * tf.sqrt(1 + ratio * ratio)


def logaddexp(x1: Any, x2: Any) -> tf.Tensor:
    """``log(exp(x1) + exp(x2))``, computed without overflow."""
    a, b = operands(x1, x2, extra=(float,), weak_scalars=False)
    top = tf.maximum(a, b)
    same_infinity = tf.math.is_inf(a) & tf.equal(a, b)  # inf - inf would give nan below
    return tf.where(same_infinity, a, top + tf.math.log1p(tf.exp(-tf.abs(a - b))))


def logaddexp2(x1: Any, x2: Any) -> tf.Tensor:
    """``log2(2**x1 + 2**x2)``, computed without overflow."""
    a, b = operands(x1, x2, extra=(float,), weak_scalars=False)
    top = tf.maximum(a, b)
    ln2 = tf.constant(math.log(2.0), a.dtype)
    rest = tf.math.log1p(tf.exp(-tf.abs(a - b) * ln2)) / ln2
    return tf.where(tf.math.is_inf(a) & tf.equal(a, b), a, top + rest)


def heaviside(x1: Any, x2: Any) -> tf.Tensor:
    """0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` where ``x1 == 0``."""
    a, b = tensor(x1), tensor(x2)
    dtype = wide_float_type(result_type(a.dtype, b.dtype))
    a, b = tf.cast(a, dtype), tf.cast(b, dtype)
    step = tf.where(a > 0, tf.ones_like(a), tf.zeros_like(a))
    return tf.where(tf.equal(a, 0), b + tf.zeros_like(a), step + tf.zeros_like(b))


def ldexp(x1: Any, x2: Any) -> tf.Tensor:
    """``x1 * 2**x2`` for an integer exponent ``x2``."""
    a, b = tensor(x1), tensor(x2)
    if not is_integer(b.dtype):
        raise TypeError(f"ldexp needs an integer exponent x2; got dtype {b.dtype.name}")
    dtype = result_type(a.dtype, b.dtype, float)
    a = tf.cast(a, dtype)
    scaled = a * tf.pow(tf.constant(2.0, a.dtype), tf.cast(b, a.dtype))
    return tf.where(tf.math.is_inf(a) | tf.equal(a, 0), a + tf.zeros_like(scaled), scaled)


def nextafter(x1: Any, x2: Any) -> tf.Tensor:
    """The next representable number after ``x1`` towards ``x2`` (computed in float64)."""
    a, b = tensor(x1), tensor(x2)
    dtype = result_type(a.dtype, b.dtype, float)
    return tf.cast(tf.math.nextafter(tf.cast(a, "float64"), tf.cast(b, "float64")), dtype)


def divide_no_nan(x1: Any, x2: Any) -> tf.Tensor:
    """``x1 / x2``, 0 where ``x2`` is 0."""
    a, b = operands(x1, x2, extra=(float,))
    return tf.math.divide_no_nan(a, b)


def fmax(x1: Any, x2: Any) -> tf.Tensor:
    """Elementwise maximum that ignores NaN when only one side is NaN."""
    a, b = operands(x1, x2)
    if not a.dtype.is_floating:
        return tf.maximum(a, b)
    out = tf.maximum(a, b)
    out = tf.where(tf.math.is_nan(a) & ~tf.math.is_nan(b), b + tf.zeros_like(a), out)
    return tf.where(tf.math.is_nan(b) & ~tf.math.is_nan(a), a + tf.zeros_like(b), out)


def fmin(x1: Any, x2: Any) -> tf.Tensor:
    """Elementwise minimum that ignores NaN when only one side is NaN."""
    a, b = operands(x1, x2)
    if not a.dtype.is_floating:
        return tf.minimum(a, b)
    out = tf.minimum(a, b)
    out = tf.where(tf.math.is_nan(a) & ~tf.math.is_nan(b), b + tf.zeros_like(a), out)
    return tf.where(tf.math.is_nan(b) & ~tf.math.is_nan(a), a + tf.zeros_like(b), out)


def fmod(x1: Any, x2: Any) -> tf.Tensor:
    """C's remainder: the sign of ``x1`` (``mod`` takes the sign of ``x2``); integer ``x % 0`` is 0."""
    a, b = tensor(x1), tensor(x2)
    dtype = result_type(a.dtype, b.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    compute = {"int8": "int32", "int16": "int32", "uint8": "int32", "uint16": "int32", "uint32": "int64",
               "float16": FLOATX, "bfloat16": FLOATX}.get(dtype, dtype)  # TruncateMod's kernels
    a, b = tf.cast(a, compute), tf.cast(b, compute)
    if a.dtype.is_floating:
        return tf.cast(tf.truncatemod(a, b), dtype)
    zero = tf.equal(b, 0)
    safe = tf.where(zero, tf.ones_like(b), b)
    return tf.cast(tf.where(zero, tf.zeros_like(a + b), tf.truncatemod(a, safe)), dtype)


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
