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
from tfkit.layers import conv_utils as cu
from tfkit.layers.conv_base import ConvBase, IntOrTuple, serialize_optional
from tfkit.layers.conv_depthwise import depthwise_conv2d

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
    """Convolve every channel of ``(batch, steps, channels)`` with its own ``depth_multiplier`` filters.

        DepthwiseConv1D(3)(tf.ones((1, 5, 4))).shape   # (1, 3, 4); weights kernel (3, 4, 1), bias (4,)
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
            None, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
            bias_initializer, bias_regularizer, activity_regularizer, bias_constraint, **kwargs,
        )
        self.depth_multiplier = cu.positive_int(depth_multiplier, "depth_multiplier", cu.layer_label(self))
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
class SeparableConv1D(ConvBase):
    """A depthwise 1-D convolution followed by a pointwise (size-1) convolution to ``filters`` channels.

        SeparableConv1D(8, 3, depth_multiplier=2)(tf.ones((1, 6, 3))).shape   # (1, 4, 8)

    Weights: ``depthwise_kernel`` ``(k, in_channels, depth_multiplier)``,
    ``pointwise_kernel`` ``(1, in_channels * depth_multiplier, filters)``, ``bias`` ``(filters,)``.
    """

    rank = 1

    def __init__(
        self,
        filters: int,
        kernel_size: IntOrTuple,
        strides: IntOrTuple = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: IntOrTuple = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
            bias_initializer, bias_regularizer, activity_regularizer, bias_constraint, **kwargs,
        )
        who = cu.layer_label(self)
        if filters is None:
            raise ValueError(f"{who} expected `filters` to be a positive integer, got None")
        self.depth_multiplier = cu.positive_int(depth_multiplier, "depth_multiplier", who)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape: tuple) -> None:
        channels = self._input_channels(input_shape)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = _depthwise_weights(self, channels, "depthwise_kernel")
        self.pointwise_kernel = self.add_weight(
            shape=(1, channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
            name="pointwise_kernel",
        )
        self._add_bias(self.filters)

    def _convolve(self, inputs: tf.Tensor) -> tf.Tensor:
        depthwise = tf.convert_to_tensor(self.depthwise_kernel)
        mixed = depthwise_conv1d(inputs, depthwise, self.strides[0], self.padding, self.dilation_rate[0])
        return tf.nn.conv1d(mixed, self.pointwise_kernel, stride=1, padding="VALID")

    def get_config(self) -> dict[str, Any]:
        config = self._base_conv_config(filters=self.filters)
        config.update(
            depth_multiplier=self.depth_multiplier,
            depthwise_initializer=initializers.serialize(self.depthwise_initializer),
            pointwise_initializer=initializers.serialize(self.pointwise_initializer),
            depthwise_regularizer=serialize_optional(regularizers, self.depthwise_regularizer),
            pointwise_regularizer=serialize_optional(regularizers, self.pointwise_regularizer),
            depthwise_constraint=serialize_optional(constraints, self.depthwise_constraint),
            pointwise_constraint=serialize_optional(constraints, self.pointwise_constraint),
        )
        return config


SeparableConvolution1D = SeparableConv1D
