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
from tfkit.base.argument_validation import positive_int
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
        self.groups = positive_int(groups, "groups", who)
        if self.filters % self.groups:
            raise ValueError(f"{who}: filters ({self.filters}) must be divisible by groups ({self.groups})")
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
    """1D convolution layer (e.g. temporal convolution).

    This layer creates a convolution kernel that is convolved with the layer
    input over a single spatial (or temporal) dimension to produce a tensor of
    outputs. If `use_bias` is `True`, a bias vector is created and added to
    the outputs. Finally, if `activation` is not `None`, it is applied to the
    outputs as well. The kernel has shape
    `(kernel_size, input_channels // groups, filters)`, Keras's layout.
    `Convolution1D` is the same class.

    Args:
        filters: Positive integer, the number of filters (the dimension of
            the output's channel axis).
        kernel_size: An integer or tuple/list of 1 integer, the size of the
            convolution window (one integer is used for every spatial axis).
        strides: An integer or tuple/list of 1 integer, the stride length of the
            convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"`, `"same"` or `"causal"` (case-insensitive).
            `"valid"` means no padding. `"same"` pads evenly left and right so
            that, with `strides=1`, the output has the input's length.
            `"causal"` pads on the left only, so `output[t]` depends on
            `input[:t + 1]` only (useful for temporal data). Defaults to
            `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, features)`) or `"channels_first"` (inputs of shape
            `(batch, features, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 1 integer, the dilation rate
            of the (atrous) convolution. Defaults to `1`.
        groups: Positive integer, the number of groups the input channels are
            split into; each group is convolved with `filters // groups`
            filters and the results are concatenated along the channel axis.
            Both `filters` and the input channels must be divisible by
            `groups`. Defaults to `1`.
        activation: Activation function applied to the output. `None` (the
            default) applies none.
        use_bias: Whether to add a bias vector to the output. Defaults to
            `True`.
        kernel_initializer: Initializer for the convolution kernel. Defaults
            to `"glorot_uniform"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        kernel_regularizer: Optional regularizer for the convolution kernel.
            Defaults to `None`.
        bias_regularizer: Optional regularizer for the bias vector. Defaults
            to `None`.
        activity_regularizer: Optional regularizer applied to the output.
            Defaults to `None`.
        kernel_constraint: Optional projection function applied to the kernel
            after each optimizer update. Defaults to `None`.
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
            `dilation_rate > 1`, or channels not divisible by `groups`), or
            the input does not have rank 3.

    Example:
        >>> layer = tfkit.layers.Conv1D(4, 3, activation="relu")
        >>> layer(np.ones((2, 10, 3))).shape
        TensorShape([2, 8, 4])
        >>> layer.kernel.shape
        TensorShape([3, 3, 4])
        >>> tfkit.layers.Conv1D(4, 3, padding="causal")(np.ones((2, 10, 3))).shape
        TensorShape([2, 10, 4])
    """

    rank = 1
    allow_causal = True


