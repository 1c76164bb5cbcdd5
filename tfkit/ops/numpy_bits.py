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
    """Compute the bit-wise AND of two tensors element-wise.

    Computes the bit-wise AND of the underlying binary representation of the
    integers in the input tensors. The operands take Keras's common dtype
    (`int8` with `uint8` gives `int16`; a Python int follows the tensor's
    dtype). For bool tensors this is the logical AND.

    Args:
        x: Input integer or bool tensor.
        y: Input integer or bool tensor, broadcastable with `x`.

    Returns:
        Result tensor of the operands' common dtype.

    Raises:
        TypeError: If `x` or `y` is not of an integer or bool dtype.

    Example:
        >>> tfkit.ops.bitwise_and([12, 10], [10, 6]).numpy()
        array([8, 2], dtype=int32)
    """
    a, b = _integers("bitwise_and", x, y)
    return tf.logical_and(a, b) if a.dtype.is_bool else tf.bitwise.bitwise_and(a, b)


def bitwise_or(x: Any, y: Any) -> tf.Tensor:
    """Compute the bit-wise OR of two tensors element-wise.

    Computes the bit-wise OR of the underlying binary representation of the
    integers in the input tensors. The operands take Keras's common dtype
    (`int8` with `uint8` gives `int16`; a Python int follows the tensor's
    dtype). For bool tensors this is the logical OR.

    Args:
        x: Input integer or bool tensor.
        y: Input integer or bool tensor, broadcastable with `x`.

    Returns:
        Result tensor of the operands' common dtype.

    Raises:
        TypeError: If `x` or `y` is not of an integer or bool dtype.

    Example:
        >>> tfkit.ops.bitwise_or([12, 10], [10, 6]).numpy()
        array([14, 14], dtype=int32)
        >>> tfkit.ops.bitwise_or(np.array([1], "int8"), np.array([2], "uint8")).dtype
        tf.int16
    """
    a, b = _integers("bitwise_or", x, y)
    return tf.logical_or(a, b) if a.dtype.is_bool else tf.bitwise.bitwise_or(a, b)


def bitwise_xor(x: Any, y: Any) -> tf.Tensor:
    """Compute the bit-wise XOR of two tensors element-wise.

    Computes the bit-wise XOR of the underlying binary representation of the
    integers in the input tensors. The operands take Keras's common dtype
    (`int8` with `uint8` gives `int16`; a Python int follows the tensor's
    dtype). For bool tensors this is the logical XOR.

    Args:
        x: Input integer or bool tensor.
        y: Input integer or bool tensor, broadcastable with `x`.

    Returns:
        Result tensor of the operands' common dtype.

    Raises:
        TypeError: If `x` or `y` is not of an integer or bool dtype.

    Example:
        >>> tfkit.ops.bitwise_xor([12, 10], [10, 6]).numpy()
        array([ 6, 12], dtype=int32)
    """
    a, b = _integers("bitwise_xor", x, y)
    return tf.math.logical_xor(a, b) if a.dtype.is_bool else tf.bitwise.bitwise_xor(a, b)


def bitwise_invert(x: Any) -> tf.Tensor:
    """Compute the bit-wise inversion, or bit-wise NOT, element-wise.

    Computes the bit-wise NOT of the underlying binary representation of the
    integers in the input tensor (for signed integers, `~x` is `-x - 1`). For
    bool tensors this is the logical NOT. Same as `bitwise_not`.

    Args:
        x: Input integer or bool tensor.

    Returns:
        Result tensor of `x`'s dtype.

    Raises:
        TypeError: If `x` is not of an integer or bool dtype.

    Example:
        >>> tfkit.ops.bitwise_invert([0, 5, -1]).numpy()
        array([-1, -6,  0], dtype=int32)
        >>> tfkit.ops.bitwise_invert(np.array([0, 5], "uint8")).numpy()
        array([255, 250], dtype=uint8)
    """
    x = tensor(x)
    if x.dtype.is_bool:
        return tf.logical_not(x)
    if not x.dtype.is_integer:
        raise TypeError(f"bitwise_invert needs an integer or bool tensor; got x of dtype {x.dtype.name}")
    return tf.bitwise.invert(x)


def bitwise_not(x: Any) -> tf.Tensor:
    """Compute the bit-wise inversion, or bit-wise NOT, element-wise.

    Computes the bit-wise NOT of the underlying binary representation of the
    integers in the input tensor (for signed integers, `~x` is `-x - 1`). For
    bool tensors this is the logical NOT. Same as `bitwise_invert`.

    Args:
        x: Input integer or bool tensor.

    Returns:
        Result tensor of `x`'s dtype.

    Raises:
        TypeError: If `x` is not of an integer or bool dtype.

    Example:
        >>> tfkit.ops.bitwise_not([0, 5, -1]).numpy()
        array([-1, -6,  0], dtype=int32)
        >>> tfkit.ops.bitwise_not([True, False]).numpy()
        array([False,  True])
    """
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
    """Shift the bits of an integer to the left.

    Bits are shifted to the left by appending `y` 0s at the right of `x`. Since
    the internal representation of numbers is in binary format, this operation
    is equivalent to multiplying `x` by `2**y`. A Python int `y` keeps `x`'s
    dtype; tensor operands take Keras's common dtype, and bool operands are
    shifted as `int32`. Same as `left_shift`.

    Args:
        x: Input integer tensor.
        y: Input integer tensor or Python int: the number of bits to shift by,
            broadcastable with `x`.

    Returns:
        Result tensor.

    Raises:
        TypeError: If `x` or `y` is not of an integer or bool dtype.

    Example:
        >>> tfkit.ops.bitwise_left_shift([1, 3, 5], 2).numpy()
        array([ 4, 12, 20], dtype=int32)
        >>> tfkit.ops.bitwise_left_shift(np.array([1], "uint8"), 3).dtype
        tf.uint8
    """
    return _shift("bitwise_left_shift", x, y, tf.bitwise.left_shift)


