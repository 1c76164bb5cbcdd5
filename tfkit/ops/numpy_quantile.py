"""Quantiles of ``keras.ops`` on TensorFlow: ``quantile``, ``percentile``, ``median`` and their NaN-skipping twins.

    import tfkit.ops as ops
    q = ops.quantile(x, [0.25, 0.5, 0.75], axis=-1)      # shape (3,) + x.shape[:-1]
    m = ops.nanmedian(x, axis=0, keepdims=True)          # NaNs ignored

As numpy: ``q`` may be a scalar or a list (its shape comes first in the
result); ``method`` is one of linear, lower, higher, midpoint, nearest. A
slice holding a NaN gives NaN, except in the ``nan*`` functions, where only an
all-NaN slice does. Ints are computed as float32; floats keep their dtype.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import result_type

METHODS = ("linear", "lower", "higher", "midpoint", "nearest")
Axis = int | Sequence[int] | None


def _check(q: Any, method: str, top: float, name: str) -> tf.Tensor:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    static = None if tf.is_tensor(q) and not hasattr(q, "numpy") else np.asarray(q)
    if static is not None and static.dtype.kind in "biuf" and (np.any(static < 0) or np.any(static > top)):
        raise ValueError(f"{name} must lie in [0, {top:g}]; got {name}={static.tolist()}")
    if static is not None and static.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a number or numbers in [0, {top:g}]; got {q!r}")
    return tf.cast(tensor(q), tf.float64)


def _axes(axis: Axis, rank: int) -> list[int] | None:
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of bounds for a tensor of rank {rank}")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"axis holds a repeated axis: {axis}")
    return out


def _quantile(x: tf.Tensor, q: tf.Tensor, axis: Axis, method: str, keepdims: bool, skip_nan: bool) -> tf.Tensor:
    x = tf.cast(x, result_type(x.dtype, float))
    rank = len(x.shape)
    axes = _axes(axis, rank)
    shape = tf.shape(x)
    if axes is None:
        kept: list[int] = []
        rows = tf.reshape(x, [1, -1])
    else:
        kept = [i for i in range(rank) if i not in axes]
        moved = tf.transpose(x, kept + axes)
        rows = tf.reshape(moved, tf.stack([tf.reduce_prod(tf.gather(shape, kept)), -1]))
    missing = tf.math.is_nan(rows)
    values = tf.sort(tf.where(missing, tf.constant(np.inf, rows.dtype), rows), axis=-1)
    length = tf.shape(values)[-1]
    count = tf.reduce_sum(tf.cast(~missing, tf.int32), axis=-1) if skip_nan else tf.fill([tf.shape(values)[0]], length)

    qs = tf.reshape(q, [-1])
    position = tf.cast(tf.maximum(count - 1, 0), tf.float64)[:, None] * qs[None, :]
    last = tf.maximum(count - 1, 0)[:, None]

    def at(index: tf.Tensor) -> tf.Tensor:
        index = tf.minimum(tf.cast(index, tf.int32), last)
        return tf.gather(values, index, axis=1, batch_dims=1)

    low, high = tf.floor(position), tf.math.ceil(position)
    if method == "lower":
        out = at(low)
    elif method == "higher":
        out = at(high)
    elif method == "nearest":
        out = at(tf.round(position))
    elif method == "midpoint":
        out = (at(low) + at(high)) / 2
    else:
        below, above = at(low), at(high)
        fraction = tf.cast(position - low, values.dtype)
        out = tf.where(tf.equal(fraction, 0), below, below + (above - below) * fraction)
    empty = tf.equal(count, 0) if skip_nan else tf.reduce_any(missing, axis=-1) | tf.equal(count, 0)
    out = tf.where(empty[:, None], tf.constant(np.nan, out.dtype), out)

    # rows x quantiles -> q.shape + kept dims (+ ones where the reduced axes were, with keepdims)
    kept_shape = tf.gather(shape, kept) if kept else tf.zeros([0], tf.int32)
    if keepdims:
        kept_shape = (
            tf.tensor_scatter_nd_update(
                shape, [[a] for a in (axes or range(rank))], tf.ones([len(axes or range(rank))], tf.int32)
            )
            if rank
            else kept_shape
        )
    out = tf.transpose(out)
    out = tf.reshape(out, tf.concat([tf.shape(q), kept_shape], 0))
    static = (
        [x.shape[i] for i in kept]
        if not keepdims
        else [1 if axes is None or i in axes else x.shape[i] for i in range(rank)]
    )
    return tf.ensure_shape(out, list(q.shape) + static)


def quantile(x: Any, q: Any, axis: Axis = None, method: str = "linear", keepdims: bool = False) -> tf.Tensor:
    """Compute the q-th quantile(s) of the data along the specified axis.

    Computes the `q`-th quantile(s) of the values of `x` along the given axis, as NumPy does.
    A slice holding a NaN gives NaN (use the `nan` variant to skip them).
    Integer and bool inputs are computed as `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.
        q: Probability or sequence of probabilities for the quantiles to compute, in `[0, 1]`.
        axis: Axis or axes along which the quantiles are computed: an int or a tuple of ints. Defaults to
            `None`, which computes them over a flattened version of the input.
        method: Which method to use when the desired quantile lies between two data points `i < j`:
            `"linear"` (`i + (j - i) * fraction`), `"lower"` (`i`), `"higher"` (`j`), `"midpoint"`
            (`(i + j) / 2`) or `"nearest"` (`i` or `j`, whichever is nearest, ties to even).
            Defaults to `"linear"`.
        keepdims: If `True`, the reduced axes are left in the result as dimensions with size one.
            Defaults to `False`.

    Returns:
        The quantile(s). If `q` is a scalar, the shape is that of `x` without the reduced axes (or with
        size-1 axes, with `keepdims=True`); otherwise the shape of `q` comes first.

    Raises:
        ValueError: If `method` is unknown, `q` lies outside `[0, 1]`, or `axis` is out of range or
            repeated.
        TypeError: If `q` is not numeric.

    Example:
        >>> float(tfkit.ops.quantile([1.0, 2.0, 3.0, 4.0], 0.5))
        2.5
        >>> tfkit.ops.quantile([1, 2, 3, 4], [0.25, 0.5]).numpy()
        array([1.75, 2.5 ], dtype=float32)
        >>> float(tfkit.ops.quantile([1.0, 2.0, 3.0, 4.0], 0.5, method="lower"))
        2.0
        >>> tfkit.ops.quantile([[1.0, 2.0], [3.0, 4.0]], 0.5, axis=1, keepdims=True).numpy()
        array([[1.5],
               [3.5]], dtype=float32)
    """
    return _quantile(tensor(x), _check(q, method, 1.0, "q"), axis, method, keepdims, skip_nan=False)


def percentile(x: Any, q: Any, axis: Axis = None, method: str = "linear", keepdims: bool = False) -> tf.Tensor:
    """Compute the q-th percentile(s) of the data along the specified axis.

    Computes the `q`-th percentile(s) of the values of `x` along the given axis, as NumPy does.
    A slice holding a NaN gives NaN (use the `nan` variant to skip them).
    Integer and bool inputs are computed as `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.
        q: Percentage or sequence of percentages for the percentiles to compute, in `[0, 100]`.
        axis: Axis or axes along which the percentiles are computed: an int or a tuple of ints. Defaults to
            `None`, which computes them over a flattened version of the input.
        method: Which method to use when the desired quantile lies between two data points `i < j`:
            `"linear"` (`i + (j - i) * fraction`), `"lower"` (`i`), `"higher"` (`j`), `"midpoint"`
            (`(i + j) / 2`) or `"nearest"` (`i` or `j`, whichever is nearest, ties to even).
            Defaults to `"linear"`.
        keepdims: If `True`, the reduced axes are left in the result as dimensions with size one.
            Defaults to `False`.

    Returns:
        The percentile(s). If `q` is a scalar, the shape is that of `x` without the reduced axes (or with
        size-1 axes, with `keepdims=True`); otherwise the shape of `q` comes first.

    Raises:
        ValueError: If `method` is unknown, `q` lies outside `[0, 100]`, or `axis` is out of range or
            repeated.
        TypeError: If `q` is not numeric.

    Example:
        >>> float(tfkit.ops.percentile([1.0, 2.0, 3.0, 4.0], 50))
        2.5
        >>> tfkit.ops.percentile([1, 2, 3, 4, 5], [25, 75]).numpy()
        array([2., 4.], dtype=float32)
    """
    q = _check(q, method, 100.0, "q") / 100.0
    return _quantile(tensor(x), q, axis, method, keepdims, skip_nan=False)


def median(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Compute the median along the specified axis.

    The median is the middle value of the sorted values (the mean of the two middle ones for an even count). A slice
    holding a NaN gives NaN (use `nanmedian` to skip them). Integer and bool inputs are computed as `float32`; float
    inputs keep their dtype.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the medians are computed: an int or a tuple of ints. Defaults to
            `None`, which computes them over a flattened version of the input.
        keepdims: If `True`, the reduced axes are left in the result as dimensions with size one.
            Defaults to `False`.

    Returns:
        The output tensor: the shape of `x` without the reduced axes (or with size-1 axes, with
        `keepdims=True`).

    Raises:
        ValueError: If `axis` is out of range or repeated.

    Example:
        >>> float(tfkit.ops.median([[1.0, 3.0], [2.0, 5.0]]))
        2.5
        >>> tfkit.ops.median([[1, 3], [2, 5]], axis=1).numpy()
        array([2. , 3.5], dtype=float32)
    """
    return _quantile(tensor(x), tf.constant(0.5, tf.float64), axis, "linear", keepdims, skip_nan=False)


