"""What InceptionV3 and InceptionResNetV2 share: the convolution unit, the stem, the 35x35 block and reduction.

    x = inception_stem(img_input)                                  # 299x299 -> 35x35x192
    x = inception_a(x, 64, 32, "mixed0")                            # InceptionResNetV2: (96, 64, "mixed_5b")
    x = reduction_a(x, 384, (64, 96, 96), "mixed3")                 # InceptionResNetV2: (256, 256, 384), "mixed_6a"

Layers are created in Keras's order, so their automatic names (``conv2d_7``, ...) are Keras's too.
"""

from __future__ import annotations

from typing import Any

from tfkit.applications import builder
from tfkit.layers import Activation, AveragePooling2D, BatchNormalization, Concatenate, Conv2D, MaxPooling2D


def conv2d_bn(
    x: Any,
    filters: int,
    kernel_size: int | tuple[int, int] | list[int],
    strides: int | tuple[int, int] = 1,
    padding: str = "same",
    activation: Any = "relu",
    use_bias: bool = False,
    name: str | None = None,
) -> Any:
    """Convolution, BatchNormalization without scale (none with ``use_bias``), activation: the Inception unit.

    Named ``name``, ``{name}_bn``, ``{name}_ac`` (InceptionResNetV2's names); unnamed without ``name``.
    """
    x = Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = BatchNormalization(axis=builder.channel_axis(3), scale=False, name=None if name is None else f"{name}_bn")(
            x
        )
    if activation is not None:
        x = Activation(activation, name=None if name is None else f"{name}_ac")(x)
    return x


def inception_stem(x: Any) -> Any:
    """Five convolutions and two strided max poolings."""
    x = conv2d_bn(x, 32, 3, strides=2, padding="valid")
    x = conv2d_bn(x, 32, 3, padding="valid")
    x = conv2d_bn(x, 64, 3)
    x = MaxPooling2D(3, strides=2)(x)
    x = conv2d_bn(x, 80, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, padding="valid")
    return MaxPooling2D(3, strides=2)(x)


def inception_a(x: Any, filters_1x1: int, pool_filters: int, name: str) -> Any:
    """Four branches (1x1; 1x1 then 5x5; 1x1 then two 3x3; 3x3 average pooling then 1x1), concatenated."""
    branch_1x1 = conv2d_bn(x, filters_1x1, 1)
    branch_5x5 = conv2d_bn(x, 48, 1)
    branch_5x5 = conv2d_bn(branch_5x5, 64, 5)
    branch_3x3dbl = conv2d_bn(x, 64, 1)
    branch_3x3dbl = conv2d_bn(branch_3x3dbl, 96, 3)
    branch_3x3dbl = conv2d_bn(branch_3x3dbl, 96, 3)
    branch_pool = AveragePooling2D(3, strides=1, padding="same")(x)
    branch_pool = conv2d_bn(branch_pool, pool_filters, 1)
    return Concatenate(axis=builder.channel_axis(3), name=name)([branch_1x1, branch_5x5, branch_3x3dbl, branch_pool])


def reduction_a(x: Any, filters_3x3: int, filters_3x3dbl: tuple[int, int, int], name: str) -> Any:
    """Halve the image: a strided 3x3, a 1x1 then two 3x3 (the second strided), a strided 3x3 max pooling."""
    branch_3x3 = conv2d_bn(x, filters_3x3, 3, strides=2, padding="valid")
    branch_3x3dbl = conv2d_bn(x, filters_3x3dbl[0], 1)
    branch_3x3dbl = conv2d_bn(branch_3x3dbl, filters_3x3dbl[1], 3)
    branch_3x3dbl = conv2d_bn(branch_3x3dbl, filters_3x3dbl[2], 3, strides=2, padding="valid")
    branch_pool = MaxPooling2D(3, strides=2)(x)
    return Concatenate(axis=builder.channel_axis(3), name=name)([branch_3x3, branch_3x3dbl, branch_pool])
