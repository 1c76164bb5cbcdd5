"""``ResNetBackbone``: ResNet (v1), ResNetV2 (pre-activation) and ResNet_vd, KerasHub's functional layout.

backbone = ResNetBackbone(input_conv_filters=[64], input_conv_kernel_sizes=[7], stackwise_num_filters=[64, 128],
                          stackwise_num_blocks=[2, 2], stackwise_num_strides=[1, 2], block_type="basic_block")
features = backbone(images)                                # (batch, height / 8, width / 8, 128)
backbone.pyramid_outputs                                   # {"P2": ..., "P3": ...}: each stack's output
"""

from __future__ import annotations

from typing import Any

from tfkit import layers, ops
from tfkit.base.data_format import standardize_data_format
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.resnet.resnet_blocks import BLOCK_TYPES, apply_stack, batch_norm
from tfkit.saving import register_keras_serializable


def _check_arguments(
    input_conv_filters: Any,
    input_conv_kernel_sizes: Any,
    stackwise_num_filters: Any,
    stackwise_num_blocks: Any,
    stackwise_num_strides: Any,
    block_type: str,
) -> None:
    if len(input_conv_filters) != len(input_conv_kernel_sizes):
        raise ValueError(
            f"ResNetBackbone: input_conv_filters and input_conv_kernel_sizes must have the same length, got "
            f"{input_conv_filters} and {input_conv_kernel_sizes}"
        )
    stackwise = (stackwise_num_filters, stackwise_num_blocks, stackwise_num_strides)
    if len({len(values) for values in stackwise}) != 1:
        raise ValueError(
            f"ResNetBackbone: stackwise_num_filters, stackwise_num_blocks and stackwise_num_strides must have the "
            f"same length, got {stackwise_num_filters}, {stackwise_num_blocks} and {stackwise_num_strides}"
        )
    if stackwise_num_filters[0] != 64:
        raise ValueError(f"ResNetBackbone: stackwise_num_filters must start with 64, got {stackwise_num_filters}")
    if block_type not in BLOCK_TYPES:
        raise ValueError(f"ResNetBackbone: block_type must be one of {', '.join(BLOCK_TYPES)}, got {block_type!r}")


