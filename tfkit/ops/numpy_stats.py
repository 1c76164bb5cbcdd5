"""Counting and statistics of ``keras.ops`` on TensorFlow: histograms, bins, sorted search, correlation.

    import tfkit.ops as ops
    counts, edges = ops.histogram(x, bins=5)
    bucket = ops.digitize(x, [0.0, 0.5, 1.0]); where = ops.searchsorted(edges, x, side="right")

Indices and counts are int32, as in ``keras.ops`` (``unique`` lives in ``numpy_unique``). ``correlate`` is numpy's
(1-D, modes valid/same/full); ``corrcoef`` treats rows as variables;
``trapezoid`` integrates along ``axis``; ``argpartition`` returns a full stable
sort, which is one valid partition for every ``kth``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import FLOATX, operands, result_type, wide_float_type

Axis = int | Sequence[int] | None


def _static(value: Any) -> np.ndarray | None:
    """``value`` as a numpy array when it is known now (Python data, numpy, eager tensors)."""
    if tf.is_tensor(value):
        return value.numpy() if hasattr(value, "numpy") else None
    return np.asarray(value)


def histogram(x: Any, bins: int = 10, range: tuple[float, float] | None = None) -> tuple[tf.Tensor, tf.Tensor]:  # noqa: A002
    """Computes a histogram of the data tensor `x`.

    The range is split into `bins` equal bins; each bin holds the values from its lower edge up to, but
    excluding, its upper edge, except the last bin, which also holds its upper edge. Values outside
    `range` are not counted. Without `range`, the bins span the minimum and maximum of `x` (widened by
    0.5 on each side when they are equal, as in NumPy). As in Keras, the counts of a float `x` have the
    dtype of `x`; integer and bool inputs give `int32` counts and `float32` edges.

    Args:
        x: Input tensor, 1-D.
        bins: The number of bins, a non-negative int. Defaults to `10`.
        range: A tuple `(min, max)`, the lower and upper range of the bins. Defaults to `None`, which
            uses the minimum and maximum of `x`.

    Returns:
        A tuple `(counts, bin_edges)`: `counts` holds the number of values in each of the `bins` bins,
        and `bin_edges` the `bins + 1` bin edges.

    Raises:
        TypeError: If `bins` is not an int.
        ValueError: If `bins` is negative, `range` is not a `(min, max)` pair with `min <= max`, or `x`
            is not 1-D.

    Example:
        >>> counts, edges = tfkit.ops.histogram([1, 2, 1, 4], bins=3)
        >>> counts.numpy()
        array([2, 1, 1], dtype=int32)
        >>> edges.numpy()
        array([1., 2., 3., 4.], dtype=float32)
        >>> counts, edges = tfkit.ops.histogram([0.5, 1.5, 2.5, 9.0], bins=2, range=(0, 2))
        >>> counts.numpy()
        array([1., 1.], dtype=float32)
    """
    if not isinstance(bins, int) or isinstance(bins, bool):
        raise TypeError(f"bins must be an int; got bins={bins!r}")
    if bins < 0:
        raise ValueError(f"bins must be a non-negative int; got bins={bins}")
    if range is not None:
        if not isinstance(range, (tuple, list)) or len(range) != 2:
            raise ValueError(f"range must be a tuple (min, max); got range={range!r}")
        if range[1] < range[0]:
            raise ValueError(f"range must have min <= max; got range={range!r}")
    x = tensor(x)
    if len(x.shape) != 1:
        raise ValueError(f"histogram needs a 1-D x; got x of shape {tuple(x.shape)}")
    counts_dtype = x.dtype if x.dtype.is_floating else tf.int32
    values = tf.cast(x, x.dtype if x.dtype.is_floating else FLOATX)
    if range is None:
        low, high = tf.reduce_min(values), tf.reduce_max(values)
        same = tf.equal(low, high)  # numpy widens an empty range to +-0.5
        low, high = tf.where(same, low - 0.5, low), tf.where(same, high + 0.5, high)
    else:
        low, high = tf.constant(range[0], values.dtype), tf.constant(range[1], values.dtype)
    edges = tf.cast(tf.linspace(tf.cast(low, tf.float64), tf.cast(high, tf.float64), bins + 1), values.dtype)
    inside = tf.boolean_mask(values, (values >= low) & (values <= high))
    index = tf.searchsorted(edges[1:-1], inside, side="right", out_type=tf.int32)
    counts = tf.math.unsorted_segment_sum(tf.ones_like(index, counts_dtype), index, bins)
    return counts, edges


def bincount(x: Any, weights: Any = None, minlength: int = 0, sparse: bool = False) -> Any:
    """Count the number of occurrences of each value in a tensor of integers.

    By default, the length of the output tensor is one more than the largest value of `x`. Each bin gives
    the number of occurrences of its index value in `x`. If `weights` is given, the output at index `n` is
    the sum of the weights where `x` equals `n`. A 2-D `x` is counted row by row.

    Args:
        x: Input tensor of non-negative integers (or bools), 1-D or 2-D.
        weights: Weight tensor, of the same shape as `x`. Defaults to `None`, which counts each element
            as 1 and gives `int32` counts; with weights, the result takes Keras's common dtype of `x` and
            `weights`.
        minlength: The minimum number of bins of the output, a non-negative int. Defaults to `0`.
        sparse: Whether to return a `tf.SparseTensor` instead of a dense tensor. Defaults to `False`.

    Returns:
        1-D tensor (2-D for a 2-D `x`) where each element gives the number of occurrences (or the summed
        weight) of its index value in `x`. Its last axis has length `max(max(x) + 1, minlength)`.

    Raises:
        TypeError: If `x` is not an integer or bool tensor.
        ValueError: If `x` is not 1-D or 2-D, or `minlength` is not a non-negative int.

    Example:
        >>> tfkit.ops.bincount([0, 1, 1, 3]).numpy()
        array([1, 2, 0, 1], dtype=int32)
        >>> tfkit.ops.bincount([0, 1, 1], weights=[0.5, 1.0, 2.0]).numpy()
        array([0.5, 3. ], dtype=float32)
        >>> tfkit.ops.bincount([0, 1], minlength=4).numpy()
        array([1, 1, 0, 0], dtype=int32)
    """
    x = tensor(x)
    if not (x.dtype.is_integer or x.dtype.is_bool):
        raise TypeError(f"bincount needs non-negative integers in x; got x of dtype {x.dtype.name}")
    if len(x.shape) not in (1, 2):
        raise ValueError(f"bincount needs a 1-D or 2-D x; got x of shape {tuple(x.shape)}")
    if not isinstance(minlength, int) or minlength < 0:
        raise ValueError(f"minlength must be a non-negative int; got minlength={minlength!r}")
    if x.dtype not in (tf.int32, tf.int64):
        x = tf.cast(x, tf.int32)
    if weights is None:
        dtype = "int32"
    else:
        weights = tensor(weights)
        dtype = result_type(x.dtype, weights.dtype)
        if weights.dtype.name not in ("int32", "int64", "float32", "float64"):
            weights = tf.cast(weights, tf.int32 if weights.dtype.is_integer or weights.dtype.is_bool else tf.float32)
    counts = tf.cast(tf.math.bincount(x, weights=weights, minlength=minlength, axis=-1), dtype)
    return tf.sparse.from_dense(counts) if sparse else counts


def digitize(x: Any, bins: Any) -> tf.Tensor:
    """Returns the indices of the bins to which each value in `x` belongs.

    As NumPy's `digitize` with `right=False`: for increasing `bins`, the index `i` of a value `v`
    satisfies `bins[i - 1] <= v < bins[i]`; for decreasing `bins`, `bins[i - 1] > v >= bins[i]`. Values
    below (or above) all the edges give `0` (or `len(bins)`).

    Args:
        x: Input tensor of values to bin.
        bins: 1-D tensor of bin edges, monotonically increasing or decreasing.

    Returns:
        An `int32` tensor of bin indices, of the shape of `x`.

    Raises:
        ValueError: If `bins` is not 1-D, or (when its values are known) not monotonic.

    Example:
        >>> tfkit.ops.digitize([0.2, 6.4, 3.0, 1.6], [0.0, 1.0, 2.5, 4.0, 10.0]).numpy()
        array([1, 4, 3, 2], dtype=int32)
        >>> tfkit.ops.digitize([1.0, 3.0], [4.0, 2.0, 0.0]).numpy()
        array([2, 1], dtype=int32)
    """
    x = tensor(x)
    edges = tensor(bins)
    if len(edges.shape) != 1:
        raise ValueError(f"bins must be 1-D; got bins of shape {tuple(edges.shape)}")
    compute = "float64" if x.dtype in (tf.int64, tf.float64, tf.uint32, tf.uint64) else FLOATX
    values, edges = tf.cast(tf.reshape(x, [-1]), compute), tf.cast(edges, compute)
    known = _static(bins)
    if known is not None and known.size > 1 and np.all(np.diff(known) <= 0) and np.any(np.diff(known) < 0):
        out = tf.size(edges) - tf.searchsorted(tf.reverse(edges, [0]), values, side="left", out_type=tf.int32)
    else:
        if known is not None and known.size > 1 and np.any(np.diff(known) < 0):
            raise ValueError(f"bins must be monotonically increasing or decreasing; got bins={known.tolist()}")
        out = tf.searchsorted(edges, values, side="right", out_type=tf.int32)
    return tf.reshape(out, tf.shape(x))


def searchsorted(sorted_sequence: Any, values: Any, side: str = "left") -> tf.Tensor:
    """Perform a binary search, returning indices for insertion of `values` into `sorted_sequence`.

    For each element of `values`, finds the index at which it would be inserted into `sorted_sequence`
    to keep it sorted. Python numbers are first converted to `int32` / `float32` tensors, then both inputs
    take Keras's common dtype.

    Args:
        sorted_sequence: 1-D input tensor, sorted along its only axis.
        values: N-D tensor of query insertion values.
        side: `"left"` or `"right"`, specifying the direction in which to insert for the equality case
            (tie-breaker): `"left"` gives the first suitable index, `"right"` the last. Defaults to
            `"left"`.

    Returns:
        An `int32` tensor of insertion indices, of the shape of `values`.

    Raises:
        ValueError: If `side` is not `"left"` or `"right"`, or `sorted_sequence` is not 1-D.

    Example:
        >>> tfkit.ops.searchsorted([1, 2, 3, 4, 5], [3, 6, -1]).numpy()
        array([2, 5, 0], dtype=int32)
        >>> int(tfkit.ops.searchsorted([1, 2, 3, 3, 5], 3, side="right"))
        4
    """
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right'; got side={side!r}")
    sequence, values = operands(sorted_sequence, values, weak_scalars=False)
    if len(sequence.shape) != 1:
        raise ValueError(f"searchsorted needs a 1-D sorted_sequence; got shape {tuple(sequence.shape)}")
    out = tf.searchsorted(sequence, tf.reshape(values, [-1]), side=side, out_type=tf.int32)
    return tf.reshape(out, tf.shape(values))


def ptp(x: Any, axis: Axis = None, keepdims: bool = False) -> tf.Tensor:
    """Return the peak-to-peak (max - min) value of tensor elements over a given axis.

    The peak-to-peak value is the range of the values: `max(x) - min(x)` along `axis`. The result keeps
    the dtype of `x`.

    Args:
        x: Input tensor, not bool.
        axis: Axis or axes along which the range is computed: an int or a tuple/list of ints. Defaults to
            `None`, which computes it over all the elements.
        keepdims: If `True`, the reduced axes are left in the result as dimensions with size one.
            Defaults to `False`.

    Returns:
        A tensor with the peak-to-peak values of `x`.

    Raises:
        TypeError: If `x` is a bool tensor.

    Example:
        >>> x = np.array([[4, 9, 2], [1, 5, 7]])
        >>> int(tfkit.ops.ptp(x))
        8
        >>> tfkit.ops.ptp(x, axis=1).numpy()
        array([7, 6])
        >>> tfkit.ops.ptp(x, axis=0, keepdims=True).numpy()
        array([[3, 4, 5]])
    """
    x = tensor(x)
    if x.dtype.is_bool:
        raise TypeError("ptp does not support bool inputs (max - min of booleans); cast x to an int first")
    axes = list(axis) if isinstance(axis, (list, tuple)) else axis
    return tf.reduce_max(x, axis=axes, keepdims=keepdims) - tf.reduce_min(x, axis=axes, keepdims=keepdims)


def corrcoef(x: Any) -> tf.Tensor:
    """Compute the Pearson correlation coefficient matrix.

    Each row of `x` is a variable and each column an observation of all the variables. The coefficients
    are clipped to `[-1, 1]`. `int64` inputs give `float64`, other integer and bool inputs `float32`;
    float and complex inputs keep their dtype.

    Args:
        x: A 1-D or 2-D tensor of shape `(variables, observations)`; a 1-D `x` is a single variable.

    Returns:
        The correlation coefficient matrix of the variables, of shape `(variables, variables)`; a scalar
        (1.0) for a 1-D `x`.

    Raises:
        ValueError: If `x` has more than 2 dimensions.

    Example:
        >>> np.round(tfkit.ops.corrcoef([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]).numpy(), 4)
        array([[1.    , 0.9934],
               [0.9934, 1.    ]], dtype=float32)
        >>> tfkit.ops.corrcoef([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]).numpy()
        array([[ 1., -1.],
               [-1.,  1.]], dtype=float32)
    """
    x = tensor(x)
    if len(x.shape) > 2:
        raise ValueError(f"corrcoef needs a 1-D or 2-D x; got x of shape {tuple(x.shape)}")
    x = tf.cast(x, wide_float_type(x.dtype))
    rows = tf.reshape(x, [1, -1]) if len(x.shape) < 2 else x
    centered = rows - tf.reduce_mean(rows, axis=-1, keepdims=True)
    covariance = tf.matmul(centered, centered, adjoint_b=True)
    scale = tf.sqrt(tf.math.real(tf.linalg.diag_part(covariance)))
    scale = tf.cast(scale[:, None] * scale[None, :], covariance.dtype)
    out = covariance / scale
    if out.dtype.is_complex:
        out = tf.complex(tf.clip_by_value(tf.math.real(out), -1, 1), tf.clip_by_value(tf.math.imag(out), -1, 1))
    else:
        out = tf.clip_by_value(out, -1, 1)
    return tf.reshape(out, []) if len(x.shape) < 2 else out


def correlate(x1: Any, x2: Any, mode: str = "valid") -> tf.Tensor:
    """Compute the cross-correlation of two 1-dimensional tensors.

    As NumPy's `correlate`: `c[k] = sum_n x1[n + k] * x2[n]`, with `x2` not conjugated. The result takes
    Keras's common dtype of the inputs made a float: an `int64` result gives `float64`, other integers
    and bools `float32`; `float16`, `bfloat16` and `float64` are kept.

    Args:
        x1: First 1-D input tensor of length M.
        x2: Second 1-D input tensor of length N.
        mode: Either `"valid"` (only where the tensors overlap completely: length `max(M, N) -
            min(M, N) + 1`), `"same"` (length `max(M, N)`, centred as NumPy does) or `"full"` (every
            point of overlap: length `M + N - 1`). Defaults to `"valid"`.

    Returns:
        Output tensor, the cross-correlation of `x1` and `x2`.

    Raises:
        ValueError: If `mode` is not one of the three, or `x1` or `x2` is not 1-D.

    Example:
        >>> tfkit.ops.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]).numpy()
        array([3.5], dtype=float32)
        >>> tfkit.ops.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5], mode="same").numpy()
        array([2. , 3.5, 3. ], dtype=float32)
        >>> tfkit.ops.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5], mode="full").numpy()
        array([0.5, 2. , 3.5, 3. , 0. ], dtype=float32)
    """
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"mode must be 'valid', 'same' or 'full'; got mode={mode!r}")
    a, b = tensor(x1), tensor(x2)
    for name, value in (("x1", a), ("x2", b)):
        if len(value.shape) != 1:
            raise ValueError(f"correlate needs 1-D tensors; got {name} of shape {tuple(value.shape)}")
    dtype = result_type(a.dtype, b.dtype)
    dtype = "float64" if dtype == "int64" else dtype if dtype in ("bfloat16", "float16", "float64") else FLOATX
    a, b = tf.cast(a, dtype), tf.cast(b, dtype)
    n, m = tf.shape(a)[0], tf.shape(b)[0]
    padded = tf.pad(a, [[m - 1, m - 1]])
    full = tf.nn.conv1d(tf.reshape(padded, [1, -1, 1]), tf.reshape(b, [-1, 1, 1]), stride=1, padding="VALID")
    full = tf.reshape(full, [-1])
    if mode == "full":
        return full
    longest, shortest = tf.maximum(n, m), tf.minimum(n, m)
    if mode == "same":
        return tf.slice(full, [tf.where(n >= m, (m - 1) // 2, n // 2)], [longest])  # numpy's centring
    return tf.slice(full, [shortest - 1], [longest - shortest + 1])


def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> tf.Tensor:
    """Integrate along the given axis using the composite trapezoidal rule.

    Integer and bool inputs are computed as `float32`; float inputs keep their dtype.

    Args:
        y: Input tensor of values to integrate.
        x: The sample points corresponding to the `y` values: a 1-D tensor of the length of `y` along
            `axis`, or a tensor of the shape of `y`. Defaults to `None`, which spaces the samples `dx`
            apart.
        dx: The spacing between sample points when `x` is `None`. Defaults to `1.0`.
        axis: The axis along which to integrate. Defaults to `-1`.

    Returns:
        Tensor of the definite integral, the shape of `y` without `axis`.

    Raises:
        ValueError: If `axis` is out of range for `y`.

    Example:
        >>> float(tfkit.ops.trapezoid([1.0, 2.0, 3.0]))
        4.0
        >>> float(tfkit.ops.trapezoid([1.0, 2.0, 3.0], x=[4.0, 6.0, 8.0]))
        8.0
        >>> tfkit.ops.trapezoid([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], axis=0).numpy()
        array([1.5, 2.5, 3.5], dtype=float32)
    """
    y = tensor(y)
    y = tf.cast(y, result_type(y.dtype, float))
    rank = len(y.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of bounds for y of rank {rank}")
    y = tf.experimental.numpy.moveaxis(y, axis, -1)
    if x is None:
        spacing = tf.cast(dx, y.dtype)
    else:
        x = tf.cast(tensor(x), y.dtype)
        if len(x.shape) != 1:
            x = tf.experimental.numpy.moveaxis(x, axis, -1)
        spacing = x[..., 1:] - x[..., :-1]
    return tf.reduce_sum((y[..., 1:] + y[..., :-1]) * spacing, axis=-1) / 2


def argpartition(x: Any, kth: int, axis: int | None = -1) -> tf.Tensor:
    """Performs an indirect partition along the given axis.

    It returns an array of indices of the same shape as `x` that index data along the given axis in
    partitioned order: the element at position `kth` is where a sort would put it, smaller elements come
    before it and larger ones after. tfkit returns a full stable sort (`argsort`), which is a valid
    partition for every `kth`.

    Args:
        x: Input tensor.
        kth: Element index to partition by, an int in `[-length, length)` for the length of `axis`.
        axis: Axis along which to sort. Defaults to `-1` (the last axis). If `None`, the flattened tensor
            is used.

    Returns:
        An `int32` tensor of indices that partition `x` along the specified axis.

    Raises:
        ValueError: If `kth` is not an int or is out of range, or `axis` is out of range.

    Example:
        >>> tfkit.ops.argpartition([3, 4, 2, 1], 2).numpy()
        array([3, 2, 0, 1], dtype=int32)
    """
    if not isinstance(kth, (int, np.integer)) or isinstance(kth, bool):
        raise ValueError(f"kth must be an int; got kth={kth!r}")
    x = tensor(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of bounds for a tensor of rank {rank}")
    length = x.shape[axis]
    if length is not None and not -length <= kth < length:
        raise ValueError(f"kth={kth} is out of bounds for an axis of length {length}")
    if x.dtype.is_bool:
        x = tf.cast(x, tf.int32)
    return tf.argsort(x, axis=axis, stable=True)


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), __all__)
