"""``EfficientNetBackbone``: EfficientNet V1 and V2 (MBConv, FusedMBConv and conv-BN-act stacks), KerasHub's layout.

backbone = EfficientNetBackbone(stackwise_width_coefficients=[1.0] * 7, stackwise_depth_coefficients=[1.0] * 7,
                                stackwise_block_types=["v1"] * 7, ...)
features = backbone(images)                  # (batch, height / 32, width / 32, round_filters(num_features))
backbone.pyramid_outputs                     # {"P1": ..., "P2": ...}: the feature map before each strided block
"""

from __future__ import annotations

import math
from typing import Any

from tfkit import layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.efficientnet.efficientnet_blocks import (
    CBABlock,
    FusedMBConvBlock,
    MBConvBlock,
    conv_kernel_initializer,
)
from tfkit.saving import register_keras_serializable

BLOCKS = {"unfused": MBConvBlock, "fused": FusedMBConvBlock, "cba": CBABlock}


def round_filters(
    filters: float,
    width_coefficient: float,
    min_depth: int,
    depth_divisor: int,
    use_depth_divisor_as_min_depth: bool,
    cap_round_filter_decrease: bool,
) -> int:
    """`filters` scaled by `width_coefficient`, rounded to a multiple of `depth_divisor` (at least `min_depth`).

    Example:
        >>> from tfkit.hub.models.efficientnet.efficientnet_backbone import round_filters
        >>> round_filters(32, 1.1, 8, 8, False, False), round_filters(1280, 0.25, 8, 8, False, False)
        (32, 320)
    """
    filters *= width_coefficient
    min_depth = depth_divisor if use_depth_divisor_as_min_depth else min_depth
    rounded = max(min_depth, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor)
    if cap_round_filter_decrease and rounded < 0.9 * filters:
        rounded += depth_divisor
    return int(rounded)


def round_repeats(repeats: int, depth_coefficient: float) -> int:
    """The number of blocks of a stack scaled by `depth_coefficient`, rounded up.

    Example:
        >>> from tfkit.hub.models.efficientnet.efficientnet_backbone import round_repeats
        >>> round_repeats(3, 1.2)
        4
    """
    return int(math.ceil(depth_coefficient * repeats))


def _v1_block(
    x: Any,
    filters_in: int,
    filters_out: int,
    kernel_size: int,
    strides: int,
    activation: Any,
    projection_activation: Any,
    expand_ratio: int,
    se_ratio: float,
    dropout: float,
    batch_norm_epsilon: float,
    name: str,
    data_format: str,
    dtype: Any,
) -> Any:
    """EfficientNet V1's inverted residual block, as layers of the backbone's graph (KerasHub's names)."""
    inputs, filters = x, filters_in * expand_ratio
    conv = {"use_bias": False, "kernel_initializer": conv_kernel_initializer(), "dtype": dtype}

    def batch_norm(suffix: str) -> layers.BatchNormalization:  # KerasHub's V1 blocks keep Keras's momentum
        return layers.BatchNormalization(axis=3, epsilon=batch_norm_epsilon, dtype=dtype, name=name + suffix)

    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", data_format=data_format, name=name + "expand_conv", **conv)(x)
        x = batch_norm("expand_bn")(x)
        x = layers.Activation(activation, dtype=dtype, name=name + "expand_activation")(x)
    pixels = kernel_size // 2
    x = layers.ZeroPadding2D(padding=(pixels, pixels), dtype=dtype, name=name + "dwconv_pad")(x)
    x = layers.DepthwiseConv2D(
        kernel_size,
        strides=strides,
        padding="valid",
        data_format=data_format,
        use_bias=False,
        depthwise_initializer=conv_kernel_initializer(),
        dtype=dtype,
        name=name + "dwconv",
    )(x)
    x = batch_norm("dwconv_bn")(x)
    x = layers.Activation(activation, dtype=dtype, name=name + "dwconv_activation")(x)
    if 0 < se_ratio <= 1:
        se = layers.GlobalAveragePooling2D(dtype=dtype, name=name + "se_squeeze")(x)
        se = layers.Reshape((1, 1, filters), dtype=dtype, name=name + "se_reshape")(se)
        excite = {"padding": "same", "data_format": data_format, "dtype": dtype}
        excite["kernel_initializer"] = conv_kernel_initializer()
        se = layers.Conv2D(
            max(1, int(filters_in * se_ratio)), 1, activation=activation, name=name + "se_reduce", **excite
        )(se)
        se = layers.Conv2D(filters, 1, activation="sigmoid", name=name + "se_expand", **excite)(se)
        x = layers.Multiply(dtype=dtype, name=name + "se_excite")([x, se])
    x = layers.Conv2D(filters_out, 1, padding="same", name=name + "project", **conv)(x)
    x = batch_norm("project_bn")(x)
    if projection_activation:
        x = layers.Activation(projection_activation, dtype=dtype, name=name + "projection_activation")(x)
    if strides == 1 and filters_in == filters_out:
        if dropout > 0:
            x = layers.Dropout(dropout, noise_shape=(None, 1, 1, 1), dtype=dtype, name=name + "drop")(x)
        x = layers.Add(dtype=dtype, name=name + "add")([x, inputs])
    return x


