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


def layer_normalization(x: Any, gamma: Any = None, beta: Any = None, axis: Any = -1, epsilon: float | None = None,
                        **kwargs: Any) -> tf.Tensor:
    """``(x - mean) / sqrt(variance + epsilon) * gamma + beta`` over ``axis``; the result has ``x``'s dtype."""
    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"layer_normalization got unexpected keyword arguments {sorted(kwargs)}")
    if rms_scaling:
        warnings.warn("layer_normalization(rms_scaling=True) is deprecated (it scales by the variance, not the "
                      "root mean square); use tfkit.ops.rms_normalization instead", stacklevel=2)
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
    """``x / sqrt(mean(x**2) + epsilon) * scale`` over ``axis``; the result has ``x``'s dtype."""
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
    """``x`` divided by its ``order``-norm over ``axis`` (at least ``epsilon``)."""
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
    """Peak signal-to-noise ratio in dB: ``20 log10(max_val) - 10 log10(mean((x1 - x2)**2))``."""
    x1, x2 = promote(float_of(tensor(x1)), float_of(tensor(x2)))
    if x1.shape.rank != x2.shape.rank or not x1.shape.is_compatible_with(x2.shape):
        raise ValueError(f"psnr: x1 and x2 must have the same shape, got {tuple(x1.shape)} and {tuple(x2.shape)}")
    max_val = tf.cast(tensor(max_val), x1.dtype)
    ten = tf.cast(10.0, x1.dtype)
    mse = tf.reduce_mean(tf.square(x1 - x2))
    return 20.0 * tf.math.log(max_val) / tf.math.log(ten) - 10.0 * tf.math.log(mse) / tf.math.log(ten)


__all__ = ["layer_normalization", "rms_normalization", "normalize", "psnr"]
export(globals(), __all__)
