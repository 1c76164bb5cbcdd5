"""Normalizations of ``keras.ops.nn`` as plain functions: layer norm, RMS norm, Lp normalize, and PSNR.

    y = tfkit.ops.layer_normalization(x, gamma, beta, axis=-1)
    y = tfkit.ops.rms_normalization(x, scale, axis=-1, epsilon=1e-6)
    u = tfkit.ops.normalize(x, axis=-1, order=2)          # unit L2 rows

Half-precision inputs are normalized in float32 and cast back, as in Keras.
"""

from __future__ import annotations

import warnings
from typing import Any

import tensorflow as tf

from tfkit.base import settings as backend
from tfkit.ops._convert import export, float_of, promote, tensor


def _axes(axis: Any, rank: int, op: str) -> list[int]:
    axes = [axis] if isinstance(axis, int) else list(axis)
    if not axes or not all(isinstance(a, int) and -rank <= a < rank for a in axes):
        raise ValueError(f"{op}: axis={axis!r} is out of range for an input of rank {rank}")
    return sorted(a % rank for a in axes)


def _compute_dtype(x: tf.Tensor) -> tf.DType:
    return tf.float64 if x.dtype == tf.float64 else tf.float32


def _broadcastable(value: Any, x: tf.Tensor, axes: list[int], name: str, op: str) -> tf.Tensor | None:
    """``value`` shaped to broadcast against ``x``: a vector over ``axes`` is reshaped to sit on those axes."""
    if value is None:
        return None
    value = tf.cast(tensor(value), x.dtype)
    rank = len(x.shape)
    if len(value.shape) == rank or axes == [rank - 1]:
        return value
    shape = [1] * rank
    for a in axes:
        if x.shape[a] is None:
            raise ValueError(f"{op}: axis {a} of x needs a static size to place {name} of shape {tuple(value.shape)}")
        shape[a] = x.shape[a]
    return tf.reshape(value, shape)


def layer_normalization(
    x: Any, gamma: Any = None, beta: Any = None, axis: Any = -1, epsilon: float | None = None, **kwargs: Any
) -> tf.Tensor:
    """Layer normalization layer (Ba et al., 2016).

    Normalize the activations of the previous layer for each given example in a
    batch independently, rather than across a batch like Batch Normalization.
    i.e. applies a transformation that maintains the mean activation within each
    example close to 0 and the activation standard deviation close to 1:
    `(x - mean) / sqrt(variance + epsilon) * gamma + beta` over `axis`.
    It is computed in float32 (float64 for float64 input) and the result has
    the dtype of `x`.

    Args:
        x: Input tensor.
        gamma: Optional scaling factor for the normalization: a tensor with the
            full rank of `x`, or a vector over the normalized axes. Defaults to
            `None`.
        beta: Optional add offset for the normalized tensor, shaped like
            `gamma`. Defaults to `None`.
        axis: The axis or axes along which to perform normalization. Defaults
            to `-1`.
        epsilon: A small value added to the variance to avoid dividing by
            zero. Defaults to `tfkit.backend.epsilon()` (`None`).
        **kwargs: Only the deprecated `rms_scaling` (a bool, default `False`) is
            accepted: it scales by the inverse standard deviation without
            centering, and warns; use `rms_normalization` instead.

    Returns:
        The normalized array.

    Raises:
        TypeError: If `**kwargs` holds a keyword other than `rms_scaling`.
        ValueError: If an axis is out of range, or if a normalized axis has no
            static size while `gamma` or `beta` must be reshaped onto it.

    Example:
        >>> x = tfkit.ops.arange(5, dtype="float32")
        >>> np.round(tfkit.ops.layer_normalization(x).numpy(), 4)
        array([-1.4142, -0.7071,  0.    ,  0.7071,  1.4142], dtype=float32)
    """
    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"layer_normalization got unexpected keyword arguments {sorted(kwargs)}")
    if rms_scaling:
        warnings.warn(
            "layer_normalization(rms_scaling=True) is deprecated (it scales by the variance, not the "
            "root mean square); use tfkit.ops.rms_normalization instead",
            stacklevel=2,
        )
    x = tensor(x)
    original = x.dtype
    x = tf.cast(x, _compute_dtype(x))
    epsilon = backend.epsilon() if epsilon is None else epsilon
    axes = _axes(axis, len(x.shape), "layer_normalization")
    gamma = _broadcastable(gamma, x, axes, "gamma", "layer_normalization")
    beta = _broadcastable(beta, x, axes, "beta", "layer_normalization")
    mean, variance = tf.nn.moments(x, axes, keepdims=True)
    inverse = tf.math.rsqrt(variance + tf.cast(epsilon, x.dtype))
    if rms_scaling:
        outputs = x * inverse if gamma is None else x * inverse * gamma
    else:
        outputs = (x - mean) * inverse
        outputs = outputs if gamma is None else outputs * gamma
        outputs = outputs if beta is None else outputs + beta
    return tf.cast(outputs, original)


