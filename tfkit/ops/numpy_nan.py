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
    """Replace NaN with zero and infinity with large finite numbers.

    Each NaN of `x` becomes `nan`, each `+inf` becomes `posinf` and each `-inf`
    becomes `neginf`. Tensors that are not floating point (ints, bools, complex)
    are returned unchanged.

    Args:
        x: Input tensor, array or Python number.
        nan: Value to replace NaN entries with. Defaults to `0.0`.
        posinf: Value to replace positive infinity with. Defaults to `None`:
            the largest finite value of `x`'s dtype.
        neginf: Value to replace negative infinity with. Defaults to `None`:
            the most negative finite value of `x`'s dtype.

    Returns:
        A tensor of `x`'s dtype and shape, with non-finite values replaced.

    Example:
        >>> x = np.array([np.nan, np.inf, -np.inf, 1.5])
        >>> tfkit.ops.nan_to_num(x, posinf=100.0, neginf=-100.0).numpy()
        array([   0. ,  100. , -100. ,    1.5], dtype=float32)
        >>> tfkit.ops.nan_to_num(x, nan=-1.0).numpy()[:2]
        array([-1.0000000e+00,  3.4028235e+38], dtype=float32)
    """
    x = tensor(x)
    if not x.dtype.is_floating:
        return x
    top = x.dtype.max if posinf is None else posinf
    bottom = x.dtype.min if neginf is None else neginf
    x = tf.where(tf.math.is_nan(x), tf.constant(nan, x.dtype), x)
    x = tf.where(tf.equal(x, np.inf), tf.constant(top, x.dtype), x)
    return tf.where(tf.equal(x, -np.inf), tf.constant(bottom, x.dtype), x)


