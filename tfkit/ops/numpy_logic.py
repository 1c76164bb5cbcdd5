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
    """Returns `(x1 == x2)` element-wise.

    The operands are broadcast together and compared in Keras's common dtype (a Python number follows
    the tensor's dtype where its kind fits; an int tensor against `2.5` compares as float).

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        A bool tensor, `True` where `x1 == x2`.

    Example:
        >>> tfkit.ops.equal([1, 2, 3], [1, 5, 3]).numpy()
        array([ True, False,  True])
        >>> tfkit.ops.equal([1, 2], 2.0).numpy()
        array([False,  True])
    """
    a, b = operands(x1, x2)
    return tf.equal(a, b)


def not_equal(x1: Any, x2: Any) -> tf.Tensor:
    """Return `(x1 != x2)` element-wise.

    The operands are broadcast together and compared in Keras's common dtype (a Python number follows
    the tensor's dtype where its kind fits; an int tensor against `2.5` compares as float).

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        A bool tensor, `True` where `x1 != x2`.

    Example:
        >>> tfkit.ops.not_equal([1, 2, 3], [1, 5, 3]).numpy()
        array([False,  True, False])
    """
    a, b = operands(x1, x2)
    return tf.not_equal(a, b)


def greater(x1: Any, x2: Any) -> tf.Tensor:
    """Return the truth value of `x1 > x2` element-wise.

    The operands are broadcast together and compared in Keras's common dtype (a Python number follows
    the tensor's dtype where its kind fits; an int tensor against `2.5` compares as float).

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        A bool tensor, `True` where `x1 > x2`.

    Example:
        >>> tfkit.ops.greater([1, 2, 3], 2).numpy()
        array([False, False,  True])
    """
    a, b = operands(x1, x2)
    return tf.greater(a, b)


def greater_equal(x1: Any, x2: Any) -> tf.Tensor:
    """Return the truth value of `x1 >= x2` element-wise.

    The operands are broadcast together and compared in Keras's common dtype (a Python number follows
    the tensor's dtype where its kind fits; an int tensor against `2.5` compares as float).

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        A bool tensor, `True` where `x1 >= x2`.

    Example:
        >>> tfkit.ops.greater_equal([1, 2, 3], 2).numpy()
        array([False,  True,  True])
    """
    a, b = operands(x1, x2)
    return tf.greater_equal(a, b)


def less(x1: Any, x2: Any) -> tf.Tensor:
    """Return the truth value of `x1 < x2` element-wise.

    The operands are broadcast together and compared in Keras's common dtype (a Python number follows
    the tensor's dtype where its kind fits; an int tensor against `2.5` compares as float).

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        A bool tensor, `True` where `x1 < x2`.

    Example:
        >>> tfkit.ops.less([1, 2, 3], 2).numpy()
        array([ True, False, False])
    """
    a, b = operands(x1, x2)
    return tf.less(a, b)


def less_equal(x1: Any, x2: Any) -> tf.Tensor:
    """Return the truth value of `x1 <= x2` element-wise.

    The operands are broadcast together and compared in Keras's common dtype (a Python number follows
    the tensor's dtype where its kind fits; an int tensor against `2.5` compares as float).

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        A bool tensor, `True` where `x1 <= x2`.

    Example:
        >>> tfkit.ops.less_equal([1, 2, 3], 2.5).numpy()
        array([ True,  True, False])
    """
    a, b = operands(x1, x2)
    return tf.less_equal(a, b)


def logical_and(x1: Any, x2: Any) -> tf.Tensor:
    """Computes the element-wise logical AND of the given input tensors.

    The inputs are cast to bool first (non-zero values are `True`) and broadcast together.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        Output bool tensor, element-wise logical AND of the inputs.

    Example:
        >>> tfkit.ops.logical_and([True, True, False], [True, False, False]).numpy()
        array([ True, False, False])
        >>> tfkit.ops.logical_and([0, 1, 2], 1).numpy()
        array([False,  True,  True])
    """
    return tf.logical_and(tf.cast(tensor(x1), tf.bool), tf.cast(tensor(x2), tf.bool))


def logical_or(x1: Any, x2: Any) -> tf.Tensor:
    """Computes the element-wise logical OR of the given input tensors.

    The inputs are cast to bool first (non-zero values are `True`) and broadcast together.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        Output bool tensor, element-wise logical OR of the inputs.

    Example:
        >>> tfkit.ops.logical_or([True, False, False], [True, True, False]).numpy()
        array([ True,  True, False])
    """
    return tf.logical_or(tf.cast(tensor(x1), tf.bool), tf.cast(tensor(x2), tf.bool))


