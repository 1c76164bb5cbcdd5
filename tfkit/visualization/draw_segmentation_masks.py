"""``draw_segmentation_masks``: class masks painted (and blended) onto a batch of images.

    painted = draw_segmentation_masks(images, masks)                  # uint8, colours from a fixed palette
    painted = draw_segmentation_masks(images, masks, num_classes=3, color_mapping={0: (0, 0, 0), 1: ..., 2: ...})
    flat = draw_segmentation_masks(images, masks, blend=False)        # float32, colours replace pixels

Numbers follow Keras 3.15: class ``k`` (0 <= k < num_classes) gets colour ``k``;
``num_classes`` defaults to the largest mask value, so that class gets no colour, as in Keras.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.config import image_data_format
from tfkit.visualization.draw_bounding_boxes import check_batched_images, to_numpy


def _palette(num_classes: int) -> list[list[int]]:
    """Keras's default colours: class ``i`` gets ``i * (2**25 - 1, 2**15 - 1, 2**21 - 1) mod 255``."""
    steps = np.array([2**25 - 1, 2**15 - 1, 2**21 - 1])
    return [((i * steps) % 255).tolist() for i in range(num_classes)]


def draw_segmentation_masks(
    images: Any,
    segmentation_masks: Any,
    num_classes: int | None = None,
    color_mapping: dict[int, Any] | None = None,
    alpha: float = 0.8,
    blend: bool = True,
    ignore_index: int = -1,
    data_format: str | None = None,
) -> np.ndarray:
    """Paints segmentation masks on a batch of images, each class in its color.

    Class `k`, for `0 <= k < num_classes`, gets color `k` (as Keras 3). With `blend`, the result
    is `image * (1 - alpha) + color * alpha`, except where the mask equals `ignore_index`;
    without it, the colors replace the pixels. Pixels of classes without a color keep the
    image's values.

    Args:
        images: A batch of images, a 4D tensor or array `(batch, height, width, channels)` (or
            channels first, see `data_format`).
        segmentation_masks: Integer class indices, `(batch, height, width)` or
            `(batch, height, width, 1)`.
        num_classes: The number of classes painted. Defaults to `None`, for the largest mask
            value, so that class itself gets no color, as in Keras.
        color_mapping: Optional dict mapping every class `0..num_classes - 1` to a color (one
            value per channel). Defaults to `None`, for Keras's palette: class `i` gets
            `i * (2**25 - 1, 2**15 - 1, 2**21 - 1) % 255`.
        alpha: The weight of the colors when blending, in `[0, 1]`. Defaults to `0.8`.
        blend: Whether to blend the colors with the images. Defaults to `True`.
        ignore_index: The mask value left unpainted when blending. Defaults to `-1`.
        data_format: `"channels_last"` or `"channels_first"`, for `images` and 4D masks.
            Defaults to `None`, for `tfkit.config.image_data_format()`.

    Returns:
        A NumPy array `(batch, height, width, channels)`, channels last also for channels-first
        inputs (as Keras): `uint8` with `blend`, `float32` without.

    Raises:
        TypeError: If `segmentation_masks` is not of an integer dtype.
        ValueError: If `images` is not 4D, the masks do not match the images' size, or
            `color_mapping` lacks a class.

    Example:
        >>> images = np.full((1, 2, 2, 3), 100, np.uint8)
        >>> masks = np.array([[[0, 1], [2, 2]]])
        >>> colors = {0: (255, 0, 0), 1: (0, 255, 0), 2: (0, 0, 255)}
        >>> painted = tfkit.visualization.draw_segmentation_masks(
        ...     images, masks, num_classes=3, color_mapping=colors, alpha=0.5)
        >>> painted.dtype, painted[0, 0]
        (dtype('uint8'), array([[177,  50,  50],
               [ 50, 177,  50]], dtype=uint8))
    """
    who = "draw_segmentation_masks()"
    images = check_batched_images(images, who)
    masks = to_numpy(segmentation_masks)
    data_format = data_format or image_data_format()
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)
        masks = masks.transpose(0, 2, 3, 1) if masks.ndim == 4 else masks
    if masks.dtype.kind not in "iu":
        raise TypeError(f"{who}: `segmentation_masks` must have an integer dtype (class indices), got {masks.dtype}")
    if masks.ndim == 3:
        masks = masks[..., np.newaxis]
    if masks.ndim != 4 or masks.shape[-1] != 1 or masks.shape[:3] != images.shape[:3]:
        raise ValueError(
            f"{who}: `segmentation_masks` must have shape (batch, height, width[, 1]) matching the "
            f"images {images.shape[:3]}, got {to_numpy(segmentation_masks).shape}"
        )
    images = images.astype("float32")
    classes = masks[..., 0]
    if num_classes is None:
        num_classes = int(classes.max())
    if color_mapping is None:
        colors = _palette(num_classes)
    else:
        missing = [i for i in range(num_classes) if i not in color_mapping]
        if missing:
            raise ValueError(
                f"{who}: `color_mapping` needs a colour for every class 0..{num_classes - 1}; missing {missing}"
            )
        colors = [color_mapping[i] for i in range(num_classes)]
    painted = images.copy()
    for index, color in enumerate(colors):
        painted[classes == index] = np.asarray(color, "float32")
    if not blend:
        return painted
    mixed = tf.constant(images) * (1 - alpha) + tf.constant(painted) * alpha
    mixed = tf.where(tf.constant(classes != ignore_index)[..., tf.newaxis], mixed, images)
    return tf.cast(mixed, tf.uint8).numpy()