def nanquantile(x: Any, q: Any, axis: Axis = None, method: str = "linear", keepdims: bool = False) -> tf.Tensor:
    """Compute the q-th quantile(s) of the data along the specified axis, ignoring NaNs.

    Computes the `q`-th quantile(s) of the values of `x` along the given axis, as NumPy does.
    NaNs are ignored: only an all-NaN slice gives NaN.
    Integer and bool inputs are computed as `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.
        q: Probability or sequence of probabilities for the quantiles to compute, in `[0, 1]`.
        axis: Axis or axes along which the quantiles are computed: an int or a tuple of ints. Defaults to
            `None`, which computes them over a flattened version of the input.
        method: Which method to use when the desired quantile lies between two data points `i < j`:
            `"linear"` (`i + (j - i) * fraction`), `"lower"` (`i`), `"higher"` (`j`), `"midpoint"`
            (`(i + j) / 2`) or `"nearest"` (`i` or `j`, whichever is nearest, ties to even).
            Defaults to `"linear"`.
        keepdims: If `True`, the reduced axes are left in the result as dimensions with size one.
            Defaults to `False`.

    Returns:
        The quantile(s). If `q` is a scalar, the shape is that of `x` without the reduced axes (or with
        size-1 axes, with `keepdims=True`); otherwise the shape of `q` comes first.

    Raises:
        ValueError: If `method` is unknown, `q` lies outside `[0, 1]`, or `axis` is out of range or
            repeated.
        TypeError: If `q` is not numeric.

    Example:
        >>> float(tfkit.ops.nanquantile([1.0, np.nan, 3.0, 4.0], 0.5))
        3.0
    """
    return _quantile(tensor(x), _check(q, method, 1.0, "q"), axis, method, keepdims, skip_nan=True)