def nansum(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Sum of tensor elements over the given axes, treating NaNs as zero.

    A slice holding only NaN sums to 0. Small integer and bool inputs accumulate
    in 32 bits, as `keras.ops.nansum` does: `bool`, `int8` and `int16` give
    `int32`; `uint8` and `uint16` give `uint32`; other dtypes are kept.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the sum is computed. Defaults to `None`:
            the sum of all elements.
        keepdims: If `True`, the reduced axes are kept in the result as
            dimensions of size one. Defaults to `False`.

    Returns:
        Output tensor containing the sums, with NaN values ignored.

    Example:
        >>> x = np.array([[1.0, np.nan, 3.0],
        ...               [np.nan, 2.0, 1.0]])
        >>> tfkit.ops.nansum(x).numpy()
        np.float32(7.0)
        >>> tfkit.ops.nansum(x, axis=1).numpy()
        array([4., 3.], dtype=float32)
        >>> tfkit.ops.nansum(np.array([100, 100], dtype="int8")).dtype
        tf.int32
    """
    x = tensor(x)
    x = tf.where(_nan(x), tf.zeros_like(x), x)
    return tf.reduce_sum(tf.cast(x, _WIDENED.get(x.dtype.name, x.dtype.name)), axis=_axis(axis), keepdims=keepdims)


def nanprod(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Product of tensor elements over the given axes, treating NaNs as one.

    A slice holding only NaN gives 1. Small integer and bool inputs accumulate
    in 32 bits: `bool`, `int8` and `int16` give `int32`; `uint8` and `uint16`
    give `uint32`; other dtypes are kept.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the product is computed. Defaults to
            `None`: the product of all elements.
        keepdims: If `True`, the reduced axes are kept in the result as
            dimensions of size one. Defaults to `False`.

    Returns:
        Output tensor containing the products, with NaN values ignored.

    Example:
        >>> x = np.array([[2.0, np.nan, 3.0],
        ...               [np.nan, np.nan, 4.0]])
        >>> tfkit.ops.nanprod(x).numpy()
        np.float32(24.0)
        >>> tfkit.ops.nanprod(x, axis=0).numpy()
        array([ 2.,  1., 12.], dtype=float32)
    """
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
    """Maximum of a tensor over the given axes, ignoring NaNs.

    A slice holding only NaN gives NaN. Integer inputs hold no NaN and reduce
    as `max` does; for bool inputs the maximum is a logical "any".

    Args:
        x: Input tensor.
        axis: Axis or axes along which the maximum is computed. Defaults to
            `None`: the maximum of all elements.
        keepdims: If `True`, the reduced axes are kept in the result as
            dimensions of size one. Defaults to `False`.

    Returns:
        Output tensor of `x`'s dtype containing the maxima, with NaN values
        ignored.

    Example:
        >>> x = np.array([[1.0, np.nan, 3.0],
        ...               [np.nan, np.nan, 0.5]])
        >>> tfkit.ops.nanmax(x).numpy()
        np.float32(3.0)
        >>> tfkit.ops.nanmax(x, axis=0).numpy()
        array([ 1., nan,  3.], dtype=float32)
    """
    return _extreme(x, axis, keepdims, largest=True)


def nanmin(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Minimum of a tensor over the given axes, ignoring NaNs.

    A slice holding only NaN gives NaN. Integer inputs hold no NaN and reduce
    as `min` does; for bool inputs the minimum is a logical "all".

    Args:
        x: Input tensor.
        axis: Axis or axes along which the minimum is computed. Defaults to
            `None`: the minimum of all elements.
        keepdims: If `True`, the reduced axes are kept in the result as
            dimensions of size one. Defaults to `False`.

    Returns:
        Output tensor of `x`'s dtype containing the minima, with NaN values
        ignored.

    Example:
        >>> x = np.array([[1.0, np.nan, 3.0],
        ...               [np.nan, np.nan, 0.5]])
        >>> tfkit.ops.nanmin(x).numpy()
        np.float32(0.5)
        >>> tfkit.ops.nanmin(x, axis=1, keepdims=True).numpy()
        array([[1. ],
               [0.5]], dtype=float32)
    """
    return _extreme(x, axis, keepdims, largest=False)


def nanmean(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Mean of a tensor over the given axes, ignoring NaNs.

    A slice holding only NaN gives NaN. Integer and bool inputs hold no NaN:
    they are cast to `float32` and averaged, as `keras.ops.nanmean` does; float
    inputs keep their dtype. An empty tuple of axes returns `x` unchanged.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the mean is computed. Defaults to `None`:
            the mean of all elements.
        keepdims: If `True`, the reduced axes are kept in the result as
            dimensions of size one. Defaults to `False`.

    Returns:
        Output tensor containing the means, with NaN values ignored.

    Example:
        >>> x = np.array([[1.0, np.nan, 3.0],
        ...               [np.nan, 2.0, 1.0]])
        >>> tfkit.ops.nanmean(x).numpy()
        np.float32(1.75)
        >>> tfkit.ops.nanmean(x, axis=1).numpy()
        array([2. , 1.5], dtype=float32)
        >>> tfkit.ops.nanmean(x, axis=1, keepdims=True).numpy()
        array([[2. ],
               [1.5]], dtype=float32)
    """
    x = tensor(x)
    if isinstance(axis, (tuple, list)) and not axis:
        return x
    if not x.dtype.is_floating:
        return tf.reduce_mean(tf.cast(x, FLOATX), axis=_axis(axis), keepdims=keepdims)
    valid = ~tf.math.is_nan(x)
    total = tf.reduce_sum(tf.where(valid, x, tf.zeros_like(x)), axis=_axis(axis), keepdims=keepdims)
    return total / tf.reduce_sum(tf.cast(valid, x.dtype), axis=_axis(axis), keepdims=keepdims)


def nanvar(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Variance of a tensor over the given axes, ignoring NaNs.

    The variance is the mean of the squared deviations from the mean of the
    non-NaN entries (no degrees-of-freedom correction). A slice holding only NaN
    gives NaN. Integer and bool inputs give `float32`; float inputs keep their
    dtype; complex inputs give the real variance of the magnitudes.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the variance is computed. Defaults to
            `None`: the variance of all elements.
        keepdims: If `True`, the reduced axes are kept in the result as
            dimensions of size one. Defaults to `False`.

    Returns:
        Output tensor containing the variances, with NaN values ignored.

    Example:
        >>> x = np.array([[1.0, np.nan, 3.0],
        ...               [np.nan, 2.0, 2.0]])
        >>> tfkit.ops.nanvar(x, axis=1).numpy()
        array([1., 0.], dtype=float32)
        >>> tfkit.ops.nanvar([1, 2, 3, 4]).numpy()
        np.float32(1.25)
    """
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
    """Standard deviation of a tensor over the given axes, ignoring NaNs.

    The square root of `nanvar`: no degrees-of-freedom correction, NaN for a
    slice holding only NaN. Integer and bool inputs give `float32`; float inputs
    keep their dtype.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the standard deviation is computed.
            Defaults to `None`: over all elements.
        keepdims: If `True`, the reduced axes are kept in the result as
            dimensions of size one. Defaults to `False`.

    Returns:
        Output tensor containing the standard deviations, with NaN values
        ignored.

    Example:
        >>> x = np.array([[1.0, np.nan, 3.0],
        ...               [np.nan, 2.0, 2.0]])
        >>> tfkit.ops.nanstd(x, axis=1).numpy()
        array([1., 0.], dtype=float32)
    """
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
    """Return the indices of the maximum values along an axis, ignoring NaNs.

    A slice holding only NaN gives the index `-1`.

    Args:
        x: Input tensor.
        axis: Integer axis along which to search. Defaults to `None`: the index
            is into the flattened tensor.
        keepdims: If `True`, the reduced axis (all axes when `axis` is `None`)
            is kept in the result as a dimension of size one. Defaults to
            `False`.

    Returns:
        An `int32` tensor of indices: `x`'s shape with the dimension along
        `axis` removed (a scalar when `axis` is `None`).

    Raises:
        ValueError: If `axis` is out of bounds for the rank of `x`.

    Example:
        >>> x = np.array([[1.0, np.nan, 3.0],
        ...               [np.nan, 2.0, 0.0]])
        >>> tfkit.ops.nanargmax(x).numpy()
        np.int32(2)
        >>> tfkit.ops.nanargmax(x, axis=0).numpy()
        array([0, 1, 0], dtype=int32)
        >>> tfkit.ops.nanargmax(x, axis=1, keepdims=True).numpy()
        array([[2],
               [1]], dtype=int32)
        >>> tfkit.ops.nanargmax(np.array([np.nan, np.nan])).numpy()
        np.int32(-1)
    """
    return _arg_extreme(x, axis, keepdims, largest=True)


def nanargmin(x: Any, axis: int | None = None, keepdims: bool = False) -> tf.Tensor:
    """Return the indices of the minimum values along an axis, ignoring NaNs.

    A slice holding only NaN gives the index `-1`.

    Args:
        x: Input tensor.
        axis: Integer axis along which to search. Defaults to `None`: the index
            is into the flattened tensor.
        keepdims: If `True`, the reduced axis (all axes when `axis` is `None`)
            is kept in the result as a dimension of size one. Defaults to
            `False`.

    Returns:
        An `int32` tensor of indices: `x`'s shape with the dimension along
        `axis` removed (a scalar when `axis` is `None`).

    Raises:
        ValueError: If `axis` is out of bounds for the rank of `x`.

    Example:
        >>> x = np.array([[1.0, np.nan, 3.0],
        ...               [np.nan, 2.0, 0.0]])
        >>> tfkit.ops.nanargmin(x).numpy()
        np.int32(5)
        >>> tfkit.ops.nanargmin(x, axis=1).numpy()
        array([0, 2], dtype=int32)
    """
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
    """Return the cumulative sum of elements along a given axis, treating NaNs as zero.

    Args:
        x: Input tensor.
        axis: Integer axis along which the cumulative sum is computed. Defaults
            to `None`: the sum runs over the flattened tensor.
        dtype: Dtype `x` is cast to before summing. Defaults to `None`: `x`'s
            dtype, with bool inputs summed as `int32`.

    Returns:
        Output tensor of the cumulative sums: `x`'s shape, or 1-D when `axis`
        is `None`.

    Example:
        >>> x = np.array([[1.0, np.nan, 3.0],
        ...               [np.nan, 2.0, 1.0]])
        >>> tfkit.ops.nancumsum(x).numpy()
        array([1., 1., 4., 4., 6., 7.], dtype=float32)
        >>> tfkit.ops.nancumsum(x, axis=1).numpy()
        array([[1., 1., 4.],
               [0., 2., 3.]], dtype=float32)
    """
    return _cumulative(x, axis, dtype, 0.0, tf.math.cumsum)


def nancumprod(x: Any, axis: int | None = None, dtype: Any = None) -> tf.Tensor:
    """Return the cumulative product of elements along a given axis, treating NaNs as one.

    Args:
        x: Input tensor.
        axis: Integer axis along which the cumulative product is computed.
            Defaults to `None`: the product runs over the flattened tensor.
        dtype: Dtype `x` is cast to before multiplying. Defaults to `None`:
            `x`'s dtype, with bool inputs multiplied as `int32`.

    Returns:
        Output tensor of the cumulative products: `x`'s shape, or 1-D when
        `axis` is `None`.

    Example:
        >>> x = np.array([[2.0, np.nan, 3.0],
        ...               [np.nan, 2.0, 1.0]])
        >>> tfkit.ops.nancumprod(x, axis=1).numpy()
        array([[2., 2., 6.],
               [1., 2., 2.]], dtype=float32)
        >>> tfkit.ops.nancumprod(x).numpy()
        array([ 2.,  2.,  6.,  6., 12., 12.], dtype=float32)
    """
    return _cumulative(x, axis, dtype, 1.0, tf.math.cumprod)


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), __all__)
