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
from tfkit.ops.numpy_dtypes import operands, result_type
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
    """Add arguments element-wise.

    The operands are broadcast together and take Keras's common dtype: `int8`
    with `uint8` gives `int16`, an int with a float gives the float, and a
    Python number follows the tensor's dtype where its kind fits (an `int8`
    tensor plus `3` stays `int8`; plus `3.5` gives `float32`).

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        The tensor containing the element-wise sum of `x1` and `x2`.

    Example:
        >>> tfkit.ops.add([1, 2], [3, 4]).numpy()
        array([4, 6], dtype=int32)
        >>> tfkit.ops.add(np.array([1, 2], "int8"), 3).dtype
        tf.int8
        >>> tfkit.ops.add(np.array([1], "int8"), np.array([2], "uint8")).dtype
        tf.int16
    """
    a, b = operands(x1, x2)
    return a + b


def subtract(x1: Any, x2: Any) -> tf.Tensor:
    """Subtract arguments element-wise.

    The operands are broadcast together and take Keras's common dtype, as in
    `add`.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        Output tensor, element-wise difference of `x1` and `x2`.

    Example:
        >>> tfkit.ops.subtract([5, 7], [3, 4]).numpy()
        array([2, 3], dtype=int32)
        >>> tfkit.ops.subtract([5, 7], 0.5).numpy()
        array([4.5, 6.5], dtype=float32)
    """
    a, b = operands(x1, x2)
    return a - b


def multiply(x1: Any, x2: Any) -> tf.Tensor:
    """Multiply arguments element-wise.

    The operands are broadcast together and take Keras's common dtype, as in
    `add`.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        Output tensor, element-wise product of `x1` and `x2`.

    Example:
        >>> tfkit.ops.multiply([1, 2], [3, 4]).numpy()
        array([3, 8], dtype=int32)
        >>> tfkit.ops.multiply([1, 2], 2.5).numpy()
        array([2.5, 5. ], dtype=float32)
    """
    a, b = operands(x1, x2)
    return a * b


def divide(x1: Any, x2: Any) -> tf.Tensor:
    """Divide arguments element-wise.

    True division: the operands take Keras's common dtype, and integer or bool
    results are cast to `float32` before dividing, so integer inputs give a
    `float32` result. Same as `true_divide`.

    Args:
        x1: First input tensor (the dividend).
        x2: Second input tensor (the divisor), broadcastable with `x1`.

    Returns:
        Output tensor, the quotient `x1 / x2`, element-wise.

    Example:
        >>> tfkit.ops.divide([1, 3], [2, 4]).numpy()
        array([0.5 , 0.75], dtype=float32)
    """
    a, b = operands(x1, x2)
    return float_of(a) / float_of(b)


def true_divide(x1: Any, x2: Any) -> tf.Tensor:
    """Divide arguments element-wise.

    Alias of `divide`: integer inputs give a `float32` result.

    Args:
        x1: First input tensor (the dividend).
        x2: Second input tensor (the divisor), broadcastable with `x1`.

    Returns:
        Output tensor, the quotient `x1 / x2`, element-wise.

    Example:
        >>> tfkit.ops.true_divide([3, 5], 2).numpy()
        array([1.5, 2.5], dtype=float32)
    """
    return divide(x1, x2)


def floor_divide(x1: Any, x2: Any) -> tf.Tensor:
    """Return the largest integer smaller or equal to the division of inputs.

    The operands take Keras's common dtype, which the result keeps: integers
    give integers, floats give floats holding whole numbers.

    Args:
        x1: Numerator.
        x2: Denominator, broadcastable with `x1`.

    Returns:
        Output tensor, `floor(x1 / x2)` element-wise.

    Example:
        >>> tfkit.ops.floor_divide([7, -7], 2).numpy()
        array([ 3, -4], dtype=int32)
        >>> tfkit.ops.floor_divide([7.5], 2).numpy()
        array([3.], dtype=float32)
    """
    a, b = operands(x1, x2)
    return tf.math.floordiv(a, b)


def mod(x1: Any, x2: Any) -> tf.Tensor:
    """Return the element-wise remainder of division.

    The remainder has the sign of the divisor, as in NumPy (floored modulo).
    Python numbers are first converted to `int32` or `float32` tensors (as
    Keras's TensorFlow backend does), then the operands take Keras's common
    dtype; bool operands are computed as `int32`.

    Args:
        x1: First input tensor (the dividend).
        x2: Second input tensor (the divisor), broadcastable with `x1`.

    Returns:
        Output tensor, element-wise remainder of division.

    Example:
        >>> tfkit.ops.mod([5, -5, 7], 3).numpy()
        array([2, 1, 1], dtype=int32)
        >>> tfkit.ops.mod(np.array([5], "int8"), 3).dtype
        tf.int32
    """
    a, b = operands(x1, x2, weak_scalars=False)
    if a.dtype.is_bool:
        a, b = tf.cast(a, tf.int32), tf.cast(b, tf.int32)
    return tf.math.floormod(a, b)


def power(x1: Any, x2: Any) -> tf.Tensor:
    """First tensor elements raised to powers from second tensor, element-wise.

    The operands are cast to one common dtype: a float over an int, the wider
    of two dtypes of one kind, and a Python float turns integer operands into
    `float32`.

    Args:
        x1: The bases.
        x2: The exponents, broadcastable with `x1`.

    Returns:
        Output tensor, the bases in `x1` raised to the exponents in `x2`.

    Example:
        >>> tfkit.ops.power([2, 3], 2).numpy()
        array([4, 9], dtype=int32)
        >>> tfkit.ops.power([4, 9], 0.5).numpy()
        array([2., 3.], dtype=float32)
    """
    a, b = promote(x1, x2)
    return tf.pow(a, b)


def negative(x: Any) -> tf.Tensor:
    """Numerical negative, element-wise.

    Args:
        x: Input tensor (not bool).

    Returns:
        Output tensor of `x`'s dtype, `y = -x`.

    Example:
        >>> tfkit.ops.negative([1, -2]).numpy()
        array([-1,  2], dtype=int32)
    """
    return -tensor(x)


def abs(x: Any) -> tf.Tensor:  # noqa: A001  (Keras's name)
    """Compute the absolute value element-wise.

    Bool and unsigned inputs are returned unchanged; complex inputs give their
    magnitude as a real tensor. Same as `absolute`.

    Args:
        x: Input tensor.

    Returns:
        An array containing the absolute value of each element in `x`.

    Example:
        >>> tfkit.ops.abs([-1.5, 0.0, 2.0]).numpy()
        array([1.5, 0. , 2. ], dtype=float32)
    """
    x = tensor(x)
    return x if x.dtype.is_bool or x.dtype.is_unsigned else tf.abs(x)


def absolute(x: Any) -> tf.Tensor:
    """Compute the absolute value element-wise.

    Bool and unsigned inputs are returned unchanged; complex inputs give their
    magnitude as a real tensor. Same as `abs`.

    Args:
        x: Input tensor.

    Returns:
        An array containing the absolute value of each element in `x`.

    Example:
        >>> tfkit.ops.absolute([-1, 0, 2]).numpy()
        array([1, 0, 2], dtype=int32)
    """
    x = tensor(x)
    return x if x.dtype.is_bool or x.dtype.is_unsigned else tf.abs(x)


def square(x: Any) -> tf.Tensor:
    """Return the element-wise square of the input.

    Bool inputs are squared as `int32`; other dtypes are kept.

    Args:
        x: Input tensor.

    Returns:
        Output tensor, the square of `x`.

    Example:
        >>> tfkit.ops.square([-2, 3]).numpy()
        array([4, 9], dtype=int32)
    """
    x = tensor(x)
    return tf.square(tf.cast(x, tf.int32) if x.dtype.is_bool else x)


def sqrt(x: Any) -> tf.Tensor:
    """Return the non-negative square root of a tensor, element-wise.

    Integer and bool inputs give `float32`; float and complex inputs keep their
    dtype. Negative floats give NaN.

    Args:
        x: Input tensor.

    Returns:
        Output tensor, the non-negative square root of `x`.

    Example:
        >>> tfkit.ops.sqrt([1, 4, 9]).numpy()
        array([1., 2., 3.], dtype=float32)
    """
    return tf.sqrt(float_of(tensor(x)))


def exp(x: Any) -> tf.Tensor:
    """Calculate the exponential of all elements in the input tensor.

    Integer and bool inputs give `float32`; float and complex inputs keep their
    dtype.

    Args:
        x: Input tensor.

    Returns:
        Output tensor, element-wise exponential of `x`.

    Example:
        >>> np.round(tfkit.ops.exp([0, 1]).numpy(), 4)
        array([1.    , 2.7183], dtype=float32)
    """
    return tf.exp(float_of(tensor(x)))