@registry.builtin("layers", "Convolution2D")
class Conv2D(_Conv):
    """2D convolution layer.

    This layer creates a convolution kernel that is convolved with the layer
    input over two spatial dimensions to produce a tensor of outputs. If
    `use_bias` is `True`, a bias vector is created and added to the outputs.
    Finally, if `activation` is not `None`, it is applied to the outputs as
    well. `groups=g` splits the input channels and the filters into `g`
    independent convolutions (the kernel is
    `(kernel_height, kernel_width, channels // g, filters)`, Keras's layout).
    `channels_first` inputs are computed through transposes, since
    TensorFlow's CPU kernels are channels-last. `Convolution2D` is the same
    class.

    Args:
        filters: Positive integer, the number of filters (the dimension of
            the output's channel axis).
        kernel_size: An integer or tuple/list of 2 integers, the size of the
            convolution window (one integer is used for every spatial axis).
        strides: An integer or tuple/list of 2 integers, the stride length of the
            convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly left and right (or up and
            down) so that, with `strides=1`, the output has the input's
            spatial size. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 2 integers, the dilation rate
            of the (atrous) convolution. Defaults to `1`.
        groups: Positive integer, the number of groups the input channels are
            split into; each group is convolved with `filters // groups`
            filters and the results are concatenated along the channel axis.
            Both `filters` and the input channels must be divisible by
            `groups`. Defaults to `1`.
        activation: Activation function applied to the output. `None` (the
            default) applies none.
        use_bias: Whether to add a bias vector to the output. Defaults to
            `True`.
        kernel_initializer: Initializer for the convolution kernel. Defaults
            to `"glorot_uniform"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        kernel_regularizer: Optional regularizer for the convolution kernel.
            Defaults to `None`.
        bias_regularizer: Optional regularizer for the bias vector. Defaults
            to `None`.
        activity_regularizer: Optional regularizer applied to the output.
            Defaults to `None`.
        kernel_constraint: Optional projection function applied to the kernel
            after each optimizer update. Defaults to `None`.
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
            `dilation_rate > 1`, or channels not divisible by `groups`), or
            the input does not have rank 4.

    Example:
        >>> layer = tfkit.layers.Conv2D(8, 3, strides=2, padding="same")
        >>> layer(np.ones((1, 9, 9, 3))).shape
        TensorShape([1, 5, 5, 8])
        >>> layer.kernel.shape
        TensorShape([3, 3, 3, 8])
        >>> grouped = tfkit.layers.Conv2D(4, 3, groups=2)
        >>> grouped(np.ones((1, 5, 5, 6))).shape, grouped.kernel.shape
        (TensorShape([1, 3, 3, 4]), TensorShape([3, 3, 3, 4]))
    """

    rank = 2


@registry.builtin("layers", "Convolution3D")
class Conv3D(_Conv):
    """3D convolution layer.

    This layer creates a convolution kernel that is convolved with the layer
    input over three spatial dimensions to produce a tensor of outputs. If
    `use_bias` is `True`, a bias vector is created and added to the outputs.
    Finally, if `activation` is not `None`, it is applied to the outputs as
    well. The kernel has shape `(*kernel_size, input_channels // groups,
    filters)`. `Convolution3D` is the same class.

    Args:
        filters: Positive integer, the number of filters (the dimension of
            the output's channel axis).
        kernel_size: An integer or tuple/list of 3 integers, the size of the
            convolution window (one integer is used for every spatial axis).
        strides: An integer or tuple/list of 3 integers, the stride length of the
            convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly left and right (or up and
            down) so that, with `strides=1`, the output has the input's
            spatial size. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, spatial_dim1, spatial_dim2, spatial_dim3, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, spatial_dim1, spatial_dim2, spatial_dim3)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 3 integers, the dilation rate
            of the (atrous) convolution. Defaults to `1`.
        groups: Positive integer, the number of groups the input channels are
            split into; each group is convolved with `filters // groups`
            filters and the results are concatenated along the channel axis.
            Both `filters` and the input channels must be divisible by
            `groups`. Defaults to `1`.
        activation: Activation function applied to the output. `None` (the
            default) applies none.
        use_bias: Whether to add a bias vector to the output. Defaults to
            `True`.
        kernel_initializer: Initializer for the convolution kernel. Defaults
            to `"glorot_uniform"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        kernel_regularizer: Optional regularizer for the convolution kernel.
            Defaults to `None`.
        bias_regularizer: Optional regularizer for the bias vector. Defaults
            to `None`.
        activity_regularizer: Optional regularizer applied to the output.
            Defaults to `None`.
        kernel_constraint: Optional projection function applied to the kernel
            after each optimizer update. Defaults to `None`.
        bias_constraint: Optional projection function applied to the bias
            after each optimizer update. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 5.

    Input shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, spatial_dim1, spatial_dim2, spatial_dim3, channels)`.
        If `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, spatial_dim1, spatial_dim2, spatial_dim3)`.

    Output shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, new_spatial_dim1, new_spatial_dim2, new_spatial_dim3, filters)`.
        If `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, filters, new_spatial_dim1, new_spatial_dim2, new_spatial_dim3)`.

    Raises:
        ValueError: If an argument is out of range (such as `strides > 1` with
            `dilation_rate > 1`, or channels not divisible by `groups`), or
            the input does not have rank 5.

    Example:
        >>> layer = tfkit.layers.Conv3D(2, 2)
        >>> layer(np.ones((1, 4, 4, 4, 3))).shape
        TensorShape([1, 3, 3, 3, 2])
        >>> layer.kernel.shape
        TensorShape([2, 2, 2, 3, 2])
    """

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
    """1D transposed convolution layer.

    The need for transposed convolutions generally arises from the desire to
    use a transformation going in the opposite direction of a normal
    convolution, i.e., from something that has the shape of the output of
    some convolution to something that has the shape of its input while
    maintaining a connectivity pattern that is compatible with said
    convolution. The kernel has shape `(kernel_size, filters,
    input_channels)`, Keras's layout. `Convolution1DTranspose` is the same
    class.

    Args:
        filters: Positive integer, the number of filters (the dimension of
            the output's channel axis).
        kernel_size: An integer or tuple/list of 1 integer, the size of the
            convolution window (one integer is used for every spatial axis).
        strides: An integer or tuple/list of 1 integer, the stride length of the
            convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly left and right (or up and
            down) so that, with `strides=1`, the output has the input's
            spatial size. Defaults to `"valid"`.
        output_padding: An integer or tuple/list of 1 integer, the amount of
            padding added to each spatial axis of the output; each value must
            be smaller than the matching stride. `None` (the default) infers
            the output shape.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, steps, features)`) or `"channels_first"` (inputs of shape
            `(batch, features, steps)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 1 integer, the dilation rate
            of the (atrous) convolution. Defaults to `1`.
        activation: Activation function applied to the output. `None` (the
            default) applies none.
        use_bias: Whether to add a bias vector to the output. Defaults to
            `True`.
        kernel_initializer: Initializer for the convolution kernel. Defaults
            to `"glorot_uniform"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        kernel_regularizer: Optional regularizer for the convolution kernel.
            Defaults to `None`.
        bias_regularizer: Optional regularizer for the bias vector. Defaults
            to `None`.
        activity_regularizer: Optional regularizer applied to the output.
            Defaults to `None`.
        kernel_constraint: Optional projection function applied to the kernel
            after each optimizer update. Defaults to `None`.
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
            `dilation_rate > 1`, or `output_padding >= strides`), or
            the input does not have rank 3.

    Example:
        >>> layer = tfkit.layers.Conv1DTranspose(4, 3, strides=2)
        >>> layer(np.ones((1, 5, 8))).shape
        TensorShape([1, 11, 4])
        >>> layer.kernel.shape
        TensorShape([3, 4, 8])
    """

    rank = 1


