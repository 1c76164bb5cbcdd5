"""Bounding-box math shared by the image augmentation layers and ``tfkit.utils.bounding_boxes``.

    xyxy = to_xyxy(boxes, "center_xywh", height, width)          # absolute (x0, y0, x1, y1)
    moved = clip({"boxes": project(xyxy, transforms), "labels": labels}, height, width)
    boxes = from_xyxy(moved["boxes"], "center_xywh", height, width)

Formats are Keras's: ``xyxy``, ``yxyx``, ``xywh``, ``center_xywh``,
``center_yxhw`` in pixels and ``rel_xyxy``, ``rel_yxyx``, ``rel_xywh``,
``rel_center_xywh`` as fractions of the image size. It lives among the ops
(below the layers) so that both the layers and ``tfkit.utils`` can import it.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh")


def check_format(bounding_box_format: Any, who: str) -> Any:
    if bounding_box_format is not None and bounding_box_format not in FORMATS:
        raise ValueError(
            f"{who} expected bounding_box_format to be one of {FORMATS} or None, got {bounding_box_format!r}"
        )
    return bounding_box_format


def densify(bounding_boxes: Any, unbatched: bool, who: str) -> dict[str, tf.Tensor]:
    """``{"boxes": float32 (b, n, 4), "labels": (b, n)}`` from tensors, ragged tensors or nested lists.

    Ragged rows are padded with zero boxes labelled -1, as in Keras.
    """
    if not isinstance(bounding_boxes, dict) or "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError(
            f"{who} expected 'bounding_boxes' to be a dict with the keys 'boxes' and 'labels', "
            f"got {bounding_boxes if not isinstance(bounding_boxes, dict) else sorted(bounding_boxes)}"
        )
    boxes, labels = bounding_boxes["boxes"], bounding_boxes["labels"]
    if isinstance(boxes, list):
        boxes, labels = tf.ragged.constant(boxes, dtype=tf.float32), tf.ragged.constant(labels)
    if isinstance(boxes, tf.RaggedTensor):
        boxes = boxes.to_tensor(default_value=0.0)
    if isinstance(labels, tf.RaggedTensor):
        labels = labels.to_tensor(default_value=-1)
    boxes = tf.cast(tf.convert_to_tensor(boxes), tf.float32)
    labels = tf.convert_to_tensor(labels)
    expected = 2 if unbatched else 3
    if boxes.shape.rank != expected or boxes.shape[-1] not in (4, None):
        raise ValueError(
            f"{who} expected bounding_boxes['boxes'] of shape {'(n, 4)' if unbatched else '(b, n, 4)'} "
            f"for {'one image' if unbatched else 'a batch'}, got shape {tuple(boxes.shape)}"
        )
    if unbatched:
        boxes, labels = boxes[tf.newaxis], labels[tf.newaxis]
    return {
        **{k: v for k, v in bounding_boxes.items() if k not in ("boxes", "labels")},
        "boxes": boxes,
        "labels": labels,
    }


def _split(boxes: tf.Tensor) -> list[tf.Tensor]:
    return tf.unstack(boxes, 4, axis=-1)


def to_xyxy(boxes: tf.Tensor, fmt: str, height: Any, width: Any) -> tf.Tensor:
    """Boxes of format ``fmt`` as absolute ``(x0, y0, x1, y1)``."""
    h, w = tf.cast(height, boxes.dtype), tf.cast(width, boxes.dtype)
    a, b, c, d = _split(boxes)
    if fmt.startswith("rel_"):
        fmt = fmt[4:]
        a, b, c, d = (a * h, b * w, c * h, d * w) if fmt == "yxyx" else (a * w, b * h, c * w, d * h)
    if fmt == "xyxy":
        out = (a, b, c, d)
    elif fmt == "yxyx":
        out = (b, a, d, c)
    elif fmt == "xywh":
        out = (a, b, a + c, b + d)
    elif fmt == "center_xywh":
        out = (a - c / 2, b - d / 2, a + c / 2, b + d / 2)
    else:  # center_yxhw
        out = (b - d / 2, a - c / 2, b + d / 2, a + c / 2)
    return tf.stack(out, axis=-1)


def from_xyxy(boxes: tf.Tensor, fmt: str, height: Any, width: Any) -> tf.Tensor:
    """Absolute ``(x0, y0, x1, y1)`` boxes in format ``fmt``."""
    h, w = tf.cast(height, boxes.dtype), tf.cast(width, boxes.dtype)
    x0, y0, x1, y1 = _split(boxes)
    relative = fmt.startswith("rel_")
    if relative:
        fmt = fmt[4:]
        x0, y0, x1, y1 = x0 / w, y0 / h, x1 / w, y1 / h
    if fmt == "xyxy":
        out = (x0, y0, x1, y1)
    elif fmt == "yxyx":
        out = (y0, x0, y1, x1)
    elif fmt == "xywh":
        out = (x0, y0, x1 - x0, y1 - y0)
    elif fmt == "center_xywh":
        out = ((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0)
    else:  # center_yxhw
        out = ((y0 + y1) / 2, (x0 + x1) / 2, y1 - y0, x1 - x0)
    return tf.stack(out, axis=-1)


def clip(bounding_boxes: dict[str, tf.Tensor], height: Any, width: Any) -> dict[str, tf.Tensor]:
    """Absolute ``xyxy`` boxes clipped to the image; boxes left with no area get label -1 (as Keras)."""
    boxes = bounding_boxes["boxes"]
    h, w = tf.cast(height, boxes.dtype), tf.cast(width, boxes.dtype)
    x0, y0, x1, y1 = _split(boxes)
    x0, x1 = tf.clip_by_value(x0, 0.0, w), tf.clip_by_value(x1, 0.0, w)
    y0, y1 = tf.clip_by_value(y0, 0.0, h), tf.clip_by_value(y1, 0.0, h)
    area = tf.maximum(x1 - x0, 0.0) * tf.maximum(y1 - y0, 0.0)
    labels = bounding_boxes["labels"]
    out = dict(bounding_boxes)
    out["boxes"] = tf.stack([x0, y0, x1, y1], axis=-1)
    out["labels"] = tf.where(area > 0, labels, tf.cast(-1, labels.dtype))
    return out


def project(boxes: tf.Tensor, transforms: tf.Tensor) -> tf.Tensor:
    """Absolute ``xyxy`` boxes ``(b, n, 4)`` carried through images resampled by ``transforms`` ``(b, 8)``.

    A transform maps an output pixel to the input point it reads, so a box
    corner moves by the inverse map; the result is the axis-aligned box
    around the four moved corners.
    """
    t = tf.cast(transforms, boxes.dtype)
    matrix = tf.reshape(tf.concat([t, tf.ones_like(t[:, :1])], axis=1), [-1, 3, 3])
    inverse = tf.linalg.inv(matrix)  # input point -> output pixel
    x0, y0, x1, y1 = _split(boxes)
    xs = tf.stack([x0, x1, x0, x1], axis=-1)  # (b, n, 4 corners)
    ys = tf.stack([y0, y0, y1, y1], axis=-1)
    points = tf.stack([xs, ys, tf.ones_like(xs)], axis=-1)  # (b, n, 4, 3)
    moved = tf.einsum("bij,bncj->bnci", inverse, points)
    denominator = tf.where(tf.abs(moved[..., 2]) < 1e-12, tf.ones_like(moved[..., 2]), moved[..., 2])
    mx, my = moved[..., 0] / denominator, moved[..., 1] / denominator
    return tf.stack(
        [tf.reduce_min(mx, -1), tf.reduce_min(my, -1), tf.reduce_max(mx, -1), tf.reduce_max(my, -1)], axis=-1
    )
