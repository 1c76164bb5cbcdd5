"""Depthwise and depthwise-separable 1-D convolutions (Keras 3's ``DepthwiseConv1D``, ``SeparableConv1D``).

    dw = tfkit.layers.DepthwiseConv1D(3, depth_multiplier=2)
    dw(tf.ones((2, 10, 4))).shape                                   # (2, 8, 8); kernel (3, 4, 2)
    tfkit.layers.SeparableConv1D(16, 3)(tf.ones((2, 10, 4))).shape  # (2, 8, 16)

Both run as their 2-D counterparts on a height-1 image: output channel
``c * depth_multiplier + m`` is input channel ``c`` convolved with
``kernel[:, c, m]``, as in Keras.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import constraints, initializers, regularizers
from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.layers import conv_utils as cu
from tfkit.layers.conv_base import ConvBase, IntOrTuple, serialize_optional
from tfkit.layers.conv_depthwise import depthwise_conv2d
from tfkit.layers.conv_separable import SeparableConvBase

__all__ = ["DepthwiseConv1D", "SeparableConv1D", "SeparableConvolution1D"]


def depthwise_conv1d(inputs: tf.Tensor, kernel: tf.Tensor, stride: int, padding: str, dilation: int) -> tf.Tensor:
    """Depthwise convolution of channels-last ``(batch, steps, channels)`` with a ``(k, channels, m)`` kernel."""
    images = tf.expand_dims(inputs, 1)
    outputs = depthwise_conv2d(images, tf.expand_dims(kernel, 0), (stride, stride), padding, (1, dilation))
    return tf.squeeze(outputs, 1)


def _depthwise_weights(layer: Any, channels: int, name: str) -> tf.Variable:
    return layer.add_weight(
        shape=(*layer.kernel_size, channels, layer.depth_multiplier),
        initializer=layer.depthwise_initializer,
        regularizer=layer.depthwise_regularizer,
        constraint=layer.depthwise_constraint,
        name=name,
    )


@registry.builtin("layers")
class DepthwiseConv1D(ConvBase):
    """1D depthwise convolution layer.

    A depthwise convolution convolves every input channel separately with
    its own `depth_multiplier` filters (no mixing across channels): output
    channel `c * depth_multiplier + m` is input channel `c` convolved with
    `kernel[:, c, m]`, as in Keras. It runs as the 2D depthwise convolution
    on a height-1 image. The kernel is `self.kernel` with shape
    `(kernel_size, input_channels, depth_multiplier)`.

    Args:
        kernel_size: An integer or tuple/list of 1 integer, the size of the
            depthwise convolution window.
        strides: An integer or tuple/list of 1 integer, the stride length of the
            depthwise convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding; `"same"` pads evenly so that, with `strides=1`,
            the output has the input's spatial size. Defaults to `"valid"`.
        depth_multiplier: Positive integer, the number of depthwise filters
            per input channel: the depthwise step outputs
            `input_channels * depth_multiplier` channels. Defaults to `1`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 1 integer, the dilation rate
            of the depthwise convolution. Defaults to `1`.
        activation: Activation function applied to the output. `None` (the
            default) applies none.
        use_bias: Whether to add a bias vector to the output. Defaults to
            `True`.
        depthwise_initializer: Initializer for the depthwise kernel. Defaults
            to `"glorot_uniform"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        depthwise_regularizer: Optional regularizer for the depthwise kernel.
            Defaults to `None`.
        bias_regularizer: Optional regularizer for the bias vector. Defaults
            to `None`.
        activity_regularizer: Optional regularizer applied to the output.
            Defaults to `None`.
        depthwise_constraint: Optional projection function applied to the
            depthwise kernel after each optimizer update. Defaults to `None`.
        bias_constraint: Optional projection function applied to the bias
            after each optimizer update. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 3.

    Input shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, steps, channels)`. If `data_format="channels_first"`:
        a 3D tensor with shape `(batch_size, channels, steps)`.

    Output shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, new_steps, channels * depth_multiplier)`. If `data_format="channels_first"`:
        a 3D tensor with shape `(batch_size, channels * depth_multiplier, new_steps)`.

    Raises:
        ValueError: If an argument is out of range (such as `strides > 1` with
            `dilation_rate > 1`), or the input does not have rank 3.

    Example:
        >>> layer = tfkit.layers.DepthwiseConv1D(3, depth_multiplier=2)
        >>> layer(np.ones((2, 10, 4))).shape
        TensorShape([2, 8, 8])
        >>> layer.kernel.shape
        TensorShape([3, 4, 2])
    """

    rank = 1

    def __init__(
        self,
        kernel_size: IntOrTuple,
        strides: IntOrTuple = 1,
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: IntOrTuple = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            None,
            kernel_size,
            strides,
            padding,
            data_format,
            dilation_rate,
            activation,
            use_bias,
            bias_initializer,
            bias_regularizer,
            activity_regularizer,
            bias_constraint,
            **kwargs,
        )
        self.depth_multiplier = positive_int(depth_multiplier, "depth_multiplier", cu.layer_label(self))
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def build(self, input_shape: tuple) -> None:
        channels = self._input_channels(input_shape)
        self.compute_output_shape(input_shape)
        self.kernel = _depthwise_weights(self, channels, "kernel")
        self._add_bias(channels * self.depth_multiplier)

    def _output_channels(self, input_channels: int | None) -> int | None:
        return None if input_channels is None else input_channels * self.depth_multiplier

    def _convolve(self, inputs: tf.Tensor) -> tf.Tensor:
        kernel = tf.convert_to_tensor(self.kernel)
        return depthwise_conv1d(inputs, kernel, self.strides[0], self.padding, self.dilation_rate[0])

    def get_config(self) -> dict[str, Any]:
        config = self._base_conv_config()
        config.update(
            depth_multiplier=self.depth_multiplier,
            depthwise_initializer=initializers.serialize(self.depthwise_initializer),
            depthwise_regularizer=serialize_optional(regularizers, self.depthwise_regularizer),
            depthwise_constraint=serialize_optional(constraints, self.depthwise_constraint),
        )
        return config


@registry.builtin("layers", "SeparableConvolution1D")
class SeparableConv1D(SeparableConvBase):
    """1D separable convolution layer.

    This layer performs a depthwise convolution that acts separately on
    channels, followed by a pointwise (size-1) convolution that mixes
    channels into `filters` outputs. If `use_bias` is `True`, a bias vector
    is added, and `activation` is applied last. Weights: `depthwise_kernel`
    `(kernel_size, input_channels, depth_multiplier)`, `pointwise_kernel`
    `(1, input_channels * depth_multiplier, filters)` and `bias`
    `(filters,)`. `SeparableConvolution1D` is the same class.

    Args:
        filters: Positive integer, the number of output channels of the
            pointwise convolution.
        kernel_size: An integer or tuple/list of 1 integer, the size of the
            depthwise convolution window.
        strides: An integer or tuple/list of 1 integer, the stride length of the
            depthwise convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding; `"same"` pads evenly so that, with `strides=1`,
            the output has the input's spatial size. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 1 integer, the dilation rate
            of the depthwise convolution. Defaults to `1`.
        depth_multiplier: Positive integer, the number of depthwise filters
            per input channel: the depthwise step outputs
            `input_channels * depth_multiplier` channels. Defaults to `1`.
        activation: Activation function applied to the output. `None` (the
            default) applies none.
        use_bias: Whether to add a bias vector to the output. Defaults to
            `True`.
        depthwise_initializer: Initializer for the depthwise kernel. Defaults
            to `"glorot_uniform"`.
        pointwise_initializer: Initializer for the pointwise kernel. Defaults
            to `"glorot_uniform"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        depthwise_regularizer: Optional regularizer for the depthwise kernel.
            Defaults to `None`.
        pointwise_regularizer: Optional regularizer for the pointwise kernel.
            Defaults to `None`.
        bias_regularizer: Optional regularizer for the bias vector. Defaults
            to `None`.
        activity_regularizer: Optional regularizer applied to the output.
            Defaults to `None`.
        depthwise_constraint: Optional projection function applied to the
            depthwise kernel after each optimizer update. Defaults to `None`.
        pointwise_constraint: Optional projection function applied to the
            pointwise kernel after each optimizer update. Defaults to `None`.
        bias_constraint: Optional projection function applied to the bias
            after each optimizer update. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 3.

    Input shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, steps, channels)`. If `data_format="channels_first"`:
        a 3D tensor with shape `(batch_size, channels, steps)`.

    Output shape:
        If `data_format="channels_last"`: a 3D tensor with shape
        `(batch_size, new_steps, filters)`. If `data_format="channels_first"`:
        a 3D tensor with shape `(batch_size, filters, new_steps)`.

    Raises:
        ValueError: If an argument is out of range (such as `strides > 1` with
            `dilation_rate > 1`), or the input does not have rank 3.

    Example:
        >>> layer = tfkit.layers.SeparableConv1D(16, 3)
        >>> layer(np.ones((2, 10, 4))).shape
        TensorShape([2, 8, 16])
        >>> layer.depthwise_kernel.shape, layer.pointwise_kernel.shape
        (TensorShape([3, 4, 1]), TensorShape([1, 4, 16]))
    """

    rank = 1

    def _convolve(self, inputs: tf.Tensor) -> tf.Tensor:
        depthwise = tf.convert_to_tensor(self.depthwise_kernel)
        mixed = depthwise_conv1d(inputs, depthwise, self.strides[0], self.padding, self.dilation_rate[0])
        return tf.nn.conv1d(mixed, self.pointwise_kernel, stride=1, padding="VALID")


SeparableConvolution1D = SeparableConv1D