def left_shift(x: Any, y: Any) -> tf.Tensor:
    """Shift the bits of an integer to the left.

    Bits are shifted to the left by appending `y` 0s at the right of `x`. Since
    the internal representation of numbers is in binary format, this operation
    is equivalent to multiplying `x` by `2**y`. A Python int `y` keeps `x`'s
    dtype; tensor operands take Keras's common dtype, and bool operands are
    shifted as `int32`. Same as `bitwise_left_shift`.

    Args:
        x: Input integer tensor.
        y: Input integer tensor or Python int: the number of bits to shift by,
            broadcastable with `x`.

    Returns:
        Result tensor.

    Raises:
        TypeError: If `x` or `y` is not of an integer or bool dtype.

    Example:
        >>> tfkit.ops.left_shift([1, 3, 5], [0, 1, 2]).numpy()
        array([ 1,  6, 20], dtype=int32)
    """
    return _shift("left_shift", x, y, tf.bitwise.left_shift)


def bitwise_right_shift(x: Any, y: Any) -> tf.Tensor:
    """Shift the bits of an integer to the right.

    Bits are shifted to the right by `y`. Since the internal representation of
    numbers is in binary format, this operation is equivalent to dividing `x`
    by `2**y` and rounding down. A Python int `y` keeps `x`'s dtype; tensor
    operands take Keras's common dtype, and bool operands are shifted as
    `int32`. Same as `right_shift`.

    Args:
        x: Input integer tensor.
        y: Input integer tensor or Python int: the number of bits to shift by,
            broadcastable with `x`.

    Returns:
        Result tensor.

    Raises:
        TypeError: If `x` or `y` is not of an integer or bool dtype.

    Example:
        >>> tfkit.ops.bitwise_right_shift([8, 12, -8], 2).numpy()
        array([ 2,  3, -2], dtype=int32)
    """
    return _shift("bitwise_right_shift", x, y, tf.bitwise.right_shift)


def right_shift(x: Any, y: Any) -> tf.Tensor:
    """Shift the bits of an integer to the right.

    Bits are shifted to the right by `y`. Since the internal representation of
    numbers is in binary format, this operation is equivalent to dividing `x`
    by `2**y` and rounding down. A Python int `y` keeps `x`'s dtype; tensor
    operands take Keras's common dtype, and bool operands are shifted as
    `int32`. Same as `bitwise_right_shift`.

    Args:
        x: Input integer tensor.
        y: Input integer tensor or Python int: the number of bits to shift by,
            broadcastable with `x`.

    Returns:
        Result tensor.

    Raises:
        TypeError: If `x` or `y` is not of an integer or bool dtype.

    Example:
        >>> tfkit.ops.right_shift([8, 12, 20], [1, 2, 3]).numpy()
        array([4, 3, 2], dtype=int32)
    """
    return _shift("right_shift", x, y, tf.bitwise.right_shift)


def _magnitudes(name: str, x1: Any, x2: Any) -> tuple[tf.Tensor, tf.Tensor]:
    a, b = tensor(x1), tensor(x2)
    common = operands(a, b)
    if not common[0].dtype.is_integer:
        raise TypeError(f"{name} needs integer tensors; got x1 of dtype {a.dtype.name} and x2 of dtype {b.dtype.name}")
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
    """Greatest common divisor of `x1` and `x2`, element-wise.

    Computes the greatest common divisor of `|x1|` and `|x2|`; it is 0 where
    both are 0. The operands are broadcast together and take Keras's common
    dtype.

    Args:
        x1: First input tensor (integer type).
        x2: Second input tensor (integer type), broadcastable with `x1`.

    Returns:
        Output tensor, element-wise greatest common divisor of `x1` and `x2`.

    Raises:
        TypeError: If the operands' common dtype is not an integer dtype.

    Example:
        >>> tfkit.ops.gcd([12, -18, 0, 7], [8, 12, 0, 0]).numpy()
        array([4, 6, 0, 7], dtype=int32)
    """
    return _euclid(*_magnitudes("gcd", x1, x2))


def lcm(x1: Any, x2: Any) -> tf.Tensor:
    """Least common multiple of `x1` and `x2`, element-wise.

    Computes the least common multiple of `|x1|` and `|x2|`; it is 0 where
    either is 0. The operands are broadcast together and take Keras's common
    dtype.

    Args:
        x1: First input tensor (integer type).
        x2: Second input tensor (integer type), broadcastable with `x1`.

    Returns:
        Output tensor, element-wise least common multiple of `x1` and `x2`.

    Raises:
        TypeError: If the operands' common dtype is not an integer dtype.

    Example:
        >>> tfkit.ops.lcm([4, -6, 0], [6, 4, 5]).numpy()
        array([12, 12,  0], dtype=int32)
    """
    a, b = _magnitudes("lcm", x1, x2)
    divisor = _euclid(a, b)
    zero = tf.equal(divisor, 0)
    return tf.where(zero, tf.zeros_like(a), a * (b // tf.where(zero, tf.ones_like(divisor), divisor)))


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), __all__)