def logical_not(x: Any) -> tf.Tensor:
    """Computes the element-wise NOT of the given input tensor.

    The input is cast to bool first (non-zero values are `True`).

    Args:
        x: Input tensor.

    Returns:
        Output bool tensor, element-wise logical NOT of the input.

    Example:
        >>> tfkit.ops.logical_not([True, False]).numpy()
        array([False,  True])
        >>> tfkit.ops.logical_not([0, 3]).numpy()
        array([ True, False])
    """
    return tf.logical_not(tf.cast(tensor(x), tf.bool))


def isnan(x: Any) -> tf.Tensor:
    """Test element-wise for NaN and return result as a boolean tensor.

    Non-float inputs (integers, bools, complex) give all `False`.

    Args:
        x: Input tensor.

    Returns:
        Output bool tensor of the shape of `x`, `True` where `x` is NaN.

    Example:
        >>> tfkit.ops.isnan([1.0, np.nan, np.inf]).numpy()
        array([False,  True, False])
    """
    x = tensor(x)
    return tf.math.is_nan(x) if x.dtype.is_floating else tf.zeros_like(x, tf.bool)


def isinf(x: Any) -> tf.Tensor:
    """Test element-wise for positive or negative infinity.

    Non-float inputs (integers, bools, complex) give all `False`.

    Args:
        x: Input tensor.

    Returns:
        Output bool tensor of the shape of `x`, `True` where `x` is `inf` or `-inf`.

    Example:
        >>> tfkit.ops.isinf([1.0, np.nan, np.inf, -np.inf]).numpy()
        array([False, False,  True,  True])
    """
    x = tensor(x)
    return tf.math.is_inf(x) if x.dtype.is_floating else tf.zeros_like(x, tf.bool)


def isfinite(x: Any) -> tf.Tensor:
    """Return whether a tensor is finite, element-wise.

    Real values are finite when they are not NaN and not equal to positive or negative infinity.
    Non-float inputs (integers, bools, complex) give all `True`.

    Args:
        x: Input tensor.

    Returns:
        Output bool tensor of the shape of `x`, `True` where `x` is finite.

    Example:
        >>> tfkit.ops.isfinite([1.0, np.nan, np.inf]).numpy()
        array([ True, False, False])
    """
    x = tensor(x)
    return tf.math.is_finite(x) if x.dtype.is_floating else tf.ones_like(x, tf.bool)