@register_keras_serializable(package="keras_hub")
class EfficientNetBackbone(Backbone):
    """EfficientNet backbone (V1 and V2): a strided stem, stacks of MBConv-family blocks, a 1x1 top convolution.

    "EfficientNet: Rethinking Model Scaling for Convolutional Neural Networks"
    (Tan and Le, 2019) and "EfficientNetV2: Smaller Models and Faster Training"
    (Tan and Le, 2021). Each stack's filters are scaled by its width
    coefficient and rounded (`round_filters`), its number of blocks by its
    depth coefficient (`round_repeats`); its first block takes the stride.
    A stack's `block_type` is `"v1"` (V1's inverted residual block, as layers
    of the graph named `"block{i}{letter}_..."`), `"unfused"`
    (`MBConvBlock`), `"fused"` (`FusedMBConvBlock`) or `"cba"` (`CBABlock`).
    Block dropout grows linearly with the block index up to `dropout`. The
    output is the top convolution's activated feature map;
    `pyramid_outputs` holds the feature map before each strided block and the
    output (`"P1"`, `"P2"`, ...). Layer and weight names are KerasHub's, so
    KerasHub's EfficientNet presets load into it. Unlike KerasHub's, the
    config also holds `num_features`, `data_format` and
    `stackwise_nores_option` (KerasHub's leaves them out, so a KerasHub preset
    of another `num_features` does not load back).

    Args:
        stackwise_width_coefficients: The width coefficient of each stack.
        stackwise_depth_coefficients: The depth coefficient of each stack.
        stackwise_kernel_sizes: The kernel size of each stack.
        stackwise_num_repeats: The number of blocks of each stack (before the
            depth coefficient).
        stackwise_input_filters: The input filters of each stack.
        stackwise_output_filters: The output filters of each stack.
        stackwise_expansion_ratios: The expansion ratio of each stack.
        stackwise_squeeze_and_excite_ratios: The squeeze-and-excite ratio of
            each stack (`0` for none).
        stackwise_strides: The stride of each stack's first block.
        stackwise_block_types: `"v1"`, `"unfused"`, `"fused"` or `"cba"`,
            one per stack.
        stackwise_force_input_filters: Input filters that replace a stack's
            when positive. Defaults to `(0,) * 7`.
        stackwise_nores_option: Whether each stack's blocks leave out the
            residual connection (V2 blocks only). Defaults to `(False,) * 7`.
        dropout: The largest dropout rate of the residual branches. Defaults
            to `0.2`.
        depth_divisor: The unit of the rounded filters. Defaults to `8`.
        min_depth: The least number of filters. Defaults to `8`.
        input_shape: The input shape without the batch axis. Defaults to
            `(None, None, 3)`.
        data_format: The blocks' data format. Defaults to `"channels_last"`
            (the batch norms always normalize the last axis, as KerasHub's).
        activation: The activation. Defaults to `"swish"`.
        include_stem_padding: Whether to zero-pad the input by one pixel before
            the stem. Defaults to `True`.
        use_depth_divisor_as_min_depth: Whether `depth_divisor` replaces
            `min_depth`. Defaults to `False`.
        cap_round_filter_decrease: Whether rounding may not lower the filters
            by more than 10%. Defaults to `False`.
        stem_conv_padding: The stem convolution's padding, `"valid"` (the
            default) or `"same"`.
        batch_norm_momentum: The momentum of the batch norms (but V1 blocks',
            which keep `0.99`). Defaults to `0.9`.
        batch_norm_epsilon: The epsilon of the batch norms. Defaults to `1e-5`.
        projection_activation: The activation after the blocks' projections
            (`"v1"` and `"fused"`), or `None` (the default).
        num_features: The top convolution's filters (before the last width
            coefficient). Defaults to `1280`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`; a
            `width_coefficient` or `depth_coefficient` (one for every stack,
            or a list) replaces the stackwise ones.

    Raises:
        ValueError: If a block type is not one of the four.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.EfficientNetBackbone(stackwise_width_coefficients=[0.25, 0.25],
        ...     stackwise_depth_coefficients=[1.0, 1.0], stackwise_kernel_sizes=[3, 3], stackwise_num_repeats=[1, 1],
        ...     stackwise_input_filters=[32, 16], stackwise_output_filters=[16, 24], stackwise_expansion_ratios=[1, 4],
        ...     stackwise_squeeze_and_excite_ratios=[0.0, 0.25], stackwise_strides=[1, 2],
        ...     stackwise_block_types=["fused", "unfused"], num_features=64)
        >>> backbone(np.ones((1, 32, 32, 3))).shape
        TensorShape([1, 8, 8, 16])
    """

    def __init__(
        self,
        *,
        stackwise_width_coefficients: Any = None,
        stackwise_depth_coefficients: Any = None,
        stackwise_kernel_sizes: Any,
        stackwise_num_repeats: Any,
        stackwise_input_filters: Any,
        stackwise_output_filters: Any,
        stackwise_expansion_ratios: Any,
        stackwise_squeeze_and_excite_ratios: Any,
        stackwise_strides: Any,
        stackwise_block_types: Any,
        stackwise_force_input_filters: Any = (0,) * 7,
        stackwise_nores_option: Any = (False,) * 7,
        dropout: float = 0.2,
        depth_divisor: int = 8,
        min_depth: int = 8,
        input_shape: Any = (None, None, 3),
        data_format: str = "channels_last",
        activation: Any = "swish",
        include_stem_padding: bool = True,
        use_depth_divisor_as_min_depth: bool = False,
        cap_round_filter_decrease: bool = False,
        stem_conv_padding: str = "valid",
        batch_norm_momentum: float = 0.9,
        batch_norm_epsilon: float = 1e-5,
        projection_activation: Any = None,
        num_features: int = 1280,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        num_stacks = len(stackwise_kernel_sizes)
        for key in ("width_coefficient", "depth_coefficient"):
            if key in kwargs:
                value = kwargs.pop(key)
                value = list(value) if isinstance(value, (list, tuple)) else [value] * num_stacks
                if key == "width_coefficient":
                    stackwise_width_coefficients = value
                else:
                    stackwise_depth_coefficients = value
        unknown = sorted(set(stackwise_block_types) - {"v1", *BLOCKS})
        if unknown:
            raise ValueError(
                f"EfficientNetBackbone: block types must be one of 'v1', 'unfused', 'fused', 'cba'; got {unknown}"
            )
        rounding = {
            "min_depth": min_depth,
            "depth_divisor": depth_divisor,
            "use_depth_divisor_as_min_depth": use_depth_divisor_as_min_depth,
            "cap_round_filter_decrease": cap_round_filter_decrease,
        }
        images = Input(shape=tuple(input_shape))
        x = images
        if include_stem_padding:
            x = layers.ZeroPadding2D(padding=(1, 1), dtype=dtype, name="stem_conv_pad")(x)
        x = layers.Conv2D(
            round_filters(stackwise_input_filters[0], stackwise_width_coefficients[0], **rounding),
            3,
            strides=2,
            padding=stem_conv_padding,
            data_format=data_format,
            use_bias=False,
            kernel_initializer=conv_kernel_initializer(),
            dtype=dtype,
            name="stem_conv",
        )(x)
        batch_norm = {"momentum": batch_norm_momentum, "epsilon": batch_norm_epsilon, "dtype": dtype}
        x = layers.BatchNormalization(name="stem_bn", **batch_norm)(x)
        x = layers.Activation(activation, dtype=dtype, name="stem_activation")(x)

        pyramid_outputs, block_id, blocks = {}, 0, float(sum(stackwise_num_repeats))
        for i in range(num_stacks):
            width = stackwise_width_coefficients[i]
            input_filters = round_filters(stackwise_input_filters[i], width, **rounding)
            output_filters = round_filters(stackwise_output_filters[i], width, **rounding)
            strides = stackwise_strides[i]
            for j in range(round_repeats(stackwise_num_repeats[i], stackwise_depth_coefficients[i])):
                if j > 0:
                    strides, input_filters = 1, output_filters
                if strides != 1:
                    pyramid_outputs[f"P{len(pyramid_outputs) + 1}"] = x
                if stackwise_force_input_filters[i] > 0:
                    input_filters = round_filters(stackwise_force_input_filters[i], width, **rounding)
                arguments = {
                    "kernel_size": stackwise_kernel_sizes[i],
                    "strides": strides,
                    "data_format": data_format,
                    "activation": activation,
                    "dropout": dropout * block_id / blocks,
                    "batch_norm_epsilon": batch_norm_epsilon,
                    "name": f"block{i + 1}{chr(j + 97)}_",
                }
                block_type = stackwise_block_types[i]
                if block_type == "v1":
                    x = _v1_block(
                        x,
                        filters_in=input_filters,
                        filters_out=output_filters,
                        projection_activation=projection_activation,
                        expand_ratio=stackwise_expansion_ratios[i],
                        se_ratio=stackwise_squeeze_and_excite_ratios[i],
                        dtype=dtype,
                        **arguments,
                    )
                else:
                    arguments.update(
                        input_filters=input_filters,
                        output_filters=output_filters,
                        batch_norm_momentum=batch_norm_momentum,
                        nores=stackwise_nores_option[i],
                        dtype=dtype,
                    )
                    if block_type != "cba":
                        arguments.update(
                            expand_ratio=stackwise_expansion_ratios[i], se_ratio=stackwise_squeeze_and_excite_ratios[i]
                        )
                    if block_type == "fused":
                        arguments["projection_activation"] = projection_activation
                    x = BLOCKS[block_type](**arguments)(x)
                block_id += 1

        x = layers.Conv2D(
            round_filters(num_features, stackwise_width_coefficients[-1], **rounding),
            1,
            padding="same",
            data_format="channels_last",
            kernel_initializer=conv_kernel_initializer(),
            use_bias=False,
            dtype=dtype,
            name="top_conv",
        )(x)
        x = layers.BatchNormalization(name="top_bn", **batch_norm)(x)
        x = layers.Activation(activation, dtype=dtype, name="top_activation")(x)
        pyramid_outputs[f"P{len(pyramid_outputs) + 1}"] = x
        super().__init__(inputs=images, outputs=x, dtype=dtype, **kwargs)
        self.stackwise_width_coefficients = stackwise_width_coefficients  # the coefficients taken, as KerasHub's
        self.stackwise_depth_coefficients = stackwise_depth_coefficients
        self.pyramid_outputs = pyramid_outputs

    def _declared_arguments(self) -> dict[str, Any]:
        """`Backbone`'s, but `input_shape`, which the model's own property answers (as KerasHub's config reads it)."""
        arguments = super()._declared_arguments()
        arguments.pop("input_shape", None)
        return arguments

    def get_config(self) -> dict[str, Any]:
        """`Backbone`'s config, with `input_shape` (the model's, without the batch axis)."""
        config = super().get_config()
        config["input_shape"] = tuple(self.input_shape[1:])
        return config
