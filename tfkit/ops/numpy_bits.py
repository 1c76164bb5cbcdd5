"""Integer ops of ``keras.ops`` on TensorFlow: bitwise logic, shifts, gcd and lcm.

    import tfkit.ops as ops
    flags = ops.bitwise_or(ops.left_shift(1, bit), flags)
    g = ops.gcd(a, b); l = ops.lcm(a, b)

Operands take Keras's common dtype (``int8`` with ``uint8`` is ``int16``); a
Python int shift count keeps ``x``'s dtype. Bool tensors work with the bitwise
logic functions (as ``logical_and`` ...). Float operands are refused with a
``TypeError`` that names the argument.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import operands


def _integers(name: str, x: Any, y: Any) -> tuple[tf.Tensor, tf.Tensor]:
    a, b = tensor(x), tensor(y)
    for arg, value in (("x", a), ("y", b)):
        if not (value.dtype.is_integer or value.dtype.is_bool):
            raise TypeError(f"{name} needs integer or bool tensors; got {arg} of dtype {value.dtype.name}")
    return tuple(operands(a, b))  # type: ignore[return-value]


def bitwise_and(x: Any, y: Any) -> tf.Tensor:
    a, b = _integers("bitwise_and", x, y)
    return tf.logical_and(a, b) if a.dtype.is_bool else tf.bitwise.bitwise_and(a, b)


def bitwise_or(x: Any, y: Any) -> tf.Tensor:
    a, b = _integers("bitwise_or", x, y)
    return tf.logical_or(a, b) if a.dtype.is_bool else tf.bitwise.bitwise_or(a, b)


def bitwise_xor(x: Any, y: Any) -> tf.Tensor:
    a, b = _integers("bitwise_xor", x, y)
    return tf.math.logical_xor(a, b) if a.dtype.is_bool else tf.bitwise.bitwise_xor(a, b)


def bitwise_invert(x: Any) -> tf.Tensor:
    x = tensor(x)
    if x.dtype.is_bool:
        return tf.logical_not(x)
    if not x.dtype.is_integer:
        raise TypeError(f"bitwise_invert needs an integer or bool tensor; got x of dtype {x.dtype.name}")
    return tf.bitwise.invert(x)


def bitwise_not(x: Any) -> tf.Tensor:
    return bitwise_invert(x)


def _shift(name: str, x: Any, y: Any, shift: Any) -> tf.Tensor:
    a = tensor(x)
    if isinstance(y, int) and not isinstance(y, bool) and a.dtype.is_integer:
        b = tf.constant(y, a.dtype)
    else:
        a, b = _integers(name, a, y)
    if a.dtype.is_bool:
        a, b = tf.cast(a, tf.int32), tf.cast(b, tf.int32)
    return shift(a, b)


def bitwise_left_shift(x: Any, y: Any) -> tf.Tensor:
    return _shift("bitwise_left_shift", x, y, tf.bitwise.left_shift)


def left_shift(x: Any, y: Any) -> tf.Tensor:
    return _shift("left_shift", x, y, tf.bitwise.left_shift)


def bitwise_right_shift(x: Any, y: Any) -> tf.Tensor:
    return _shift("bitwise_right_shift", x, y, tf.bitwise.right_shift)


def right_shift(x: Any, y: Any) -> tf.Tensor:
    return _shift("right_shift", x, y, tf.bitwise.right_shift)


def _magnitudes(name: str, x1: Any, x2: Any) -> tuple[tf.Tensor, tf.Tensor]:
    a, b = tensor(x1), tensor(x2)
    common = operands(a, b)
    if not common[0].dtype.is_integer:
        raise TypeError(f"{name} needs integer tensors; got x1 of dtype {a.dtype.name} and x2 of dtype "
                        f"{b.dtype.name}")
    a, b = common
    a, b = a + tf.zeros_like(b), b + tf.zeros_like(a)  # broadcast to one shape
    if not a.dtype.is_unsigned:
        a, b = tf.abs(a), tf.abs(b)
    return a, b


def _euclid(a: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
    def step(a: tf.Tensor, b: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        done = tf.equal(b, 0)
        safe = tf.where(done, tf.ones_like(b), b)
        return tf.where(done, a, b), tf.where(done, tf.zeros_like(b), tf.math.floormod(a, safe))

    result, _ = tf.while_loop(lambda a, b: tf.reduce_any(tf.not_equal(b, 0)), step, [a, b])
    return result


def gcd(x1: Any, x2: Any) -> tf.Tensor:
    """Greatest common divisor of ``|x1|`` and ``|x2|`` (0 when both are 0)."""
    return _euclid(*_magnitudes("gcd", x1, x2))


def lcm(x1: Any, x2: Any) -> tf.Tensor:
    """Least common multiple of ``|x1|`` and ``|x2|`` (0 when either is 0)."""
    a, b = _magnitudes("lcm", x1, x2)
    divisor = _euclid(a, b)
    zero = tf.equal(divisor, 0)
    return tf.where(zero, tf.zeros_like(a), a * (b // tf.where(zero, tf.ones_like(divisor), divisor)))


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
