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
        raise ValueError(f"{who}: `images` must be a batched 4D tensor or array (batch, height, width, channels) "
                         f"or (batch, channels, height, width); got shape {images.shape}")
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


def _draw_one(draw: Any, font: Any, box: np.ndarray, text: str | None, line_thickness: int,
              text_thickness: int, font_scale: float) -> None:
    x1, y1, x2, y2 = (int(v) for v in box.astype("int32"))
    left, right, top, bottom = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
    if line_thickness < 0:                                    # OpenCV's convention: a negative thickness fills
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
    except (ValueError, TypeError):                           # a bitmap font has no anchors: place its top-left
        _, top_off, _, bottom_off = draw.textbbox((0, 0), text, font=font)
        draw.text((tx, ty - (bottom_off - top_off)), text, fill=255, font=font)


def draw_bounding_boxes(images: Any, bounding_boxes: dict[str, Any], bounding_box_format: str,
                        class_mapping: dict[int, str] | None = None, color: Any = (128, 128, 128),
                        line_thickness: int = 2, text_thickness: int = 1, font_scale: float = 1.0,
                        data_format: str | None = None) -> np.ndarray:
    """``images`` (batch of 4) as uint8 with each box's outline, and its class name if mapped, in ``color``.

    ``bounding_boxes`` holds ``"boxes"`` ``(batch, n, 4)`` in ``bounding_box_format``,
    ``"labels"`` ``(batch, n)`` (boxes labelled -1 are skipped) and optional
    ``"confidences"`` ``(batch, n)`` printed after the class name. Float images
    with values up to 1 are scaled to 0-255. The result has the shape of ``images``.
    """
    who = "draw_bounding_boxes()"
    Image, ImageDraw, ImageFont = _optional.pillow(who)
    class_mapping = class_mapping or {}
    text_thickness = text_thickness or line_thickness
    data_format = data_format or image_data_format()
    images = check_batched_images(images, who)
    if not isinstance(bounding_boxes, dict):
        raise TypeError(f"{who}: `bounding_boxes` must be a dict with 'boxes' and 'labels', got "
                        f"{type(bounding_boxes).__name__}")
    if "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError(f"{who}: `bounding_boxes` must contain the keys 'boxes' and 'labels', got keys "
                         f"{sorted(bounding_boxes)}")
    channels_first = data_format == "channels_first"
    if channels_first:
        images = images.transpose(0, 2, 3, 1)
    height, width = images.shape[1], images.shape[2]
    converted = convert_format(dict(bounding_boxes), bounding_box_format, "xyxy", height, width)
    boxes, labels = to_numpy(converted["boxes"]), to_numpy(converted["labels"])
    confidences = to_numpy(converted["confidences"]) if "confidences" in converted else None
    images = _as_uint8(images)
    colour = np.zeros(images.shape[-1], "uint8")
    given = np.asarray(color, "int64").reshape(-1)[:images.shape[-1]]
    colour[:len(given)] = np.clip(given, 0, 255)
    font = ImageFont.load_default(size=max(1, round(22 * font_scale)))
    result = []
    for i, image in enumerate(images):
        canvas = Image.new("L", (width, height), 0)           # 255 where something is drawn
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
