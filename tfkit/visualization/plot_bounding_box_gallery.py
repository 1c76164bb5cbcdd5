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


def plot_bounding_box_gallery(images: Any, bounding_box_format: str, y_true: dict | None = None,
                              y_pred: dict | None = None, value_range: Any = (0, 255),
                              true_color: Any = (0, 188, 212), pred_color: Any = (255, 235, 59),
                              line_thickness: int = 2, font_scale: float = 1.0, text_thickness: int | None = None,
                              class_mapping: dict | None = None, ground_truth_mapping: dict | None = None,
                              prediction_mapping: dict | None = None, legend: bool = False,
                              legend_handles: list | None = None, rows: int | None = None, cols: int | None = None,
                              data_format: str | None = None, **kwargs: Any) -> None:
    """Plot ``images`` with ``y_true`` boxes in ``true_color`` and ``y_pred`` boxes in ``pred_color``.

    ``y_true``/``y_pred`` are dicts as ``draw_bounding_boxes`` takes them.
    ``ground_truth_mapping``/``prediction_mapping`` (class id -> name) default
    to ``class_mapping``. ``legend=True`` adds "Ground Truth"/"Prediction"
    patches; other keyword arguments go to ``plot_image_gallery``.
    """
    who = "plot_bounding_box_gallery()"
    patches = _optional.matplotlib_patches(who)
    prediction_mapping = prediction_mapping or class_mapping
    ground_truth_mapping = ground_truth_mapping or class_mapping
    data_format = data_format or image_data_format()
    plotted = check_batched_images(images, who)
    if data_format == "channels_first":
        plotted = plotted.transpose(0, 2, 3, 1)
    draw_options = {"bounding_box_format": bounding_box_format, "line_thickness": line_thickness,
                    "text_thickness": text_thickness, "font_scale": font_scale, "data_format": "channels_last"}
    if y_true is not None:
        plotted = draw_bounding_boxes(plotted, y_true, color=true_color, class_mapping=ground_truth_mapping,
                                      **draw_options)
    if y_pred is not None:
        plotted = draw_bounding_boxes(plotted, y_pred, color=pred_color, class_mapping=prediction_mapping,
                                      **draw_options)
    if legend:
        if legend_handles:
            raise ValueError(f"{who}: pass either `legend=True` or `legend_handles`, not both")
        legend_handles = [patches.Patch(color=np.array(true_color) / 255.0, label="Ground Truth"),
                          patches.Patch(color=np.array(pred_color) / 255.0, label="Prediction")]
    return plot_image_gallery(plotted, value_range=value_range, legend_handles=legend_handles, rows=rows,
                              cols=cols, data_format="channels_last", **kwargs)