def isclose(x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> tf.Tensor:
    """Return whether two tensors are element-wise almost equal.

    Values are close when `abs(x1 - x2) <= atol + rtol * abs(x2)` (so the test is not symmetric in
    `x1` and `x2`) or when they are equal, so `inf` is close to `inf` (infinities are close only when
    equal). NaNs are close to each other only with `equal_nan=True`. Python numbers are first converted
    to `int32` / `float32` tensors, then the operands take Keras's common dtype; integer and bool operands
    are compared for exact equality, ignoring the tolerances.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.
        rtol: Relative tolerance. Defaults to `1e-5`.
        atol: Absolute tolerance. Defaults to `1e-8`.
        equal_nan: If `True`, element-wise NaNs are considered equal. Defaults to `False`.

    Returns:
        Output bool tensor of the broadcast shape of `x1` and `x2`.

    Example:
        >>> tfkit.ops.isclose([1.0, 1.0, np.nan], [1.0 + 1e-6, 1.1, np.nan]).numpy()
        array([ True, False, False])
        >>> tfkit.ops.isclose([np.nan, np.inf], [np.nan, np.inf], equal_nan=True).numpy()
        array([ True,  True])
    """
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
    """Return whether two tensors are element-wise almost equal, everywhere.

    `allclose(x1, x2)` is `all(isclose(x1, x2))`. Values are close when `abs(x1 - x2) <= atol + rtol * abs(x2)` (so
    the test is not symmetric in `x1` and `x2`) or when they are equal, so `inf` is close to `inf` (infinities are
    close only when equal). NaNs are close to each other only with `equal_nan=True`. Python numbers are first
    converted to `int32` / `float32` tensors, then the operands take Keras's common dtype; integer and bool operands
    are compared for exact equality, ignoring the tolerances.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.
        rtol: Relative tolerance. Defaults to `1e-5`.
        atol: Absolute tolerance. Defaults to `1e-8`.
        equal_nan: If `True`, element-wise NaNs are considered equal. Defaults to `False`.

    Returns:
        A scalar bool tensor, `True` when every element pair is close.

    Example:
        >>> bool(tfkit.ops.allclose([1.0, 2.0], [1.0, 2.0 + 1e-6]))
        True
        >>> bool(tfkit.ops.allclose([1.0, 2.0], [1.0, 2.1]))
        False
    """
    return tf.reduce_all(isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isposinf(x: Any) -> tf.Tensor:
    """Test element-wise for positive infinity.

    Non-float inputs give all `False`.

    Args:
        x: Input tensor.

    Returns:
        Output bool tensor of the shape of `x`, `True` where `x` is `inf`.

    Example:
        >>> tfkit.ops.isposinf([1.0, np.inf, -np.inf]).numpy()
        array([False,  True, False])
    """
    x = tensor(x)
    if not x.dtype.is_floating:
        return tf.zeros_like(x, dtype=tf.bool)
    return tf.equal(x, tf.constant(float("inf"), x.dtype))


def isneginf(x: Any) -> tf.Tensor:
    """Test element-wise for negative infinity.

    Non-float inputs give all `False`.

    Args:
        x: Input tensor.

    Returns:
        Output bool tensor of the shape of `x`, `True` where `x` is `-inf`.

    Example:
        >>> tfkit.ops.isneginf([1.0, np.inf, -np.inf]).numpy()
        array([False, False,  True])
    """
    x = tensor(x)
    if not x.dtype.is_floating:
        return tf.zeros_like(x, dtype=tf.bool)
    return tf.equal(x, tf.constant(float("-inf"), x.dtype))


def isreal(x: Any) -> tf.Tensor:
    """Test element-wise for real numbers.

    Complex values are real when their imaginary part is 0; every element of a real (non-complex) tensor
    is real.

    Args:
        x: Input tensor.

    Returns:
        Output bool tensor of the shape of `x`.

    Example:
        >>> tfkit.ops.isreal(np.array([1 + 0j, 1 + 2j], "complex64")).numpy()
        array([ True, False])
        >>> tfkit.ops.isreal([1.0, 2.0]).numpy()
        array([ True,  True])
    """
    x = tensor(x)
    if x.dtype.is_complex:
        return tf.equal(tf.math.imag(x), 0)
    return tf.ones_like(x, dtype=tf.bool)


def signbit(x: Any) -> tf.Tensor:
    """Return the sign bit of the elements of `x`, element-wise.

    `True` where the sign bit is set: negative numbers, `-0.0`, `-inf` and negative NaNs. Unsigned and
    bool inputs give all `False`; signed integers give `x < 0`.

    Args:
        x: Input tensor, real.

    Returns:
        Output bool tensor of the shape of `x`.

    Raises:
        TypeError: If `x` is complex.

    Example:
        >>> tfkit.ops.signbit([-1.0, -0.0, 0.0, 2.0]).numpy()
        array([ True,  True, False, False])
    """
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
    """Compute the truth value of `x1 XOR x2`, element-wise.

    The inputs are cast to bool first (non-zero values are `True`) and broadcast together.

    Args:
        x1: First input tensor.
        x2: Second input tensor, broadcastable with `x1`.

    Returns:
        Output bool tensor, element-wise logical XOR of the inputs.

    Example:
        >>> tfkit.ops.logical_xor([True, True, False], [True, False, False]).numpy()
        array([False,  True, False])
    """
    return tf.math.logical_xor(tf.cast(tensor(x1), tf.bool), tf.cast(tensor(x2), tf.bool))


def isin(x1: Any, x2: Any, assume_unique: bool = False, invert: bool = False) -> tf.Tensor:
    """Test whether each element of `x1` is present in `x2`.

    Python numbers are first converted to `int32` / `float32` tensors, then both inputs take Keras's
    common dtype; `x2` is flattened, so its shape does not matter.

    Args:
        x1: Input tensor.
        x2: Values against which to test each value of `x1`.
        assume_unique: If `True`, the values of `x2` are assumed to be unique, which skips removing
            duplicates (the result is the same either way). Defaults to `False`.
        invert: If `True`, the result is negated: `True` where an element of `x1` is not in `x2`.
            Defaults to `False`.

    Returns:
        A bool tensor of the shape of `x1`.

    Example:
        >>> tfkit.ops.isin([0, 1, 2, 5], [0, 2]).numpy()
        array([ True, False,  True, False])
        >>> tfkit.ops.isin([0, 1, 2, 5], [0, 2], invert=True).numpy()
        array([False,  True, False,  True])
    """
    a, b = operands(x1, x2, weak_scalars=False)
    flat = tf.reshape(b, [-1])
    if not assume_unique:
        flat = tf.unique(flat)[0]
    found = tf.reduce_any(tf.equal(tf.expand_dims(a, -1), flat), axis=-1)
    return tf.logical_not(found) if invert else found


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), __all__)
