"""``draw_bounding_boxes``: boxes (and class names) drawn onto a batch of images with Pillow.

    drawn = draw_bounding_boxes(images, {"boxes": boxes, "labels": labels}, bounding_box_format="xyxy",
                                class_mapping={0: "cat", 1: "dog"}, color=(255, 0, 0))
    drawn.shape == images.shape and drawn.dtype == np.uint8

Keras draws with OpenCV; tfkit draws the same rectangles and labels with Pillow's
``ImageDraw`` (the text font differs, the box edges and colours do not).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.config import image_data_format
from tfkit.utils.bounding_boxes import convert_format
from tfkit.visualization import _optional


def to_numpy(value: Any) -> np.ndarray:
    """A tensor, array or nested list as a numpy array."""
    return value.numpy() if isinstance(value, (tf.Tensor, tf.Variable)) else np.asarray(value)


def check_batched_images(images: Any, who: str) -> np.ndarray:
    images = to_numpy(images)
    if images.ndim != 4:
        raise ValueError(
            f"{who}: `images` must be a batched 4D tensor or array (batch, height, width, channels) "
            f"or (batch, channels, height, width); got shape {images.shape}"
        )
    return images


def _as_uint8(images: np.ndarray) -> np.ndarray:
    """Float images in [0, 1] are scaled to [0, 255]; everything is clipped and cast to uint8 (as Keras does)."""
    if images.dtype.kind == "f" and images.size > 0:
        images = np.clip(images, 0, 1) * 255 if images.max() <= 1.0 else np.clip(images, 0, 255)
    return images.astype("uint8")


def _text_origin(x: int, y: int, font_scale: float, thickness: int) -> tuple[int, int]:
    """Where a label's baseline starts: above the box, or inside it when the box touches the top (Keras's rule)."""
    font_height = int(font_scale * 12)
    if y - 8 - 2 * font_height > 0:
        return x, y - 8
    return x + 3, y + 2 * font_height + thickness + 3


def _draw_one(
    draw: Any, font: Any, box: np.ndarray, text: str | None, line_thickness: int, text_thickness: int, font_scale: float
) -> None:
    x1, y1, x2, y2 = (int(v) for v in box.astype("int32"))
    left, right, top, bottom = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
    if line_thickness < 0:  # OpenCV's convention: a negative thickness fills
        draw.rectangle([left, top, right, bottom], fill=255)
    elif line_thickness > 0:
        # A line of thickness t over each edge (t // 2 pixels outside it), close to how OpenCV centres it.
        out = line_thickness // 2
        draw.rectangle([left - out, top - out, right + out, bottom + out], outline=255, width=line_thickness)
    if text is None:
        return
    tx, ty = _text_origin(x1, y1, font_scale, text_thickness)
    stroke = max(int(text_thickness) - 1, 0)
    try:
        draw.text((tx, ty), text, fill=255, font=font, anchor="ls", stroke_width=stroke, stroke_fill=255)
    except (ValueError, TypeError):  # a bitmap font has no anchors: place its top-left
        _, top_off, _, bottom_off = draw.textbbox((0, 0), text, font=font)
        draw.text((tx, ty - (bottom_off - top_off)), text, fill=255, font=font)


def draw_bounding_boxes(
    images: Any,
    bounding_boxes: dict[str, Any],
    bounding_box_format: str,
    class_mapping: dict[int, str] | None = None,
    color: Any = (128, 128, 128),
    line_thickness: int = 2,
    text_thickness: int = 1,
    font_scale: float = 1.0,
    data_format: str | None = None,
) -> np.ndarray:
    """Draws bounding boxes, and their class names, on a batch of images.

    Each box's outline is drawn in `color`, and its class name (with the confidence, if given)
    above it when the label is in `class_mapping`. Keras draws with OpenCV; tfkit draws the same
    rectangles and labels with Pillow's `ImageDraw` (the text font differs, the box edges and
    colors do not). Pillow is imported on the first call; a missing Pillow is an `ImportError`
    naming `pip install pillow`. Float images whose values are at most 1 are scaled to
    `[0, 255]`; all images are clipped and cast to `uint8`.

    Args:
        images: A batch of images, a 4D tensor or array `(batch, height, width, channels)` (or
            channels first, see `data_format`).
        bounding_boxes: A dict with `"boxes"`, `(batch, num_boxes, 4)` in
            `bounding_box_format`, `"labels"`, `(batch, num_boxes)` class ids (boxes labeled `-1`
            are skipped), and optionally `"confidences"`, `(batch, num_boxes)`, printed after the
            class name.
        bounding_box_format: The format of the boxes, e.g. `"xyxy"`, `"xywh"`, `"rel_xyxy"` or
            `"center_xywh"` (see `tfkit.utils.bounding_boxes.convert_format`).
        class_mapping: Optional dict mapping class ids to names; boxes of other classes are drawn
            without text. Defaults to `None`.
        color: The color of the boxes and text, one value per channel. Defaults to
            `(128, 128, 128)`.
        line_thickness: The thickness of the box edges in pixels; `0` draws no edges and a
            negative value fills the box (OpenCV's convention). Defaults to `2`.
        text_thickness: The thickness of the text; `0` or `None` means `line_thickness`.
            Defaults to `1`.
        font_scale: The scale of the text font. Defaults to `1.0`.
        data_format: `"channels_last"` or `"channels_first"`. Defaults to `None`, for
            `tfkit.config.image_data_format()`.

    Returns:
        A `uint8` NumPy array of the shape of `images`, with the boxes drawn.

    Raises:
        ValueError: If `images` is not 4D, or `bounding_boxes` lacks `"boxes"` or `"labels"`.
        TypeError: If `bounding_boxes` is not a dict.
        ImportError: If Pillow is not installed.

    Example:
        >>> images = np.zeros((1, 8, 8, 3), np.uint8)
        >>> boxes = {"boxes": np.array([[[1, 1, 6, 6]]], np.float32), "labels": np.array([[0]])}
        >>> drawn = tfkit.visualization.draw_bounding_boxes(
        ...     images, boxes, bounding_box_format="xyxy", color=(255, 0, 0), line_thickness=1)
        >>> drawn.shape, drawn.dtype
        ((1, 8, 8, 3), dtype('uint8'))
        >>> drawn[0, :, :, 0]
        array([[  0,   0,   0,   0,   0,   0,   0,   0],
               [  0, 255, 255, 255, 255, 255, 255,   0],
               [  0, 255,   0,   0,   0,   0, 255,   0],
               [  0, 255,   0,   0,   0,   0, 255,   0],
               [  0, 255,   0,   0,   0,   0, 255,   0],
               [  0, 255,   0,   0,   0,   0, 255,   0],
               [  0, 255, 255, 255, 255, 255, 255,   0],
               [  0,   0,   0,   0,   0,   0,   0,   0]], dtype=uint8)
    """
    who = "draw_bounding_boxes()"
    Image, ImageDraw, ImageFont = _optional.pillow(who)
    class_mapping = class_mapping or {}
    text_thickness = text_thickness or line_thickness
    data_format = data_format or image_data_format()
    images = check_batched_images(images, who)
    if not isinstance(bounding_boxes, dict):
        raise TypeError(
            f"{who}: `bounding_boxes` must be a dict with 'boxes' and 'labels', got {type(bounding_boxes).__name__}"
        )
    if "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError(
            f"{who}: `bounding_boxes` must contain the keys 'boxes' and 'labels', got keys {sorted(bounding_boxes)}"
        )
    channels_first = data_format == "channels_first"
    if channels_first:
        images = images.transpose(0, 2, 3, 1)
    height, width = images.shape[1], images.shape[2]
    converted = convert_format(dict(bounding_boxes), bounding_box_format, "xyxy", height, width)
    boxes, labels = to_numpy(converted["boxes"]), to_numpy(converted["labels"])
    confidences = to_numpy(converted["confidences"]) if "confidences" in converted else None
    images = _as_uint8(images)
    colour = np.zeros(images.shape[-1], "uint8")
    given = np.asarray(color, "int64").reshape(-1)[: images.shape[-1]]
    colour[: len(given)] = np.clip(given, 0, 255)
    font = ImageFont.load_default(size=max(1, round(22 * font_scale)))
    result = []
    for i, image in enumerate(images):
        canvas = Image.new("L", (width, height), 0)  # 255 where something is drawn
        draw = ImageDraw.Draw(canvas)
        for j, box in enumerate(boxes[i]):
            label = int(labels[i][j])
            if label == -1:
                continue
            text = None
            if label in class_mapping:
                text = str(class_mapping[label])
                if confidences is not None:
                    text = f"{text} | {confidences[i][j]:.2f}"
            _draw_one(draw, font, box, text, int(line_thickness), int(text_thickness), font_scale)
        drawn = np.asarray(canvas) > 0
        image = image.copy()
        image[drawn] = colour
        result.append(image)
    out = np.stack(result, axis=0)
    return out.transpose(0, 3, 1, 2) if channels_first else out
