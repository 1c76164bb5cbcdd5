"""``MobileNetBackbone``: MobileNet (V3-style stem, depthwise block, inverted residual stacks), KerasHub's layout.

backbone = MobileNetBackbone(stackwise_expansion=[[16, 24]], stackwise_num_blocks=[2], ...)
features = backbone(images)                                # (batch, height / 2**k, width / 2**k, last_layer_filter)
"""

from __future__ import annotations

from typing import Any

from tfkit import config, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.mobilenet.mobilenet_layers import (
    BN_EPSILON,
    BN_MOMENTUM,
    ConvBnActBlock,
    DepthwiseConvBlock,
    InvertedResidualBlock,
    adjust_channels,
)
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MobileNetBackbone(Backbone):
    """MobileNet backbone: a lightweight CNN of depthwise separable and inverted residual blocks.

    "MobileNets" (Howard et al., 2017), "MobileNetV2" (Sandler et al.,
    2018) and "Searching for MobileNetV3" (Howard et al., 2019): a strided
    3x3 stem convolution, a depthwise separable block (`"block_0_0"`),
    stacks of inverted residual blocks (`"block_{i}_{j}"`, with optional
    squeeze and excite) and a final 1x1 convolution block (hard swish). The
    output is the last feature map. Layer and weight names are KerasHub's,
    so KerasHub's MobileNet presets load into it. As KerasHub's, it follows
    the global `image_data_format`.

    Args:
        stackwise_expansion: The expanded channels of each inverted residual
            block, one list per stack.
        stackwise_num_blocks: The number of inverted residual blocks per
            stack.
        stackwise_num_filters: The output channels of each block, one list
            per stack.
        stackwise_kernel_size: The depthwise kernel size of each block.
        stackwise_num_strides: The depthwise stride of each block.
        stackwise_se_ratio: The squeeze-and-excite ratio of each block, or
            `None` for none.
        stackwise_activation: The activation of each block.
        stackwise_padding: The zero padding of each block's depthwise
            convolution.
        output_num_filters: Kept in the config; unused, as in KerasHub.
        depthwise_filters: The output channels of the depthwise block.
        depthwise_stride: The stride of the depthwise block.
        depthwise_residual: Whether the depthwise block is residual.
        last_layer_filter: The channels of the final 1x1 convolution block.
        squeeze_and_excite: The depthwise block's squeeze-and-excite ratio,
            or `None` (the default) for none.
        image_shape: The input shape without the batch axis. Defaults to
            `(None, None, 3)`.
        input_activation: The stem's activation. Defaults to `"hard_swish"`.
        output_activation: Kept in the config; unused, as in KerasHub.
            Defaults to `"hard_swish"`.
        input_num_filters: The stem's channels (rounded by
            `adjust_channels`). Defaults to `16`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: Images of shape `image_shape` with a batch axis.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.MobileNetBackbone(stackwise_expansion=[[16, 24]],
        ...     stackwise_num_blocks=[2], stackwise_num_filters=[[8, 8]], stackwise_kernel_size=[[3, 3]],
        ...     stackwise_num_strides=[[2, 1]], stackwise_se_ratio=[[None, 0.25]],
        ...     stackwise_activation=[["relu", "hard_swish"]], stackwise_padding=[[1, 1]], output_num_filters=None,
        ...     depthwise_filters=8, depthwise_stride=1, depthwise_residual=False, last_layer_filter=16,
        ...     input_num_filters=8)
        >>> backbone(np.ones((2, 16, 16, 3))).shape
        TensorShape([2, 4, 4, 16])
    """

    def __init__(
        self,
        stackwise_expansion: Any,
        stackwise_num_blocks: Any,
        stackwise_num_filters: Any,
        stackwise_kernel_size: Any,
        stackwise_num_strides: Any,
        stackwise_se_ratio: Any,
        stackwise_activation: Any,
        stackwise_padding: Any,
        output_num_filters: Any,
        depthwise_filters: int,
        depthwise_stride: Any,
        depthwise_residual: bool,
        last_layer_filter: int,
        squeeze_and_excite: float | None = None,
        image_shape: Any = (None, None, 3),
        input_activation: Any = "hard_swish",
        output_activation: Any = "hard_swish",
        input_num_filters: int = 16,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        data_format = config.image_data_format()
        channel_axis = -1 if data_format == "channels_last" else 1
        input_num_filters = adjust_channels(input_num_filters)
        images = Input(shape=tuple(image_shape))
        x = layers.ZeroPadding2D(padding=(1, 1), name="input_pad", dtype=dtype)(images)
        x = layers.Conv2D(
            input_num_filters,
            kernel_size=3,
            strides=(2, 2),
            data_format=data_format,
            use_bias=False,
            name="input_conv",
            dtype=dtype,
        )(x)
        x = layers.BatchNormalization(
            axis=channel_axis, epsilon=BN_EPSILON, momentum=BN_MOMENTUM, name="input_batch_norm", dtype=dtype
        )(x)
        x = layers.Activation(input_activation, dtype=dtype)(x)
        x = DepthwiseConvBlock(
            input_num_filters,
            depthwise_filters,
            stride=depthwise_stride,
            squeeze_excite_ratio=squeeze_and_excite,
            residual=depthwise_residual,
            name="block_0",
            dtype=dtype,
        )(x)
        for stack, num_blocks in enumerate(stackwise_num_blocks):
            for index in range(num_blocks):
                x = InvertedResidualBlock(
                    expansion=stackwise_expansion[stack][index],
                    infilters=x.shape[channel_axis],
                    filters=adjust_channels(stackwise_num_filters[stack][index]),
                    kernel_size=stackwise_kernel_size[stack][index],
                    stride=stackwise_num_strides[stack][index],
                    squeeze_excite_ratio=stackwise_se_ratio[stack][index],
                    activation=stackwise_activation[stack][index],
                    padding=stackwise_padding[stack][index],
                    name=f"block_{stack + 1}_{index}",
                    dtype=dtype,
                )(x)
        x = ConvBnActBlock(
            filter=adjust_channels(last_layer_filter),
            activation="hard_swish",
            name=f"block_{len(stackwise_num_blocks) + 1}_0",
            dtype=dtype,
        )(x)
        super().__init__(inputs=images, outputs=x, dtype=dtype, **kwargs)
        self.input_num_filters = input_num_filters  # rounded, as KerasHub's config has it
