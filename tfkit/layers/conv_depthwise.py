"""Depthwise and depthwise-separable 2-D convolutions.

    dw = tfkit.layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")
    dw(tf.ones((1, 8, 8, 3))).shape        # (1, 8, 8, 6); kernel (3, 3, 3, 2)
    tfkit.layers.SeparableConv2D(16, 3)(tf.ones((1, 8, 8, 3))).shape   # (1, 6, 6, 16)

Output channel ``c * depth_multiplier + m`` is input channel ``c`` convolved
with ``kernel[:, :, c, m]`` (Keras' and TensorFlow's ordering).
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit import constraints, initializers, regularizers
from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.layers import conv_utils as cu
from tfkit.layers.conv_base import ConvBase, IntOrTuple, serialize_optional
from tfkit.layers.conv_separable import SeparableConvBase

__all__ = ["DepthwiseConv2D", "SeparableConv2D"]


def depthwise_conv2d(
    inputs: tf.Tensor, kernel: tf.Tensor, strides: Sequence[int], padding: str, dilation: Sequence[int]
) -> tf.Tensor:
    """``tf.nn.depthwise_conv2d`` on channels-last inputs, also for unequal row/column strides.

    TensorFlow's kernels need equal strides; otherwise the input is padded
    like ``"SAME"`` would, convolved with stride 1, and every stride-th
    position is kept (the same numbers, computed densely).
    """
    if strides[0] == strides[1]:
        return tf.nn.depthwise_conv2d(inputs, kernel, [1, *strides, 1], padding.upper(), dilations=dilation)
    if padding == "same":
        sizes = cu.spatial_sizes(inputs)
        pads = [
            list(cu.same_padding(size, (k - 1) * d + 1, s))
            for size, k, s, d in zip(sizes, kernel.shape[:2], strides, dilation)
        ]
        inputs = tf.pad(inputs, [[0, 0], *pads, [0, 0]])
    dense = tf.nn.depthwise_conv2d(inputs, kernel, [1, 1, 1, 1], "VALID", dilations=dilation)
    return dense[:, :: strides[0], :: strides[1], :]


@registry.builtin("layers")
class DepthwiseConv2D(ConvBase):
    """2D depthwise convolution layer.

    A depthwise convolution convolves every input channel separately with
    its own `depth_multiplier` filters (no mixing across channels): output
    channel `c * depth_multiplier + m` is input channel `c` convolved with
    `kernel[:, :, c, m]` (Keras's and TensorFlow's ordering). The outputs
    are concatenated along the channel axis, then the bias and activation
    are applied.

    The kernel is `self.kernel` (weight `kernel`, as in Keras 3) with shape
    `(kernel_height, kernel_width, input_channels, depth_multiplier)`;
    `depthwise_kernel` is an alias for code written against Keras 2.

    Args:
        kernel_size: An integer or tuple/list of 2 integers, the size of the
            depthwise convolution window.
        strides: An integer or tuple/list of 2 integers, the stride length of the
            depthwise convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `(1, 1)`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding; `"same"` pads evenly so that, with `strides=1`,
            the output has the input's spatial size. Defaults to `"valid"`.
        depth_multiplier: Positive integer, the number of depthwise filters
            per input channel: the depthwise step outputs
            `input_channels * depth_multiplier` channels. Defaults to `1`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 2 integers, the dilation rate
            of the depthwise convolution. Defaults to `(1, 1)`.
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
        inputs: A tensor of rank 4.

    Input shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, height, width, channels)`. If `data_format="channels_first"`:
        a 4D tensor with shape `(batch_size, channels, height, width)`.

    Output shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, new_height, new_width, channels * depth_multiplier)`. If `data_format="channels_first"`:
        a 4D tensor with shape `(batch_size, channels * depth_multiplier, new_height, new_width)`.

    Raises:
        ValueError: If an argument is out of range (such as `strides > 1` with
            `dilation_rate > 1`), or the input does not have rank 4.

    Example:
        >>> layer = tfkit.layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")
        >>> layer(np.ones((1, 8, 8, 3))).shape
        TensorShape([1, 8, 8, 6])
        >>> layer.kernel.shape, layer.bias.shape
        (TensorShape([3, 3, 3, 2]), TensorShape([6]))
    """

    rank = 2

    def __init__(
        self,
        kernel_size: IntOrTuple,
        strides: IntOrTuple = (1, 1),
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: IntOrTuple = (1, 1),
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

    @property
    def depthwise_kernel(self) -> tf.Variable:
        return self.kernel

    def build(self, input_shape: tuple) -> None:
        channels = self._input_channels(input_shape)
        self.compute_output_shape(input_shape)
        self.kernel = self.add_weight(
            shape=(*self.kernel_size, channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
            name="kernel",
        )
        self._add_bias(channels * self.depth_multiplier)

    def _output_channels(self, input_channels: int | None) -> int | None:
        return None if input_channels is None else input_channels * self.depth_multiplier

    def _convolve(self, inputs: tf.Tensor) -> tf.Tensor:
        kernel = tf.convert_to_tensor(self.kernel)
        return depthwise_conv2d(inputs, kernel, self.strides, self.padding, self.dilation_rate)

    def get_config(self) -> dict[str, Any]:
        config = self._base_conv_config()
        config.update(
            depth_multiplier=self.depth_multiplier,
            depthwise_initializer=initializers.serialize(self.depthwise_initializer),
            depthwise_regularizer=serialize_optional(regularizers, self.depthwise_regularizer),
            depthwise_constraint=serialize_optional(constraints, self.depthwise_constraint),
        )
        return config


@registry.builtin("layers", "SeparableConvolution2D")
class SeparableConv2D(SeparableConvBase):
    """2D separable convolution layer.

    This layer performs a depthwise convolution that acts separately on
    channels, followed by a pointwise (1x1) convolution that mixes channels
    into `filters` outputs. If `use_bias` is `True`, a bias vector is added,
    and `activation` is applied last. Weights: `depthwise_kernel`
    `(kernel_height, kernel_width, input_channels, depth_multiplier)`,
    `pointwise_kernel` `(1, 1, input_channels * depth_multiplier, filters)`
    and `bias` `(filters,)`. `SeparableConvolution2D` is the same class.

    Args:
        filters: Positive integer, the number of output channels of the
            pointwise convolution.
        kernel_size: An integer or tuple/list of 2 integers, the size of the
            depthwise convolution window.
        strides: An integer or tuple/list of 2 integers, the stride length of the
            depthwise convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `(1, 1)`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding; `"same"` pads evenly so that, with `strides=1`,
            the output has the input's spatial size. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 2 integers, the dilation rate
            of the depthwise convolution. Defaults to `(1, 1)`.
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
        inputs: A tensor of rank 4.

    Input shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, height, width, channels)`. If `data_format="channels_first"`:
        a 4D tensor with shape `(batch_size, channels, height, width)`.

    Output shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(batch_size, new_height, new_width, filters)`. If `data_format="channels_first"`:
        a 4D tensor with shape `(batch_size, filters, new_height, new_width)`.

    Raises:
        ValueError: If an argument is out of range (such as `strides > 1` with
            `dilation_rate > 1`), or the input does not have rank 4.

    Example:
        >>> layer = tfkit.layers.SeparableConv2D(8, 3, depth_multiplier=2)
        >>> layer(np.ones((1, 6, 6, 3))).shape
        TensorShape([1, 4, 4, 8])
        >>> layer.depthwise_kernel.shape, layer.pointwise_kernel.shape
        (TensorShape([3, 3, 3, 2]), TensorShape([1, 1, 6, 8]))
    """

    rank = 2

    def _convolve(self, inputs: tf.Tensor) -> tf.Tensor:
        depthwise = tf.convert_to_tensor(self.depthwise_kernel)
        mixed = depthwise_conv2d(inputs, depthwise, self.strides, self.padding, self.dilation_rate)
        return tf.nn.conv2d(mixed, self.pointwise_kernel, strides=1, padding="VALID")
