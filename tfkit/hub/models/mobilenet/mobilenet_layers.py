"""The blocks of ``MobileNetBackbone``: squeeze-and-excite, depthwise, inverted residual and conv-bn-act blocks.

    x = DepthwiseConvBlock(16, 8, stride=1, squeeze_excite_ratio=0.5, name="block_0")(x)   # named "block_0_0"
    x = InvertedResidualBlock(expansion=64, infilters=8, filters=16, kernel_size=3, stride=2,
                              squeeze_excite_ratio=0.25, activation="hard_swish", padding=1, name="block_1_0")(x)

Sub-layers are made in the constructor under KerasHub's attribute names (``conv1``, ``batch_normalization1``,
``se_layer``, ``squeeze_excite``, ``conv_reduce``, ...) and layer names, so KerasHub's MobileNet weight files
load. As KerasHub's, the blocks follow the global ``image_data_format``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, config
from tfkit.engine.layer import Layer
from tfkit.layers import Activation, BatchNormalization, Conv2D, ReLU, ZeroPadding2D

BN_EPSILON = 1e-5
BN_MOMENTUM = 0.9


def adjust_channels(x: float, divisor: int = 8, min_value: int | None = None) -> int:
    """``x`` rounded to a multiple of ``divisor`` (at least ``min_value``, and not below 90% of ``x``).

    Example:
        >>> from tfkit.hub.models.mobilenet.mobilenet_layers import adjust_channels
        >>> adjust_channels(20), adjust_channels(4), adjust_channels(0.25 * 72)
        (24, 8, 24)
    """
    min_value = divisor if min_value is None else min_value
    adjusted = max(min_value, int(x + divisor / 2) // divisor * divisor)
    return adjusted + divisor if adjusted < 0.9 * x else adjusted


def _channel_axis() -> int:
    return -1 if config.image_data_format() == "channels_last" else 1


def _batch_norm(name: str, dtype: Any) -> BatchNormalization:
    return BatchNormalization(axis=_channel_axis(), epsilon=BN_EPSILON, momentum=BN_MOMENTUM, name=name, dtype=dtype)


def _conv(filters: int, kernel_size: Any, name: str, dtype: Any, **kwargs: Any) -> Conv2D:
    return Conv2D(
        filters, kernel_size, data_format=config.image_data_format(), use_bias=False, name=name, dtype=dtype, **kwargs
    )


class _SequentialBlock(Layer):
    """Builds its sub-layers (``_chain``, in call order, ``None`` skipped) one after another, as KerasHub's blocks."""

    def _chain(self) -> list:
        raise NotImplementedError

    def build(self, input_shape: Any) -> None:
        for layer in self._chain():
            if layer is not None:
                layer.build(input_shape)
                input_shape = layer.compute_output_shape(input_shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        for layer in self._chain():
            if layer is not None:
                input_shape = layer.compute_output_shape(input_shape)
        return input_shape


class SqueezeAndExcite2D(Layer):
    """Squeeze and excite: the mean over space, two 1x1 convolutions, and the input scaled by the resulting gate.

    Args:
        filters: The number of input (and output) channels.
        bottleneck_filters: The channels of the squeeze convolution.
        squeeze_activation: The activation after the squeeze. Defaults to
            `"relu"`.
        excite_activation: The gate's activation. Defaults to `"sigmoid"`.
        name: The layer's name (and its convolutions' prefix).
        dtype: The dtype policy. Defaults to `None` (global).
        **kwargs: Base layer keyword arguments.

    Example:
        >>> from tfkit.hub.models.mobilenet.mobilenet_layers import SqueezeAndExcite2D
        >>> SqueezeAndExcite2D(8, 4, name="se")(np.ones((1, 4, 4, 8))).shape
        TensorShape([1, 4, 4, 8])
    """

    def __init__(
        self,
        filters: int,
        bottleneck_filters: int | None = None,
        squeeze_activation: Any = "relu",
        excite_activation: Any = "sigmoid",
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.filters = filters
        self.bottleneck_filters = bottleneck_filters
        self.squeeze_activation = squeeze_activation
        self.excite_activation = excite_activation
        self.spatial_dims = (1, 2) if config.image_data_format() == "channels_last" else (2, 3)
        fmt = config.image_data_format()
        self.conv_reduce = Conv2D(bottleneck_filters, 1, data_format=fmt, name=f"{name}_conv_reduce", dtype=dtype)
        self.activation1 = Activation(squeeze_activation, name=f"{name}squeeze_activation", dtype=dtype)
        self.conv_expand = Conv2D(filters, 1, data_format=fmt, name=f"{name}_conv_expand", dtype=dtype)
        self.gate = Activation(excite_activation, name=f"{name}excite_activation", dtype=dtype)

    def build(self, input_shape: Any) -> None:
        for layer in (self.conv_reduce, self.activation1, self.conv_expand, self.gate):
            layer.build(input_shape)
            input_shape = layer.compute_output_shape(input_shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        x = tf.reduce_mean(inputs, axis=self.spatial_dims, keepdims=True)
        return inputs * self.gate(self.conv_expand(self.activation1(self.conv_reduce(x))))


class DepthwiseConvBlock(_SequentialBlock):
    """Depthwise 3x3 convolution, batch norm, ReLU, optional squeeze and excite, 1x1 convolution, batch norm.

    Args:
        infilters: The input channels (the depthwise convolution's groups).
        filters: The output channels.
        kernel_size: The depthwise kernel size. Defaults to `3`.
        stride: The depthwise stride. Defaults to `2`.
        squeeze_excite_ratio: The squeeze-and-excite ratio, or `None` (the
            default) for none.
        residual: Whether to add the input to the output. Defaults to `False`.
        name: The name prefix; the layer is named `f"{name}_0"`, as KerasHub's.
        dtype: The dtype policy. Defaults to `None` (global).
        **kwargs: Base layer keyword arguments.

    Example:
        >>> from tfkit.hub.models.mobilenet.mobilenet_layers import DepthwiseConvBlock
        >>> DepthwiseConvBlock(8, 16, stride=2, name="block_0")(np.ones((1, 8, 8, 8))).shape
        TensorShape([1, 4, 4, 16])
    """

    def __init__(
        self,
        infilters: int,
        filters: int,
        kernel_size: Any = 3,
        stride: Any = 2,
        squeeze_excite_ratio: float | None = None,
        residual: bool = False,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        name = f"{name}_0"
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.infilters = infilters
        self.filters = filters
        self.kernel_size = kernel_size
        self.stride = stride
        self.squeeze_excite_ratio = squeeze_excite_ratio
        self.residual = residual
        self.pad = ZeroPadding2D(padding=(1, 1), name=f"{name}_pad", dtype=dtype)
        self.conv1 = _conv(infilters, kernel_size, f"{name}_conv1", dtype, strides=stride, groups=infilters)
        self.batch_normalization1 = _batch_norm(f"{name}_bn1", dtype)
        self.activation1 = ReLU(dtype=dtype)
        if squeeze_excite_ratio:
            self.se_layer = SqueezeAndExcite2D(
                filters=infilters,
                bottleneck_filters=adjust_channels(infilters * squeeze_excite_ratio),
                squeeze_activation="relu",
                excite_activation=activations.hard_sigmoid,
                name=f"{name}_squeeze_excite",
                dtype=dtype,
            )
        self.conv2 = _conv(filters, 1, f"{name}_conv2", dtype)
        self.batch_normalization2 = _batch_norm(f"{name}_bn2", dtype)

    def _chain(self) -> list:
        se_layer = self.se_layer if self.squeeze_excite_ratio else None
        return [
            self.pad,
            self.conv1,
            self.batch_normalization1,
            self.activation1,
            se_layer,
            self.conv2,
            self.batch_normalization2,
        ]

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        x = self.activation1(self.batch_normalization1(self.conv1(self.pad(inputs)), training=training))
        if self.squeeze_excite_ratio:
            x = self.se_layer(x)
        x = self.batch_normalization2(self.conv2(x), training=training)
        return x + inputs if self.residual else x


class InvertedResidualBlock(_SequentialBlock):
    """1x1 expansion, depthwise convolution, optional squeeze and excite, 1x1 projection; residual when shapes allow.

    Args:
        expansion: The expanded channels (rounded by `adjust_channels`).
        infilters: The input channels.
        filters: The output channels.
        kernel_size: The depthwise kernel size.
        stride: The depthwise stride.
        squeeze_excite_ratio: The squeeze-and-excite ratio, or `None`/`0` for
            none.
        activation: The activation after the expansion and the depthwise
            convolution.
        padding: The zero padding before the depthwise convolution.
        name: The layer's name (and its sub-layers' prefix).
        dtype: The dtype policy. Defaults to `None` (global).
        **kwargs: Base layer keyword arguments.

    Example:
        >>> from tfkit.hub.models.mobilenet.mobilenet_layers import InvertedResidualBlock
        >>> block = InvertedResidualBlock(32, 8, 8, kernel_size=3, stride=1, squeeze_excite_ratio=0.25,
        ...     activation="hard_swish", padding=1, name="block_1_0")
        >>> block(np.ones((1, 8, 8, 8))).shape
        TensorShape([1, 8, 8, 8])
    """

    def __init__(
        self,
        expansion: int,
        infilters: int,
        filters: int,
        kernel_size: Any,
        stride: Any,
        squeeze_excite_ratio: float | None,
        activation: Any,
        padding: int,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.expansion = expansion
        self.infilters = infilters
        self.filters = filters
        self.kernel_size = kernel_size
        self.stride = stride
        self.squeeze_excite_ratio = squeeze_excite_ratio
        self.activation = activation
        self.padding = padding
        expanded = adjust_channels(expansion)
        self.conv1 = _conv(expanded, 1, f"{name}_conv1", dtype)
        self.batch_normalization1 = _batch_norm(f"{name}_bn1", dtype)
        self.activation1 = Activation(activation, dtype=dtype)
        self.pad = ZeroPadding2D(padding=(padding, padding), name=f"{name}_pad", dtype=dtype)
        self.conv2 = _conv(expanded, kernel_size, f"{name}_conv2", dtype, strides=stride, groups=expanded)
        self.batch_normalization2 = _batch_norm(f"{name}_bn2", dtype)
        self.activation2 = Activation(activation, dtype=dtype)
        self.squeeze_excite = None
        if squeeze_excite_ratio:
            self.squeeze_excite = SqueezeAndExcite2D(
                filters=expanded,
                bottleneck_filters=adjust_channels(expanded * squeeze_excite_ratio),
                squeeze_activation="relu",
                excite_activation=activations.hard_sigmoid,
                name=f"{name}_se",
                dtype=dtype,
            )
        self.conv3 = _conv(filters, 1, f"{name}_conv3", dtype)
        self.batch_normalization3 = _batch_norm(f"{name}_bn3", dtype)

    def _chain(self) -> list:
        return [
            self.conv1,
            self.batch_normalization1,
            self.activation1,
            self.pad,
            self.conv2,
            self.batch_normalization2,
            self.activation2,
            self.squeeze_excite,
            self.conv3,
            self.batch_normalization3,
        ]

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        x = self.activation1(self.batch_normalization1(self.conv1(inputs), training=training))
        x = self.activation2(self.batch_normalization2(self.conv2(self.pad(x)), training=training))
        if self.squeeze_excite is not None:
            x = self.squeeze_excite(x)
        x = self.batch_normalization3(self.conv3(x), training=training)
        return inputs + x if self.stride == 1 and self.infilters == self.filters else x


class ConvBnActBlock(_SequentialBlock):
    """A 1x1 convolution, batch norm and activation.

    Args:
        filter: The output channels.
        activation: The activation.
        name: The layer's name (and its sub-layers' prefix).
        dtype: The dtype policy. Defaults to `None` (global).
        **kwargs: Base layer keyword arguments.

    Example:
        >>> from tfkit.hub.models.mobilenet.mobilenet_layers import ConvBnActBlock
        >>> ConvBnActBlock(16, "hard_swish", name="block_3_0")(np.ones((1, 4, 4, 8))).shape
        TensorShape([1, 4, 4, 16])
    """

    def __init__(self, filter: int, activation: Any, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.filter = filter
        self.activation = activation
        self.conv = _conv(filter, 1, f"{name}_conv", dtype)
        self.batch_normalization = _batch_norm(f"{name}_bn", dtype)
        self.activation_layer = Activation(activation, dtype=dtype)

    def _chain(self) -> list:
        return [self.conv, self.batch_normalization, self.activation_layer]

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        return self.activation_layer(self.batch_normalization(self.conv(inputs), training=training))