def log(x: Any) -> tf.Tensor:
    """Natural logarithm, element-wise.

    Integer and bool inputs give `float32`; float and complex inputs keep their
    dtype. Zero gives `-inf` and negative floats give NaN.

    Args:
        x: Input tensor.

    Returns:
        Output tensor, element-wise natural logarithm of `x`.

    Example:
        >>> np.round(tfkit.ops.log([1.0, np.e, 10.0]).numpy(), 4)
        array([0.    , 1.    , 2.3026], dtype=float32)
    """
    return tf.math.log(float_of(tensor(x)))


def log1p(x: Any) -> tf.Tensor:
    """Return the natural logarithm of one plus the `x`, element-wise.

    Calculates `log(1 + x)`, accurately also for `x` close to zero. Integer and
    bool inputs give `float32`; float and complex inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        Output tensor, element-wise natural logarithm of `1 + x`.

    Example:
        >>> np.round(tfkit.ops.log1p([0.0, 1.0]).numpy(), 4)
        array([0.    , 0.6931], dtype=float32)
    """
    return tf.math.log1p(float_of(tensor(x)))


def expm1(x: Any) -> tf.Tensor:
    """Calculate `exp(x) - 1` for all elements in the tensor.

    Accurate also for `x` close to zero. Integer and bool inputs give `float32`;
    float and complex inputs keep their dtype.

    Args:
        x: Input values.

    Returns:
        Output tensor, element-wise `exp(x) - 1`.

    Example:
        >>> np.round(tfkit.ops.expm1([0.0, 1.0]).numpy(), 4)
        array([0.    , 1.7183], dtype=float32)
    """
    return tf.math.expm1(float_of(tensor(x)))


def sin(x: Any) -> tf.Tensor:
    """Trigonometric sine, element-wise.

    Integer and bool inputs give `float32`; float and complex inputs keep their
    dtype.

    Args:
        x: Input tensor of angles in radians.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> np.round(tfkit.ops.sin([0.0, np.pi / 2]).numpy(), 4)
        array([0., 1.], dtype=float32)
    """
    return tf.sin(float_of(tensor(x)))


def cos(x: Any) -> tf.Tensor:
    """Cosine, element-wise.

    Integer and bool inputs give `float32`; float and complex inputs keep their
    dtype.

    Args:
        x: Input tensor of angles in radians.

    Returns:
        The corresponding cosine values.

    Example:
        >>> np.round(tfkit.ops.cos([0.0, np.pi]).numpy(), 4)
        array([ 1., -1.], dtype=float32)
    """
    return tf.cos(float_of(tensor(x)))


def tanh(x: Any) -> tf.Tensor:
    """Hyperbolic tangent, element-wise.

    Integer and bool inputs give `float32`; float and complex inputs keep their
    dtype.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> np.round(tfkit.ops.tanh([-1.0, 0.0, 1.0]).numpy(), 4)
        array([-0.7616,  0.    ,  0.7616], dtype=float32)
    """
    return tf.tanh(float_of(tensor(x)))


def sign(x: Any) -> tf.Tensor:
    """Return a tensor with the signs of the elements of `x`.

    Gives -1 for negative, 0 for zero and 1 for positive elements, in `x`'s
    dtype. Unsigned inputs give 1 where positive, else 0.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape and dtype as `x`.

    Example:
        >>> tfkit.ops.sign([-3, 0, 2]).numpy()
        array([-1,  0,  1], dtype=int32)
    """
    x = tensor(x)
    if x.dtype.is_unsigned:  # no unsigned kernel: 1 where positive, else 0
        return tf.cast(x > 0, x.dtype)
    return tf.sign(x)


def floor(x: Any) -> tf.Tensor:
    """Return the floor of the input, element-wise.

    The floor of the scalar `x` is the largest integer `i`, such that `i <= x`.
    Integer and bool inputs give `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        Output tensor, element-wise floor of `x`.

    Example:
        >>> tfkit.ops.floor([1.7, -1.2]).numpy()
        array([ 1., -2.], dtype=float32)
    """
    return tf.floor(float_of(tensor(x)))


def ceil(x: Any) -> tf.Tensor:
    """Return the ceiling of the input, element-wise.

    The ceil of the scalar `x` is the smallest integer `i`, such that `i >= x`.
    Integer and bool inputs give `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        The ceiling of each element in `x`.

    Example:
        >>> tfkit.ops.ceil([1.2, -1.7]).numpy()
        array([ 2., -1.], dtype=float32)
    """
    return tf.math.ceil(float_of(tensor(x)))


def round(x: Any, decimals: int = 0) -> tf.Tensor:  # noqa: A001
    """Evenly round to the given number of decimals.

    Halves round to the nearest even value (`0.5` gives `0.`, `1.5` gives `2.`).
    The result keeps `x`'s dtype. Integer inputs come back unchanged for
    `decimals > 0`; for `decimals < 0` they are rounded through `float32`.

    Args:
        x: Input tensor.
        decimals: Number of decimal places to round to; negative values round
            to the left of the decimal point. Defaults to `0`.

    Returns:
        Output tensor, `x` rounded.

    Example:
        >>> tfkit.ops.round([0.5, 1.5, 2.7]).numpy()
        array([0., 2., 3.], dtype=float32)
        >>> tfkit.ops.round([1.2345], decimals=2).numpy()
        array([1.23], dtype=float32)
        >>> tfkit.ops.round([123, 156], decimals=-1).numpy()
        array([120, 160], dtype=int32)
    """
    x = tensor(x)
    if decimals == 0:
        return tf.round(x)
    if x.dtype.is_integer and decimals > 0:
        return x
    factor = tf.cast(10.0**decimals, float_of(x).dtype)
    rounded = tf.round(float_of(x) * factor) / factor
    return tf.cast(rounded, x.dtype) if x.dtype.is_integer else rounded


def maximum(x1: Any, x2: Any) -> tf.Tensor:
    """Element-wise maximum of `x1` and `x2`.

    The operands are broadcast together and take Keras's common dtype, as in
    `add`.

    Args:
        x1: First tensor.
        x2: Second tensor, broadcastable with `x1`.

    Returns:
        Output tensor, element-wise maximum of `x1` and `x2`.

    Example:
        >>> tfkit.ops.maximum([1, 5], [3, 2]).numpy()
        array([3, 5], dtype=int32)
    """
    a, b = operands(x1, x2)
    return tf.maximum(a, b)


def minimum(x1: Any, x2: Any) -> tf.Tensor:
    """Element-wise minimum of `x1` and `x2`.

    The operands are broadcast together and take Keras's common dtype, as in
    `add`.

    Args:
        x1: First tensor.
        x2: Second tensor, broadcastable with `x1`.

    Returns:
        Output tensor, element-wise minimum of `x1` and `x2`.

    Example:
        >>> tfkit.ops.minimum([1, 5], [3, 2]).numpy()
        array([1, 2], dtype=int32)
    """
    a, b = operands(x1, x2)
    return tf.minimum(a, b)


def clip(x: Any, x_min: Any, x_max: Any) -> tf.Tensor:
    """Clip (limit) the values in a tensor.

    Given an interval, values outside the interval are clipped to the interval
    edges. For example, if an interval of `[0, 1]` is specified, values smaller
    than 0 become 0, and values larger than 1 become 1. The bounds are cast to
    `x`'s dtype, which the result keeps; a `bool` `x` is first cast to
    `int32`.

    Args:
        x: Input tensor.
        x_min: Minimum value, a scalar or a tensor broadcastable with `x`.
        x_max: Maximum value, a scalar or a tensor broadcastable with `x`.

    Returns:
        The clipped tensor.

    Example:
        >>> tfkit.ops.clip([1, 5, 9], 2, 7).numpy()
        array([2, 5, 7], dtype=int32)
        >>> tfkit.ops.clip([True, False], 0, 1).numpy()
        array([1, 0], dtype=int32)
    """
    x = tensor(x)
    if x.dtype.is_bool:
        x = tf.cast(x, tf.int32)
    return tf.clip_by_value(x, _cast_bound(x_min, x.dtype), _cast_bound(x_max, x.dtype))


def _cast_bound(value: Any, dtype: tf.DType) -> tf.Tensor:
    """A bound of `clip` in `dtype`: Python numbers go through numpy, since `tf.cast(0.1, tf.float64)`
    would round 0.1 to float32 first."""
    if isinstance(value, (int, float, list, tuple)):
        value = np.asarray(value)
    return tf.cast(value, dtype)


# ------------------------------------------------------------------ reductions


