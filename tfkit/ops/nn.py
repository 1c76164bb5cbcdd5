"""Keras 3's ``keras.ops.nn`` on TensorFlow: every name of it, the common activations and losses defined here.

    probs = tfkit.ops.softmax(logits, axis=-1)
    loss = tfkit.ops.sparse_categorical_crossentropy(labels, logits, from_logits=True)
    y = tfkit.ops.nn.conv(images, kernel, strides=1, padding="same")

The other families live beside this file and are re-exported here: ``nn_activations``
(shrinks, GLU, sparsemax ...), ``nn_conv``, ``nn_pool``, ``nn_patches`` (depth/space,
unfold/fold), ``nn_norm``, ``nn_attention`` and ``nn_ctc``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations
from tfkit.ops import (
    nn_activations,
    nn_attention,
    nn_conv,
    nn_ctc,
    nn_norm,
    nn_patches,
    nn_pool,
)
from tfkit.ops._convert import export, float_of, tensor
from tfkit.ops.nn_activations import *  # noqa: F401,F403
from tfkit.ops.nn_attention import *  # noqa: F401,F403
from tfkit.ops.nn_conv import *  # noqa: F401,F403
from tfkit.ops.nn_ctc import *  # noqa: F401,F403
from tfkit.ops.nn_norm import *  # noqa: F401,F403
from tfkit.ops.nn_patches import *  # noqa: F401,F403
from tfkit.ops.nn_pool import *  # noqa: F401,F403


def relu(x: Any) -> tf.Tensor:
    return tf.nn.relu(tensor(x))


def relu6(x: Any) -> tf.Tensor:
    return tf.nn.relu6(tensor(x))


def sigmoid(x: Any) -> tf.Tensor:
    return tf.sigmoid(float_of(tensor(x)))


def _over_axes(function: Any, x: Any, axis: Any) -> tf.Tensor:
    """``function`` (a softmax) over one axis, all axes (``None``) or several (a tuple) of ``x``."""
    x = float_of(tensor(x))
    if isinstance(axis, int):
        return function(x, axis=axis)
    rank = len(x.shape)
    axes = list(range(rank)) if axis is None else sorted(a % rank for a in axis)
    kept = [a for a in range(rank) if a not in axes]
    moved = tf.transpose(x, kept + axes)
    shape = tf.shape(moved)
    flat = tf.reshape(moved, tf.concat([shape[:len(kept)], [-1]], 0))
    out = tf.reshape(function(flat, axis=-1), shape)
    return tf.transpose(out, tf.math.invert_permutation(kept + axes))


def softmax(x: Any, axis: Any = -1) -> tf.Tensor:
    return _over_axes(tf.nn.softmax, x, axis)


def log_softmax(x: Any, axis: Any = -1) -> tf.Tensor:
    return _over_axes(tf.nn.log_softmax, x, axis)


def softplus(x: Any) -> tf.Tensor:
    return tf.nn.softplus(float_of(tensor(x)))


def softsign(x: Any) -> tf.Tensor:
    return tf.nn.softsign(float_of(tensor(x)))


def silu(x: Any) -> tf.Tensor:
    return tf.nn.silu(float_of(tensor(x)))


def swish(x: Any) -> tf.Tensor:
    return tf.nn.silu(float_of(tensor(x)))


def gelu(x: Any, approximate: bool = True) -> tf.Tensor:
    return tf.nn.gelu(float_of(tensor(x)), approximate=approximate)


def elu(x: Any, alpha: float = 1.0) -> tf.Tensor:
    return activations.elu(float_of(tensor(x)), alpha=alpha)


def selu(x: Any) -> tf.Tensor:
    return tf.nn.selu(float_of(tensor(x)))


def leaky_relu(x: Any, negative_slope: float = 0.2) -> tf.Tensor:
    return tf.nn.leaky_relu(float_of(tensor(x)), alpha=negative_slope)


def hard_sigmoid(x: Any) -> tf.Tensor:
    return activations.hard_sigmoid(float_of(tensor(x)))


def one_hot(x: Any, num_classes: int, axis: int = -1, dtype: Any = None, sparse: bool = False) -> tf.Tensor:
    if sparse:
        raise ValueError("tfkit.ops.one_hot: sparse=True is not supported (tfkit works with dense tensors)")
    dtype = tf.as_dtype(dtype or "float32")
    on_off = (True, False) if dtype == tf.bool else (None, None)
    return tf.one_hot(tf.cast(tensor(x), tf.int64), num_classes, on_off[0], on_off[1], axis=axis, dtype=dtype)


def multi_hot(inputs: Any, num_classes: int | None = None, axis: int = -1, dtype: Any = None, sparse: bool = False,
              **kwargs: Any) -> tf.Tensor:
    """Which of ``num_classes`` classes occur in each row: ``one_hot`` reduced over axis 1 (0 for a vector)."""
    if num_classes is None:
        num_classes = kwargs.pop("num_tokens", None)
    if kwargs:
        raise TypeError(f"multi_hot got unexpected keyword arguments {sorted(kwargs)}")
    if num_classes is None:
        raise ValueError("multi_hot: the argument num_classes must be given")
    inputs = tensor(inputs)
    hot = one_hot(inputs, num_classes, axis=axis, dtype=dtype, sparse=sparse)
    reduce = tf.reduce_any if hot.dtype == tf.bool else tf.reduce_max
    return reduce(hot, axis=1 if len(inputs.shape) > 1 else 0)


def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> tf.Tensor:
    target, output = float_of(tensor(target)), float_of(tensor(output))
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.cast(target, output.dtype), logits=output)
    epsilon = tf.cast(1e-7, output.dtype)
    output = tf.clip_by_value(output, epsilon, 1 - epsilon)
    target = tf.cast(target, output.dtype)
    return -(target * tf.math.log(output) + (1 - target) * tf.math.log(1 - output))


def categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> tf.Tensor:
    target, output = float_of(tensor(target)), float_of(tensor(output))
    target = tf.cast(target, output.dtype)
    if from_logits:
        return -tf.reduce_sum(target * tf.nn.log_softmax(output, axis=axis), axis=axis)
    output = output / tf.reduce_sum(output, axis=axis, keepdims=True)
    epsilon = tf.cast(1e-7, output.dtype)
    return -tf.reduce_sum(target * tf.math.log(tf.clip_by_value(output, epsilon, 1 - epsilon)), axis=axis)


def sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> tf.Tensor:
    output = float_of(tensor(output))
    target = tf.cast(tensor(target), tf.int32)
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = tf.squeeze(target, -1)
    depth = output.shape[axis]
    return categorical_crossentropy(tf.one_hot(target, depth, axis=axis, dtype=output.dtype), output,
                                    from_logits=from_logits, axis=axis)


def moments(x: Any, axes: Any, keepdims: bool = False, synchronized: bool = False) -> tuple[tf.Tensor, tf.Tensor]:
    """Mean and variance over ``axes``; ``synchronized`` averages across replicas inside a distribution strategy."""
    x = float_of(tensor(x))
    axes = [axes] if isinstance(axes, int) else list(axes)
    original = x.dtype
    if original in (tf.float16, tf.bfloat16):
        x = tf.cast(x, tf.float32)
    context = tf.distribute.get_replica_context() if synchronized else None
    if context is not None and context.num_replicas_in_sync > 1:
        count = tf.reduce_sum(tf.ones_like(x), axis=axes, keepdims=True)
        total, squares, count = context.all_reduce(tf.distribute.ReduceOp.SUM, [
            tf.reduce_sum(x, axis=axes, keepdims=True), tf.reduce_sum(tf.square(x), axis=axes, keepdims=True), count])
        mean = tf.math.divide_no_nan(total, count)
        variance = tf.maximum(tf.math.divide_no_nan(squares, count) - tf.square(mean), 0.0)
        if not keepdims:
            mean, variance = tf.squeeze(mean, axes), tf.squeeze(variance, axes)
    else:
        mean, variance = tf.nn.moments(x, axes=axes, keepdims=keepdims)
    if original in (tf.float16, tf.bfloat16):
        limit = tf.float16.max
        mean = tf.cast(tf.clip_by_value(mean, -limit, limit), original)
        variance = tf.cast(tf.clip_by_value(variance, -limit, limit), original)
    return mean, variance


def batch_normalization(x: Any, mean: Any, variance: Any, axis: int, offset: Any = None, scale: Any = None,
                        epsilon: float = 1e-3) -> tf.Tensor:
    x = float_of(tensor(x))
    shape = [1] * len(x.shape)
    shape[axis] = -1

    def broadcast(value: Any) -> Any:
        return None if value is None else tf.reshape(tf.cast(tensor(value), x.dtype), shape)

    return tf.nn.batch_normalization(x, broadcast(mean), broadcast(variance), broadcast(offset), broadcast(scale),
                                     epsilon)


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> tf.Tensor:
    return tf.reduce_logsumexp(float_of(tensor(x)), axis=axis, keepdims=keepdims)


_OWN = [name for name, value in list(globals().items())
        if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), _OWN)

__all__ = _OWN + [name for module in (nn_activations, nn_attention, nn_conv, nn_ctc, nn_norm, nn_patches, nn_pool)
                  for name in module.__all__]
