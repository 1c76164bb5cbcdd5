"""Colour-space ops of ``tfkit.ops.image``: grayscale, RGB <-> HSV.

    gray = tfkit.ops.image.rgb_to_grayscale(images)           # (..., 3) -> (..., 1), same dtype
    hsv = tfkit.ops.image.rgb_to_hsv(images)                   # float images in [0, 1]
    rgb = tfkit.ops.image.hsv_to_rgb(hsv, data_format="channels_last")
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops import image_common as ic

# ITU-R 601 luma weights, as Keras uses them.
_LUMA = (0.2989, 0.587, 0.114)


def rgb_to_grayscale(images: Any, data_format: str | None = None) -> tf.Tensor:
    """The luma of RGB images as one channel, in the input's dtype (integers are truncated, as in Keras)."""
    data_format = ic.standard_format(data_format, "rgb_to_grayscale")
    images = ic.as_tensor(images, "rgb_to_grayscale")
    rank = ic.check_rank(images, "rgb_to_grayscale")
    axis = rank - 1 if data_format == "channels_last" else rank - 3
    channels = images.shape[axis]
    if channels not in (1, 3):
        raise ValueError(f"tfkit.ops.image.rgb_to_grayscale: expected 3 (RGB) or 1 (grayscale) channels on axis "
                         f"{axis}, got images of shape {tuple(images.shape)} (data_format={data_format!r})")
    if channels == 1:
        return tf.identity(images)
    dtype = images.dtype
    work = ic.work_dtype(dtype)
    gray = tf.tensordot(tf.cast(images, work), tf.constant(_LUMA, work), axes=[[axis], [0]])
    return tf.cast(tf.expand_dims(gray, axis), dtype)


def _hsv_convert(images: Any, data_format: Any, op: str, convert: Any) -> tf.Tensor:
    data_format = ic.standard_format(data_format, op)
    images = ic.as_tensor(images, op)
    rank = ic.check_rank(images, op)
    ic.check_float(images, op)
    axis = rank - 1 if data_format == "channels_last" else rank - 3
    if images.shape[axis] is not None and images.shape[axis] != 3:
        raise ValueError(f"tfkit.ops.image.{op}: expected 3 channels on axis {axis}, got images of shape "
                         f"{tuple(images.shape)} (data_format={data_format!r})")
    batch, unbatched = ic.to_batch_last(images, data_format)
    return ic.from_batch_last(convert(batch), unbatched, data_format)


def rgb_to_hsv(images: Any, data_format: str | None = None) -> tf.Tensor:
    """Float RGB images (values in ``[0, 1]``) as hue, saturation, value, each in ``[0, 1]``."""
    return _hsv_convert(images, data_format, "rgb_to_hsv", tf.image.rgb_to_hsv)


def hsv_to_rgb(images: Any, data_format: str | None = None) -> tf.Tensor:
    """The inverse of :func:`rgb_to_hsv`."""
    return _hsv_convert(images, data_format, "hsv_to_rgb", tf.image.hsv_to_rgb)
