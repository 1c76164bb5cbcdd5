"""Keras 3's ``keras.ops.nn`` on TensorFlow: activations, losses, convolution, pooling, one-hot.

    probs = tfkit.ops.softmax(logits, axis=-1)
    loss = tfkit.ops.sparse_categorical_crossentropy(labels, logits, from_logits=True)
    y = tfkit.ops.conv(images, kernel, strides=1, padding="same")
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit import activations
from tfkit.ops._convert import export, float_of, tensor


def relu(x: Any) -> tf.Tensor:
    return tf.nn.relu(tensor(x))


def relu6(x: Any) -> tf.Tensor:
    return tf.nn.relu6(tensor(x))


def sigmoid(x: Any) -> tf.Tensor:
    return tf.sigmoid(float_of(tensor(x)))


def softmax(x: Any, axis: int = -1) -> tf.Tensor:
    return tf.nn.softmax(float_of(tensor(x)), axis=axis)


def log_softmax(x: Any, axis: int = -1) -> tf.Tensor:
    return tf.nn.log_softmax(float_of(tensor(x)), axis=axis)


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
    return tf.one_hot(tf.cast(tensor(x), tf.int32), num_classes, axis=axis, dtype=dtype or "float32")


def multi_hot(inputs: Any, num_classes: int, axis: int = -1, dtype: Any = None) -> tf.Tensor:
    hot = tf.one_hot(tf.cast(tensor(inputs), tf.int32), num_classes, dtype=dtype or "float32")
    return tf.reduce_max(hot, axis=-2 if axis == -1 else axis)


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


def _spatial(value: Any, rank: int) -> list[int]:
    return [value] * rank if isinstance(value, int) else list(value)


def conv(inputs: Any, kernel: Any, strides: Any = 1, padding: str = "valid", data_format: str | None = None,
         dilation_rate: Any = 1) -> tf.Tensor:
    """N-D convolution (1, 2 or 3 spatial axes) with a ``(*spatial, in, out)`` kernel, as ``keras.ops.conv``."""
    inputs, kernel = float_of(tensor(inputs)), float_of(tensor(kernel))
    rank = len(inputs.shape) - 2
    channels_first = data_format == "channels_first"
    fmt = {1: "NCW" if channels_first else "NWC", 2: "NCHW" if channels_first else "NHWC",
           3: "NCDHW" if channels_first else "NDHWC"}[rank]
    if channels_first and rank in (1, 2):   # CPU kernels take channels last: transpose around them
        perm = [0, *range(2, rank + 2), 1]
        out = conv(tf.transpose(inputs, perm), kernel, strides, padding, "channels_last", dilation_rate)
        return tf.transpose(out, [0, rank + 1, *range(1, rank + 1)])
    return tf.nn.convolution(inputs, tf.cast(kernel, inputs.dtype), strides=_spatial(strides, rank),
                             padding=padding.upper(), dilations=_spatial(dilation_rate, rank), data_format=fmt)


def depthwise_conv(inputs: Any, kernel: Any, strides: Any = 1, padding: str = "valid",
                   data_format: str | None = None, dilation_rate: Any = 1) -> tf.Tensor:
    inputs, kernel = float_of(tensor(inputs)), float_of(tensor(kernel))
    rank = len(inputs.shape) - 2
    if rank == 1:
        out = depthwise_conv(tf.expand_dims(inputs, 1), tf.expand_dims(kernel, 0), strides, padding, data_format,
                             dilation_rate)
        return tf.squeeze(out, 1)
    stride = _spatial(strides, 2)
    return tf.nn.depthwise_conv2d(inputs, kernel, [1, *stride, 1], padding.upper(),
                                  dilations=_spatial(dilation_rate, 2))


def max_pool(inputs: Any, pool_size: Any, strides: Any = None, padding: str = "valid",
             data_format: str | None = None) -> tf.Tensor:
    inputs = tensor(inputs)
    rank = len(inputs.shape) - 2
    return tf.nn.max_pool(inputs, _spatial(pool_size, rank), _spatial(strides or pool_size, rank), padding.upper())


def average_pool(inputs: Any, pool_size: Any, strides: Any = None, padding: str = "valid",
                 data_format: str | None = None) -> tf.Tensor:
    inputs = tensor(inputs)
    rank = len(inputs.shape) - 2
    return tf.nn.avg_pool(inputs, _spatial(pool_size, rank), _spatial(strides or pool_size, rank), padding.upper())


def moments(x: Any, axes: Sequence[int], keepdims: bool = False) -> tuple[tf.Tensor, tf.Tensor]:
    return tf.nn.moments(float_of(tensor(x)), axes=list(axes), keepdims=keepdims)


def batch_normalization(x: Any, mean: Any, variance: Any, axis: int, offset: Any = None, scale: Any = None,
                        epsilon: float = 1e-3) -> tf.Tensor:
    x = float_of(tensor(x))
    shape = [1] * len(x.shape)
    shape[axis] = -1

    def broadcast(value: Any) -> Any:
        return None if value is None else tf.reshape(tf.cast(tensor(value), x.dtype), shape)

    return tf.nn.batch_normalization(x, broadcast(mean), broadcast(variance), broadcast(offset), broadcast(scale),
                                     epsilon)


def normalize(x: Any, axis: int = -1, order: int = 2, epsilon: float | None = None) -> tf.Tensor:
    x = float_of(tensor(x))
    epsilon = 1e-7 if epsilon is None else epsilon
    if order == 2:
        inverse = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
        return x * tf.minimum(inverse, 1.0 / epsilon)
    norm = tf.norm(x, ord=order, axis=axis, keepdims=True)
    return x / tf.maximum(norm, epsilon)


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> tf.Tensor:
    return tf.reduce_logsumexp(float_of(tensor(x)), axis=axis, keepdims=keepdims)


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
