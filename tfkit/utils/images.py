"""Image files and arrays under Keras's names: ``load_img``, ``img_to_array``, ``array_to_img``, ``save_img``.

    img = tfkit.utils.load_img("cat.jpg", target_size=(180, 180))   # a PIL image
    x = tfkit.utils.img_to_array(img)                                # float32 (180, 180, 3)
    tfkit.utils.array_to_img(x).save("copy.png")

Reading and writing image files goes through Pillow, as in Keras: it is
imported on first use, and a missing Pillow is an ``ImportError`` that says
what to install. ``smart_resize`` needs only TensorFlow.
"""

from __future__ import annotations

import io
import os
import warnings
from typing import Any

import numpy as np
import tensorflow as tf

_RESAMPLING = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _pil_image(function: str) -> Any:
    try:
        from PIL import Image
    except ImportError as error:
        raise ImportError(
            f"tfkit.utils.{function} reads and writes images with Pillow, which is not installed: `pip install pillow`"
        ) from error
    return Image


def _channels_last(data_format: str | None) -> bool:
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"data_format must be 'channels_last' or 'channels_first', got {data_format!r}")
    return data_format == "channels_last"


def array_to_img(x: Any, data_format: str | None = None, scale: bool = True, dtype: Any = None) -> Any:
    """Converts a 3D image array to a PIL image.

    One channel gives a grayscale image (`"L"`, or 32-bit `"I"` for values
    above 255), three RGB, four RGBA. Needs Pillow.

    Args:
        x: Array-like of rank 3: one image.
        data_format: `"channels_last"` (`(height, width, channels)`) or
            `"channels_first"`. Defaults to `None` (`"channels_last"`).
        scale: Whether to stretch the values to 0..255 first (minimum to 0,
            maximum to 255); with `False` they are used as they are.
            Defaults to `True`.
        dtype: The dtype to read `x` as. Defaults to `None` (float32).

    Returns:
        A PIL image.

    Raises:
        ValueError: If `x` is not of rank 3, or has another number of
            channels.
        ImportError: If Pillow is not installed.

    Example:
        >>> img = tfkit.utils.array_to_img(np.zeros((4, 5, 3)))
        >>> img.size, img.mode
        ((5, 4), 'RGB')
    """
    Image = _pil_image("array_to_img")
    array = np.asarray(x, dtype=dtype or "float32")
    if array.ndim != 3:
        raise ValueError(f"array_to_img expects one image of rank 3 (height, width, channels), got shape {array.shape}")
    if not _channels_last(data_format):
        array = np.transpose(array, (1, 2, 0))
    if scale:
        array = array - np.min(array)
        top = np.max(array)
        if top != 0:
            array = array / top
        array = array * 255
    channels = array.shape[2]
    if channels == 4:
        return Image.fromarray(array.astype("uint8"), "RGBA")
    if channels == 3:
        return Image.fromarray(array.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(array) > 255:  # wider than 8 bits: keep the values in a 32-bit grayscale image
            return Image.fromarray(array[:, :, 0].astype("int32"), "I")
        return Image.fromarray(array[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"array_to_img supports 1, 3 or 4 channels, got {channels} (shape {array.shape})")


def img_to_array(img: Any, data_format: str | None = None, dtype: Any = None) -> np.ndarray:
    """Converts a PIL image (or any array-like image) to a NumPy array.

    Args:
        img: A PIL image, or an array-like of rank 2 or 3.
        data_format: `"channels_last"` (`(height, width, channels)`) or
            `"channels_first"`. Defaults to `None` (`"channels_last"`).
        dtype: The output's dtype. Defaults to `None` (float32).

    Returns:
        A 3D NumPy array; a grayscale image gets a channel axis of size 1.

    Raises:
        ValueError: If the image is not of rank 2 or 3.

    Example:
        >>> img = tfkit.utils.array_to_img(np.zeros((4, 5, 3)))
        >>> tfkit.utils.img_to_array(img).shape
        (4, 5, 3)
    """
    array = np.asarray(img, dtype=dtype or "float32")
    channels_last = _channels_last(data_format)
    if array.ndim == 3:
        return array if channels_last else np.transpose(array, (2, 0, 1))
    if array.ndim == 2:
        return array[:, :, None] if channels_last else array[None, :, :]
    raise ValueError(f"img_to_array expects a 2D or 3D image, got shape {array.shape}")


def save_img(
    path: Any, x: Any, data_format: str | None = None, file_format: str | None = None, scale: bool = True, **kwargs: Any
) -> None:
    """Saves an image array to a file. Needs Pillow.

    An RGBA image saved as JPEG is converted to RGB, with a warning.

    Args:
        path: The file path (or a file object).
        x: Array-like of rank 3: one image.
        data_format: `"channels_last"` (`(height, width, channels)`) or
            `"channels_first"`. Defaults to `None` (`"channels_last"`).
        file_format: The file format (such as `"png"`). Defaults to `None`
            (from the file name's extension).
        scale: Whether to stretch the values to 0..255 first. Defaults to
            `True`.
        **kwargs: Passed to PIL's `Image.save` (such as `quality`).

    Raises:
        ValueError: If `x` is not a 1, 3 or 4 channel image.
        ImportError: If Pillow is not installed.

    Example:
        >>> tfkit.utils.save_img("black.png", np.zeros((4, 5, 3)))
        >>> tfkit.utils.load_img("black.png").size
        (5, 4)
    """
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        warnings.warn("JPEG has no alpha channel: the image is saved as RGB", stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def load_img(
    path: Any,
    color_mode: str = "rgb",
    target_size: Any = None,
    interpolation: str = "nearest",
    keep_aspect_ratio: bool = False,
) -> Any:
    """Loads an image file into a PIL image. Needs Pillow.

    Args:
        path: A path (string, bytes or `os.PathLike`) or an `io.BytesIO`.
        color_mode: `"grayscale"`, `"rgb"` or `"rgba"`: the image is
            converted to it. Defaults to `"rgb"`.
        target_size: Optional `(height, width)` to resize to. Defaults to
            `None` (the file's size).
        interpolation: The resampling method for resizing: `"nearest"`,
            `"bilinear"`, `"bicubic"`, `"hamming"`, `"box"` or `"lanczos"`.
            Defaults to `"nearest"`.
        keep_aspect_ratio: Whether to crop the image's centre to the
            target's aspect ratio before resizing, instead of distorting it.
            Defaults to `False`.

    Returns:
        A PIL image.

    Raises:
        ValueError: For an unknown `color_mode` or `interpolation`.
        TypeError: If `path` is neither a path nor an `io.BytesIO`.
        ImportError: If Pillow is not installed.

    Example:
        >>> tfkit.utils.save_img("image.png", np.random.rand(8, 6, 3))
        >>> img = tfkit.utils.load_img("image.png", color_mode="grayscale", target_size=(4, 3))
        >>> img.size, img.mode
        ((3, 4), 'L')
    """
    Image = _pil_image("load_img")
    if color_mode not in ("grayscale", "rgb", "rgba"):
        raise ValueError(f"color_mode must be 'grayscale', 'rgb' or 'rgba', got {color_mode!r}")
    if isinstance(path, io.BytesIO):
        img = Image.open(path)
    elif isinstance(path, (str, bytes, os.PathLike)):
        with open(os.fspath(path), "rb") as f:
            img = Image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"load_img expects a path or an io.BytesIO, got {type(path).__name__}")
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif img.mode != "RGB":
        img = img.convert("RGB")
    if target_size is None:
        return img
    if interpolation not in _RESAMPLING:
        raise ValueError(f"interpolation must be one of {', '.join(_RESAMPLING)}; got {interpolation!r}")
    height, width = (int(d) for d in target_size)
    if img.size == (width, height):
        return img
    box = None
    if keep_aspect_ratio:
        w, h = img.size
        crop_w = max(min(w, h * width // height), 1)  # rounded down, as Keras
        crop_h = max(min(h, w * height // width), 1)
        left, top = (w - crop_w) // 2, (h - crop_h) // 2
        box = (left, top, left + crop_w, top + crop_h)
    resample = getattr(Image.Resampling, interpolation.upper())
    return img.resize((width, height), resample=resample, box=box)


def smart_resize(x: Any, size: Any, interpolation: str = "bilinear", data_format: str = "channels_last") -> tf.Tensor:
    """Resizes an image (or a batch of images) to a target size without aspect ratio distortion.

    The largest centred window with the target's aspect ratio is cropped,
    then resized: the same result as `Resizing(..., crop_to_aspect_ratio=True)`.
    Needs only TensorFlow.

    Args:
        x: An image tensor or array of rank 3, or a batch of rank 4.
        size: `(height, width)`, the target size.
        interpolation: The resizing method (`tf.image.resize`'s: `"bilinear"`,
            `"nearest"`, `"bicubic"`, `"area"`, ...). Defaults to
            `"bilinear"`.
        data_format: `"channels_last"` or `"channels_first"`. Defaults to
            `"channels_last"`.

    Returns:
        A float tensor of the target size.

    Raises:
        ValueError: If `x` is not of rank 3 or 4, or `data_format` is
            invalid.

    Example:
        >>> tfkit.preprocessing.image.smart_resize(np.ones((20, 40, 3)), (10, 10)).shape
        TensorShape([10, 10, 3])
    """
    x = tf.convert_to_tensor(x)
    if x.shape.rank not in (3, 4):
        raise ValueError(f"smart_resize expects an image (rank 3) or a batch of images (rank 4), got shape {x.shape}")
    channels_last = _channels_last(data_format)
    if not channels_last:
        x = tf.transpose(x, (1, 2, 0) if x.shape.rank == 3 else (0, 2, 3, 1))
    height, width = (int(d) for d in size)
    shape = tf.shape(x)
    h, w = shape[-3], shape[-2]
    # The window's sides are rounded down, as Keras's (and Resizing's) are.
    crop_h = tf.maximum(tf.minimum(h, tf.cast(tf.cast(w * height, tf.float32) / width, tf.int32)), 1)
    crop_w = tf.maximum(tf.minimum(w, tf.cast(tf.cast(h * width, tf.float32) / height, tf.int32)), 1)
    top, left = (h - crop_h) // 2, (w - crop_w) // 2
    if x.shape.rank == 3:
        x = x[top : top + crop_h, left : left + crop_w, :]
    else:
        x = x[:, top : top + crop_h, left : left + crop_w, :]
    out = tf.image.resize(x, (height, width), method=interpolation)
    if not channels_last:
        out = tf.transpose(out, (2, 0, 1) if out.shape.rank == 3 else (0, 3, 1, 2))
    return out