def mean(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Compute the arithmetic mean along the specified axes.

    Integer and bool inputs give `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the means are computed. Defaults to
            `None`: the mean of all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.

    Returns:
        Output tensor containing the mean values.

    Example:
        >>> tfkit.ops.mean([[1, 2], [3, 5]]).numpy()
        np.float32(2.75)
        >>> tfkit.ops.mean([[1.0, 2.0], [3.0, 5.0]], axis=1).numpy()
        array([1.5, 4. ], dtype=float32)
    """
    return tf.reduce_mean(float_of(tensor(x)), axis=_axis(axis), keepdims=keepdims)


# sums and products of small ints accumulate in 32 bits, as in Keras (and JAX)
_WIDENED = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


def sum(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:  # noqa: A001
    """Sum of a tensor over the given axes.

    Small integer and bool inputs accumulate in 32 bits, as in Keras: `bool`,
    `int8` and `int16` give `int32`; `uint8` and `uint16` give `uint32`; other
    dtypes are kept.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the sum is computed. Defaults to `None`:
            the sum of all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.

    Returns:
        Output tensor containing the sum.

    Example:
        >>> tfkit.ops.sum([[1, 2], [3, 4]], axis=0).numpy()
        array([4, 6], dtype=int32)
        >>> tfkit.ops.sum([True, True, False]).numpy()
        np.int32(2)
    """
    x = tensor(x)
    return tf.reduce_sum(tf.cast(x, _WIDENED.get(x.dtype.name, x.dtype)), axis=_axis(axis), keepdims=keepdims)


def prod(x: Any, axis: Axis = None, keepdims: bool = False, dtype: Any = None) -> tf.Tensor:
    """Return the product of tensor elements over a given axis.

    Args:
        x: Input tensor.
        axis: Axis or axes along which a product is performed. Defaults to
            `None`: the product of all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.
        dtype: Dtype `x` is cast to before multiplying, which the result has.
            Defaults to `None`: `x`'s dtype, except that small integer and bool
            inputs accumulate in 32 bits (`bool`, `int8` and `int16` give
            `int32`; `uint8` and `uint16` give `uint32`).

    Returns:
        Product of elements of `x` over the given axis or axes.

    Example:
        >>> tfkit.ops.prod([[1, 2], [3, 4]], axis=1).numpy()
        array([ 2, 12], dtype=int32)
        >>> tfkit.ops.prod(np.array([100, 100], "int8")).numpy()
        np.int32(10000)
    """
    x = tensor(x, dtype)
    if dtype is None:
        x = tf.cast(x, _WIDENED.get(x.dtype.name, x.dtype))
    return tf.reduce_prod(x, axis=_axis(axis), keepdims=keepdims)


def max(x: Any, axis: Axis = None, keepdims: bool = False, initial: Any = None) -> tf.Tensor:  # noqa: A001
    """Return the maximum of a tensor or maximum along an axis.

    Args:
        x: Input tensor.
        axis: Axis or axes along which to operate. Defaults to `None`: the
            maximum of all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.
        initial: The minimum value of an output element: the result is the
            larger of the reduction and `initial`, cast to `x`'s dtype.
            Defaults to `None` (no minimum).

    Returns:
        Maximum of `x`, of `x`'s dtype.

    Example:
        >>> tfkit.ops.max([[1, 5], [7, 2]], axis=0).numpy()
        array([7, 5], dtype=int32)
        >>> tfkit.ops.max([1, 2], initial=5).numpy()
        np.int32(5)
    """
    out = _extreme(tensor(x), axis, keepdims, largest=True)
    if initial is None:
        return out
    if out.dtype.is_bool:  # as Keras: booleans compare as 0 and 1
        return tf.cast(tf.maximum(tf.cast(out, tf.int32), tf.cast(initial, tf.int32)), tf.bool)
    return tf.maximum(out, tf.cast(initial, out.dtype))


def min(x: Any, axis: Axis = None, keepdims: bool = False, initial: Any = None) -> tf.Tensor:  # noqa: A001
    """Return the minimum of a tensor or minimum along an axis.

    Args:
        x: Input tensor.
        axis: Axis or axes along which to operate. Defaults to `None`: the
            minimum of all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.
        initial: The maximum value of an output element: the result is the
            smaller of the reduction and `initial`, cast to `x`'s dtype.
            Defaults to `None` (no maximum).

    Returns:
        Minimum of `x`, of `x`'s dtype.

    Example:
        >>> tfkit.ops.min([[1, 5], [7, 2]], axis=1).numpy()
        array([1, 2], dtype=int32)
        >>> tfkit.ops.min([3, 4], initial=0).numpy()
        np.int32(0)
    """
    out = _extreme(tensor(x), axis, keepdims, largest=False)
    if initial is None:
        return out
    if out.dtype.is_bool:
        return tf.cast(tf.minimum(tf.cast(out, tf.int32), tf.cast(initial, tf.int32)), tf.bool)
    return tf.minimum(out, tf.cast(initial, out.dtype))


def _extreme(x: tf.Tensor, axis: Axis, keepdims: bool, largest: bool) -> tf.Tensor:
    """`tf.reduce_max`/`tf.reduce_min`; of booleans (which those kernels refuse) `reduce_any`/`reduce_all`."""
    if x.dtype.is_bool:
        reduce = tf.reduce_any if largest else tf.reduce_all
    else:
        reduce = tf.reduce_max if largest else tf.reduce_min
    return reduce(x, axis=_axis(axis), keepdims=keepdims)


def amax(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Return the maximum of a tensor or maximum along an axis.

    Like `max`, without `initial`.

    Args:
        x: Input tensor.
        axis: Axis or axes along which to compute the maximum. Defaults to
            `None`: the maximum of all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.

    Returns:
        A tensor of `x`'s dtype with the maximum value(s).

    Example:
        >>> x = [[1, 3, 5], [2, 3, 6]]
        >>> tfkit.ops.amax(x).numpy()
        np.int32(6)
        >>> tfkit.ops.amax(x, axis=1, keepdims=True).numpy()
        array([[5],
               [6]], dtype=int32)
    """
    return _extreme(tensor(x), axis, keepdims, largest=True)


def amin(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Return the minimum of a tensor or minimum along an axis.

    Like `min`, without `initial`.

    Args:
        x: Input tensor.
        axis: Axis or axes along which to compute the minimum. Defaults to
            `None`: the minimum of all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.

    Returns:
        A tensor of `x`'s dtype with the minimum value(s).

    Example:
        >>> x = [[1, 3, 5], [2, 3, 6]]
        >>> tfkit.ops.amin(x).numpy()
        np.int32(1)
        >>> tfkit.ops.amin(x, axis=0).numpy()
        array([1, 3, 5], dtype=int32)
    """
    return _extreme(tensor(x), axis, keepdims, largest=False)


def std(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Compute the standard deviation along the specified axes.

    The population standard deviation (no degrees-of-freedom correction).
    Integer and bool inputs give `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.
        axis: Axis or axes along which to compute the standard deviation.
            Defaults to `None`: over all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.

    Returns:
        Output tensor containing the standard deviation values.

    Example:
        >>> tfkit.ops.std([[1, 3], [2, 2]], axis=1).numpy()
        array([1., 0.], dtype=float32)
    """
    return tf.math.reduce_std(float_of(tensor(x)), axis=_axis(axis), keepdims=keepdims)


def var(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Compute the variance along the specified axes.

    The population variance (no degrees-of-freedom correction). Integer and
    bool inputs give `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the variance is computed. Defaults to
            `None`: over all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.

    Returns:
        Output tensor containing the variance.

    Example:
        >>> tfkit.ops.var([1, 2, 3, 4]).numpy()
        np.float32(1.25)
    """
    return tf.math.reduce_variance(float_of(tensor(x)), axis=_axis(axis), keepdims=keepdims)


def any(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:  # noqa: A001
    """Test whether any array element along a given axis evaluates to `True`.

    Elements are cast to bool first: nonzero values are `True`.

    Args:
        x: Input tensor.
        axis: Axis or axes along which a logical OR reduction is performed.
            Defaults to `None`: over all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.

    Returns:
        A bool tensor containing the logical OR reduction over the `axis`.

    Example:
        >>> x = [[True, False], [False, False]]
        >>> tfkit.ops.any(x).numpy()
        np.True_
        >>> tfkit.ops.any(x, axis=1).numpy()
        array([ True, False])
    """
    return tf.reduce_any(tf.cast(tensor(x), tf.bool), axis=_axis(axis), keepdims=keepdims)


def all(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:  # noqa: A001
    """Test whether all array elements along a given axis evaluate to `True`.

    Elements are cast to bool first: nonzero values are `True`. An empty
    reduction gives `True`.

    Args:
        x: Input tensor.
        axis: Axis or axes along which a logical AND reduction is performed.
            Defaults to `None`: over all elements.
        keepdims: If `True`, the axes which are reduced are left in the result
            as dimensions with size one. Defaults to `False`.

    Returns:
        A bool tensor containing the logical AND reduction over the `axis`.

    Example:
        >>> x = [[1, 2], [0, 3]]
        >>> tfkit.ops.all(x).numpy()
        np.False_
        >>> tfkit.ops.all(x, axis=0, keepdims=True).numpy()
        array([[False,  True]])
    """
    return tf.reduce_all(tf.cast(tensor(x), tf.bool), axis=_axis(axis), keepdims=keepdims)


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> tf.Tensor:
    """Return the indices of the maximum values along an axis.

    Among equal maxima, the first index is returned.

    Args:
        x: Input tensor.
        axis: Integer axis along which to search. Defaults to `None`: the index
            is into the flattened tensor.
        keepdims: If `True`, the reduced axis (every axis when `axis` is
            `None`) is left in the result as a dimension with size one.
            Defaults to `False`.

    Returns:
        An `int32` tensor of indices: `x`'s shape with the dimension along
        `axis` removed (a scalar when `axis` is `None`).

    Example:
        >>> x = [[1, 5, 2], [7, 0, 7]]
        >>> tfkit.ops.argmax(x).numpy()
        np.int32(3)
        >>> tfkit.ops.argmax(x, axis=1).numpy()
        array([1, 0], dtype=int32)
        >>> tfkit.ops.argmax(x, axis=0, keepdims=True).numpy()
        array([[1, 0, 1]], dtype=int32)
    """
    x = tensor(x)
    if axis is None:
        out = tf.argmax(tf.reshape(x, [-1]), output_type=tf.int32)
        return tf.reshape(out, [1] * len(x.shape)) if keepdims else out
    out = tf.argmax(x, axis=axis, output_type=tf.int32)
    return tf.expand_dims(out, axis) if keepdims else out


def argmin(x: Any, axis: int | None = None, keepdims: bool = False) -> tf.Tensor:
    """Return the indices of the minimum values along an axis.

    Among equal minima, the first index is returned.

    Args:
        x: Input tensor.
        axis: Integer axis along which to search. Defaults to `None`: the index
            is into the flattened tensor.
        keepdims: If `True`, the reduced axis (every axis when `axis` is
            `None`) is left in the result as a dimension with size one.
            Defaults to `False`.

    Returns:
        An `int32` tensor of indices: `x`'s shape with the dimension along
        `axis` removed (a scalar when `axis` is `None`).

    Example:
        >>> x = [[1, 5, 2], [7, 0, 7]]
        >>> tfkit.ops.argmin(x).numpy()
        np.int32(4)
        >>> tfkit.ops.argmin(x, axis=1).numpy()
        array([0, 1], dtype=int32)
    """
    x = tensor(x)
    if axis is None:
        out = tf.argmin(tf.reshape(x, [-1]), output_type=tf.int32)
        return tf.reshape(out, [1] * len(x.shape)) if keepdims else out
    out = tf.argmin(x, axis=axis, output_type=tf.int32)
    return tf.expand_dims(out, axis) if keepdims else out


def argsort(x: Any, axis: int = -1) -> tf.Tensor:
    """Return the indices that would sort a tensor.

    The sort is ascending and stable: equal elements keep their order.

    Args:
        x: Input tensor.
        axis: Axis along which to sort. Defaults to `-1` (the last axis).

    Returns:
        An `int32` tensor of indices of `x`'s shape that sort `x` along `axis`.

    Example:
        >>> tfkit.ops.argsort([3, 1, 2, 1]).numpy()
        array([1, 3, 2, 0], dtype=int32)
        >>> tfkit.ops.argsort([[0, 3], [3, 2]], axis=0).numpy()
        array([[0, 1],
               [1, 0]], dtype=int32)
    """
    return tf.argsort(tensor(x), axis=axis, stable=True)


def sort(x: Any, axis: int = -1) -> tf.Tensor:
    """Sort the elements of `x` along a given axis in ascending order.

    Args:
        x: Input tensor.
        axis: Axis along which to sort. Defaults to `-1` (the last axis).

    Returns:
        Sorted tensor of `x`'s shape and dtype.

    Example:
        >>> tfkit.ops.sort([[3, 1, 2], [0, 5, 4]]).numpy()
        array([[1, 2, 3],
               [0, 4, 5]], dtype=int32)
        >>> tfkit.ops.sort([[3, 1], [0, 2]], axis=0).numpy()
        array([[0, 1],
               [3, 2]], dtype=int32)
    """
    return tf.sort(tensor(x), axis=axis)


def cumsum(x: Any, axis: int | None = None, dtype: Any = None) -> tf.Tensor:
    """Return the cumulative sum of elements along a given axis.

    Args:
        x: Input tensor.
        axis: Axis along which the cumulative sum is computed. Defaults to
            `None`: the sum runs over the flattened tensor.
        dtype: Dtype `x` is cast to before summing, which the result has.
            Defaults to `None`: `x`'s dtype, with bool inputs summed as `int32`.

    Returns:
        Output tensor of the cumulative sums: `x`'s shape, or 1-D when `axis`
        is `None`.

    Example:
        >>> tfkit.ops.cumsum([[1, 2], [3, 4]]).numpy()
        array([ 1,  3,  6, 10], dtype=int32)
        >>> tfkit.ops.cumsum([[1, 2], [3, 4]], axis=0, dtype="float32").numpy()
        array([[1., 2.],
               [4., 6.]], dtype=float32)
    """
    x = tensor(x, dtype)
    x = tf.cast(x, tf.int32) if x.dtype.is_bool else x
    return tf.cumsum(tf.reshape(x, [-1]) if axis is None else x, axis=0 if axis is None else axis)


def cumprod(x: Any, axis: int | None = None, dtype: Any = None) -> tf.Tensor:
    """Return the cumulative product of elements along a given axis.

    Args:
        x: Input tensor.
        axis: Axis along which the cumulative product is computed. Defaults to
            `None`: the product runs over the flattened tensor.
        dtype: Dtype `x` is cast to before multiplying, which the result has.
            Defaults to `None`: `x`'s dtype, with bool inputs multiplied as
            `int32`.

    Returns:
        Output tensor of the cumulative products: `x`'s shape, or 1-D when
        `axis` is `None`.

    Example:
        >>> tfkit.ops.cumprod([[1, 2], [3, 4]]).numpy()
        array([ 1,  2,  6, 24], dtype=int32)
        >>> tfkit.ops.cumprod([[1, 2], [3, 4]], axis=1).numpy()
        array([[ 1,  2],
               [ 3, 12]], dtype=int32)
    """
    x = tensor(x, dtype)
    x = tf.cast(x, tf.int32) if x.dtype.is_bool else x
    return tf.math.cumprod(tf.reshape(x, [-1]) if axis is None else x, axis=0 if axis is None else axis)


def count_nonzero(x: Any, axis: Axis = None) -> tf.Tensor:
    """Count the number of non-zero values in `x` along the given `axis`.

    Args:
        x: Input tensor.
        axis: Axis or axes along which to count. Defaults to `None`: the count
            over all elements.

    Returns:
        An `int32` tensor of counts.

    Example:
        >>> x = [[0, 1, 7], [2, 0, 0]]
        >>> tfkit.ops.count_nonzero(x).numpy()
        np.int32(3)
        >>> tfkit.ops.count_nonzero(x, axis=1).numpy()
        array([2, 1], dtype=int32)
    """
    return tf.math.count_nonzero(tensor(x), axis=_axis(axis), dtype=tf.int32)


def average(x: Any, axis: Axis = None, weights: Any = None) -> tf.Tensor:
    """Compute the weighted average along the specified axis.

    Without `weights` this is the mean. With `weights`, it is
    `sum(x * weights) / sum(weights)` over `axis`. Integer and bool inputs give
    `float32`; the weights are cast to the result dtype.

    Args:
        x: Input tensor.
        axis: Axis or axes along which to average `x`. Defaults to `None`: the
            average of all elements.
        weights: Tensor of weights associated with the values in `x`: of a
            shape broadcastable with `x`, or, when `axis` is an integer, 1-D
            with one weight per position along `axis`. Defaults to `None`: all
            weights equal to one.

    Returns:
        The average along the specified axis.

    Example:
        >>> tfkit.ops.average([1.0, 2.0, 3.0], weights=[3, 1, 0]).numpy()
        np.float32(1.25)
        >>> x = [[1.0, 2.0], [3.0, 4.0]]
        >>> tfkit.ops.average(x, axis=1, weights=[1, 3]).numpy()
        array([1.75, 3.75], dtype=float32)
    """
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

# tf.matmul has no kernels for these; they are multiplied in a wider int and cast back.
_MATMUL_COMPUTE = {
    "bool": "int32",
    "int8": "int32",
    "int16": "int32",
    "uint8": "int32",
    "uint16": "int32",
    "uint32": "int64",
}


def matmul(x1: Any, x2: Any) -> tf.Tensor:
    """Matrix product of two tensors.

    Tensors of rank above 2 are treated as stacks of matrices residing in the
    last two axes, their leading axes broadcast together. As in numpy, a 1-D
    `x1` is a row vector and a 1-D `x2` a column vector, whose added axis is
    dropped from the result (two vectors give a scalar). The result takes
    Keras's common dtype of the operands (as in `add`); two `int8` operands
    give `int32`.

    Args:
        x1: First tensor, of shape `(..., n, k)` or `(k,)`.
        x2: Second tensor, of shape `(..., k, m)` or `(k,)`.

    Returns:
        Output tensor of shape `(..., n, m)`, the matrix product of the inputs,
        without the `n` or `m` axis of a 1-D operand.

    Example:
        >>> tfkit.ops.matmul([[1, 2], [3, 4]], [[1], [1]]).numpy()
        array([[3],
               [7]], dtype=int32)
        >>> tfkit.ops.matmul(np.ones((5, 2, 3)), np.ones((5, 3, 4))).shape
        TensorShape([5, 2, 4])
        >>> tfkit.ops.matmul([1, 2], [3, 4]).numpy()
        np.int32(11)
    """
    a, b = tensor(x1), tensor(x2)
    dtype = "int32" if a.dtype == b.dtype == tf.int8 else result_type(a.dtype, b.dtype)
    compute = _MATMUL_COMPUTE.get(dtype, dtype)
    a, b = tf.cast(a, compute), tf.cast(b, compute)
    vector1, vector2 = len(a.shape) == 1, len(b.shape) == 1
    out = tf.matmul(a[None] if vector1 else a, b[:, None] if vector2 else b)
    out = tf.squeeze(out, axis=-1) if vector2 else out
    out = tf.squeeze(out, axis=-1 if vector2 else -2) if vector1 else out
    return tf.cast(out, dtype)


def dot(x1: Any, x2: Any) -> tf.Tensor:
    """Dot product of two tensors.

    - If either `x1` or `x2` is 0-D (scalar), it is the element-wise product.
    - If `x2` is 1-D, it is a sum product over the last axis of `x1` and `x2`
      (for two 1-D tensors, the inner product).
    - Otherwise it is a sum product over the last axis of `x1` and the
      second-to-last axis of `x2` (for 2-D tensors, the matrix product).

    The operands are cast to one common dtype: a float over an int, the wider
    of two dtypes of one kind.

    Args:
        x1: First argument.
        x2: Second argument.

    Returns:
        Dot product of `x1` and `x2`.

    Example:
        >>> tfkit.ops.dot([1, 2], [3, 4]).numpy()
        np.int32(11)
        >>> tfkit.ops.dot([[1, 2], [3, 4]], [1, 1]).numpy()
        array([3, 7], dtype=int32)
        >>> tfkit.ops.dot(np.ones((2, 3, 4)), np.ones((5, 4, 6))).shape
        TensorShape([2, 3, 5, 6])
    """
    a, b = promote(x1, x2)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return a * b
    if len(b.shape) == 1:
        return tf.tensordot(a, b, axes=[[len(a.shape) - 1], [0]])
    return tf.tensordot(a, b, axes=[[len(a.shape) - 1], [len(b.shape) - 2]])


def tensordot(x1: Any, x2: Any, axes: Any = 2) -> tf.Tensor:
    """Compute the tensor dot product along specified axes.

    The operands are cast to one common dtype: a float over an int, the wider
    of two dtypes of one kind.

    Args:
        x1: First tensor.
        x2: Second tensor.
        axes: An integer `N`: sum over the last `N` axes of `x1` and the first
            `N` axes of `x2`, in order; or a pair of lists `[axes_1, axes_2]`
            naming the axes of `x1` and of `x2` to sum over (both lists of
            the same length). Defaults to `2`.

    Returns:
        The tensor dot product of the inputs.

    Example:
        >>> a = np.ones((2, 3, 4))
        >>> b = np.ones((3, 4, 5))
        >>> tfkit.ops.tensordot(a, b).shape
        TensorShape([2, 5])
        >>> tfkit.ops.tensordot(a, b, axes=[[1], [0]]).shape
        TensorShape([2, 4, 4, 5])
    """
    a, b = promote(x1, x2)
    return tf.tensordot(a, b, axes=axes)


def einsum(subscripts: str, *operands: Any) -> tf.Tensor:
    """Evaluate the Einstein summation convention on the operands.

    The operands are cast to one common dtype first: a float over an int, the
    wider of two dtypes of one kind.

    Args:
        subscripts: Specifies the subscripts for summation as comma separated
            list of subscript labels, such as `"ij,jk->ik"`. An implicit
            (classical Einstein summation) calculation is performed unless the
            explicit indicator `->` is included as well as subscript labels of
            the precise output form.
        *operands: The operands to compute the Einstein sum of, one per
            comma-separated term of `subscripts`.

    Returns:
        The calculation based on the Einstein summation convention.

    Example:
        >>> a = [[1, 2], [3, 4]]
        >>> tfkit.ops.einsum("ii", a).numpy()
        np.int32(5)
        >>> tfkit.ops.einsum("ij,j->i", a, [1.0, 1.0]).numpy()
        array([3., 7.], dtype=float32)
        >>> tfkit.ops.einsum("ij->ji", a).numpy()
        array([[1, 3],
               [2, 4]], dtype=int32)
    """
    return tf.einsum(subscripts, *promote(*operands))


def outer(x1: Any, x2: Any) -> tf.Tensor:
    """Compute the outer product of two vectors.

    Given two vectors `x1` and `x2`, the outer product is
    `out[i, j] = x1[i] * x2[j]`. Inputs of higher rank are flattened first.
    Python numbers become `int32` or `float32` tensors, then the operands take
    Keras's common dtype.

    Args:
        x1: First input tensor, flattened if not already 1-D.
        x2: Second input tensor, flattened if not already 1-D.

    Returns:
        Output tensor of shape `(x1.size, x2.size)`, the outer product of `x1`
        and `x2`.

    Example:
        >>> tfkit.ops.outer([1, 2], [3, 4, 5]).numpy()
        array([[ 3,  4,  5],
               [ 6,  8, 10]], dtype=int32)
    """
    a, b = operands(x1, x2, weak_scalars=False)
    return tf.reshape(a, [-1, 1]) * tf.reshape(b, [1, -1])


_TRACE_WIDENED = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> tf.Tensor:
    """Return the sum along diagonals of the tensor.

    If `x` is 2-D, the sum along its diagonal with the given offset is
    returned, i.e., the sum of elements `x[i, i+offset]` for all `i`. If `x`
    has more than two dimensions, the axes specified by `axis1` and `axis2` are
    used to determine the 2-D sub-tensors whose traces are returned. The result
    keeps `x`'s dtype, except that `bool`, `int8` and `int16` give `int32`,
    and `uint8` and `uint16` give `uint32`.

    Args:
        x: Input tensor of rank 2 or more.
        offset: Offset of the diagonal from the main diagonal; positive values
            are above it, negative values below. Defaults to `0`.
        axis1: Axis to be used as the first axis of the 2-D sub-tensors.
            Defaults to `0`.
        axis2: Axis to be used as the second axis of the 2-D sub-tensors.
            Defaults to `1`.

    Returns:
        If `x` is 2-D, the sum of the diagonal is returned. If `x` has larger
        dimensions, then a tensor of sums along diagonals is returned, with
        `axis1` and `axis2` removed.

    Example:
        >>> x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
        >>> tfkit.ops.trace(x).numpy()
        np.int32(15)
        >>> tfkit.ops.trace(x, offset=1).numpy()
        np.int32(8)
        >>> tfkit.ops.trace(np.ones((2, 3, 3)), axis1=1, axis2=2).numpy()
        array([3., 3.], dtype=float32)
        >>> tfkit.ops.trace(np.eye(3, dtype="int8")).numpy()
        np.int32(3)
    """
    x = tensor(x)
    x = tf.cast(x, _TRACE_WIDENED.get(x.dtype.name, x.dtype))
    return tf.reduce_sum(
        tf.linalg.diag_part(tf.experimental.numpy.moveaxis(x, [axis1, axis2], [-2, -1]), k=offset), axis=-1
    )


# ------------------------------------------------------------------ shapes


def reshape(x: Any, newshape: Any) -> tf.Tensor:
    """Give a new shape to a tensor without changing its data.

    Args:
        x: Input tensor.
        newshape: The new shape should be compatible with the original shape.
            One shape dimension can be -1 in which case the value is inferred
            from the length of the array and remaining dimensions.

    Returns:
        The reshaped tensor.

    Example:
        >>> tfkit.ops.reshape([1, 2, 3, 4, 5, 6], (-1, 3)).numpy()
        array([[1, 2, 3],
               [4, 5, 6]], dtype=int32)
    """
    return tf.reshape(tensor(x), newshape)


def transpose(x: Any, axes: Sequence[int] | None = None) -> tf.Tensor:
    """Return a tensor with `axes` transposed.

    Args:
        x: Input tensor.
        axes: Sequence of integers, a permutation of `[0, 1, ..., N-1]` where
            `N` is the rank of `x`: axis `i` of the result is axis `axes[i]` of
            the input. Defaults to `None`: the order of the axes is reversed.

    Returns:
        `x` with its axes permuted.

    Example:
        >>> tfkit.ops.transpose([[1, 2, 3], [4, 5, 6]]).numpy()
        array([[1, 4],
               [2, 5],
               [3, 6]], dtype=int32)
        >>> tfkit.ops.transpose(np.zeros((2, 3, 4)), axes=(1, 0, 2)).shape
        TensorShape([3, 2, 4])
    """
    return tf.transpose(tensor(x), perm=axes)


def expand_dims(x: Any, axis: int | Sequence[int]) -> tf.Tensor:
    """Expand the shape of a tensor.

    Insert a new axis of size one at the `axis` position in the expanded
    shape.

    Args:
        x: Input tensor.
        axis: Position in the expanded axes where the new axis (or axes) is
            placed: an integer or a sequence of integers.

    Returns:
        Output tensor with the number of dimensions increased.

    Example:
        >>> tfkit.ops.expand_dims([1, 2], 0).shape
        TensorShape([1, 2])
        >>> tfkit.ops.expand_dims([1, 2], [0, 2]).shape
        TensorShape([1, 2, 1])
    """
    x = tensor(x)
    for a in sorted(axis) if isinstance(axis, (list, tuple)) else [axis]:
        x = tf.expand_dims(x, a)
    return x


def squeeze(x: Any, axis: Axis = None) -> tf.Tensor:
    """Remove axes of length one from `x`.

    Args:
        x: Input tensor.
        axis: Axis or axes to remove, each of size one. Defaults to `None`:
            every axis of size one is removed.

    Returns:
        The input tensor with all or a subset of the dimensions of length 1
        removed. Without `axis`, an axis of unknown length (a traced batch
        axis) is kept, as Keras's symbolic shape assumes it is not one.

    Example:
        >>> x = np.zeros((1, 2, 1))
        >>> tfkit.ops.squeeze(x).shape
        TensorShape([2])
        >>> tfkit.ops.squeeze(x, axis=0).shape
        TensorShape([2, 1])
    """
    x = tensor(x)
    if axis is None and x.shape.rank is not None and None in x.shape.as_list():
        # tf.squeeze would give a tensor of unknown rank; only the axes known to be 1 go
        ones = [i for i, side in enumerate(x.shape.as_list()) if side == 1]
        return tf.squeeze(x, axis=ones) if ones else tf.identity(x)
    return tf.squeeze(x, axis=_axis(axis))


def stack(x: Sequence[Any], axis: int = 0) -> tf.Tensor:
    """Join a sequence of tensors along a new axis.

    The `axis` parameter specifies the index of the new axis in the dimensions
    of the result. The tensors are cast to one common dtype: a float over an
    int, the wider of two dtypes of one kind.

    Args:
        x: A sequence of tensors, all of the same shape.
        axis: Axis along which to stack. Defaults to `0`.

    Returns:
        The stacked tensor, of rank one more than the inputs.

    Example:
        >>> tfkit.ops.stack([[1, 2], [3, 4]], axis=1).numpy()
        array([[1, 3],
               [2, 4]], dtype=int32)
    """
    return tf.stack(promote(*x), axis=axis)


def concatenate(xs: Sequence[Any], axis: int | None = 0) -> tf.Tensor:
    """Join a sequence of tensors along an existing axis.

    The tensors are cast to one common dtype: a float over an int, the wider
    of two dtypes of one kind.

    Args:
        xs: The sequence of tensors to concatenate; their shapes must match
            except along `axis`.
        axis: The axis along which the tensors will be joined. Defaults to `0`;
            `None` flattens every tensor first.

    Returns:
        The concatenated tensor.

    Example:
        >>> tfkit.ops.concatenate([[[1, 2]], [[3, 4]]], axis=0).numpy()
        array([[1, 2],
               [3, 4]], dtype=int32)
        >>> tfkit.ops.concatenate([[[1, 2]], [[3.5]]], axis=1).numpy()
        array([[1. , 2. , 3.5]], dtype=float32)
        >>> tfkit.ops.concatenate([[[1]], [2, 3]], axis=None).numpy()
        array([1, 2, 3], dtype=int32)
    """
    tensors = promote(*xs)
    if axis is None:
        return tf.concat([tf.reshape(t, [-1]) for t in tensors], axis=0)
    return tf.concat(tensors, axis=axis)


def vstack(xs: Sequence[Any]) -> tf.Tensor:
    """Stack tensors in sequence vertically (row wise).

    1-D tensors of shape `(n,)` are taken as rows of shape `(1, n)`; the
    tensors are then concatenated along the first axis, after a cast to one
    common dtype (a float over an int, the wider of two dtypes of one kind).

    Args:
        xs: Sequence of tensors; their shapes must match except along the
            first axis.

    Returns:
        The tensor formed by stacking the given tensors.

    Example:
        >>> tfkit.ops.vstack([[1, 2], [3, 4]]).numpy()
        array([[1, 2],
               [3, 4]], dtype=int32)
        >>> tfkit.ops.vstack([[[1, 2]], [3, 4]]).shape
        TensorShape([2, 2])
    """
    return tf.concat([tf.reshape(t, [1, -1]) if len(t.shape) == 1 else t for t in promote(*xs)], axis=0)


def hstack(xs: Sequence[Any]) -> tf.Tensor:
    """Stack tensors in sequence horizontally (column wise).

    1-D tensors are concatenated along their only axis, other tensors along
    the second axis, after a cast to one common dtype (a float over an int, the
    wider of two dtypes of one kind).

    Args:
        xs: Sequence of tensors; their shapes must match except along the
            concatenation axis.

    Returns:
        The tensor formed by stacking the given tensors.

    Example:
        >>> tfkit.ops.hstack([[1, 2], [3]]).numpy()
        array([1, 2, 3], dtype=int32)
        >>> tfkit.ops.hstack([[[1], [2]], [[3], [4]]]).numpy()
        array([[1, 3],
               [2, 4]], dtype=int32)
    """
    tensors = promote(*xs)
    return tf.concat(tensors, axis=0 if len(tensors[0].shape) == 1 else 1)


def append(x1: Any, x2: Any, axis: int | None = None) -> tf.Tensor:
    """Append tensor `x2` to the end of tensor `x1`.

    Args:
        x1: First input tensor.
        x2: Second input tensor; its shape must match `x1`'s except along
            `axis`.
        axis: Axis along which tensor `x2` is appended to tensor `x1`. Defaults
            to `None`: both tensors are flattened before use.

    Returns:
        A tensor with the values of `x2` appended to `x1`, in the inputs'
        common dtype (a float over an int, the wider of two dtypes of one
        kind).

    Example:
        >>> tfkit.ops.append([1, 2, 3], [[4, 5]]).numpy()
        array([1, 2, 3, 4, 5], dtype=int32)
        >>> tfkit.ops.append([[1, 2]], [[3, 4]], axis=0).numpy()
        array([[1, 2],
               [3, 4]], dtype=int32)
    """
    return concatenate([x1, x2], axis=axis)


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[tf.Tensor]:
    """Split a tensor into chunks.

    Args:
        x: Input tensor.
        indices_or_sections: If an integer `N`, the tensor is split into `N`
            equal sections along `axis` (`N` must divide the axis's length,
            else TensorFlow raises `InvalidArgumentError`). If a 1-D sequence
            of sorted integers, the entries indicate indices at which the tensor
            is split along `axis`.
        axis: Axis along which to split. Defaults to `0`.

    Returns:
        A list of tensors.

    Example:
        >>> [t.numpy() for t in tfkit.ops.split([1, 2, 3, 4, 5, 6], 3)]
        [array([1, 2], dtype=int32), array([3, 4], dtype=int32), array([5, 6], dtype=int32)]
        >>> [t.shape for t in tfkit.ops.split(np.zeros((2, 6)), [1, 4], axis=1)]
        [TensorShape([2, 1]), TensorShape([2, 3]), TensorShape([2, 2])]
    """
    x = tensor(x)
    if isinstance(indices_or_sections, int):
        return tf.split(x, indices_or_sections, axis=axis)
    size = x.shape[axis]
    bounds = [0, *indices_or_sections, size]
    return tf.split(x, [bounds[i + 1] - bounds[i] for i in range(len(bounds) - 1)], axis=axis)


def tile(x: Any, repeats: Any) -> tf.Tensor:
    """Repeat `x` the number of times given by `repeats`.

    If `repeats` has length `d`, the result will have dimension of
    `max(d, x.ndim)`. If `x.ndim < d`, `x` is promoted to be d-dimensional by
    prepending new axes. If `x.ndim > d`, `repeats` is promoted to `x.ndim` by
    prepending 1's to it.

    Args:
        x: Input tensor.
        repeats: The number of repetitions of `x` along each axis: an integer
            or a sequence of integers.

    Returns:
        The tiled output tensor.

    Example:
        >>> tfkit.ops.tile([1, 2], 2).numpy()
        array([1, 2, 1, 2], dtype=int32)
        >>> tfkit.ops.tile([1, 2], (2, 1)).numpy()
        array([[1, 2],
               [1, 2]], dtype=int32)
    """
    x = tensor(x)
    repeats = [repeats] if isinstance(repeats, int) else list(repeats)
    while len(repeats) < len(x.shape):
        repeats = [1, *repeats]
    while len(x.shape) < len(repeats):
        x = tf.expand_dims(x, 0)
    return tf.tile(x, repeats)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> tf.Tensor:
    """Repeat each element of a tensor after themselves.

    Args:
        x: Input tensor.
        repeats: The number of repetitions for each element: an integer, or a
            1-D sequence with one count per element along `axis`.
        axis: The axis along which to repeat values. Defaults to `None`: the
            input is flattened and a flat output tensor is returned.

    Returns:
        Output tensor.

    Example:
        >>> tfkit.ops.repeat([[1, 2], [3, 4]], 2).numpy()
        array([1, 1, 2, 2, 3, 3, 4, 4], dtype=int32)
        >>> tfkit.ops.repeat([[1, 2], [3, 4]], [1, 2], axis=0).numpy()
        array([[1, 2],
               [3, 4],
               [3, 4]], dtype=int32)
    """
    x = tensor(x)
    return tf.repeat(tf.reshape(x, [-1]) if axis is None else x, repeats, axis=0 if axis is None else axis)


def flip(x: Any, axis: Axis = None) -> tf.Tensor:
    """Reverse the order of elements in the tensor along the given axis.

    The shape of the tensor is preserved, but the elements are reordered.

    Args:
        x: Input tensor.
        axis: Axis or axes along which to flip the tensor. Defaults to `None`:
            flip over all of the axes of the input tensor.

    Returns:
        Output tensor with entries of `axis` reversed.

    Example:
        >>> x = [[1, 2], [3, 4]]
        >>> tfkit.ops.flip(x).numpy()
        array([[4, 3],
               [2, 1]], dtype=int32)
        >>> tfkit.ops.flip(x, axis=1).numpy()
        array([[2, 1],
               [4, 3]], dtype=int32)
    """
    x = tensor(x)
    axes = list(range(len(x.shape))) if axis is None else [axis] if isinstance(axis, int) else list(axis)
    return tf.reverse(x, axes)


def roll(x: Any, shift: Any, axis: Axis = None) -> tf.Tensor:
    """Roll tensor elements along a given axis.

    Elements that roll beyond the last position are re-introduced at the
    first.

    Args:
        x: Input tensor.
        shift: The number of places by which elements are shifted: an integer,
            or a sequence with one shift per entry of `axis`.
        axis: The axis or axes along which elements are shifted. Defaults to
            `None`: the tensor is flattened before shifting, after which the
            original shape is restored.

    Returns:
        Output tensor of `x`'s shape.

    Example:
        >>> x = [[1, 2], [3, 4]]
        >>> tfkit.ops.roll(x, 1).numpy()
        array([[4, 1],
               [2, 3]], dtype=int32)
        >>> tfkit.ops.roll(x, 1, axis=0).numpy()
        array([[3, 4],
               [1, 2]], dtype=int32)
    """
    x = tensor(x)
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, axis=0), tf.shape(x))
    return tf.roll(x, shift, axis=axis)


def swapaxes(x: Any, axis1: int, axis2: int) -> tf.Tensor:
    """Interchange two axes of a tensor.

    Args:
        x: Input tensor.
        axis1: First axis.
        axis2: Second axis.

    Returns:
        A tensor with the axes swapped.

    Example:
        >>> tfkit.ops.swapaxes(np.zeros((2, 3, 4)), 0, 2).shape
        TensorShape([4, 3, 2])
    """
    x = tensor(x)
    perm = list(range(len(x.shape)))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return tf.transpose(x, perm)


def moveaxis(x: Any, source: Any, destination: Any) -> tf.Tensor:
    """Move axes of a tensor to new positions.

    Other axes remain in their original order.

    Args:
        x: Tensor whose axes should be reordered.
        source: Original positions of the axes to move: an integer or a
            sequence of integers. These must be unique.
        destination: Destination positions for each of the original axes: an
            integer or a sequence of integers. These must also be unique.

    Returns:
        Tensor with moved axes.

    Example:
        >>> x = np.zeros((2, 3, 4))
        >>> tfkit.ops.moveaxis(x, 0, -1).shape
        TensorShape([3, 4, 2])
        >>> tfkit.ops.moveaxis(x, [0, 1], [-1, -2]).shape
        TensorShape([4, 3, 2])
    """
    return tf.experimental.numpy.moveaxis(tensor(x), source, destination)


def ravel(x: Any) -> tf.Tensor:
    """Return a contiguous flattened tensor.

    A 1-D tensor, containing the elements of the input, is returned.

    Args:
        x: Input tensor.

    Returns:
        Output tensor.

    Example:
        >>> tfkit.ops.ravel([[1, 2], [3, 4]]).numpy()
        array([1, 2, 3, 4], dtype=int32)
    """
    return tf.reshape(tensor(x), [-1])


def broadcast_to(x: Any, shape: Any) -> tf.Tensor:
    """Broadcast a tensor to a new shape.

    Args:
        x: The tensor to broadcast.
        shape: The shape of the desired tensor, a sequence of integers.

    Returns:
        A tensor with the desired shape.

    Example:
        >>> tfkit.ops.broadcast_to([1, 2, 3], (2, 3)).numpy()
        array([[1, 2, 3],
               [1, 2, 3]], dtype=int32)
    """
    return tf.broadcast_to(tensor(x), shape)


def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = None) -> tf.Tensor:
    """Pad a tensor.

    Args:
        x: Tensor to pad.
        pad_width: Number of values padded to the edges of each axis: an
            integer (the same before and after every axis), a sequence with one
            entry per axis, each an integer or a `(before, after)` pair, or a
            one-entry sequence `((before, after),)` used for every axis.
        mode: One of `"constant"`, `"reflect"` or `"symmetric"` (as in NumPy;
            other NumPy modes are not supported and raise a `ValueError`).
            Defaults to `"constant"`.
        constant_values: Value to pad with in `"constant"` mode. Defaults to
            `None`: pad with 0.

    Returns:
        Padded tensor.

    Raises:
        ValueError: If `mode` is not one of the supported modes.

    Example:
        >>> tfkit.ops.pad([[1, 2]], [(0, 1), (1, 0)], constant_values=9).numpy()
        array([[9, 1, 2],
               [9, 9, 9]], dtype=int32)
        >>> tfkit.ops.pad([1, 2, 3], 2, mode="reflect").numpy()
        array([3, 2, 1, 2, 3, 2, 1], dtype=int32)
    """
    x = tensor(x)
    widths = [
        [int(w), int(w)] if isinstance(w, (int, np.integer)) else list(w)
        for w in (pad_width if isinstance(pad_width, (list, tuple)) else [pad_width] * len(x.shape))
    ]
    if len(widths) == 1 and len(x.shape) > 1:
        widths = widths * len(x.shape)
    if mode == "constant":
        return tf.pad(x, widths, constant_values=0 if constant_values is None else constant_values)
    return tf.pad(x, widths, mode=mode.upper())