def rms_normalization(x: Any, scale: Any = None, axis: Any = -1, epsilon: float | None = None) -> tf.Tensor:
    """Performs Root Mean Square (RMS) normalization on `x`.

    The operation is described in
    `Root Mean Square Layer Normalization <https://arxiv.org/pdf/1910.07467>`_
    by Biao Zhang et al. It is different from layer normalization with RMS
    scaling.

    It is defined as
    `rms_normalization(x) = x * rsqrt(mean(square(x)) + epsilon) * scale`. It
    is computed in float32 (float64 for float64 input) and the result has the
    dtype of `x`; a scalar `x` is treated as a vector of one element.

    Args:
        x: Input tensor.
        scale: Optional scaling factor for the normalization, broadcast
            against `x`. Defaults to `None`.
        axis: The axis or axes along which to perform normalization. Defaults
            to `-1`.
        epsilon: A small value added to the mean square to avoid dividing by
            zero. Defaults to `tfkit.backend.epsilon()` (`None`).

    Returns:
        The normalized array.

    Raises:
        ValueError: If an axis is out of range.

    Example:
        >>> x = np.array([[1.0, 2.0, 3.0], [4.0, 4.0, 4.0]])
        >>> np.round(tfkit.ops.rms_normalization(x).numpy(), 4)
        array([[0.4629, 0.9258, 1.3887],
               [1.    , 1.    , 1.    ]], dtype=float32)
    """
    x = tensor(x)
    original = x.dtype
    x = tf.cast(x, _compute_dtype(x))
    if len(x.shape) == 0:
        x = x[None]
    epsilon = backend.epsilon() if epsilon is None else epsilon
    axes = _axes(axis, len(x.shape), "rms_normalization")
    outputs = x * tf.math.rsqrt(tf.reduce_mean(tf.square(x), axis=axes, keepdims=True) + tf.cast(epsilon, x.dtype))
    if scale is not None:
        outputs = outputs * tf.cast(tensor(scale), x.dtype)
    return tf.cast(outputs, original)


def normalize(x: Any, axis: Any = -1, order: int = 2, epsilon: float | None = None) -> tf.Tensor:
    """Normalizes `x` over the specified axis.

    It is defined as: `normalize(x) = x / max(norm(x), epsilon)`, with the
    `order`-norm over `axis`. Integer inputs are computed in float32; a scalar
    `x` is treated as a vector of one element.

    Args:
        x: Input tensor.
        axis: The axis or axes along which to perform normalization.
            Defaults to `-1`.
        order: The exponent value in the norm formulation, an int `>= 1`.
            Defaults to `2`.
        epsilon: A lower bound value for the norm.
            Defaults to `tfkit.backend.epsilon()` (`None`).

    Returns:
        The normalized array.

    Raises:
        ValueError: If `order` is not an int `>= 1`.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[3.0, 4.0], [0.0, 0.0]])
        >>> tfkit.ops.normalize(x).numpy()
        array([[0.6, 0.8],
               [0. , 0. ]], dtype=float32)
        >>> tfkit.ops.normalize(tfkit.ops.convert_to_tensor([[3.0, 1.0]]), order=1).numpy()
        array([[0.75, 0.25]], dtype=float32)
    """
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise ValueError(f"normalize: order must be an int >= 1, got {order!r}")
    x = float_of(tensor(x))
    if len(x.shape) == 0:
        x = x[None]
    epsilon = backend.epsilon() if epsilon is None else epsilon
    if order == 2:
        inverse = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
        return x * tf.minimum(inverse, tf.cast(1.0 / epsilon, x.dtype))
    norm = tf.pow(tf.reduce_sum(tf.pow(tf.abs(x), order), axis=axis, keepdims=True), 1.0 / order)
    return x / tf.maximum(norm, tf.cast(epsilon, x.dtype))


def psnr(x1: Any, x2: Any, max_val: Any) -> tf.Tensor:
    """Peak Signal-to-Noise Ratio (PSNR) function.

    This function computes the Peak Signal-to-Noise Ratio between two signals,
    `x1` and `x2`: `20 * log10(max_val) - 10 * log10(mean((x1 - x2) ** 2))`,
    over all elements (the batch included). PSNR is a measure of the quality of
    a reconstructed signal. The higher the PSNR, the closer the reconstructed
    signal is to the original signal. Note that it can become negative when the
    signal power is smaller that the noise power.

    Args:
        x1: The first input signal.
        x2: The second input signal. Must have the same shape as `x1`.
        max_val: The maximum possible value in the signals.

    Returns:
        A scalar tensor: the PSNR value between `x1` and `x2`, in decibels.

    Raises:
        ValueError: If `x1` and `x2` have different shapes.

    Example:
        >>> x1 = np.array([0.0, 0.5, 1.0])
        >>> x2 = np.array([0.0, 0.5, 0.9])
        >>> np.round(tfkit.ops.psnr(x1, x2, max_val=1.0).numpy(), 4)
        np.float32(24.7712)
    """
    x1, x2 = promote(float_of(tensor(x1)), float_of(tensor(x2)))
    if x1.shape.rank != x2.shape.rank or not x1.shape.is_compatible_with(x2.shape):
        raise ValueError(f"psnr: x1 and x2 must have the same shape, got {tuple(x1.shape)} and {tuple(x2.shape)}")
    max_val = tf.cast(tensor(max_val), x1.dtype)
    ten = tf.cast(10.0, x1.dtype)
    mse = tf.reduce_mean(tf.square(x1 - x2))
    return 20.0 * tf.math.log(max_val) / tf.math.log(ten) - 10.0 * tf.math.log(mse) / tf.math.log(ten)


__all__ = ["layer_normalization", "rms_normalization", "normalize", "psnr"]
export(globals(), __all__)