@registry.builtin("layers", "Convolution2DTranspose")
class Conv2DTranspose(_ConvTranspose):
    """2D transposed convolution layer (sometimes called "deconvolution").

    The need for transposed convolutions generally arises from the desire to
    use a transformation going in the opposite direction of a normal
    convolution, i.e., from something that has the shape of the output of
    some convolution to something that has the shape of its input while
    maintaining a connectivity pattern that is compatible with said
    convolution. It is the gradient of `Conv2D` with respect to its input.
    The kernel has shape `(kernel_height, kernel_width, filters,
    input_channels)`, Keras's layout. `Convolution2DTranspose` is the same
    class.

    Args:
        filters: Positive integer, the number of filters (the dimension of
            the output's channel axis).
        kernel_size: An integer or tuple/list of 2 integers, the size of the
            convolution window (one integer is used for every spatial axis).
        strides: An integer or tuple/list of 2 integers, the stride length of the
            convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly left and right (or up and
            down) so that, with `strides=1`, the output has the input's
            spatial size. Defaults to `"valid"`.
        output_padding: An integer or tuple/list of 2 integers, the amount of
            padding added to each spatial axis of the output; each value must
            be smaller than the matching stride. `None` (the default) infers
            the output shape.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, height, width, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, height, width)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 2 integers, the dilation rate
            of the (atrous) convolution. Defaults to `1`.
        activation: Activation function applied to the output. `None` (the
            default) applies none.
        use_bias: Whether to add a bias vector to the output. Defaults to
            `True`.
        kernel_initializer: Initializer for the convolution kernel. Defaults
            to `"glorot_uniform"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        kernel_regularizer: Optional regularizer for the convolution kernel.
            Defaults to `None`.
        bias_regularizer: Optional regularizer for the bias vector. Defaults
            to `None`.
        activity_regularizer: Optional regularizer applied to the output.
            Defaults to `None`.
        kernel_constraint: Optional projection function applied to the kernel
            after each optimizer update. Defaults to `None`.
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
            `dilation_rate > 1`, or `output_padding >= strides`), or
            the input does not have rank 4.

    Example:
        >>> up = tfkit.layers.Conv2DTranspose(4, 3, strides=2, padding="same")
        >>> up(np.ones((1, 5, 5, 8))).shape
        TensorShape([1, 10, 10, 4])
        >>> up.kernel.shape
        TensorShape([3, 3, 4, 8])
    """

    rank = 2