def where(condition: Any, x1: Any = None, x2: Any = None) -> Any:
    """Return elements chosen from `x1` or `x2` depending on `condition`.

    With only `condition` given, returns the indices of its `True` (nonzero)
    elements, as NumPy's `nonzero` does.

    Args:
        condition: Where `True` (nonzero), yield `x1`, otherwise yield `x2`.
        x1: Values from which to choose when `condition` is `True`. Defaults
            to `None`.
        x2: Values from which to choose when `condition` is `False`. Defaults
            to `None`. Give both `x1` and `x2`, or neither.

    Returns:
        A tensor with elements from `x1` where `condition` is `True`, and
        elements from `x2` elsewhere, in the two inputs' common dtype (a float
        over an int, the wider of two dtypes of one kind). With neither `x1`
        nor `x2`, a tuple of `int32` index tensors, one per axis of
        `condition`.

    Example:
        >>> cond = [True, False, True]
        >>> tfkit.ops.where(cond, [1, 2, 3], [-1.0, -2.0, -3.0]).numpy()
        array([ 1., -2.,  3.], dtype=float32)
        >>> [i.numpy() for i in tfkit.ops.where([[True, False], [False, True]])]
        [array([0, 1], dtype=int32), array([0, 1], dtype=int32)]
    """
    condition = tf.cast(tensor(condition), tf.bool)
    if x1 is None and x2 is None:
        indices = tf.where(condition)
        return tuple(tf.cast(indices[:, i], tf.int32) for i in range(len(condition.shape)))
    a, b = promote(x1, x2)
    return tf.where(condition, a, b)


