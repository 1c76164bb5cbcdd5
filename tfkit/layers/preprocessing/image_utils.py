"""Graph-only helpers shared by the image preprocessing layers (TensorFlow ops, no Python per pixel).

    images, unbatched = as_batch(x, who)
    out = affine_transform(images, transforms, "bilinear", "reflect", 0.0)
    y = unbatch(out, unbatched)

Every function works with static or dynamic heights and widths, so the
layers trace into SavedModels and run inside ``tf.data.Dataset.map``.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit.ops import image_warp

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")
AFFINE_INTERPOLATIONS = ("nearest", "bilinear")
FILL_MODES = ("reflect", "wrap", "constant", "nearest")


def check_choice(value: Any, choices: tuple[str, ...], what: str, who: str) -> str:
    if value not in choices:
        raise ValueError(f"{who} expected {what} to be one of {choices}, got {value!r}")
    return value


def check_seed(seed: Any, who: str) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise ValueError(f"{who} expected seed to be an int or None, got {seed!r}")


def check_rank(images: tf.Tensor, who: str) -> int:
    """3 (one image) or 4 (a batch); other ranks are a ValueError naming the layer."""
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError(
            f"{who} expected images of rank 3 (height, width, channels) or 4 (batch, height, width, channels), "
            f"got shape {tuple(images.shape) if rank is not None else 'of unknown rank'}"
        )
    return rank


def as_batch(images: tf.Tensor, who: str) -> tuple[tf.Tensor, bool]:
    """A 4-D batch and whether the input was a single 3-D image."""
    if check_rank(images, who) == 3:
        return images[tf.newaxis], True
    return images, False


def unbatch(images: tf.Tensor, unbatched: bool) -> tf.Tensor:
    return images[0] if unbatched else images


def hw_axes(rank: int, data_format: str) -> tuple[int, int]:
    """The (height, width) axis numbers for an image tensor of ``rank``."""
    first = rank - 3 if data_format == "channels_last" else rank - 2
    return first, first + 1


def output_image_shape(input_shape: Any, height: int, width: int, data_format: str) -> tuple:
    """``input_shape`` with its height and width replaced."""
    shape = list(input_shape)
    h_axis, w_axis = hw_axes(len(shape), data_format)
    shape[h_axis], shape[w_axis] = height, width
    return tuple(shape)


def to_float(images: tf.Tensor, dtype: Any) -> tf.Tensor:
    """``images`` cast to the layer's floating compute dtype (integer images become floats)."""
    dtype = tf.as_dtype(dtype)
    return images if images.dtype == dtype else tf.cast(images, dtype)


def hw(images: tf.Tensor) -> tuple[Any, Any]:
    """Height and width of channels-last ``images``: ints when static, scalar tensors otherwise."""
    static = images.shape
    dynamic = tf.shape(images)
    rank = static.rank
    height = static[rank - 3] if static[rank - 3] is not None else dynamic[rank - 3]
    width = static[rank - 2] if static[rank - 2] is not None else dynamic[rank - 2]
    return height, width


def aspect_crop_box(height: Any, width: Any, target_height: int, target_width: int) -> tuple[Any, Any, Any, Any]:
    """``(top, left, crop_height, crop_width)`` of the largest centered window with the target's aspect ratio."""
    if isinstance(height, int) and isinstance(width, int):
        crop_h = max(min(height, int(float(width * target_height) / target_width)), 1)
        crop_w = max(min(width, int(float(height * target_width) / target_height)), 1)
        return int((height - crop_h) / 2), int((width - crop_w) / 2), crop_h, crop_w
    height, width = tf.cast(height, tf.int32), tf.cast(width, tf.int32)
    crop_h = tf.cast(tf.cast(width * target_height, tf.float32) / target_width, tf.int32)
    crop_h = tf.maximum(tf.minimum(height, crop_h), 1)
    crop_w = tf.cast(tf.cast(height * target_width, tf.float32) / target_height, tf.int32)
    crop_w = tf.maximum(tf.minimum(width, crop_w), 1)
    top = tf.cast(tf.cast(height - crop_h, tf.float32) / 2, tf.int32)
    left = tf.cast(tf.cast(width - crop_w, tf.float32) / 2, tf.int32)
    return top, left, crop_h, crop_w


def crop(images: tf.Tensor, top: Any, left: Any, height: Any, width: Any) -> tf.Tensor:
    """A window of channels-last ``images`` (rank 3 or 4)."""
    if images.shape.rank == 4:
        return tf.slice(images, tf.stack([0, top, left, 0]), tf.stack([-1, height, width, -1]))
    return tf.slice(images, tf.stack([top, left, 0]), tf.stack([height, width, -1]))