@registry.builtin("layers")
class Conv3DTranspose(_ConvTranspose):
    """3D transposed convolution layer.

    The need for transposed convolutions generally arises from the desire to
    use a transformation going in the opposite direction of a normal
    convolution, i.e., from something that has the shape of the output of
    some convolution to something that has the shape of its input while
    maintaining a connectivity pattern that is compatible with said
    convolution. The kernel has shape `(*kernel_size, filters,
    input_channels)`, Keras's layout. `Convolution3DTranspose` is the same
    class.

    Args:
        filters: Positive integer, the number of filters (the dimension of
            the output's channel axis).
        kernel_size: An integer or tuple/list of 3 integers, the size of the
            convolution window (one integer is used for every spatial axis).
        strides: An integer or tuple/list of 3 integers, the stride length of the
            convolution. Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive). `"valid"`
            means no padding. `"same"` pads evenly left and right (or up and
            down) so that, with `strides=1`, the output has the input's
            spatial size. Defaults to `"valid"`.
        output_padding: An integer or tuple/list of 3 integers, the amount of
            padding added to each spatial axis of the output; each value must
            be smaller than the matching stride. `None` (the default) infers
            the output shape.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, spatial_dim1, spatial_dim2, spatial_dim3, channels)`) or `"channels_first"` (inputs of shape
            `(batch, channels, spatial_dim1, spatial_dim2, spatial_dim3)`). `None` (the default) means
            `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 3 integers, the dilation rate
            of the (atrous) convolution. Defaults to `1`.
        activation: Activation function applied to the output. `None` (the
            default) applies none.
        use_bias: Whether to add a bias vector to the output. Defaults to
            `True`.
        kernel_initializer: Initializer for the convolution kernel. Defaults
            to `"glorot_uniform"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        kernel_regularizer: Optional regularizer for the convolution kernel.
            Defaults to `None`.
        bias_regularizer: Optional regularizer for the bias vector. Defaults
            to `None`.
        activity_regularizer: Optional regularizer applied to the output.
            Defaults to `None`.
        kernel_constraint: Optional projection function applied to the kernel
            after each optimizer update. Defaults to `None`.
        bias_constraint: Optional projection function applied to the bias
            after each optimizer update. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 5.

    Input shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, spatial_dim1, spatial_dim2, spatial_dim3, channels)`.
        If `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, channels, spatial_dim1, spatial_dim2, spatial_dim3)`.

    Output shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(batch_size, new_spatial_dim1, new_spatial_dim2, new_spatial_dim3, filters)`.
        If `data_format="channels_first"`: a 5D tensor with shape
        `(batch_size, filters, new_spatial_dim1, new_spatial_dim2, new_spatial_dim3)`.

    Raises:
        ValueError: If an argument is out of range (such as `strides > 1` with
            `dilation_rate > 1`, or `output_padding >= strides`), or
            the input does not have rank 5.

    Example:
        >>> layer = tfkit.layers.Conv3DTranspose(4, 3)
        >>> layer(np.ones((1, 3, 3, 3, 2))).shape
        TensorShape([1, 5, 5, 5, 4])
        >>> layer.kernel.shape
        TensorShape([3, 3, 3, 4, 2])
    """

    rank = 3


Convolution2DTranspose = Conv2DTranspose
SeparableConvolution2D = SeparableConv2D