def take(x: Any, indices: Any, axis: int | None = None) -> tf.Tensor:
    """Take elements from a tensor along an axis.

    Args:
        x: Source tensor.
        indices: The indices of the values to extract (an integer tensor of any
            shape).
        axis: The axis over which to select values. Defaults to `None`: the
            flattened input tensor is used.

    Returns:
        The corresponding tensor of values: `x`'s shape with the dimension
        along `axis` replaced by `indices`' shape.

    Example:
        >>> x = [[1, 2], [3, 4]]
        >>> tfkit.ops.take(x, [0, 3]).numpy()
        array([1, 4], dtype=int32)
        >>> tfkit.ops.take(x, [1, 1], axis=1).numpy()
        array([[2, 2],
               [4, 4]], dtype=int32)
    """
    x, indices = tensor(x), tensor(indices)
    if axis is None:
        return tf.gather(tf.reshape(x, [-1]), indices)
    return tf.gather(x, indices, axis=axis)


def take_along_axis(x: Any, indices: Any, axis: int | None = None) -> tf.Tensor:
    """Select values from `x` at the `indices` along the given axis.

    Args:
        x: Source tensor.
        indices: The indices of the values to extract; of `x`'s rank, and
            broadcastable with `x` on every axis but `axis`.
        axis: The axis over which to select values. Defaults to `None`: `x`
            is flattened and `indices` must be 1-D (a `ValueError` otherwise).

    Returns:
        The corresponding tensor of values.

    Example:
        >>> x = [[10, 30, 20], [60, 40, 50]]
        >>> tfkit.ops.take_along_axis(x, [[0, 2], [1, 1]], axis=1).numpy()
        array([[10, 20],
               [40, 40]], dtype=int32)
        >>> tfkit.ops.take_along_axis(x, [1, 4]).numpy()
        array([30, 40], dtype=int32)
    """
    x, indices = tensor(x), tensor(indices)
    if axis is None:
        if len(indices.shape) != 1:
            raise ValueError(f"`indices` must be 1-D when axis=None. Received: indices.shape={indices.shape}")
        x, axis = tf.reshape(x, [-1]), 0
    return tf.experimental.numpy.take_along_axis(x, indices, axis=axis)


