"""ResNet's residual blocks and stacks (basic or bottleneck, v1 or pre-activation v2, plain or ``_vd``), KerasHub's names.

    x = apply_stack(x, filters=64, blocks=2, stride=1, block_type="basic_block", use_pre_activation=False,
                    first_shortcut=False, data_format="channels_last", dtype=None, name="stack0")

Every layer is named as KerasHub names it (``stack0_block0_1_conv``, ``..._1_bn``, ``..._0_conv`` for a
convolution shortcut, ``..._out``), so KerasHub's weight files and presets load.
"""

from __future__ import annotations

from typing import Any

from tfkit import layers

BLOCK_TYPES = ("basic_block", "bottleneck_block", "basic_block_vd", "bottleneck_block_vd")


def batch_norm(x: Any, data_format: str, dtype: Any, name: str) -> Any:
    """KerasHub's ResNet batch normalization: epsilon 1e-5, momentum 0.9, on the channels axis."""
    axis = -1 if data_format == "channels_last" else 1
    return layers.BatchNormalization(axis=axis, epsilon=1e-5, momentum=0.9, dtype=dtype, name=name)(x)


def _conv(x: Any, filters: int, size: int, stride: int, padding: str, data_format: str, dtype: Any, name: str) -> Any:
    return layers.Conv2D(
        filters, size, strides=stride, padding=padding, data_format=data_format, use_bias=False, dtype=dtype, name=name
    )(x)


def _strided_conv(x: Any, filters: int, stride: int, data_format: str, dtype: Any, name: str, index: int) -> Any:
    """The 3x3 convolution carrying the block's stride: explicitly zero-padded when strided, else "same"."""
    if stride > 1:
        x = layers.ZeroPadding2D(1, data_format=data_format, dtype=dtype, name=f"{name}_{index}_pad")(x)
    return _conv(x, filters, 3, stride, "valid" if stride > 1 else "same", data_format, dtype, f"{name}_{index}_conv")


def apply_block(
    x: Any,
    filters: int,
    stride: int,
    conv_shortcut: bool,
    block_type: str,
    use_pre_activation: bool,
    data_format: str,
    dtype: Any,
    name: str,
) -> Any:
    """One residual block of ``block_type``: the shortcut (identity, or a 1x1 convolution) plus the residual branch.

    Args:
        x: The block's input.
        filters: The block's filters (a bottleneck block outputs four times as many).
        stride: The stride of the block's strided convolution.
        conv_shortcut: Whether the shortcut is a 1x1 convolution (after a 2x2 average pooling when strided in a
            ``_vd`` block without pre-activation) rather than the identity.
        block_type: One of ``BLOCK_TYPES``.
        use_pre_activation: ResNetV2's batch norm and ReLU before the block, instead of after each convolution.
        data_format: ``"channels_last"`` or ``"channels_first"``.
        dtype: The layers' dtype policy.
        name: The prefix of the block's layer names.

    Returns:
        The block's output.
    """
    bottleneck = block_type.startswith("bottleneck")
    out_filters = 4 * filters if bottleneck else filters
    preact = None
    if use_pre_activation:
        preact = batch_norm(x, data_format, dtype, f"{name}_pre_activation_bn")
        preact = layers.Activation("relu", dtype=dtype, name=f"{name}_pre_activation_relu")(preact)

    shortcut = x
    if conv_shortcut:
        vd = block_type.endswith("_vd")
        if preact is not None:
            shortcut = preact
        elif vd and stride > 1:
            pool = layers.AveragePooling2D(2, strides=stride, data_format=data_format, dtype=dtype, padding="same")
            shortcut = pool(x)
        shortcut_stride = 1 if vd else stride
        shortcut = _conv(shortcut, out_filters, 1, shortcut_stride, "valid", data_format, dtype, f"{name}_0_conv")
        if not use_pre_activation:
            shortcut = batch_norm(shortcut, data_format, dtype, f"{name}_0_bn")

    x = preact if preact is not None else x
    if bottleneck:
        x = _conv(x, filters, 1, 1, "valid", data_format, dtype, f"{name}_1_conv")
        x = batch_norm(x, data_format, dtype, f"{name}_1_bn")
        x = layers.Activation("relu", dtype=dtype, name=f"{name}_1_relu")(x)
        x = _strided_conv(x, filters, stride, data_format, dtype, name, 2)
        x = batch_norm(x, data_format, dtype, f"{name}_2_bn")
        x = layers.Activation("relu", dtype=dtype, name=f"{name}_2_relu")(x)
        last = 3
        x = _conv(x, out_filters, 1, 1, "valid", data_format, dtype, f"{name}_3_conv")
    else:
        x = _strided_conv(x, filters, stride, data_format, dtype, name, 1)
        x = batch_norm(x, data_format, dtype, f"{name}_1_bn")
        x = layers.Activation("relu", dtype=dtype, name=f"{name}_1_relu")(x)
        last = 2
        x = _conv(x, filters, 3, 1, "same", data_format, dtype, f"{name}_2_conv")
    if use_pre_activation:
        return layers.Add(dtype=dtype, name=f"{name}_out")([shortcut, x])
    x = batch_norm(x, data_format, dtype, f"{name}_{last}_bn")
    x = layers.Add(dtype=dtype, name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", dtype=dtype, name=f"{name}_out")(x)


def apply_stack(
    x: Any,
    filters: int,
    blocks: int,
    stride: int,
    block_type: str,
    use_pre_activation: bool,
    first_shortcut: bool,
    data_format: str,
    dtype: Any,
    name: str,
) -> Any:
    """``blocks`` residual blocks named ``{name}_block{i}``; the first strided and with ``first_shortcut``."""
    for i in range(blocks):
        x = apply_block(
            x,
            filters,
            stride if i == 0 else 1,
            first_shortcut if i == 0 else False,
            block_type,
            use_pre_activation,
            data_format,
            dtype,
            f"{name}_block{i}",
        )
    return x
