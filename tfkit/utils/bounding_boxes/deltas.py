"""Anchor-relative box deltas, as detection heads regress them (``keras.utils.bounding_boxes``).

    deltas = encode_box_to_deltas(anchors, boxes, anchor_format="xyxy", box_format="xyxy")
    boxes_again = decode_deltas_to_boxes(anchors, deltas, anchor_format="xyxy", box_format="xyxy")
    # deltas = ((cy - acy) / ah, (cx - acx) / aw, log(h / ah), log(w / aw)) / variance

Both work in ``center_yxhw`` (default) or ``center_xywh``; ``decode_deltas_to_boxes``
also takes dicts of per-level anchors and deltas, as Keras does.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.config import epsilon
from tfkit.utils.bounding_boxes.converters import convert_format

_CENTER_FORMATS = ("center_xywh", "center_yxhw")


def _variance(variance: Any, who: str) -> tf.Tensor | None:
    if variance is None:
        return None
    variance = tf.cast(tf.convert_to_tensor(variance), tf.float32)
    if variance.shape.rank != 1 or variance.shape[-1] != 4:
        raise ValueError(
            f"{who}: `variance` must be 4 numbers (one per box coordinate), got shape {tuple(variance.shape)}"
        )
    return variance


def _image_size(image_shape: Any, who: str) -> tuple[Any, Any]:
    if image_shape is None:
        return None, None
    if len(image_shape) != 3:
        raise ValueError(f"{who}: `image_shape` must be (height, width, channels), got {image_shape!r}")
    height, width, _ = image_shape
    return height, width


def encode_box_to_deltas(
    anchors: Any,
    boxes: Any,
    anchor_format: str,
    box_format: str,
    encoding_format: str = "center_yxhw",
    variance: Any = None,
    image_shape: Any = None,
) -> tf.Tensor:
    """The offsets that turn each anchor ``(N, 4)`` into its box (``(N, 4)`` or ``(batch, N, 4)``).

    Centres move by a fraction of the anchor size; sizes scale by ``exp`` of
    the last two deltas. ``variance`` (4 numbers) divides the deltas.
    ``image_shape`` ``(height, width, channels)`` is needed for relative formats.
    """
    who = "encode_box_to_deltas()"
    variance = _variance(variance, who)
    if encoding_format not in _CENTER_FORMATS:
        raise ValueError(f"{who}: `encoding_format` must be one of {_CENTER_FORMATS}, got {encoding_format!r}")
    height, width = _image_size(image_shape, who)
    anchors = convert_format(anchors, source=anchor_format, target=encoding_format, height=height, width=width)
    boxes = convert_format(boxes, source=box_format, target=encoding_format, height=height, width=width)
    anchor_size = tf.maximum(anchors[..., 2:], epsilon())
    box_size = tf.maximum(boxes[..., 2:], epsilon())
    deltas = tf.concat(
        [(boxes[..., :2] - anchors[..., :2]) / anchor_size, tf.math.log(box_size / anchor_size)], axis=-1
    )
    return deltas if variance is None else deltas / variance


def decode_deltas_to_boxes(
    anchors: Any,
    boxes_delta: Any,
    anchor_format: str,
    box_format: str,
    encoded_format: str = "center_yxhw",
    variance: Any = None,
    image_shape: Any = None,
) -> Any:
    """Boxes in ``box_format`` from anchors and their deltas: the inverse of ``encode_box_to_deltas``.

    ``anchors`` and ``boxes_delta`` are tensors (``(N, 4)``; deltas may be
    batched) or dicts with the same keys (one entry per feature level); a dict
    in gives a dict out.
    """
    who = "decode_deltas_to_boxes()"
    variance = _variance(variance, who)
    if encoded_format not in _CENTER_FORMATS:
        raise ValueError(f"{who}: `encoded_format` must be one of {_CENTER_FORMATS}, got {encoded_format!r}")
    height, width = _image_size(image_shape, who)

    def decode(anchor: Any, delta: Any) -> tf.Tensor:
        anchor = convert_format(anchor, source=anchor_format, target=encoded_format, height=height, width=width)
        delta = tf.cast(tf.convert_to_tensor(delta), anchor.dtype)
        if variance is not None:
            delta = delta * tf.cast(variance, delta.dtype)
        box = tf.concat(
            [delta[..., :2] * anchor[..., 2:] + anchor[..., :2], tf.exp(delta[..., 2:]) * anchor[..., 2:]], axis=-1
        )
        return convert_format(box, source=encoded_format, target=box_format, height=height, width=width)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        missing = sorted(set(anchors) - set(boxes_delta), key=str)
        if missing:
            raise ValueError(f"{who}: `boxes_delta` lacks the levels {missing} that `anchors` has")
        return {level: decode(anchor, boxes_delta[level]) for level, anchor in anchors.items()}
    return decode(anchors, boxes_delta)
