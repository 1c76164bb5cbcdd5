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
        raise ValueError(f"{op}: segment_ids must be a vector (rank 1), got shape {tuple(ids.shape)}; flatten data "
                         f"and segment_ids first")
    if len(data.shape) < 1 or (ids.shape[0] is not None and data.shape[0] is not None and ids.shape[0] != data.shape[0]):
        raise ValueError(f"{op}: data and segment_ids must have the same leading size, got shapes "
                         f"{tuple(data.shape)} and {tuple(ids.shape)}")
    if num_segments is None and not sorted:
        num_segments = tf.reduce_max(ids) + 1 if ids.shape[0] != 0 else 0
    return data, ids, num_segments


def _segment(sorted_op: Any, unsorted_op: Any, op: str, data: Any, segment_ids: Any, num_segments: Any,
             sorted: bool) -> tf.Tensor:  # noqa: A002
    data, ids, num_segments = _segments(data, segment_ids, num_segments, sorted, op)
    if sorted and num_segments is None:
        return sorted_op(data, ids)
    return unsorted_op(data, ids, num_segments)


def segment_sum(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    """The sum of ``data`` rows per segment id; ``num_segments`` defaults to the largest id + 1."""
    return _segment(tf.math.segment_sum, tf.math.unsorted_segment_sum, "segment_sum", data, segment_ids,
                    num_segments, sorted)


def segment_max(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    return _segment(tf.math.segment_max, tf.math.unsorted_segment_max, "segment_max", data, segment_ids,
                    num_segments, sorted)


def segment_min(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    return _segment(tf.math.segment_min, tf.math.unsorted_segment_min, "segment_min", data, segment_ids,
                    num_segments, sorted)


def segment_prod(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    return _segment(tf.math.segment_prod, tf.math.unsorted_segment_prod, "segment_prod", data, segment_ids,
                    num_segments, sorted)


def top_k(x: Any, k: int, sorted: bool = True) -> tuple[tf.Tensor, tf.Tensor]:  # noqa: A002
    """The ``k`` largest values over the last axis and their int32 indices."""
    values, indices = tf.math.top_k(tensor(x), k=k, sorted=sorted)
    return values, indices


def in_top_k(targets: Any, predictions: Any, k: int) -> tf.Tensor:
    return tf.math.in_top_k(tf.cast(tensor(targets), tf.int32), float_of(tensor(predictions)), k)


def _float(x: Any) -> tf.Tensor:
    return float_of(tensor(x))


def erf(x: Any) -> tf.Tensor:
    return tf.math.erf(_float(x))


def erfc(x: Any) -> tf.Tensor:
    return tf.math.erfc(_float(x))


def erfinv(x: Any) -> tf.Tensor:
    """The inverse error function; half precision is computed in float32 and cast back."""
    x = _float(x)
    if x.dtype in (tf.float16, tf.bfloat16):
        return tf.cast(tf.math.erfinv(tf.cast(x, tf.float32)), x.dtype)
    return tf.math.erfinv(x)


def rsqrt(x: Any) -> tf.Tensor:
    return tf.math.rsqrt(_float(x))


def logdet(x: Any) -> tf.Tensor:
    """``log(det(x))`` of Hermitian positive-definite matrices, through their Cholesky factor (NaN otherwise).

    The domain Keras documents; the Cholesky route also compiles with XLA, where a general LU does not.
    """
    x = _float(x)
    if len(x.shape) < 2 or (x.shape[-1] is not None and x.shape[-2] is not None and x.shape[-1] != x.shape[-2]):
        raise ValueError(f"logdet: x must be square matrices (..., n, n), got shape {tuple(x.shape)}")
    if x.dtype in (tf.float16, tf.bfloat16):  # no half-precision kernels
        return tf.cast(tf.linalg.logdet(tf.cast(x, tf.float32)), x.dtype)
    return tf.linalg.logdet(x)


def cdist(x: Any, y: Any) -> tf.Tensor:
    """Euclidean distances between the rows of ``x`` (..., m, d) and ``y`` (..., n, d): (..., m, n)."""
    x, y = promote(_float(x), _float(y))
    if len(x.shape) < 2 or len(y.shape) < 2:
        raise ValueError(f"cdist: x and y must have rank >= 2 (..., points, features), got shapes "
                         f"{tuple(x.shape)} and {tuple(y.shape)}")
    if x.shape[-1] is not None and y.shape[-1] is not None and x.shape[-1] != y.shape[-1]:
        raise ValueError(f"cdist: x and y must have the same last (feature) axis, got shapes {tuple(x.shape)} "
                         f"and {tuple(y.shape)}")
    difference = x[..., :, None, :] - y[..., None, :, :]
    return tf.sqrt(tf.reduce_sum(tf.square(difference), axis=-1))


def view_as_complex(x: Any) -> tf.Tensor:
    """A complex64 tensor from the last axis of ``x`` holding (real, imag) pairs."""
    x = tensor(x)
    if len(x.shape) < 1 or x.shape[-1] != 2:
        raise ValueError(f"view_as_complex: the last axis of x must have size 2 (real, imag), got shape "
                         f"{tuple(x.shape)}")
    return tf.complex(tf.cast(x[..., 0], tf.float32), tf.cast(x[..., 1], tf.float32))


def view_as_real(x: Any) -> tf.Tensor:
    """The real and imaginary parts of ``x`` stacked on a new last axis."""
    x = tensor(x)
    return tf.stack([tf.math.real(x), tf.math.imag(x)], axis=-1)


def _limits(dtype: tf.DType) -> tuple[Any, Any]:
    if dtype == tf.bool:
        return 0, 1
    return (dtype.min, dtype.max)


def saturate_cast(x: Any, dtype: Any) -> tf.Tensor:
    """``x`` cast to ``dtype`` with values first clipped to what ``dtype`` can hold (no wrap-around)."""
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


__all__ = ["segment_sum", "segment_max", "segment_min", "segment_prod", "top_k", "in_top_k", "erf", "erfc", "erfinv",
           "rsqrt", "logdet", "cdist", "view_as_complex", "view_as_real", "saturate_cast"]
export(globals(), __all__)
