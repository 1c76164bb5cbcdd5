"""Convolution layers: ``Conv1D/2D/3D``, their transposes, ``DepthwiseConv2D``, ``SeparableConv2D``.

    conv = tfkit.layers.Conv2D(8, 3, padding="same", activation="relu")
    y = conv(tf.ones((2, 28, 28, 1)))   # (2, 28, 28, 8); kernel (3, 3, 1, 8), bias (8,)
    tfkit.layers.Conv2DTranspose(4, 3, strides=2)(y).shape   # (2, 57, 57, 4)

Kernels use Keras' layouts: ``Conv*`` kernels are ``(*kernel_size, in_channels
// groups, filters)``, transposed kernels ``(*kernel_size, filters,
in_channels)``. Inputs are channels-last unless ``data_format="channels_first"``
(computed through transposes, since TensorFlow's CPU kernels are channels-last).
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit import constraints, initializers, regularizers
from tfkit.base import registry
from tfkit.layers import conv_utils as cu
from tfkit.layers.conv_base import ConvBase, IntOrTuple, serialize_optional
from tfkit.layers.conv_depthwise import DepthwiseConv2D, SeparableConv2D

__all__ = [
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
    "DepthwiseConv2D",
    "SeparableConv2D",
    "Convolution1D",
    "Convolution2D",
    "Convolution3D",
    "Convolution2DTranspose",
    "SeparableConvolution2D",
]

# ------------------------------------------------------------- Conv1D/2D/3D


class _Conv(ConvBase):
    """An N-D convolution (N = ``rank``) with optional groups; see ``Conv2D``."""

    def __init__(
        self,
        filters: int,
        kernel_size: IntOrTuple,
        strides: IntOrTuple = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: IntOrTuple = 1,
        groups: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
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
        self.groups = cu.positive_int(groups, "groups", who)
        if self.filters % self.groups:
            raise ValueError(
                f"{who}: filters ({self.filters}) must be divisible by groups ({self.groups})"
            )
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)

    def build(self, input_shape: tuple) -> None:
        channels = self._input_channels(input_shape)
        if channels % self.groups:
            raise ValueError(
                f"{cu.layer_label(self)}: the input's {channels} channels must be divisible by "
                f"groups ({self.groups}); input shape {tuple(input_shape)}"
            )
        self.compute_output_shape(input_shape)
        self.kernel = self.add_weight(
            shape=(*self.kernel_size, channels // self.groups, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self._add_bias(self.filters)

    def _convolve(self, inputs: tf.Tensor) -> tf.Tensor:
        return self.convolution_op(inputs, self.kernel)

    def convolution_op(self, inputs: tf.Tensor, kernel: Any) -> tf.Tensor:
        """The convolution itself (no bias, no activation); override it to change the kernel or the op.

            class StandardizedConv2D(tfkit.layers.Conv2D):
                def convolution_op(self, inputs, kernel):
                    mean, var = tf.nn.moments(kernel, axes=[0, 1, 2], keepdims=True)
                    return super().convolution_op(inputs, (kernel - mean) / tf.sqrt(var + 1e-10))
        """
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = tf.pad(inputs, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"

        def convolve(x: tf.Tensor, kernel: tf.Tensor) -> tf.Tensor:
            return tf.nn.convolution(
                x, kernel, strides=self.strides, padding=padding.upper(), dilations=self.dilation_rate
            )

        kernel = tf.convert_to_tensor(kernel)
        if self.groups == 1:
            return convolve(inputs, kernel)
        # One convolution per group: TensorFlow's CPU kernels cannot differentiate grouped convolutions.
        pieces = zip(tf.split(inputs, self.groups, axis=-1), tf.split(kernel, self.groups, axis=-1))
        return tf.concat([convolve(x, k) for x, k in pieces], axis=-1)

    def get_config(self) -> dict[str, Any]:
        config = self._base_conv_config(filters=self.filters)
        config.update(
            groups=self.groups,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            kernel_regularizer=serialize_optional(regularizers, self.kernel_regularizer),
            kernel_constraint=serialize_optional(constraints, self.kernel_constraint),
        )
        return config


@registry.builtin("layers", "Convolution1D")
class Conv1D(_Conv):
    """1-D convolution over ``(batch, steps, channels)``; ``padding="causal"`` looks only back in time.

        Conv1D(4, 3, padding="causal")(tf.ones((2, 10, 3))).shape   # (2, 10, 4)
    """

    rank = 1
    allow_causal = True


@registry.builtin("layers", "Convolution2D")
class Conv2D(_Conv):
    """2-D convolution over ``(batch, height, width, channels)``.

        Conv2D(8, 3, strides=2, padding="same")(tf.ones((1, 9, 9, 3))).shape   # (1, 5, 5, 8)

    ``groups=g`` splits the input channels and the filters into ``g``
    independent convolutions (the kernel is ``(kh, kw, channels // g, filters)``).
    """

    rank = 2


@registry.builtin("layers", "Convolution3D")
class Conv3D(_Conv):
    """3-D convolution over ``(batch, depth, height, width, channels)``."""

    rank = 3


Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D


# --------------------------------------------------------- transposed convs


class _ConvTranspose(ConvBase):
    """An N-D transposed convolution (the gradient of ``Conv`` with respect to its input)."""

    def __init__(
        self,
        filters: int,
        kernel_size: IntOrTuple,
        strides: IntOrTuple = 1,
        padding: str = "valid",
        output_padding: IntOrTuple | None = None,
        data_format: str | None = None,
        dilation_rate: IntOrTuple = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
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
        self.output_padding = None
        if output_padding is not None:
            self.output_padding = cu.normalize_tuple(output_padding, self.rank, "output_padding", who, allow_zero=True)
            for axis, (extra, stride) in enumerate(zip(self.output_padding, self.strides)):
                if extra >= stride:
                    raise ValueError(
                        f"{who}: output_padding must be smaller than strides on every axis; axis {axis} has "
                        f"output_padding {extra} and stride {stride} (output_padding={self.output_padding}, "
                        f"strides={self.strides})"
                    )
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)

    def build(self, input_shape: tuple) -> None:
        channels = self._input_channels(input_shape)
        self.compute_output_shape(input_shape)
        self.kernel = self.add_weight(
            shape=(*self.kernel_size, self.filters, channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self._add_bias(self.filters)

    def _output_lengths(self, lengths: Sequence[Any]) -> list[Any]:
        extras = self.output_padding or (None,) * self.rank
        return [
            cu.deconv_output_length(length, k, self.padding, s, d, extra)
            for length, k, s, d, extra in zip(lengths, self.kernel_size, self.strides, self.dilation_rate, extras)
        ]

    def _convolve(self, inputs: tf.Tensor) -> tf.Tensor:
        kernel = tf.convert_to_tensor(self.kernel)
        if max(self.dilation_rate) > 1:  # the CPU kernels lack dilated transposes: dilate the kernel instead
            kernel = cu.dilate_kernel(kernel, self.dilation_rate)
        lengths = self._output_lengths(cu.spatial_sizes(inputs))
        output_shape = tf.stack([tf.shape(inputs)[0], *lengths, self.filters])
        outputs = tf.nn.conv_transpose(inputs, kernel, output_shape, strides=self.strides, padding=self.padding.upper())
        static = self._output_lengths(inputs.shape.as_list()[1:-1])
        outputs.set_shape([inputs.shape[0], *static, self.filters])
        return outputs

    def compute_output_shape(self, input_shape: Any) -> tuple:
        who = cu.layer_label(self)
        shape = cu.check_input_rank(input_shape, self.rank + 2, who, cu.layout(self.rank, self.data_format))
        lengths = cu.spatial_dims(shape, self.data_format)
        spatial = self._output_lengths(lengths)
        for axis, (length, out) in enumerate(zip(lengths, spatial)):
            if length is None:
                continue
            forward = cu.conv_output_length(
                out, self.kernel_size[axis], self.padding, self.strides[axis], self.dilation_rate[axis]
            )
            if forward != length:
                raise ValueError(
                    f"{who}: output_padding={self.output_padding} gives spatial axis {axis} length {out}, which a "
                    f"convolution with kernel_size={self.kernel_size}, strides={self.strides} and "
                    f"padding='{self.padding}' maps back to {forward}, not to the input's {length}. "
                    f"Choose another output_padding."
                )
        out = cu.assemble_shape(shape[0], spatial, self.filters, self.data_format)
        return cu.check_positive_output(out, shape, who)

    def get_config(self) -> dict[str, Any]:
        config = self._base_conv_config(filters=self.filters)
        config.update(
            output_padding=self.output_padding,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            kernel_regularizer=serialize_optional(regularizers, self.kernel_regularizer),
            kernel_constraint=serialize_optional(constraints, self.kernel_constraint),
        )
        return config


@registry.builtin("layers")
class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution; kernel ``(k, filters, in_channels)``."""

    rank = 1


@registry.builtin("layers", "Convolution2DTranspose")
class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution ("deconvolution"); kernel ``(kh, kw, filters, in_channels)``.

        up = Conv2DTranspose(4, 3, strides=2, padding="same")
        up(tf.ones((1, 5, 5, 8))).shape   # (1, 10, 10, 4)
    """

    rank = 2


@registry.builtin("layers")
class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution; kernel ``(kd, kh, kw, filters, in_channels)``."""

    rank = 3


Convolution2DTranspose = Conv2DTranspose
SeparableConvolution2D = SeparableConv2D
