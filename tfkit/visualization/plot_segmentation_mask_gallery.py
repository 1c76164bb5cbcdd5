"""``plot_segmentation_mask_gallery``: each image beside its true and/or predicted masks, one row per image.

    plot_segmentation_mask_gallery(images, num_classes=3, y_true=masks)
    plot_segmentation_mask_gallery(images, 3, y_true=masks, y_pred=predicted, path="masks.png")
    plot_segmentation_mask_gallery(images, 3, y_pred=predicted, blend=False, alpha=0.5)

Masks are painted with ``draw_segmentation_masks`` and laid out by ``plot_image_gallery`` (matplotlib).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.config import image_data_format
from tfkit.visualization.draw_bounding_boxes import check_batched_images, to_numpy
from tfkit.visualization.draw_segmentation_masks import draw_segmentation_masks
from tfkit.visualization.plot_image_gallery import plot_image_gallery


def plot_segmentation_mask_gallery(
    images: Any,
    num_classes: int,
    value_range: Any = (0, 255),
    y_true: Any = None,
    y_pred: Any = None,
    color_mapping: dict | None = None,
    blend: bool = True,
    alpha: float = 0.8,
    ignore_index: int = -1,
    data_format: str | None = None,
    **kwargs: Any,
) -> None:
    """Plots each image beside its true and predicted segmentation masks, one row per image.

    The masks are painted with `draw_segmentation_masks` and the gallery laid out with
    `plot_image_gallery` (matplotlib, an optional dependency imported when the gallery is
    plotted).

    Args:
        images: A batch of images, a 4D tensor or array `(batch, height, width, channels)` (or
            channels first, see `data_format`).
        num_classes: The number of classes painted (see `draw_segmentation_masks`).
        value_range: The `(low, high)` range of the image values. Defaults to `(0, 255)`.
        y_true: Optional true masks, integer class indices `(batch, height, width)` or
            `(batch, height, width, 1)`, shown in the second column. Defaults to `None`.
        y_pred: Optional predicted masks, shown in the next column. Defaults to `None`.
        color_mapping: Optional dict mapping every class to a color. Defaults to `None`, for
            Keras's palette.
        blend: Whether to blend the colors with the images. Defaults to `True`.
        alpha: The weight of the colors when blending. Defaults to `0.8`.
        ignore_index: The mask value left unpainted when blending. Defaults to `-1`.
        data_format: `"channels_last"` or `"channels_first"`. Defaults to `None`, for
            `tfkit.config.image_data_format()`.
        **kwargs: Passed to `plot_image_gallery`, e.g. `path`, `show`, `scale` or `dpi`.

    Raises:
        ValueError: If `images` is not 4D, or for the errors of `draw_segmentation_masks` and
            `plot_image_gallery`.
        ImportError: If matplotlib is not installed.

    Example:
        >>> import importlib.util
        >>> images = np.zeros((2, 8, 8, 3), np.uint8)
        >>> masks = np.ones((2, 8, 8), np.int32)
        >>> if importlib.util.find_spec("matplotlib"):  # matplotlib is an optional dependency
        ...     tfkit.visualization.plot_segmentation_mask_gallery(
        ...         images, num_classes=2, y_true=masks, path="masks.png")
        >>> tfkit.visualization.plot_segmentation_mask_gallery(np.zeros((8, 8, 3)), num_classes=2)
        Traceback (most recent call last):
        ...
        ValueError: plot_segmentation_mask_gallery(): `images` must be a batched 4D tensor or array ...
    """
    who = "plot_segmentation_mask_gallery()"
    images = check_batched_images(images, who)
    data_format = data_format or image_data_format()
    channels_first = data_format == "channels_first"
    if channels_first:
        images = images.transpose(0, 2, 3, 1)
    options = {
        "num_classes": num_classes,
        "color_mapping": color_mapping,
        "alpha": alpha,
        "ignore_index": ignore_index,
        "blend": blend,
        "data_format": "channels_last",
    }
    columns = [images]
    for masks in (y_true, y_pred):
        if masks is None:
            continue
        masks = to_numpy(masks)
        if channels_first and masks.ndim == 4:
            masks = masks.transpose(0, 2, 3, 1)
        columns.append(draw_segmentation_masks(images, masks.astype("int32"), **options))
    gallery = np.stack([column[i] for i in range(images.shape[0]) for column in columns], axis=0)
    return plot_image_gallery(
        gallery, value_range=value_range, rows=images.shape[0], cols=len(columns), data_format="channels_last", **kwargs
    )
