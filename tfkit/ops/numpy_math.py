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
from tfkit.ops.numpy_dtypes import FLOATX, float_type, is_integer, operands, result_type, wide_float_type


def _float(x: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.cast(x, float_type(x.dtype))


def _wide(x: Any) -> tf.Tensor:
    x = tensor(x)
    return tf.cast(x, wide_float_type(x.dtype))


# ------------------------------------------------------------------ one argument, float result


def tan(x: Any) -> tf.Tensor:
    """Compute tangent, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype.

    Args:
        x: Input tensor, in radians.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> tfkit.ops.tan([0.0, 1.0]).numpy()
        array([0.       , 1.5574077], dtype=float32)
    """
    return tf.tan(_float(x))


def arcsin(x: Any) -> tf.Tensor:
    """Inverse sine, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype. Values outside `[-1, 1]` give NaN.

    Args:
        x: Input tensor.

    Returns:
        Tensor of the angle of the ray intersecting the unit circle at the given y-coordinate, in radians
        `[-pi/2, pi/2]`.

    Example:
        >>> np.round(tfkit.ops.arcsin([0.0, 1.0]).numpy(), 4)
        array([0.    , 1.5708], dtype=float32)
    """
    return tf.asin(_float(x))


def arccos(x: Any) -> tf.Tensor:
    """Trigonometric inverse cosine, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype. Values outside `[-1, 1]` give NaN.

    Args:
        x: Input tensor.

    Returns:
        Tensor of the angle of the ray intersecting the unit circle at the given x-coordinate, in radians
        `[0, pi]`.

    Example:
        >>> np.round(tfkit.ops.arccos([1.0, 0.0]).numpy(), 4)
        array([0.    , 1.5708], dtype=float32)
    """
    return tf.acos(_float(x))


def arctan(x: Any) -> tf.Tensor:
    """Trigonometric inverse tangent, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        Tensor of the inverse tangent of each element of `x`, in the interval `[-pi/2, pi/2]`.

    Example:
        >>> np.round(tfkit.ops.arctan([0, 1]).numpy(), 4)
        array([0.    , 0.7854], dtype=float32)
    """
    return tf.atan(_float(x))


def sinh(x: Any) -> tf.Tensor:
    """Hyperbolic sine, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> np.round(tfkit.ops.sinh([0.0, 1.0]).numpy(), 4)
        array([0.    , 1.1752], dtype=float32)
    """
    return tf.sinh(_float(x))


def cosh(x: Any) -> tf.Tensor:
    """Hyperbolic cosine, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> np.round(tfkit.ops.cosh([0.0, 1.0]).numpy(), 4)
        array([1.    , 1.5431], dtype=float32)
    """
    return tf.cosh(_float(x))


def arcsinh(x: Any) -> tf.Tensor:
    """Inverse hyperbolic sine, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> np.round(tfkit.ops.arcsinh([0.0, 1.0]).numpy(), 4)
        array([0.    , 0.8814], dtype=float32)
    """
    return tf.asinh(_float(x))


def arccosh(x: Any) -> tf.Tensor:
    """Inverse hyperbolic cosine, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype. Values below 1 give NaN.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> np.round(tfkit.ops.arccosh([1.0, 2.0]).numpy(), 4)
        array([0.   , 1.317], dtype=float32)
    """
    return tf.acosh(_float(x))


def arctanh(x: Any) -> tf.Tensor:
    """Inverse hyperbolic tangent, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype. `1` and `-1` give `inf` and `-inf`; values outside `[-1, 1]` give NaN.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> np.round(tfkit.ops.arctanh([0.0, 0.5]).numpy(), 4)
        array([0.    , 0.5493], dtype=float32)
    """
    return tf.atanh(_float(x))


def log2(x: Any) -> tf.Tensor:
    """Base-2 logarithm of `x`, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype. Computed as `log(x) / log(2)`; 0 gives `-inf`, negative values NaN.

    Args:
        x: Input tensor.

    Returns:
        Output tensor, element-wise base-2 logarithm of `x`.

    Example:
        >>> tfkit.ops.log2([1, 8]).numpy()
        array([0., 3.], dtype=float32)
    """
    x = _float(x)
    return tf.math.log(x) / tf.math.log(tf.constant(2.0, x.dtype))


def log10(x: Any) -> tf.Tensor:
    """Return the base 10 logarithm of the input tensor, element-wise.

    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype. Computed as `log(x) / log(10)`; 0 gives `-inf`, negative values NaN.

    Args:
        x: Input tensor.

    Returns:
        Output tensor, element-wise base-10 logarithm of `x`.

    Example:
        >>> np.round(tfkit.ops.log10([1.0, 100.0]).numpy(), 4)
        array([0., 2.], dtype=float32)
    """
    x = _float(x)
    return tf.math.log(x) / tf.math.log(tf.constant(10.0, x.dtype))


def exp2(x: Any) -> tf.Tensor:
    """Calculate the base-2 exponential of all elements in the input tensor.

    Integer and bool inputs give `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        Output tensor, element-wise base-2 exponential of `x`.

    Example:
        >>> tfkit.ops.exp2([0, 3]).numpy()
        array([1., 8.], dtype=float32)
    """
    x = tensor(x)
    if is_integer(x.dtype) or x.dtype.is_bool:
        x = tf.cast(x, FLOATX)
    return tf.pow(tf.constant(2.0, x.dtype), x)


def sinc(x: Any) -> tf.Tensor:
    """Return the normalized sinc function, element-wise.

    Computes `sin(pi * x) / (pi * x)`, with the value 1 at `x == 0` (where the gradient is finite, not NaN).
    Integer and bool inputs are computed as `float32`, as in Keras; float (and complex)
    inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> np.round(tfkit.ops.sinc([0.0, 0.5, 1.0]).numpy(), 4)
        array([ 1.    ,  0.6366, -0.    ], dtype=float32)
    """
    x = _float(x)
    at_zero = tf.equal(x, 0)
    pi_x = tf.where(at_zero, tf.ones_like(x), x) * tf.constant(math.pi, x.dtype)
    return tf.where(at_zero, tf.ones_like(x), tf.sin(pi_x) / pi_x)


def angle(x: Any) -> tf.Tensor:
    """Element-wise angle of a complex tensor.

    For complex `x` this is the argument `atan2(imag(x), real(x))`, as a real tensor of the matching
    precision. For real `x` it is 0 where `x >= 0` and `pi` where `x < 0`; integer and bool inputs give
    `float32`, float inputs keep their dtype.

    Args:
        x: Input tensor, real or complex.

    Returns:
        Output tensor, the counterclockwise angle from the positive real axis, in radians.

    Example:
        >>> tfkit.ops.angle([-1.0, 2.0]).numpy()
        array([3.1415927, 0.       ], dtype=float32)
        >>> np.round(tfkit.ops.angle(np.array([1j], "complex64")).numpy(), 4)
        array([1.5708], dtype=float32)
    """
    x = tensor(x)
    if x.dtype.is_complex:
        return tf.math.angle(x)
    x = _float(x)
    return tf.where(x < 0, tf.constant(math.pi, x.dtype), tf.zeros_like(x))


def fabs(x: Any) -> tf.Tensor:
    """Compute the absolute values element-wise.

    Unlike `absolute`, the result is always a float: integer and bool inputs give `float32`, float inputs
    keep their dtype.

    Args:
        x: Input tensor, real.

    Returns:
        A tensor of the absolute values of `x`, as floats.

    Raises:
        TypeError: If `x` is complex (use `absolute` for the modulus).

    Example:
        >>> tfkit.ops.fabs([-1, 2]).numpy()
        array([1., 2.], dtype=float32)
    """
    x = tensor(x)
    if x.dtype.is_complex:
        raise TypeError(f"fabs does not support complex inputs; got x of dtype {x.dtype.name}. Use abs for a modulus")
    if not x.dtype.is_floating:
        x = tf.cast(x, FLOATX)
    return tf.abs(x)


def cbrt(x: Any) -> tf.Tensor:
    """Computes the cube-root of the input tensor, element-wise.

    Negative values give negative cube roots. `int64` inputs give `float64`, other integer and bool inputs
    `float32`, as in Keras; float inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the cube root of `x`.

    Example:
        >>> np.round(tfkit.ops.cbrt([8, -27]).numpy(), 4)
        array([ 2., -3.], dtype=float32)
        >>> tfkit.ops.cbrt(np.array([8], "int64")).dtype
        tf.float64
    """
    x = _wide(x)
    return tf.sign(x) * tf.pow(tf.abs(x), tf.constant(1.0 / 3.0, x.dtype))


def deg2rad(x: Any) -> tf.Tensor:
    """Convert angles from degrees to radians.

    `int64` inputs give `float64`, other integer and bool inputs `float32`, as in Keras;
    float inputs keep their dtype.

    Args:
        x: Input tensor of angles in degrees.

    Returns:
        A tensor containing angles converted to radians.

    Example:
        >>> np.round(tfkit.ops.deg2rad([180, 90]).numpy(), 4)
        array([3.1416, 1.5708], dtype=float32)
    """
    x = _wide(x)
    return x * tf.constant(math.pi / 180.0, x.dtype)


def rad2deg(x: Any) -> tf.Tensor:
    """Convert angles from radians to degrees.

    `int64` inputs give `float64`, other integer and bool inputs `float32`, as in Keras;
    float inputs keep their dtype.

    Args:
        x: Input tensor of angles in radians.

    Returns:
        A tensor containing angles converted to degrees.

    Example:
        >>> np.round(tfkit.ops.rad2deg([np.pi, np.pi / 2]).numpy(), 4)
        array([180.,  90.], dtype=float32)
    """
    x = _wide(x)
    return x * tf.constant(180.0 / math.pi, x.dtype)


def i0(x: Any) -> tf.Tensor:
    """Modified Bessel function of the first kind, order 0, element-wise.

    `int64` and `float64` inputs give `float64`, `float16` and `bfloat16` keep their dtype (computed in
    `float32`), and other inputs give `float32`.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> np.round(tfkit.ops.i0([0.0, 1.0]).numpy(), 4)
        array([1.    , 1.2661], dtype=float32)
    """
    x = tensor(x)
    name = x.dtype.name
    dtype = "float64" if name in ("int64", "float64") else name if name in ("float16", "bfloat16") else FLOATX
    compute = "float64" if dtype == "float64" else FLOATX
    return tf.cast(tf.math.bessel_i0(tf.cast(x, compute)), dtype)


def reciprocal(x: Any) -> tf.Tensor:
    """Return the reciprocal of the argument, element-wise.

    Computes `1 / x`. Bool inputs are cast to `float32`; other inputs keep their dtype. As with Keras on
    TensorFlow, integer inputs need a device with an integer `Reciprocal` kernel: TensorFlow's CPU has
    none, so pass floats there.

    Args:
        x: Input tensor.

    Returns:
        Output tensor of same shape as `x`.

    Example:
        >>> tfkit.ops.reciprocal([2.0, 4.0]).numpy()
        array([0.5 , 0.25], dtype=float32)
    """
    x = tensor(x)
    if x.dtype.is_bool:
        x = tf.cast(x, FLOATX)
    return tf.math.reciprocal(x)


def trunc(x: Any) -> tf.Tensor:
    """Return the truncated value of the input, element-wise.

    Rounds each element towards zero (the fractional part is discarded). Integer and bool inputs are
    returned unchanged; floats keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        The truncated value of `x`, same shape and dtype as `x`.

    Example:
        >>> tfkit.ops.trunc([-1.7, -0.2, 1.7]).numpy()
        array([-1., -0.,  1.], dtype=float32)
    """
    x = tensor(x)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        return x
    return tf.where(x < 0, tf.math.ceil(x), tf.floor(x))


def conjugate(x: Any) -> tf.Tensor:
    """Returns the complex conjugate, element-wise.

    The complex conjugate of a complex number is obtained by changing the sign of its imaginary part.
    Real inputs are returned unchanged. Same as `conj`.

    Args:
        x: Input tensor.

    Returns:
        The complex conjugate of each element in `x`.

    Example:
        >>> tfkit.ops.conjugate(np.array([1 + 2j], "complex64")).numpy()
        array([1.-2.j], dtype=complex64)
    """
    return tf.math.conj(tensor(x))


def conj(x: Any) -> tf.Tensor:
    """Shorthand for `conjugate`: the complex conjugate, element-wise.

    Real inputs are returned unchanged.

    Args:
        x: Input tensor.

    Returns:
        The complex conjugate of each element in `x`.

    Example:
        >>> tfkit.ops.conj(np.array([3 - 1j], "complex64")).numpy()
        array([3.+1.j], dtype=complex64)
    """
    return tf.math.conj(tensor(x))


def real(x: Any) -> tf.Tensor:
    """Return the real part of the complex argument.

    Real inputs are returned unchanged.

    Args:
        x: Input tensor.

    Returns:
        The real component of the complex argument, as a real tensor of the matching precision.

    Example:
        >>> tfkit.ops.real(np.array([1 + 2j, 3 - 4j], "complex64")).numpy()
        array([1., 3.], dtype=float32)
    """
    return tf.math.real(tensor(x))


def imag(x: Any) -> tf.Tensor:
    """Return the imaginary part of the complex argument.

    Real inputs give zeros of their own dtype.

    Args:
        x: Input tensor.

    Returns:
        The imaginary component of the complex argument, as a real tensor of the matching precision.

    Example:
        >>> tfkit.ops.imag(np.array([1 + 2j, 3 - 4j], "complex64")).numpy()
        array([ 2., -4.], dtype=float32)
        >>> tfkit.ops.imag([1.0, 2.0]).numpy()
        array([0., 0.], dtype=float32)
    """
    x = tensor(x)
    return tf.math.imag(x) if x.dtype.is_complex else tf.zeros_like(x)


# ------------------------------------------------------------------ two arguments


def arctan2(x1: Any, x2: Any) -> tf.Tensor:
    """Element-wise arc tangent of `x1/x2` choosing the quadrant correctly.

    The quadrant (the branch) is chosen so that `arctan2(x1, x2)` is the signed angle in radians between the ray
    ending at the origin and passing through the point `(1, 0)`, and the ray ending at the origin and passing
    through the point `(x2, x1)`. Python numbers are first converted to `int32` / `float32` tensors, then the
    operands take Keras's common dtype, made a float: integer and bool inputs give `float32`, floats keep their
    dtype.

    Args:
        x1: First input tensor, the y-coordinates.
        x2: Second input tensor, the x-coordinates, broadcastable with `x1`.

    Returns:
        Tensor of angles in radians, in the range `[-pi, pi]`.

    Example:
        >>> x = np.array([-1.0, 1.0, 1.0, -1.0])
        >>> y = np.array([-1.0, -1.0, 1.0, 1.0])
        >>> np.round(tfkit.ops.arctan2(y, x).numpy() * 180 / np.pi, 4)
        array([-135.,  -45.,   45.,  135.], dtype=float32)
    """
    a, b = operands(x1, x2, extra=(float,), weak_scalars=False)
    return tf.atan2(a, b)


def hypot(x1: Any, x2: Any) -> tf.Tensor:
    """Element-wise hypotenuse of right triangles with legs `x1` and `x2`.

    Equivalent to `sqrt(x1**2 + x2**2)`, computed without overflow for large inputs. The operands take
    Keras's common dtype, made a float: an `int64` result gives `float64`, other integers and bools
    `float32`, floats keep their dtype.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        A tensor with the hypotenuse of the triangles.

    Example:
        >>> tfkit.ops.hypot([3.0, 5.0], [4.0, 12.0]).numpy()
        array([ 5., 13.], dtype=float32)
    """
    a, b = tensor(x1), tensor(x2)
    dtype = wide_float_type(result_type(a.dtype, b.dtype))
    a, b = tf.abs(tf.cast(a, dtype)), tf.abs(tf.cast(b, dtype))
    big, small = tf.maximum(a, b), tf.minimum(a, b)
    ratio = tf.math.divide_no_nan(small, big)
    return big * tf.sqrt(1 + ratio * ratio)


def logaddexp(x1: Any, x2: Any) -> tf.Tensor:
    """Logarithm of the sum of exponentiations of the inputs.

    Calculates `log(exp(x1) + exp(x2))` without overflow; two equal infinities give that infinity.
    Python numbers are first converted to `int32` / `float32` tensors, then the operands take Keras's
    common dtype, made a float: integer and bool inputs give `float32`, floats keep their dtype.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        Output tensor, element-wise logarithm of the sum of exponentiations of the inputs.

    Example:
        >>> np.round(tfkit.ops.logaddexp([0.0, 1.0], [0.0, 1.0]).numpy(), 4)
        array([0.6931, 1.6931], dtype=float32)
        >>> float(tfkit.ops.logaddexp(1000.0, 1000.0)) > 1000  # no overflow
        True
    """
    a, b = operands(x1, x2, extra=(float,), weak_scalars=False)
    top = tf.maximum(a, b)
    same_infinity = tf.math.is_inf(a) & tf.equal(a, b)  # inf - inf would give nan below
    return tf.where(same_infinity, a, top + tf.math.log1p(tf.exp(-tf.abs(a - b))))


def logaddexp2(x1: Any, x2: Any) -> tf.Tensor:
    """Base-2 logarithm of the sum of exponentiations of the inputs.

    Calculates `log2(2**x1 + 2**x2)` without overflow; two equal infinities give that infinity.
    Python numbers are first converted to `int32` / `float32` tensors, then the operands take Keras's
    common dtype, made a float: integer and bool inputs give `float32`, floats keep their dtype.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        Output tensor, element-wise base-2 logarithm of the sum of exponentiations of the inputs.

    Example:
        >>> tfkit.ops.logaddexp2([1.0, 3.0], [1.0, 3.0]).numpy()
        array([2., 4.], dtype=float32)
    """
    a, b = operands(x1, x2, extra=(float,), weak_scalars=False)
    top = tf.maximum(a, b)
    ln2 = tf.constant(math.log(2.0), a.dtype)
    rest = tf.math.log1p(tf.exp(-tf.abs(a - b) * ln2)) / ln2
    return tf.where(tf.math.is_inf(a) & tf.equal(a, b), a, top + rest)


def heaviside(x1: Any, x2: Any) -> tf.Tensor:
    """Heaviside step function.

    0 where `x1 < 0`, 1 where `x1 > 0` and `x2` where `x1 == 0`. The operands take Keras's common dtype,
    made a float: an `int64` result gives `float64`, other integers and bools `float32`, floats keep
    their dtype.

    Args:
        x1: Input values.
        x2: The value of the function where `x1 == 0`, broadcastable with `x1`.

    Returns:
        A tensor of the step function's values, with the broadcast shape of `x1` and `x2`.

    Example:
        >>> tfkit.ops.heaviside([-1.0, 0.0, 2.0], 0.5).numpy()
        array([0. , 0.5, 1. ], dtype=float32)
    """
    a, b = tensor(x1), tensor(x2)
    dtype = wide_float_type(result_type(a.dtype, b.dtype))
    a, b = tf.cast(a, dtype), tf.cast(b, dtype)
    step = tf.where(a > 0, tf.ones_like(a), tf.zeros_like(a))
    return tf.where(tf.equal(a, 0), b + tf.zeros_like(a), step + tf.zeros_like(b))


def ldexp(x1: Any, x2: Any) -> tf.Tensor:
    """Multiply `x1` by 2 raised to the power of `x2`, element-wise.

    Computes `x1 * 2**x2`; zeros and infinities in `x1` are returned as they are. The result takes Keras's
    common dtype of the two inputs, made a float (integer `x1` gives `float32`).

    Args:
        x1: The mantissas.
        x2: The exponents: an integer tensor, broadcastable with `x1`.

    Returns:
        Output tensor, `x1 * 2**x2`.

    Raises:
        TypeError: If `x2` is not an integer tensor.

    Example:
        >>> tfkit.ops.ldexp([1.0, 3.0], [2, 3]).numpy()
        array([ 4., 24.], dtype=float32)
    """
    a, b = tensor(x1), tensor(x2)
    if not is_integer(b.dtype):
        raise TypeError(f"ldexp needs an integer exponent x2; got dtype {b.dtype.name}")
    dtype = result_type(a.dtype, b.dtype, float)
    a = tf.cast(a, dtype)
    scaled = a * tf.pow(tf.constant(2.0, a.dtype), tf.cast(b, a.dtype))
    return tf.where(tf.math.is_inf(a) | tf.equal(a, 0), a + tf.zeros_like(scaled), scaled)


def nextafter(x1: Any, x2: Any) -> tf.Tensor:
    """Return the next floating-point value after `x1` towards `x2`, element-wise.

    As Keras's TensorFlow backend does, the step is computed in `float64` and the result cast back to
    Keras's common float dtype of the inputs (`float32` for integers and `float32` floats), so for
    `float32` inputs the `float64` step is usually rounded away and the result equals `x1`; pass
    `float64` tensors to see the step.

    Args:
        x1: Values to find the next representable value of.
        x2: The direction to look in, broadcastable with `x1`.

    Returns:
        Output tensor, the next representable value of `x1` towards `x2`.

    Example:
        >>> x = tfkit.ops.nextafter(np.array([1.0]), np.array([2.0]))
        >>> x.dtype
        tf.float32
        >>> x64 = tfkit.ops.nextafter(tf.constant([1.0], tf.float64), tf.constant([2.0], tf.float64))
        >>> bool(x64[0] - 1.0 == np.finfo(np.float64).eps)
        True
    """
    a, b = tensor(x1), tensor(x2)
    dtype = result_type(a.dtype, b.dtype, float)
    return tf.cast(tf.math.nextafter(tf.cast(a, "float64"), tf.cast(b, "float64")), dtype)


def divide_no_nan(x1: Any, x2: Any) -> tf.Tensor:
    """Safe element-wise division which returns 0 where the denominator is 0.

    Computes `x1 / x2`, giving 0 (not `inf` or NaN) wherever `x2` is 0. The operands take Keras's common
    dtype, made a float: integer and bool inputs give `float32`; a Python number follows the tensor's
    dtype where its kind fits.

    Args:
        x1: First input tensor (the numerator).
        x2: Second input tensor (the denominator), broadcastable with `x1`.

    Returns:
        The quotient `x1 / x2`, element-wise, with zero where `x2` is zero.

    Example:
        >>> tfkit.ops.divide_no_nan([1.0, 2.0], [0.0, 4.0]).numpy()
        array([0. , 0.5], dtype=float32)
    """
    a, b = operands(x1, x2, extra=(float,))
    return tf.math.divide_no_nan(a, b)


def fmax(x1: Any, x2: Any) -> tf.Tensor:
    """Element-wise maximum of array elements, ignoring NaNs.

    Where only one of the two elements is NaN, the other one is returned; where both are NaN, NaN. The
    operands take Keras's common dtype (a Python number follows the tensor's dtype where its kind fits).

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        Output tensor, the element-wise maximum.

    Example:
        >>> tfkit.ops.fmax([1.0, np.nan, np.nan], [np.nan, 2.0, np.nan]).numpy()
        array([ 1.,  2., nan], dtype=float32)
    """
    a, b = operands(x1, x2)
    if not a.dtype.is_floating:
        return tf.maximum(a, b)
    out = tf.maximum(a, b)
    out = tf.where(tf.math.is_nan(a) & ~tf.math.is_nan(b), b + tf.zeros_like(a), out)
    return tf.where(tf.math.is_nan(b) & ~tf.math.is_nan(a), a + tf.zeros_like(b), out)


def fmin(x1: Any, x2: Any) -> tf.Tensor:
    """Element-wise minimum of array elements, ignoring NaNs.

    Where only one of the two elements is NaN, the other one is returned; where both are NaN, NaN. The
    operands take Keras's common dtype (a Python number follows the tensor's dtype where its kind fits).

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        Output tensor, the element-wise minimum.

    Example:
        >>> tfkit.ops.fmin([1.0, np.nan, 3.0], [np.nan, 2.0, 0.0]).numpy()
        array([1., 2., 0.], dtype=float32)
    """
    a, b = operands(x1, x2)
    if not a.dtype.is_floating:
        return tf.minimum(a, b)
    out = tf.minimum(a, b)
    out = tf.where(tf.math.is_nan(a) & ~tf.math.is_nan(b), b + tf.zeros_like(a), out)
    return tf.where(tf.math.is_nan(b) & ~tf.math.is_nan(a), a + tf.zeros_like(b), out)


def fmod(x1: Any, x2: Any) -> tf.Tensor:
    """Return the element-wise remainder of division, with the sign of the dividend.

    This is C's `fmod`: the remainder of `x1 / x2` truncated towards zero, so its sign is that of `x1`
    (`mod` takes the sign of `x2`). Integer division by zero gives 0. The result takes Keras's common
    dtype of the inputs; bool gives `int32`.

    Args:
        x1: First input tensor (the dividend).
        x2: Second input tensor (the divisor), broadcastable with `x1`.

    Returns:
        Output tensor, element-wise remainder of division.

    Example:
        >>> tfkit.ops.fmod([5, -5], 3).numpy()
        array([ 2, -2], dtype=int32)
        >>> tfkit.ops.fmod([5.5, -5.5], 2.0).numpy()
        array([ 1.5, -1.5], dtype=float32)
    """
    a, b = tensor(x1), tensor(x2)
    dtype = result_type(a.dtype, b.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    compute = {
        "int8": "int32",
        "int16": "int32",
        "uint8": "int32",
        "uint16": "int32",
        "uint32": "int64",
        "float16": FLOATX,
        "bfloat16": FLOATX,
    }.get(dtype, dtype)  # TruncateMod's kernels
    a, b = tf.cast(a, compute), tf.cast(b, compute)
    if a.dtype.is_floating:
        return tf.cast(tf.truncatemod(a, b), dtype)
    zero = tf.equal(b, 0)
    safe = tf.where(zero, tf.ones_like(b), b)
    return tf.cast(tf.where(zero, tf.zeros_like(a + b), tf.truncatemod(a, safe)), dtype)


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), __all__)
