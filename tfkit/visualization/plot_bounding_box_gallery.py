"""``plot_bounding_box_gallery``: a gallery of images with true and/or predicted boxes drawn on them.

    plot_bounding_box_gallery(images, "xyxy", y_true={"boxes": b, "labels": l}, class_mapping={0: "cat"})
    plot_bounding_box_gallery(images, "rel_xyxy", y_pred=preds, legend=True, path="boxes.png")
    plot_bounding_box_gallery(images, "xywh", y_true=truth, y_pred=preds, rows=2, cols=2, scale=4)

Boxes are drawn with ``draw_bounding_boxes`` (Pillow) and laid out by ``plot_image_gallery`` (matplotlib).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.config import image_data_format
from tfkit.visualization import _optional
from tfkit.visualization.draw_bounding_boxes import check_batched_images, draw_bounding_boxes
from tfkit.visualization.plot_image_gallery import plot_image_gallery


def plot_bounding_box_gallery(
    images: Any,
    bounding_box_format: str,
    y_true: dict | None = None,
    y_pred: dict | None = None,
    value_range: Any = (0, 255),
    true_color: Any = (0, 188, 212),
    pred_color: Any = (255, 235, 59),
    line_thickness: int = 2,
    font_scale: float = 1.0,
    text_thickness: int | None = None,
    class_mapping: dict | None = None,
    ground_truth_mapping: dict | None = None,
    prediction_mapping: dict | None = None,
    legend: bool = False,
    legend_handles: list | None = None,
    rows: int | None = None,
    cols: int | None = None,
    data_format: str | None = None,
    **kwargs: Any,
) -> None:
    """Plots a gallery of images with their true and predicted bounding boxes.

    The boxes are drawn with `draw_bounding_boxes` (Pillow) and the images laid out with
    `plot_image_gallery` (matplotlib); both are optional dependencies, imported on the first
    call.

    Args:
        images: A batch of images, a 4D tensor or array `(batch, height, width, channels)` (or
            channels first, see `data_format`).
        bounding_box_format: The format of the boxes, e.g. `"xyxy"` or `"rel_xywh"`.
        y_true: Optional dict of true boxes, as `draw_bounding_boxes` takes them (`"boxes"`,
            `"labels"`, optional `"confidences"`), drawn in `true_color`. Defaults to `None`.
        y_pred: Optional dict of predicted boxes, drawn in `pred_color`. Defaults to `None`.
        value_range: The `(low, high)` range of the image values. Defaults to `(0, 255)`.
        true_color: The color of the true boxes. Defaults to `(0, 188, 212)`.
        pred_color: The color of the predicted boxes. Defaults to `(255, 235, 59)`.
        line_thickness: The thickness of the box edges in pixels. Defaults to `2`.
        font_scale: The scale of the class names' font. Defaults to `1.0`.
        text_thickness: The thickness of the text. Defaults to `None`, for `line_thickness`.
        class_mapping: Optional dict mapping class ids to names, for both kinds of boxes.
            Defaults to `None`.
        ground_truth_mapping: Optional class names of the true boxes. Defaults to `None`, for
            `class_mapping`.
        prediction_mapping: Optional class names of the predicted boxes. Defaults to `None`, for
            `class_mapping`.
        legend: Whether to add a legend with "Ground Truth" and "Prediction" patches. Defaults to
            `False`.
        legend_handles: Optional matplotlib legend handles, instead of `legend`. Defaults to
            `None`.
        rows: The number of rows of the gallery. Defaults to `None` (see `plot_image_gallery`).
        cols: The number of columns of the gallery. Defaults to `None`.
        data_format: `"channels_last"` or `"channels_first"`. Defaults to `None`, for
            `tfkit.config.image_data_format()`.
        **kwargs: Passed to `plot_image_gallery`, e.g. `path`, `show`, `scale` or `dpi`.

    Raises:
        ValueError: If both `legend=True` and `legend_handles` are given, if `images` is not 4D,
            or for the errors of `draw_bounding_boxes` and `plot_image_gallery`.
        ImportError: If matplotlib or Pillow is not installed.

    Example:
        >>> import importlib.util
        >>> images = np.zeros((2, 16, 16, 3), np.uint8)
        >>> y_true = {"boxes": np.array([[[1, 1, 9, 9]], [[4, 4, 12, 12]]], np.float32),
        ...           "labels": np.array([[0], [0]])}
        >>> if importlib.util.find_spec("matplotlib"):  # matplotlib is an optional dependency
        ...     tfkit.visualization.plot_bounding_box_gallery(
        ...         images, "xyxy", y_true=y_true, class_mapping={0: "cat"}, legend=True, path="boxes.png")
    """
    who = "plot_bounding_box_gallery()"
    patches = _optional.matplotlib_patches(who)
    prediction_mapping = prediction_mapping or class_mapping
    ground_truth_mapping = ground_truth_mapping or class_mapping
    data_format = data_format or image_data_format()
    plotted = check_batched_images(images, who)
    if data_format == "channels_first":
        plotted = plotted.transpose(0, 2, 3, 1)
    draw_options = {
        "bounding_box_format": bounding_box_format,
        "line_thickness": line_thickness,
        "text_thickness": text_thickness,
        "font_scale": font_scale,
        "data_format": "channels_last",
    }
    if y_true is not None:
        plotted = draw_bounding_boxes(
            plotted, y_true, color=true_color, class_mapping=ground_truth_mapping, **draw_options
        )
    if y_pred is not None:
        plotted = draw_bounding_boxes(
            plotted, y_pred, color=pred_color, class_mapping=prediction_mapping, **draw_options
        )
    if legend:
        if legend_handles:
            raise ValueError(f"{who}: pass either `legend=True` or `legend_handles`, not both")
        legend_handles = [
            patches.Patch(color=np.array(true_color) / 255.0, label="Ground Truth"),
            patches.Patch(color=np.array(pred_color) / 255.0, label="Prediction"),
        ]
    return plot_image_gallery(
        plotted,
        value_range=value_range,
        legend_handles=legend_handles,
        rows=rows,
        cols=cols,
        data_format="channels_last",
        **kwargs,
    )
