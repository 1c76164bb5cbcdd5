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
    """Convert RGB images to grayscale.

    This function converts RGB images to grayscale images. It supports both
    3D and 4D tensors. The gray value is the ITU-R 601 luma
    `0.2989 * R + 0.587 * G + 0.114 * B`, in the dtype of `images` (integer
    results are truncated, as in Keras). Images with one channel are returned
    unchanged.

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        Grayscale image or batch of grayscale images, with one channel.

    Raises:
        ValueError: If `images` is not 3D or 4D, if it does not have 3 (or 1)
            channels, or if `data_format` is not one of the values above.
        TypeError: If `images` cannot be converted to a tensor.

    Example:
        >>> x = np.random.random((2, 4, 4, 3))
        >>> tfkit.ops.image.rgb_to_grayscale(x).shape
        TensorShape([2, 4, 4, 1])
        >>> x = np.random.random((2, 3, 4, 4))
        >>> tfkit.ops.image.rgb_to_grayscale(x, data_format="channels_first").shape
        TensorShape([2, 1, 4, 4])
        >>> pixels = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], "float32")
        >>> np.round(tfkit.ops.image.rgb_to_grayscale(pixels).numpy(), 4)
        array([[[0.2989],
                [0.587 ]]], dtype=float32)
    """
    data_format = ic.standard_format(data_format, "rgb_to_grayscale")
    images = ic.as_tensor(images, "rgb_to_grayscale")
    rank = ic.check_rank(images, "rgb_to_grayscale")
    axis = rank - 1 if data_format == "channels_last" else rank - 3
    channels = images.shape[axis]
    if channels not in (1, 3):
        raise ValueError(
            f"tfkit.ops.image.rgb_to_grayscale: expected 3 (RGB) or 1 (grayscale) channels on axis "
            f"{axis}, got images of shape {tuple(images.shape)} (data_format={data_format!r})"
        )
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
        raise ValueError(
            f"tfkit.ops.image.{op}: expected 3 channels on axis {axis}, got images of shape "
            f"{tuple(images.shape)} (data_format={data_format!r})"
        )
    batch, unbatched = ic.to_batch_last(images, data_format)
    return ic.from_batch_last(convert(batch), unbatched, data_format)


def rgb_to_hsv(images: Any, data_format: str | None = None) -> tf.Tensor:
    """Convert RGB images to HSV.

    `images` must be of float dtype, and the output is only well defined if the
    values in `images` are in `[0, 1]`.

    All HSV values are in `[0, 1]`. A hue of `0` corresponds to pure red, `1/3`
    is pure green, and `2/3` is pure blue.

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        HSV image or batch of HSV images.

    Raises:
        ValueError: If `images` is not 3D or 4D, if it does not have a floating
            dtype or 3 channels, or if `data_format` is not one of the values
            above.
        TypeError: If `images` cannot be converted to a tensor.

    Example:
        >>> x = np.random.random((2, 4, 4, 3))
        >>> tfkit.ops.image.rgb_to_hsv(x).shape
        TensorShape([2, 4, 4, 3])
        >>> pixels = np.array([[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]], "float32")
        >>> np.round(tfkit.ops.image.rgb_to_hsv(pixels).numpy(), 4)
        array([[[0.    , 1.    , 1.    ],
                [0.6667, 1.    , 1.    ]]], dtype=float32)
    """
    return _hsv_convert(images, data_format, "rgb_to_hsv", tf.image.rgb_to_hsv)


def hsv_to_rgb(images: Any, data_format: str | None = None) -> tf.Tensor:
    """Convert HSV images to RGB.

    The inverse of `rgb_to_hsv`. `images` must be of float dtype, and the
    output is only well defined if the values in `images` are in `[0, 1]`.

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        RGB image or batch of RGB images.

    Raises:
        ValueError: If `images` is not 3D or 4D, if it does not have a floating
            dtype or 3 channels, or if `data_format` is not one of the values
            above.
        TypeError: If `images` cannot be converted to a tensor.

    Example:
        >>> x = np.random.random((2, 4, 4, 3))
        >>> tfkit.ops.image.hsv_to_rgb(x).shape
        TensorShape([2, 4, 4, 3])
        >>> hsv = np.array([[[0.0, 1.0, 1.0], [2 / 3, 1.0, 0.5]]], "float32")
        >>> np.round(tfkit.ops.image.hsv_to_rgb(hsv).numpy(), 4)
        array([[[1. , 0. , 0. ],
                [0. , 0. , 0.5]]], dtype=float32)
    """
    return _hsv_convert(images, data_format, "hsv_to_rgb", tf.image.hsv_to_rgb)