def nanpercentile(x: Any, q: Any, axis: Axis = None, method: str = "linear", keepdims: bool = False) -> tf.Tensor:
    """Compute the q-th percentile(s) of the data along the specified axis, ignoring NaNs.

    Computes the `q`-th percentile(s) of the values of `x` along the given axis, as NumPy does.
    NaNs are ignored: only an all-NaN slice gives NaN.
    Integer and bool inputs are computed as `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.
        q: Percentage or sequence of percentages for the percentiles to compute, in `[0, 100]`.
        axis: Axis or axes along which the percentiles are computed: an int or a tuple of ints. Defaults to
            `None`, which computes them over a flattened version of the input.
        method: Which method to use when the desired quantile lies between two data points `i < j`:
            `"linear"` (`i + (j - i) * fraction`), `"lower"` (`i`), `"higher"` (`j`), `"midpoint"`
            (`(i + j) / 2`) or `"nearest"` (`i` or `j`, whichever is nearest, ties to even).
            Defaults to `"linear"`.
        keepdims: If `True`, the reduced axes are left in the result as dimensions with size one.
            Defaults to `False`.

    Returns:
        The percentile(s). If `q` is a scalar, the shape is that of `x` without the reduced axes (or with
        size-1 axes, with `keepdims=True`); otherwise the shape of `q` comes first.

    Raises:
        ValueError: If `method` is unknown, `q` lies outside `[0, 100]`, or `axis` is out of range or
            repeated.
        TypeError: If `q` is not numeric.

    Example:
        >>> tfkit.ops.nanpercentile([[1.0, np.nan], [np.nan, np.nan]], 50, axis=1).numpy()
        array([ 1., nan], dtype=float32)
    """
    q = _check(q, method, 100.0, "q") / 100.0
    return _quantile(tensor(x), q, axis, method, keepdims, skip_nan=True)


def nanmedian(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Compute the median along the specified axis, ignoring NaNs.

    The median of the non-NaN values; only an all-NaN slice gives NaN. An empty `axis` (`()` or `[]`)
    returns `x` unchanged. Integer and bool inputs are computed as `float32`; float inputs keep their dtype.

    Args:
        x: Input tensor.
        axis: Axis or axes along which the medians are computed: an int or a tuple of ints. Defaults to
            `None`, which computes them over a flattened version of the input.
        keepdims: If `True`, the reduced axes are left in the result as dimensions with size one.
            Defaults to `False`.

    Returns:
        The output tensor: the shape of `x` without the reduced axes (or with size-1 axes, with
        `keepdims=True`).

    Raises:
        ValueError: If `axis` is out of range or repeated.

    Example:
        >>> float(tfkit.ops.nanmedian([1.0, np.nan, 3.0]))
        2.0
        >>> tfkit.ops.nanmedian([[1.0, np.nan], [np.nan, np.nan]], axis=1).numpy()
        array([ 1., nan], dtype=float32)
    """
    x = tensor(x)
    if isinstance(axis, (tuple, list)) and not axis:
        return x
    return _quantile(x, tf.constant(0.5, tf.float64), axis, "linear", keepdims, skip_nan=True)


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), __all__)