def triu(x: Any, k: int = 0) -> tf.Tensor:
    """Return upper triangle of a tensor.

    For tensors with `ndim` exceeding 2, `triu` will apply to the final two
    axes.

    Args:
        x: Input tensor, of rank 2 or more.
        k: Diagonal below which to zero elements. `k = 0` (the default) is the
            main diagonal. `k < 0` is below it, and `k > 0` is above.

    Returns:
        Upper triangle of `x`, of same shape and data type as `x`.

    Example:
        >>> tfkit.ops.triu([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).numpy()
        array([[1, 2, 3],
               [0, 5, 6],
               [0, 0, 9]], dtype=int32)
        >>> tfkit.ops.triu([[1, 2, 3], [4, 5, 6]], k=1).numpy()
        array([[0, 2, 3],
               [0, 0, 6]], dtype=int32)
    """
    x = tensor(x)
    rows, cols = tf.shape(x)[-2], tf.shape(x)[-1]
    keep = tf.range(cols)[None, :] - tf.range(rows)[:, None] >= k
    return tf.where(keep, x, tf.zeros_like(x))


def tril(x: Any, k: int = 0) -> tf.Tensor:
    """Return lower triangle of a tensor.

    For tensors with `ndim` exceeding 2, `tril` will apply to the final two
    axes.

    Args:
        x: Input tensor, of rank 2 or more.
        k: Diagonal above which to zero elements. `k = 0` (the default) is the
            main diagonal. `k < 0` is below it, and `k > 0` is above.

    Returns:
        Lower triangle of `x`, of same shape and data type as `x`.

    Example:
        >>> tfkit.ops.tril([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).numpy()
        array([[1, 0, 0],
               [4, 5, 0],
               [7, 8, 9]], dtype=int32)
        >>> tfkit.ops.tril(np.ones((2, 3)), k=-1).numpy()
        array([[0., 0., 0.],
               [1., 0., 0.]], dtype=float32)
    """
    x = tensor(x)
    rows, cols = tf.shape(x)[-2], tf.shape(x)[-1]
    keep = tf.range(cols)[None, :] - tf.range(rows)[:, None] <= k
    return tf.where(keep, x, tf.zeros_like(x))


