"""Blocks several application families build from, written once.

    filters = make_divisible(32 * alpha, 8)                      # MobileNetV2/V3 widths, EfficientNet's round_filters
    x = squeeze_excite(x, filters, filters_se, "swish", "block1a_")   # EfficientNet and EfficientNetV2

Layer names, arguments and weight order are the ones Keras gives each family.
"""

from __future__ import annotations

from typing import Any

from tfkit.applications import builder
from tfkit.layers import Conv2D, GlobalAveragePooling2D, Reshape, multiply

CONV_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"},
}


def make_divisible(v: float, divisor: int = 8, min_value: int | None = None) -> int:
    """``v`` rounded to a multiple of ``divisor`` (at least ``min_value``), never more than 10% below ``v``."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def squeeze_excite(x: Any, filters: int, filters_se: int, activation: Any, name: str) -> Any:
    """EfficientNet's squeeze-and-excitation: pool, two 1x1 convolutions, scale ``x`` (``{name}se_*`` layers)."""
    channels_first = builder.channel_axis(3) == 1
    se = GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = Reshape((filters, 1, 1) if channels_first else (1, 1, filters), name=f"{name}se_reshape")(se)
    se = Conv2D(
        filters_se,
        1,
        padding="same",
        activation=activation,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}se_reduce",
    )(se)
    se = Conv2D(
        filters,
        1,
        padding="same",
        activation="sigmoid",
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}se_expand",
    )(se)
    return multiply([x, se], name=f"{name}se_excite")