@register_keras_serializable(package="keras_hub")
class ResNetBackbone(Backbone):
    """ResNet and ResNetV2 core network with hyperparameters.

    "Deep Residual Learning for Image Recognition" (He et al., 2015), its
    pre-activation variant ResNetV2 (`use_pre_activation=True`: batch norm
    and ReLU before each block's convolutions, one more after the last
    stack) and ResNet_vd (`"_vd"` block types: the stem may have several
    convolutions and strided shortcuts average-pool before a 1x1
    convolution). The stem convolves with stride 2 and max-pools with stride
    2; then each stack of residual blocks follows. The output is the last
    feature map; `pyramid_outputs` holds each stack's output (`"P2"`,
    `"P3"`, ...). Layer and weight names are KerasHub's, so KerasHub's ResNet
    presets load into it.

    Args:
        input_conv_filters: The filters of the stem's convolution(s).
        input_conv_kernel_sizes: The kernel sizes of the stem's
            convolution(s), one per filter count.
        stackwise_num_filters: The filters of each stack's blocks; the first
            must be `64`.
        stackwise_num_blocks: The number of blocks of each stack.
        stackwise_num_strides: The stride of each stack's first block.
        block_type: `"basic_block"` (ResNet18 and 34), `"bottleneck_block"`
            (ResNet50 and up), `"basic_block_vd"` or `"bottleneck_block_vd"`.
        use_pre_activation: `True` for ResNetV2, `False` (the default) for
            ResNet.
        image_shape: The input shape without the batch axis. Defaults to
            `(None, None, 3)`.
        data_format: `"channels_last"` or `"channels_first"`; `None` (the
            default) means `tfkit.config.image_data_format()`. Unlike
            KerasHub's, tfkit's config keeps it.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: Images of shape `image_shape` with a batch axis.

    Raises:
        ValueError: If the argument lists' lengths differ, the first stack
            does not have 64 filters, or `block_type` is unknown.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.ResNetBackbone(input_conv_filters=[8], input_conv_kernel_sizes=[3],
        ...     stackwise_num_filters=[64, 8], stackwise_num_blocks=[1, 1], stackwise_num_strides=[1, 2],
        ...     block_type="basic_block_vd")
        >>> backbone(np.ones((2, 32, 32, 3))).shape
        TensorShape([2, 4, 4, 8])
        >>> sorted(backbone.pyramid_outputs)
        ['P2', 'P3']
    """

    def __init__(
        self,
        input_conv_filters: Any,
        input_conv_kernel_sizes: Any,
        stackwise_num_filters: Any,
        stackwise_num_blocks: Any,
        stackwise_num_strides: Any,
        block_type: str,
        use_pre_activation: bool = False,
        image_shape: Any = (None, None, 3),
        data_format: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        _check_arguments(
            input_conv_filters,
            input_conv_kernel_sizes,
            stackwise_num_filters,
            stackwise_num_blocks,
            stackwise_num_strides,
            block_type,
        )
        data_format = standardize_data_format(data_format, "ResNetBackbone")
        num_input_convs = len(input_conv_filters)
        images = Input(shape=tuple(image_shape))
        x = layers.ZeroPadding2D(
            (input_conv_kernel_sizes[0] - 1) // 2, data_format=data_format, dtype=dtype, name="conv1_pad"
        )(images)
        x = layers.Conv2D(
            input_conv_filters[0],
            input_conv_kernel_sizes[0],
            strides=2,
            data_format=data_format,
            use_bias=False,
            dtype=dtype,
            name="conv1_conv",
        )(x)
        for index in range(1, num_input_convs):
            x = batch_norm(x, data_format, dtype, f"conv{index}_bn")
            x = layers.Activation("relu", dtype=dtype, name=f"conv{index}_relu")(x)
            x = layers.Conv2D(
                input_conv_filters[index],
                input_conv_kernel_sizes[index],
                padding="same",
                data_format=data_format,
                use_bias=False,
                dtype=dtype,
                name=f"conv{index + 1}_conv",
            )(x)
        if use_pre_activation:  # ResNetV2 max-pools the raw convolution: pad with -inf, not zeros
            spatial = [[1, 1], [1, 1]]
            pad_width = [[0, 0]] + (spatial + [[0, 0]] if data_format == "channels_last" else [[0, 0]] + spatial)
            x = ops.pad(x, pad_width, constant_values=float("-inf"))
        else:
            x = batch_norm(x, data_format, dtype, f"conv{num_input_convs}_bn")
            x = layers.Activation("relu", dtype=dtype, name=f"conv{num_input_convs}_relu")(x)
            x = layers.ZeroPadding2D(1, data_format=data_format, dtype=dtype, name="pool1_pad")(x)
        x = layers.MaxPooling2D(3, strides=2, data_format=data_format, dtype=dtype, name="pool1_pool")(x)

        pyramid_outputs = {}
        for index, (filters, blocks, stride) in enumerate(
            zip(stackwise_num_filters, stackwise_num_blocks, stackwise_num_strides)
        ):
            x = apply_stack(
                x,
                filters,
                blocks,
                stride,
                block_type,
                use_pre_activation,
                first_shortcut=block_type != "basic_block" or index > 0,
                data_format=data_format,
                dtype=dtype,
                name=f"stack{index}",
            )
            pyramid_outputs[f"P{index + 2}"] = x
        if use_pre_activation:
            x = batch_norm(x, data_format, dtype, "post_bn")
            x = layers.Activation("relu", dtype=dtype, name="post_relu")(x)
        super().__init__(inputs=images, outputs=x, dtype=dtype, **kwargs)
        self.data_format = data_format  # the format resolved: the config says what was built
        self.pyramid_outputs = pyramid_outputs
