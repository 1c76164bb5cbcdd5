"""``data_format``: the one check of the argument and the one conversion to and from channels-last.

    fmt = standardize_data_format(None, "Conv2D layer 'conv2d'")   # tfkit.config.image_data_format(), read now
    x = to_channels_last(inputs, fmt)                              # (N, C, H, W) -> (N, H, W, C)
    y = from_channels_last(outputs, fmt)                           # and back; channels-last passes through
    to_channels_last(image, "channels_first", batched=False)       # one image: (C, H, W) -> (H, W, C)

Layers and ops compute in channels-last layout, because TensorFlow's CPU
kernels implement convolution and pooling only for it: ``channels_first``
inputs are transposed in and out here.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import settings

__all__ = ["DATA_FORMATS", "standardize_data_format", "to_channels_last", "from_channels_last"]

DATA_FORMATS = ("channels_last", "channels_first")


def standardize_data_format(value: Any, who: str) -> str:
    """``"channels_last"`` or ``"channels_first"`` (any case); None means ``tfkit.config.image_data_format()``.

    Anything else is a ``ValueError`` naming ``who``.
    """
    if value is None:
        return settings.image_data_format()
    data_format = value.lower() if isinstance(value, str) else value
    if data_format not in DATA_FORMATS:
        raise ValueError(f"{who} expected `data_format` to be one of {DATA_FORMATS} or None, got {value!r}")
    return data_format


def to_channels_last(x: tf.Tensor, data_format: str, batched: bool = True) -> tf.Tensor:
    """``(N, C, *spatial)`` -> ``(N, *spatial, C)`` for ``"channels_first"``; channels-last ``x`` passes through.

    With ``batched=False`` there is no leading batch axis: ``(C, *spatial)`` -> ``(*spatial, C)``.
    """
    if data_format == "channels_last":
        return x
    first = 1 if batched else 0
    rank = x.shape.rank
    return tf.transpose(x, [*range(first), *range(first + 1, rank), first])


def from_channels_last(x: tf.Tensor, data_format: str, batched: bool = True) -> tf.Tensor:
    """Inverse of :func:`to_channels_last`: ``(N, *spatial, C)`` -> ``(N, C, *spatial)`` for ``"channels_first"``."""
    if data_format == "channels_last":
        return x
    first = 1 if batched else 0
    rank = x.shape.rank
    return tf.transpose(x, [*range(first), rank - 1, *range(first, rank - 1)])
