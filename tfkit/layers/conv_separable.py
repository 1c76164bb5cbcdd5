"""What ``SeparableConv1D`` and ``SeparableConv2D`` share: arguments, weights and config.

    class SeparableConv2D(SeparableConvBase):
        rank = 2
        def _convolve(self, inputs): ...   # depthwise, then pointwise

A separable convolution is a depthwise convolution (``depthwise_kernel``,
``(*kernel_size, input_channels, depth_multiplier)``) followed by a pointwise
one (``pointwise_kernel``, ``(1, ..., input_channels * depth_multiplier,
filters)``) and an optional bias. The subclass says how to convolve.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import constraints, initializers, regularizers
from tfkit.base.argument_validation import positive_int
from tfkit.layers import conv_utils as cu
from tfkit.layers.conv_base import ConvBase, IntOrTuple, serialize_optional


class SeparableConvBase(ConvBase):
    """The constructor, weights and config of Keras 3's separable convolutions; subclasses set `rank`."""

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
            filters,
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
        who = cu.layer_label(self)
        if filters is None:
            raise ValueError(f"{who} expected `filters` to be a positive integer, got None")
        self.depth_multiplier = positive_int(depth_multiplier, "depth_multiplier", who)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape: tuple) -> None:
        channels = self._input_channels(input_shape)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = self.add_weight(
            shape=(*self.kernel_size, channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
            name="depthwise_kernel",
        )
        self.pointwise_kernel = self.add_weight(
            shape=(*(1,) * self.rank, channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
            name="pointwise_kernel",
        )
        self._add_bias(self.filters)

    def _convolve(self, inputs: tf.Tensor) -> tf.Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define _convolve")

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
