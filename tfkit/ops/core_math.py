"""The math family of ``keras.ops``: segment reductions, top-k, error functions, distances, complex views, casts.

    sums = tfkit.ops.segment_sum(data, segment_ids, num_segments=3)
    values, indices = tfkit.ops.top_k(scores, k=5)
    d = tfkit.ops.cdist(a, b)                          # (..., m, d), (..., n, d) -> (..., m, n)

Integer inputs of float functions (erf, erfinv, rsqrt ...) are computed in float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, float_of, promote, tensor


def _segments(data: Any, segment_ids: Any, num_segments: Any, sorted: bool, op: str) -> tuple:  # noqa: A002
    data, ids = tensor(data), tensor(segment_ids)
    if not ids.dtype.is_integer:
        raise ValueError(f"{op}: segment_ids must be integers, got dtype {ids.dtype.name}")
    if len(ids.shape) != 1:
        raise ValueError(
            f"{op}: segment_ids must be a vector (rank 1), got shape {tuple(ids.shape)}; flatten data "
            f"and segment_ids first"
        )
    if len(data.shape) < 1 or (
        ids.shape[0] is not None and data.shape[0] is not None and ids.shape[0] != data.shape[0]
    ):
        raise ValueError(
            f"{op}: data and segment_ids must have the same leading size, got shapes "
            f"{tuple(data.shape)} and {tuple(ids.shape)}"
        )
    if num_segments is None and not sorted:
        num_segments = tf.reduce_max(ids) + 1 if ids.shape[0] != 0 else 0
    return data, ids, num_segments


def _segment(
    sorted_op: Any, unsorted_op: Any, op: str, data: Any, segment_ids: Any, num_segments: Any, sorted: bool
) -> tf.Tensor:  # noqa: A002
    data, ids, num_segments = _segments(data, segment_ids, num_segments, sorted, op)
    if sorted and num_segments is None:
        return sorted_op(data, ids)
    return unsorted_op(data, ids, num_segments)


def segment_sum(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    """Computes the sum of segments in a tensor.

    Row `i` of the result is the sum of the rows `data[j]` whose
    `segment_ids[j] == i`.

    Args:
        data: Input tensor; its first axis is segmented.
        segment_ids: A 1-D integer tensor of segment indices, one per row of
            `data` (its length must match the first axis of `data`).
        num_segments: An integer representing the total number of segments.
            If not specified (`None`, the default), it is inferred from the
            maximum value in `segment_ids` (largest id + 1).
        sorted: A boolean indicating whether `segment_ids` is sorted
            (non-decreasing), which allows a faster kernel. Defaults to `False`.

    Returns:
        A tensor of shape `(num_segments,) + data.shape[1:]` and the dtype of
        `data`: the sum of each segment (0 for an empty segment).

    Raises:
        ValueError: If `segment_ids` is not an integer vector, or if its length
            differs from the first axis of `data`.

    Example:
        >>> data = tfkit.ops.array([1.0, 2.0, 3.0, 4.0])
        >>> segment_ids = tfkit.ops.array([0, 0, 1, 1])
        >>> tfkit.ops.segment_sum(data, segment_ids).numpy()
        array([3., 7.], dtype=float32)
        >>> tfkit.ops.segment_sum(data, segment_ids, num_segments=3).numpy()
        array([3., 7., 0.], dtype=float32)
    """
    return _segment(
        tf.math.segment_sum, tf.math.unsorted_segment_sum, "segment_sum", data, segment_ids, num_segments, sorted
    )


def segment_max(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    """Computes the maximum of segments in a tensor.

    Row `i` of the result is the maximum of the rows `data[j]` whose
    `segment_ids[j] == i`.

    Args:
        data: Input tensor; its first axis is segmented.
        segment_ids: A 1-D integer tensor of segment indices, one per row of
            `data` (its length must match the first axis of `data`).
        num_segments: An integer representing the total number of segments.
            If not specified (`None`, the default), it is inferred from the
            maximum value in `segment_ids` (largest id + 1).
        sorted: A boolean indicating whether `segment_ids` is sorted
            (non-decreasing), which allows a faster kernel. Defaults to `False`.

    Returns:
        A tensor of shape `(num_segments,) + data.shape[1:]` and the dtype of
        `data`: the maximum of each segment; an empty segment holds the lowest value of the dtype.

    Raises:
        ValueError: If `segment_ids` is not an integer vector, or if its length
            differs from the first axis of `data`.

    Example:
        >>> data = tfkit.ops.array([1.0, 2.0, 3.0, 4.0])
        >>> segment_ids = tfkit.ops.array([0, 0, 1, 1])
        >>> tfkit.ops.segment_max(data, segment_ids).numpy()
        array([2., 4.], dtype=float32)
        >>> tfkit.ops.segment_max(data, segment_ids, num_segments=3).numpy()
        array([ 2.0000000e+00,  4.0000000e+00, -3.4028235e+38], dtype=float32)
    """
    return _segment(
        tf.math.segment_max, tf.math.unsorted_segment_max, "segment_max", data, segment_ids, num_segments, sorted
    )


def segment_min(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    """Computes the minimum of segments in a tensor.

    Row `i` of the result is the minimum of the rows `data[j]` whose
    `segment_ids[j] == i`.

    Args:
        data: Input tensor; its first axis is segmented.
        segment_ids: A 1-D integer tensor of segment indices, one per row of
            `data` (its length must match the first axis of `data`).
        num_segments: An integer representing the total number of segments.
            If not specified (`None`, the default), it is inferred from the
            maximum value in `segment_ids` (largest id + 1).
        sorted: A boolean indicating whether `segment_ids` is sorted
            (non-decreasing), which allows a faster kernel. Defaults to `False`.

    Returns:
        A tensor of shape `(num_segments,) + data.shape[1:]` and the dtype of
        `data`: the minimum of each segment; an empty segment holds the highest value of the dtype.

    Raises:
        ValueError: If `segment_ids` is not an integer vector, or if its length
            differs from the first axis of `data`.

    Example:
        >>> data = tfkit.ops.array([1.0, 2.0, 3.0, 4.0])
        >>> segment_ids = tfkit.ops.array([0, 0, 1, 1])
        >>> tfkit.ops.segment_min(data, segment_ids).numpy()
        array([1., 3.], dtype=float32)
        >>> tfkit.ops.segment_min(data, segment_ids, num_segments=3).numpy()
        array([1.0000000e+00, 3.0000000e+00, 3.4028235e+38], dtype=float32)
    """
    return _segment(
        tf.math.segment_min, tf.math.unsorted_segment_min, "segment_min", data, segment_ids, num_segments, sorted
    )


def segment_prod(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    """Computes the product of segments in a tensor.

    Row `i` of the result is the product of the rows `data[j]` whose
    `segment_ids[j] == i`.

    Args:
        data: Input tensor; its first axis is segmented.
        segment_ids: A 1-D integer tensor of segment indices, one per row of
            `data` (its length must match the first axis of `data`).
        num_segments: An integer representing the total number of segments.
            If not specified (`None`, the default), it is inferred from the
            maximum value in `segment_ids` (largest id + 1).
        sorted: A boolean indicating whether `segment_ids` is sorted
            (non-decreasing), which allows a faster kernel. Defaults to `False`.

    Returns:
        A tensor of shape `(num_segments,) + data.shape[1:]` and the dtype of
        `data`: the product of each segment (1 for an empty segment).

    Raises:
        ValueError: If `segment_ids` is not an integer vector, or if its length
            differs from the first axis of `data`.

    Example:
        >>> data = tfkit.ops.array([1.0, 2.0, 3.0, 4.0])
        >>> segment_ids = tfkit.ops.array([0, 0, 1, 1])
        >>> tfkit.ops.segment_prod(data, segment_ids).numpy()
        array([ 2., 12.], dtype=float32)
        >>> tfkit.ops.segment_prod(data, segment_ids, num_segments=3).numpy()
        array([ 2., 12.,  1.], dtype=float32)
    """
    return _segment(
        tf.math.segment_prod, tf.math.unsorted_segment_prod, "segment_prod", data, segment_ids, num_segments, sorted
    )


def top_k(x: Any, k: int, sorted: bool = True) -> tuple[tf.Tensor, tf.Tensor]:  # noqa: A002
    """Finds the top-k values and their indices in a tensor.

    The search runs over the last axis of `x`.

    Args:
        x: Input tensor.
        k: An integer representing the number of top elements to retrieve.
        sorted: A boolean indicating whether to sort the output in
            descending order. Defaults to `True`.

    Returns:
        A tuple containing two tensors. The first tensor contains the
        top-k values, and the second tensor contains the (int32) indices of
        the top-k values in the input tensor.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([5, 2, 7, 1, 9, 3])
        >>> values, indices = tfkit.ops.top_k(x, k=3)
        >>> values.numpy()
        array([9, 7, 5], dtype=int32)
        >>> indices.numpy()
        array([4, 2, 0], dtype=int32)
    """
    values, indices = tf.math.top_k(tensor(x), k=k, sorted=sorted)
    return values, indices


def in_top_k(targets: Any, predictions: Any, k: int) -> tf.Tensor:
    """Checks if the targets are in the top-k predictions.

    Args:
        targets: A tensor of true labels (integer class ids), shape `(batch,)`.
        predictions: A tensor of predicted scores, shape
            `(batch, num_classes)`; integer scores are read as float32.
        k: An integer representing the number of predictions to consider.

    Returns:
        A boolean tensor of the same shape as `targets`, where each element
        indicates whether the corresponding target is in the top-k predictions.

    Example:
        >>> targets = tfkit.ops.convert_to_tensor([2, 5, 3])
        >>> predictions = tfkit.ops.convert_to_tensor(
        ...     [[0.1, 0.4, 0.6, 0.9, 0.5],
        ...      [0.1, 0.7, 0.9, 0.8, 0.3],
        ...      [0.1, 0.6, 0.9, 0.9, 0.5]])
        >>> tfkit.ops.in_top_k(targets, predictions, k=3).numpy()
        array([ True, False,  True])
    """
    return tf.math.in_top_k(tf.cast(tensor(targets), tf.int32), float_of(tensor(predictions)), k)


def _float(x: Any) -> tf.Tensor:
    return float_of(tensor(x))


def erf(x: Any) -> tf.Tensor:
    """Computes the error function of `x`, element-wise.

    Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float dtype).

    Example:
        >>> x = np.array([-3.0, -2.0, -1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.erf(x).numpy(), 4)
        array([-1.    , -0.9953, -0.8427,  0.    ,  0.8427], dtype=float32)
    """
    return tf.math.erf(_float(x))


def erfc(x: Any) -> tf.Tensor:
    """Computes the complementary error function of `x`, element-wise.

    `erfc(x) = 1 - erf(x)`, computed without the cancellation error of the
    subtraction for large `x`. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float dtype).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.erfc(x).numpy(), 4)
        array([1.8427, 1.    , 0.1573], dtype=float32)
    """
    return tf.math.erfc(_float(x))


def erfinv(x: Any) -> tf.Tensor:
    """Computes the inverse error function of `x`, element-wise.

    Integer inputs are computed in float32; float16 and bfloat16 inputs are
    computed in float32 and cast back.

    Args:
        x: Input tensor, with values in `[-1, 1]` (`-1` and `1` give `-inf` and
            `inf`; values outside give NaN).

    Returns:
        A tensor with the same dtype as `x` (float32 for integer inputs).

    Example:
        >>> x = np.array([-0.5, 0.0, 0.5])
        >>> np.round(tfkit.ops.erfinv(x).numpy(), 4)
        array([-0.4769,  0.    ,  0.4769], dtype=float32)
    """
    x = _float(x)
    if x.dtype in (tf.float16, tf.bfloat16):
        return tf.cast(tf.math.erfinv(tf.cast(x, tf.float32)), x.dtype)
    return tf.math.erfinv(x)


def rsqrt(x: Any) -> tf.Tensor:
    """Computes reciprocal of square-root of `x` element-wise.

    Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same dtype as `x` (float32 for integer inputs):
        `1 / sqrt(x)`.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([1.0, 10.0, 100.0])
        >>> np.round(tfkit.ops.rsqrt(x).numpy(), 4)
        array([1.    , 0.3162, 0.1   ], dtype=float32)
    """
    return tf.math.rsqrt(_float(x))


def logdet(x: Any) -> tf.Tensor:
    """Computes log of the determinant of a hermitian positive definite matrix.

    It is computed through the Cholesky factor of `x`, which also compiles with
    XLA (a general LU does not); a matrix that is not positive definite gives
    NaN. float16 and bfloat16 inputs are computed in float32 and cast back;
    integer inputs are read as float32.

    Args:
        x: Input matrix, or a batch of matrices, of shape `(..., n, n)`. It must
            be 2D and square.

    Returns:
        The natural log of the determinant of each matrix, of shape `(...)`.

    Raises:
        ValueError: If `x` is not a (batch of) square matrices.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[2.0, 0.0], [0.0, 3.0]])
        >>> np.round(tfkit.ops.logdet(x).numpy(), 4)
        np.float32(1.7918)
    """
    x = _float(x)
    if len(x.shape) < 2 or (x.shape[-1] is not None and x.shape[-2] is not None and x.shape[-1] != x.shape[-2]):
        raise ValueError(f"logdet: x must be square matrices (..., n, n), got shape {tuple(x.shape)}")
    if x.dtype in (tf.float16, tf.bfloat16):  # no half-precision kernels
        return tf.cast(tf.linalg.logdet(tf.cast(x, tf.float32)), x.dtype)
    return tf.linalg.logdet(x)


def cdist(x: Any, y: Any) -> tf.Tensor:
    """Compute the Euclidean distances between two sets of points.

    Given `x` of shape `(..., m, d)` and `y` of shape `(..., n, d)`, entry
    `[..., i, j]` of the result is the distance between `x[..., i, :]` and
    `y[..., j, :]`. Integer inputs are read as float32.

    Args:
        x: First set of points, of shape `(..., m, d)`.
        y: Second set of points, of shape `(..., n, d)`.

    Returns:
        A tensor of shape `(..., m, n)` holding the pairwise distances.

    Raises:
        ValueError: If `x` or `y` has rank below 2, or if their last (feature)
            axes differ.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[0.0, 0.0], [3.0, 4.0]])
        >>> y = tfkit.ops.convert_to_tensor([[0.0, 0.0], [0.0, 4.0], [3.0, 0.0]])
        >>> tfkit.ops.cdist(x, y).numpy()
        array([[0., 4., 3.],
               [5., 3., 4.]], dtype=float32)
    """
    x, y = promote(_float(x), _float(y))
    if len(x.shape) < 2 or len(y.shape) < 2:
        raise ValueError(
            f"cdist: x and y must have rank >= 2 (..., points, features), got shapes "
            f"{tuple(x.shape)} and {tuple(y.shape)}"
        )
    if x.shape[-1] is not None and y.shape[-1] is not None and x.shape[-1] != y.shape[-1]:
        raise ValueError(
            f"cdist: x and y must have the same last (feature) axis, got shapes {tuple(x.shape)} and {tuple(y.shape)}"
        )
    difference = x[..., :, None, :] - y[..., None, :, :]
    return tf.sqrt(tf.reduce_sum(tf.square(difference), axis=-1))


def view_as_complex(x: Any) -> tf.Tensor:
    """Converts a real tensor with shape `(..., 2)` to a complex tensor.

    The last axis holds the `(real, imaginary)` pair of each element; both parts
    are cast to float32, so the result is complex64.

    Args:
        x: A real tensor with last dimension of size 2.

    Returns:
        A complex64 tensor with shape `x.shape[:-1]`.

    Raises:
        ValueError: If the last axis of `x` does not have size 2.

    Example:
        >>> real_imag = tfkit.ops.array([[1.0, 2.0], [3.0, 4.0]])
        >>> tfkit.ops.view_as_complex(real_imag).numpy()
        array([1.+2.j, 3.+4.j], dtype=complex64)
    """
    x = tensor(x)
    if len(x.shape) < 1 or x.shape[-1] != 2:
        raise ValueError(
            f"view_as_complex: the last axis of x must have size 2 (real, imag), got shape {tuple(x.shape)}"
        )
    return tf.complex(tf.cast(x[..., 0], tf.float32), tf.cast(x[..., 1], tf.float32))


def view_as_real(x: Any) -> tf.Tensor:
    """Converts a complex tensor to a real tensor with shape `(..., 2)`.

    The real and imaginary parts are stacked along a new last axis.

    Args:
        x: A complex tensor.

    Returns:
        A real tensor of shape `x.shape + (2,)`, of the real dtype matching
        `x`'s (float32 for complex64).

    Example:
        >>> complex_tensor = tfkit.ops.view_as_complex(tfkit.ops.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> tfkit.ops.view_as_real(complex_tensor).numpy()
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """
    x = tensor(x)
    return tf.stack([tf.math.real(x), tf.math.imag(x)], axis=-1)


def _limits(dtype: tf.DType) -> tuple[Any, Any]:
    if dtype == tf.bool:
        return 0, 1
    return (dtype.min, dtype.max)


def saturate_cast(x: Any, dtype: Any) -> tf.Tensor:
    """Performs a safe saturating cast to the desired dtype.

    Saturating cast prevents data type overflow when casting to `dtype` with
    smaller values range. E.g.
    `ops.cast(ops.cast([-1, 256], "float32"), "uint8")` returns `[255, 0]`,
    but `ops.saturate_cast(ops.cast([-1, 256], "float32"), "uint8")` returns
    `[0, 255]`: values are first clipped to the range `dtype` can hold.

    Args:
        x: A tensor or variable.
        dtype: The target type.

    Returns:
        A safely casted tensor of the specified `dtype`.

    Example:
        >>> x = tfkit.ops.array([-1.0, 5.5, 300.0])
        >>> tfkit.ops.saturate_cast(x, "uint8").numpy()
        array([  0,   5, 255], dtype=uint8)
    """
    x = tensor(x)
    target = tf.as_dtype(dtype)
    if x.dtype == tf.bool:
        return tf.cast(x, target)
    source = x.dtype.as_numpy_dtype
    in_low, in_high = _limits(x.dtype)
    out_low, out_high = _limits(target)
    low = np.asarray(max(in_low, out_low)).astype(source)
    high = np.asarray(min(in_high, out_high)).astype(source)
    # a bound that rounded past the target's range in the source dtype (float32(2**31 - 1) == 2**31) steps back;
    # .item() compares exactly, as Python numbers
    if low.item() < out_low:
        low = np.nextafter(low, np.zeros((), source))
    if high.item() > out_high:
        high = np.nextafter(high, np.zeros((), source))
    clipped = tf.clip_by_value(x, tf.constant(low, x.dtype), tf.constant(high, x.dtype))
    return tf.cast(clipped, target)


__all__ = [
    "segment_sum",
    "segment_max",
    "segment_min",
    "segment_prod",
    "top_k",
    "in_top_k",
    "erf",
    "erfc",
    "erfinv",
    "rsqrt",
    "logdet",
    "cdist",
    "view_as_complex",
    "view_as_real",
    "saturate_cast",
]
export(globals(), __all__)
