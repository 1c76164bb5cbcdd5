"""The blocks of ``EfficientNetBackbone`` V2 stacks: MBConv (``"unfused"``), FusedMBConv (``"fused"``), conv-BN-act (``"cba"``).

    x = FusedMBConvBlock(input_filters=24, output_filters=48, expand_ratio=4, strides=2, name="block2a_")(x)
    x = MBConvBlock(input_filters=64, output_filters=128, expand_ratio=4, se_ratio=0.25, name="block4a_")(x)

Sub-layers are made in the constructors under KerasHub's attribute names (``conv1``, ``bn1``, ``depthwise``,
``se_conv1``, ``output_conv``, ...) and layer names (the block's name, ``"block2a_"``, then ``"expand_conv"``...),
and built as KerasHub's first call builds them (an MBConv block without expansion has no ``conv1`` weights, a
block without squeeze and excite no ``se_conv*`` ones), so KerasHub's EfficientNet weight files load. As
KerasHub's, the blocks normalize the last axis: they work on channels-last feature maps.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.hub.layers.declared_config import DeclaredLayer
from tfkit.layers import Activation, BatchNormalization, Conv2D, DepthwiseConv2D, Dropout, ZeroPadding2D


def conv_kernel_initializer() -> initializers.Initializer:
    """EfficientNet's convolution initializer: variance scaling (2.0, fan out, truncated normal).

    Example:
        >>> from tfkit.hub.models.efficientnet.efficientnet_blocks import conv_kernel_initializer
        >>> conv_kernel_initializer().get_config()["mode"]
        'fan_out'
    """
    return initializers.VarianceScaling(scale=2.0, mode="fan_out", distribution="truncated_normal")


class _EfficientNetBlock(DeclaredLayer):
    """What the three blocks share: their arguments (declared by each block's signature, kept as attributes and
    config keys), the layer factories, squeeze and excite, the residual."""

    def _conv(self, filters: int, kernel_size: int, suffix: str, **kwargs: Any) -> Conv2D:
        kwargs = {"padding": "valid", "use_bias": False, **kwargs}
        return Conv2D(
            filters,
            kernel_size,
            data_format=self.data_format,
            kernel_initializer=conv_kernel_initializer(),
            dtype=self.dtype_policy,
            name=self.name + suffix,
            **kwargs,
        )

    def _batch_norm(self, suffix: str) -> BatchNormalization:
        return BatchNormalization(
            axis=3,
            momentum=self.batch_norm_momentum,
            epsilon=self.batch_norm_epsilon,
            dtype=self.dtype_policy,
            name=self.name + suffix,
        )

    def _padding(self, kernel_size: int, suffix: str) -> ZeroPadding2D:
        pixels = kernel_size // 2
        return ZeroPadding2D(padding=(pixels, pixels), dtype=self.dtype_policy, name=self.name + suffix)

    def _squeeze_excite_layers(self, filters: int, se_ratio: float) -> None:
        squeezed = max(1, int(self.input_filters * se_ratio))
        self.se_conv1 = self._conv(squeezed, 1, "se_reduce", padding="same", use_bias=True, activation=self.activation)
        self.se_conv2 = self._conv(filters, 1, "se_expand", padding="same", use_bias=True, activation="sigmoid")

    def _dropout_layer(self) -> None:
        if self.dropout:
            self.dropout_layer = Dropout(
                self.dropout, noise_shape=(None, 1, 1, 1), dtype=self.dtype_policy, name=self.name + "drop"
            )

    @staticmethod
    def _build_chain(layers: list, input_shape: Any) -> Any:
        for layer in layers:
            layer.build(input_shape)
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def _build_squeeze_excite(self, input_shape: Any, filters: int) -> None:
        self._build_chain([self.se_conv1, self.se_conv2], (None, 1, 1, filters))

    def _squeeze_excite(self, x: tf.Tensor) -> tf.Tensor:
        return x * self.se_conv2(self.se_conv1(tf.reduce_mean(x, axis=(1, 2), keepdims=True)))

    def _residual(self, x: tf.Tensor, inputs: tf.Tensor, training: Any) -> tf.Tensor:
        if self.strides == 1 and self.input_filters == self.output_filters and not self.nores:
            if self.dropout:
                x = self.dropout_layer(x, training=training)
            x = x + inputs
        return x


class MBConvBlock(_EfficientNetBlock):
    """Mobile inverted bottleneck: 1x1 expansion, depthwise convolution, squeeze and excite, 1x1 projection.

    "MobileNetV2: Inverted Residuals and Linear Bottlenecks" (Sandler et al.,
    2018). The expansion is skipped when `expand_ratio` is 1 (the projection
    then has the depthwise kernel's size); the input is added back when the
    block keeps the shape and `nores` is `False`, after dropout.

    Args:
        input_filters: The input channels.
        output_filters: The output channels.
        expand_ratio: The expansion factor of the channels. Defaults to `1`.
        kernel_size: The depthwise kernel size. Defaults to `3`.
        strides: The depthwise stride. Defaults to `1`.
        data_format: The convolutions' data format. Defaults to
            `"channels_last"`.
        se_ratio: The squeeze-and-excite ratio (of `input_filters`); `0` (the
            default) for none.
        batch_norm_momentum: The batch norms' momentum. Defaults to `0.9`.
        batch_norm_epsilon: The batch norms' epsilon. Defaults to `1e-3`.
        activation: The activation. Defaults to `"swish"`.
        dropout: The dropout rate of the residual branch. Defaults to `0.2`.
        nores: Whether to leave out the residual connection. Defaults to
            `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.efficientnet.efficientnet_blocks import MBConvBlock
        >>> MBConvBlock(8, 16, expand_ratio=4, strides=2, se_ratio=0.25, name="block3a_")(np.ones((1, 8, 8, 8))).shape
        TensorShape([1, 4, 4, 16])
    """

    def __init__(
        self,
        input_filters: int,
        output_filters: int,
        expand_ratio: int = 1,
        kernel_size: int = 3,
        strides: int = 1,
        data_format: str = "channels_last",
        se_ratio: float = 0.0,
        batch_norm_momentum: float = 0.9,
        batch_norm_epsilon: float = 1e-3,
        activation: Any = "swish",
        dropout: float = 0.2,
        nores: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.filters = input_filters * expand_ratio
        self.conv1 = self._conv(self.filters, 1, "expand_conv", padding="same")
        self.bn1 = self._batch_norm("expand_bn")
        self.act = Activation(activation, dtype=self.dtype_policy, name=self.name + "activation")
        self.depthwise = DepthwiseConv2D(
            kernel_size,
            strides=strides,
            padding="same",
            data_format=data_format,
            use_bias=False,
            depthwise_initializer=conv_kernel_initializer(),
            dtype=self.dtype_policy,
            name=self.name + "dwconv2",
        )
        self.bn2 = self._batch_norm("bn")
        self._squeeze_excite_layers(self.filters, se_ratio)
        projection_kernel_size = 1 if expand_ratio != 1 else kernel_size
        self.output_conv_pad = self._padding(projection_kernel_size, "project_conv_pad")
        self.output_conv = self._conv(output_filters, projection_kernel_size, "project_conv")
        self.bn3 = self._batch_norm("project_bn")
        self._dropout_layer()

    def build(self, input_shape: Any) -> None:
        shape = self._build_chain([self.conv1, self.bn1], input_shape) if self.expand_ratio != 1 else input_shape
        shape = self._build_chain([self.depthwise, self.bn2], shape)
        if 0 < self.se_ratio <= 1:
            self._build_squeeze_excite(shape, self.filters)
        self._build_chain([self.output_conv_pad, self.output_conv, self.bn3], shape)

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        x = inputs
        if self.expand_ratio != 1:
            x = self.act(self.bn1(self.conv1(x), training=training))
        x = self.act(self.bn2(self.depthwise(x), training=training))
        if 0 < self.se_ratio <= 1:
            x = self._squeeze_excite(x)
        x = self.bn3(self.output_conv(self.output_conv_pad(x)), training=training)
        return self._residual(x, inputs, training)


class FusedMBConvBlock(_EfficientNetBlock):
    """Fused mobile inverted bottleneck: one strided k x k expansion convolution, squeeze and excite, 1x1 projection.

    "EfficientNetV2: Smaller Models and Faster Training" (Tan and Le, 2021):
    MBConv's expansion and depthwise convolutions fused into one. The
    projection's activation applies only when `expand_ratio` is 1, as
    KerasHub's.

    Args:
        input_filters: The input channels.
        output_filters: The output channels.
        expand_ratio: The expansion factor of the channels. Defaults to `1`.
        kernel_size: The expansion kernel size. Defaults to `3`.
        strides: The expansion stride. Defaults to `1`.
        data_format: The convolutions' data format. Defaults to
            `"channels_last"`.
        se_ratio: The squeeze-and-excite ratio (of `input_filters`); `0` (the
            default) for none.
        batch_norm_momentum: The batch norms' momentum. Defaults to `0.9`.
        batch_norm_epsilon: The batch norms' epsilon. Defaults to `1e-3`.
        activation: The activation. Defaults to `"swish"`.
        projection_activation: The projection's activation, or `None` (the
            default).
        dropout: The dropout rate of the residual branch. Defaults to `0.2`.
        nores: Whether to leave out the residual connection. Defaults to
            `False`.
        projection_kernel_size: The projection's kernel size. Defaults to `1`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.efficientnet.efficientnet_blocks import FusedMBConvBlock
        >>> FusedMBConvBlock(8, 8, expand_ratio=4, name="block2a_")(np.ones((1, 8, 8, 8))).shape
        TensorShape([1, 8, 8, 8])
    """

    def __init__(
        self,
        input_filters: int,
        output_filters: int,
        expand_ratio: int = 1,
        kernel_size: int = 3,
        strides: int = 1,
        data_format: str = "channels_last",
        se_ratio: float = 0.0,
        batch_norm_momentum: float = 0.9,
        batch_norm_epsilon: float = 1e-3,
        activation: Any = "swish",
        projection_activation: Any = None,
        dropout: float = 0.2,
        nores: bool = False,
        projection_kernel_size: int = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.filters = input_filters * expand_ratio
        self.conv1_pad = self._padding(kernel_size, "expand_conv_pad")
        self.conv1 = self._conv(self.filters, kernel_size, "expand_conv", strides=strides)
        self.bn1 = self._batch_norm("expand_bn")
        self.act = Activation(activation, dtype=self.dtype_policy, name=self.name + "expand_activation")
        self._squeeze_excite_layers(self.filters, se_ratio)
        self.output_conv_pad = self._padding(projection_kernel_size, "project_conv_pad")
        self.output_conv = self._conv(output_filters, projection_kernel_size, "project_conv")
        self.bn2 = self._batch_norm("project_bn")
        if projection_activation:
            self.projection_act = Activation(
                projection_activation, dtype=self.dtype_policy, name=self.name + "projection_act"
            )
        self._dropout_layer()

    def build(self, input_shape: Any) -> None:
        shape = self._build_chain([self.conv1_pad, self.conv1, self.bn1], input_shape)
        if 0 < self.se_ratio <= 1:
            self._build_squeeze_excite(shape, self.filters)
        self._build_chain([self.output_conv_pad, self.output_conv, self.bn2], shape)

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        x = self.act(self.bn1(self.conv1(self.conv1_pad(inputs)), training=training))
        if 0 < self.se_ratio <= 1:
            x = self._squeeze_excite(x)
        x = self.bn2(self.output_conv(self.output_conv_pad(x)), training=training)
        if self.expand_ratio == 1 and self.projection_activation:
            x = self.projection_act(x)
        return self._residual(x, inputs, training)


class CBABlock(_EfficientNetBlock):
    """A k x k convolution, batch norm and activation, with a residual connection when the shape is kept.

    Args:
        input_filters: The input channels.
        output_filters: The output channels.
        kernel_size: The kernel size. Defaults to `3`.
        strides: The stride. Defaults to `1`.
        data_format: The convolution's data format. Defaults to
            `"channels_last"`.
        batch_norm_momentum: The batch norm's momentum. Defaults to `0.9`.
        batch_norm_epsilon: The batch norm's epsilon. Defaults to `1e-3`.
        activation: The activation. Defaults to `"swish"`.
        dropout: The dropout rate of the residual branch. Defaults to `0.2`.
        nores: Whether to leave out the residual connection. Defaults to
            `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.efficientnet.efficientnet_blocks import CBABlock
        >>> CBABlock(8, 16, strides=2, name="block1a_")(np.ones((1, 8, 8, 8))).shape
        TensorShape([1, 4, 4, 16])
    """

    def __init__(
        self,
        input_filters: int,
        output_filters: int,
        kernel_size: int = 3,
        strides: int = 1,
        data_format: str = "channels_last",
        batch_norm_momentum: float = 0.9,
        batch_norm_epsilon: float = 1e-3,
        activation: Any = "swish",
        dropout: float = 0.2,
        nores: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.conv1_pad = self._padding(kernel_size, "conv_pad")
        self.conv1 = self._conv(output_filters, kernel_size, "conv", strides=strides)
        self.bn1 = self._batch_norm("bn")
        self.act = Activation(activation, dtype=self.dtype_policy, name=self.name + "activation")
        self._dropout_layer()

    def build(self, input_shape: Any) -> None:
        self._build_chain([self.conv1_pad, self.conv1, self.bn1], input_shape)

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        x = self.act(self.bn1(self.conv1(self.conv1_pad(inputs)), training=training))
        return self._residual(x, inputs, training)
