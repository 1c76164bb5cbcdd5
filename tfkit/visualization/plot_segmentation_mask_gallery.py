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


def plot_segmentation_mask_gallery(images: Any, num_classes: int, value_range: Any = (0, 255), y_true: Any = None,
                                   y_pred: Any = None, color_mapping: dict | None = None, blend: bool = True,
                                   alpha: float = 0.8, ignore_index: int = -1, data_format: str | None = None,
                                   **kwargs: Any) -> None:
    """Plot a grid with one row per image: the image, then its ``y_true`` and ``y_pred`` masks painted on it.

    Masks are ``(batch, height, width)`` or ``(batch, height, width, 1)`` class
    indices; ``num_classes``, ``color_mapping``, ``blend``, ``alpha`` and
    ``ignore_index`` are ``draw_segmentation_masks``'s. Other keyword arguments
    go to ``plot_image_gallery``.
    """
    who = "plot_segmentation_mask_gallery()"
    images = check_batched_images(images, who)
    data_format = data_format or image_data_format()
    channels_first = data_format == "channels_first"
    if channels_first:
        images = images.transpose(0, 2, 3, 1)
    options = {"num_classes": num_classes, "color_mapping": color_mapping, "alpha": alpha,
               "ignore_index": ignore_index, "blend": blend, "data_format": "channels_last"}
    columns = [images]
    for masks in (y_true, y_pred):
        if masks is None:
            continue
        masks = to_numpy(masks)
        if channels_first and masks.ndim == 4:
            masks = masks.transpose(0, 2, 3, 1)
        columns.append(draw_segmentation_masks(images, masks.astype("int32"), **options))
    gallery = np.stack([column[i] for i in range(images.shape[0]) for column in columns], axis=0)
    return plot_image_gallery(gallery, value_range=value_range, rows=images.shape[0], cols=len(columns),
                              data_format="channels_last", **kwargs)