def diag(x: Any, k: int = 0) -> tf.Tensor:
    """Extract a diagonal or construct a diagonal array.

    Args:
        x: Input tensor. If `x` is 1-D, returns a 2-D tensor with `x` on the
            `k`-th diagonal. If `x` is 2-D, returns the `k`-th diagonal of `x`
            (tensors of higher rank give the diagonals of their last two axes).
        k: The diagonal to consider. Use `k > 0` for diagonals above the main
            diagonal, and `k < 0` for diagonals below the main diagonal.
            Defaults to `0`.

    Returns:
        The extracted diagonal or constructed diagonal tensor.

    Example:
        >>> tfkit.ops.diag([1, 2], k=1).numpy()
        array([[0, 1, 0],
               [0, 0, 2],
               [0, 0, 0]], dtype=int32)
        >>> tfkit.ops.diag([[1, 2, 3], [4, 5, 6], [7, 8, 9]], k=-1).numpy()
        array([4, 8], dtype=int32)
    """
    x = tensor(x)
    return tf.linalg.diag(x, k=k) if len(x.shape) == 1 else tf.linalg.diag_part(x, k=k)


def meshgrid(*x: Any, indexing: str = "xy") -> list[tf.Tensor]:
    """Create grids of coordinates from coordinate vectors.

    Given `N` 1-D tensors `T0, T1, ..., TN-1` as inputs with corresponding
    lengths `S0, S1, ..., SN-1`, this creates `N` N-dimensional tensors
    `G0, G1, ..., GN-1` each with shape `(S0, ..., SN-1)` where the output
    `Gi` is constructed by expanding `Ti` to the result shape (with
    `indexing="ij"`; with `"xy"` the first two dimensions are swapped).

    Args:
        *x: 1-D tensors representing the coordinates of a grid.
        indexing: `"xy"` or `"ij"`: Cartesian (`"xy"`) or matrix (`"ij"`)
            indexing of output. Defaults to `"xy"`.

    Returns:
        A list of `N` tensors.

    Example:
        >>> gx, gy = tfkit.ops.meshgrid([1, 2, 3], [4, 5])
        >>> gx.numpy()
        array([[1, 2, 3],
               [1, 2, 3]], dtype=int32)
        >>> gy.numpy()
        array([[4, 4, 4],
               [5, 5, 5]], dtype=int32)
        >>> [g.shape for g in tfkit.ops.meshgrid([1, 2, 3], [4, 5], indexing="ij")]
        [TensorShape([3, 2]), TensorShape([3, 2])]
    """
    return tf.meshgrid(*[tensor(v) for v in x], indexing=indexing)


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), __all__)
# the families kept in files of their own (numpy_math.py ...), one namespace as in keras.ops.numpy
for _family in (
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
):
    __all__ += _family.__all__
