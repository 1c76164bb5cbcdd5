"""The activations of ``keras.ops.nn`` that TensorFlow has no single op for: shrinks, GLU, sparsemax, polar.

    y = tfkit.ops.hard_silu(x)                  # x * relu6(x + 3) / 6
    g = tfkit.ops.glu(tfkit.ops.ones((2, 8)))   # halves the last axis: shape (2, 4)
    p = tfkit.ops.sparsemax(logits, axis=-1)    # a probability vector with exact zeros

Integer inputs are computed in float32 (Keras's TensorFlow backend rejects most of them).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export, float_of, promote, tensor


def _float(x: Any) -> tf.Tensor:
    return float_of(tensor(x))


def sparse_sigmoid(x: Any) -> tf.Tensor:
    """0 below -1, 1 above 1, the straight line ``(x + 1) / 2`` between."""
    x = _float(x)
    return tf.clip_by_value(0.5 * (x + 1.0), tf.cast(0.0, x.dtype), tf.cast(1.0, x.dtype))


def tanh_shrink(x: Any) -> tf.Tensor:
    x = _float(x)
    return x - tf.tanh(x)


def soft_shrink(x: Any, threshold: float = 0.5) -> tf.Tensor:
    """``x`` moved ``threshold`` towards zero, and zero inside ``[-threshold, threshold]``."""
    x = _float(x)
    t = tf.cast(threshold, x.dtype)
    return tf.sign(x) * tf.maximum(tf.abs(x) - t, tf.zeros_like(x))


def hard_shrink(x: Any, threshold: float = 0.5) -> tf.Tensor:
    """``x`` where ``|x| > threshold``, else zero."""
    x = _float(x)
    return tf.where(tf.abs(x) > tf.cast(threshold, x.dtype), x, tf.zeros_like(x))


def hard_tanh(x: Any) -> tf.Tensor:
    x = _float(x)
    return tf.clip_by_value(x, tf.cast(-1.0, x.dtype), tf.cast(1.0, x.dtype))


def threshold(x: Any, threshold: float, default_value: float) -> tf.Tensor:  # noqa: A002 (Keras's name)
    """``x`` where ``x > threshold``, else ``default_value``; int ``x`` stays int unless ``default_value`` is a float."""
    x, default = promote(x, default_value)
    compared = x if x.dtype.is_floating else tf.cast(x, tf.float64)  # 1 > 0.5 must not become 1 > 0
    above = compared > tf.cast(threshold, compared.dtype)
    return tf.where(above, x, tf.broadcast_to(default, tf.shape(x)))


def sparse_plus(x: Any) -> tf.Tensor:
    """0 below -1, ``(x + 1)**2 / 4`` on ``[-1, 1)``, ``x`` from 1 on: a smooth ReLU."""
    x = _float(x)
    middle = 0.25 * tf.square(x + 1.0)
    return tf.where(x <= -1.0, tf.zeros_like(x), tf.where(x < 1.0, middle, x))


def squareplus(x: Any, b: float = 4) -> tf.Tensor:
    """``(x + sqrt(x**2 + b)) / 2``."""
    x = _float(x)
    return 0.5 * (x + tf.sqrt(tf.square(x) + tf.cast(b, x.dtype)))


def log_sigmoid(x: Any) -> tf.Tensor:
    return tf.math.log_sigmoid(_float(x))


def hard_silu(x: Any) -> tf.Tensor:
    """``x * relu6(x + 3) / 6`` (also called hard swish)."""
    x = _float(x)
    return x * tf.nn.relu6(x + 3.0) / 6.0


def celu(x: Any, alpha: float = 1.0) -> tf.Tensor:
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``: an ELU that stays differentiable at 0 for any alpha."""
    x = _float(x)
    a = tf.cast(alpha, x.dtype)
    return tf.maximum(x, 0.0) + a * tf.math.expm1(tf.minimum(x, 0.0) / a)


def glu(x: Any, axis: int = -1) -> tf.Tensor:
    """The first half of ``axis`` gated by the sigmoid of the second half."""
    x = _float(x)
    if not -len(x.shape) <= axis < len(x.shape):
        raise ValueError(f"glu: axis={axis} is out of range for x of shape {tuple(x.shape)}")
    size = x.shape[axis]
    if size is not None and size % 2:
        raise ValueError(f"glu: the size of axis {axis} must be even, got x of shape {tuple(x.shape)}")
    first, second = tf.split(x, 2, axis=axis)
    return first * tf.sigmoid(second)


def sparsemax(x: Any, axis: int = -1) -> tf.Tensor:
    """The Euclidean projection of ``x`` onto the probability simplex along ``axis`` (Martins & Astudillo)."""
    x = _float(x)
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"sparsemax: axis={axis} is out of range for x of shape {tuple(x.shape)}")
    axis = axis % rank
    ordered = tf.sort(x, axis=axis, direction="DESCENDING")
    cumulative = tf.cumsum(ordered, axis=axis)
    shape = [1] * rank
    shape[axis] = -1
    k = tf.reshape(tf.range(1, tf.shape(x)[axis] + 1, dtype=x.dtype), shape)
    support = ordered * k > cumulative - 1.0
    count = tf.reduce_sum(tf.cast(support, x.dtype), axis=axis, keepdims=True)
    total = tf.reduce_sum(tf.where(support, ordered, tf.zeros_like(ordered)), axis=axis, keepdims=True)
    tau = (total - 1.0) / count
    return tf.maximum(x - tau, tf.zeros_like(x))


def polar(abs_: Any, angle: Any) -> tf.Tensor:
    """The complex number ``abs_ * (cos(angle) + i sin(angle))``; complex64 from float32 inputs."""
    magnitude, angle = promote(float_of(tensor(abs_)), float_of(tensor(angle)))
    return tf.complex(magnitude * tf.cos(angle), magnitude * tf.sin(angle))


__all__ = ["sparse_sigmoid", "tanh_shrink", "soft_shrink", "hard_shrink", "hard_tanh", "threshold", "sparse_plus",
           "squareplus", "log_sigmoid", "hard_silu", "hard_swish", "celu", "glu", "sparsemax", "polar"]
export(globals(), [name for name in __all__ if name != "hard_swish"])
hard_swish = hard_silu  # the same function, as in Keras (records as tfkit.ops.hard_silu)