def pad_to_aspect(images: tf.Tensor, target_height: int, target_width: int, fill_value: float) -> tf.Tensor:
    """Pad channels-last ``images`` evenly on both sides toward the target's aspect ratio."""
    height, width = hw(images)
    height, width = tf.cast(height, tf.int32), tf.cast(width, tf.int32)
    pad_h = tf.maximum(height, tf.cast(tf.cast(width * target_height, tf.float32) / target_width, tf.int32))
    pad_w = tf.maximum(width, tf.cast(tf.cast(height * target_width, tf.float32) / target_height, tf.int32))
    top = tf.cast(tf.cast(pad_h - height, tf.float32) / 2, tf.int32)
    left = tf.cast(tf.cast(pad_w - width, tf.float32) / 2, tf.int32)
    spatial = [[top, top], [left, left]]
    paddings = ([[0, 0]] if images.shape.rank == 4 else []) + spatial + [[0, 0]]
    return tf.pad(images, paddings, constant_values=tf.cast(fill_value, images.dtype))


def resize(
    images: tf.Tensor,
    height: int,
    width: int,
    interpolation: str = "bilinear",
    antialias: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    fill_value: float = 0.0,
) -> tf.Tensor:
    """Channels-last ``images`` resized to ``(height, width)``, optionally cropped or padded to its aspect first.

    The result is float32 (``tf.image.resize``'s dtype) unless the input is
    a float of another width, which is kept.
    """
    if crop_to_aspect_ratio:
        in_h, in_w = hw(images)
        images = crop(images, *aspect_crop_box(in_h, in_w, height, width))
    elif pad_to_aspect_ratio:
        images = pad_to_aspect(images, height, width, fill_value)
    resized = tf.image.resize(images, (height, width), method=interpolation, antialias=antialias)
    if images.dtype.is_floating and resized.dtype != images.dtype:
        resized = tf.cast(resized, images.dtype)
    return resized


def center_crop_or_resize(images: tf.Tensor, height: int, width: int) -> tf.Tensor:
    """The centered ``(height, width)`` window of channels-last ``images``; when the images are smaller
    (in either direction), the largest centered window of the target's aspect ratio resized to the target."""
    in_h, in_w = hw(images)

    def window() -> tf.Tensor:
        return crop(images, (in_h - height) // 2, (in_w - width) // 2, height, width)

    def smart_resize() -> tf.Tensor:
        return resize(images, height, width, "bilinear", crop_to_aspect_ratio=True)

    if isinstance(in_h, int) and isinstance(in_w, int):
        return window() if in_h >= height and in_w >= width else smart_resize()
    fits = tf.logical_and(tf.greater_equal(in_h, height), tf.greater_equal(in_w, width))
    out = tf.cond(fits, window, smart_resize)
    return tf.ensure_shape(out, output_image_shape(images.shape, height, width, "channels_last"))


def affine_transform(
    images: tf.Tensor, transforms: tf.Tensor, interpolation: str, fill_mode: str, fill_value: float
) -> tf.Tensor:
    """Resample a channels-last batch with one 8-number projective transform per image.

    Each ``[a0, a1, a2, b0, b1, b2, c0, c1]`` maps an output pixel ``(x, y)``
    to the input point ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``
    with ``k = c0 x + c1 y + 1``; points outside the image are filled by
    ``fill_mode`` (``reflect``, ``wrap``, ``constant`` with ``fill_value``,
    ``nearest``). Under XLA, which has no kernel for that op, the same
    resampling is done with gathers (``tfkit.ops.image_warp``, which
    ``tfkit.ops.image.affine_transform`` uses too).
    """
    return image_warp.projective_transform(images, transforms, interpolation, fill_mode, fill_value)


def symmetric_factor(
    factor: Any, what: str, who: str, low: float = -1.0, high: float = 1.0, low_inclusive: bool = True
) -> tuple[float, float]:
    """``(lower, upper)`` from a number (meaning ``(-|f|, |f|)``) or a pair; each within ``[low, high]``."""

    def check(value: Any) -> float:
        ok = (
            isinstance(value, numbers.Real)
            and not isinstance(value, bool)
            and value <= high
            and (value >= low if low_inclusive else value > low)
        )
        if not ok:
            bound = "[" if low_inclusive else "("
            raise ValueError(
                f"{who} expected {what} to be a number or a pair of numbers in {bound}{low}, {high}], got {factor!r}"
            )
        return float(value)

    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(f"{who} expected {what} to be a number or a pair of numbers, got {factor!r}")
        lower, upper = sorted(check(v) for v in factor)
        return lower, upper
    value = abs(check(factor))
    return -value, value
