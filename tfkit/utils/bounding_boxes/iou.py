"""Intersection over union of boxes, pairwise (``compute_iou``) and complete IoU (``compute_ciou``).

    table = compute_iou(boxes1, boxes2, bounding_box_format="xyxy")      # (M, N) or (batch, M, N)
    ciou = compute_ciou(pred_boxes, true_boxes, bounding_box_format="xyxy")   # one value per box pair
    loss = 1.0 - ciou

Numbers follow Keras 3: ``epsilon()`` guards every division the same way.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.config import epsilon
from tfkit.utils.bounding_boxes.converters import convert_format


def _image_size(image_shape: Any, bounding_box_format: str, who: str) -> tuple[Any, Any]:
    if "rel" in bounding_box_format and image_shape is None:
        raise ValueError(
            f"{who}: relative bounding box formats (such as 'rel_yxyx') need the `image_shape` "
            f"argument (height, width, channels); got bounding_box_format={bounding_box_format!r} "
            "and image_shape=None"
        )
    if image_shape is None:
        return None, None
    height, width, _ = image_shape
    return height, width


def compute_iou(
    boxes1: Any,
    boxes2: Any,
    bounding_box_format: str,
    use_masking: bool = False,
    mask_val: Any = -1,
    image_shape: Any = None,
) -> tf.Tensor:
    """The IoU of every box in ``boxes1`` with every box in ``boxes2``.

    Shapes: ``(M, 4)`` with ``(N, 4)`` gives ``(M, N)``; if either is batched
    (``(batch, ., 4)``) the result is ``(batch, M, N)``. With ``use_masking``,
    pairs where either box has all coordinates negative (padding) read ``mask_val``.
    """
    who = "compute_iou()"
    ranks = [tf.convert_to_tensor(b).shape.rank for b in (boxes1, boxes2)]
    for name, rank in zip(("boxes1", "boxes2"), ranks):
        if rank not in (2, 3):
            raise ValueError(
                f"{who}: `{name}` must be unbatched (N, 4) or batched (batch, N, 4); got a tensor "
                f"of rank {rank} (boxes1 rank {ranks[0]}, boxes2 rank {ranks[1]})"
            )
    height, width = _image_size(image_shape, bounding_box_format, who)
    a = convert_format(boxes1, source=bounding_box_format, target="yxyx", height=height, width=width)
    b = convert_format(boxes2, source=bounding_box_format, target="yxyx", height=height, width=width)
    a_exp = a[..., :, tf.newaxis, :]  # (..., M, 1, 4)
    b_exp = b[..., tf.newaxis, :, :]  # (..., 1, N, 4)
    zero = tf.zeros([], a.dtype)
    inter_h = tf.maximum(zero, tf.minimum(a_exp[..., 2], b_exp[..., 2]) - tf.maximum(a_exp[..., 0], b_exp[..., 0]))
    inter_w = tf.maximum(zero, tf.minimum(a_exp[..., 3], b_exp[..., 3]) - tf.maximum(a_exp[..., 1], b_exp[..., 1]))
    intersection = inter_h * inter_w
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    union = area_a[..., :, tf.newaxis] + area_b[..., tf.newaxis, :] - intersection
    iou = intersection / (union + epsilon())
    if not use_masking:
        return iou
    padding_a = tf.reduce_max(a, axis=-1) < 0  # (..., M)
    padding_b = tf.reduce_max(b, axis=-1) < 0  # (..., N)
    masked = tf.logical_or(padding_a[..., :, tf.newaxis], padding_b[..., tf.newaxis, :])
    return tf.where(masked, tf.cast(mask_val, iou.dtype) * tf.ones_like(iou), iou)


def compute_ciou(boxes1: Any, boxes2: Any, bounding_box_format: str, image_shape: Any = None) -> tf.Tensor:
    """Complete IoU of matching boxes (shapes broadcast, ``(..., 4)`` -> ``(...)``).

    IoU minus the squared centre distance over the squared diagonal of the
    enclosing box, minus an aspect-ratio term ``alpha * v`` (Zheng et al., 2020).
    Relative formats need ``image_shape`` ``(height, width, channels)``.
    """
    who = "compute_ciou()"
    height, width = _image_size(image_shape, bounding_box_format, who)
    a = convert_format(boxes1, source=bounding_box_format, target="xyxy", height=height, width=width)
    b = convert_format(boxes2, source=bounding_box_format, target="xyxy", height=height, width=width)
    eps = epsilon()
    ax1, ay1, ax2, ay2 = tf.unstack(a, 4, axis=-1)
    bx1, by1, bx2, by2 = tf.unstack(b, 4, axis=-1)
    w1, h1 = ax2 - ax1, ay2 - ay1 + eps
    w2, h2 = bx2 - bx1, by2 - by1 + eps
    intersection = tf.maximum(tf.minimum(ax2, bx2) - tf.maximum(ax1, bx1), 0.0) * tf.maximum(
        tf.minimum(ay2, by2) - tf.maximum(ay1, by1), 0.0
    )
    union = w1 * h1 + w2 * h2 - intersection + eps
    iou = intersection / (union + eps)
    enclosing_w = tf.maximum(ax2, bx2) - tf.minimum(ax1, bx1)
    enclosing_h = tf.maximum(ay2, by2) - tf.minimum(ay1, by1)
    diagonal_sq = enclosing_w**2 + enclosing_h**2 + eps
    centre_sq = ((ax1 + ax2) / 2 - (bx1 + bx2) / 2) ** 2 + ((ay1 + ay2) / 2 - (by1 + by2) / 2) ** 2
    v = (4 / math.pi**2) * (tf.atan(w2 / h2) - tf.atan(w1 / h1)) ** 2
    alpha = v / (v - iou + (1 + eps))
    return iou - (centre_sq / diagonal_sq + v * alpha)
