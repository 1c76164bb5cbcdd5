"""Box format conversion, clipping, cropping, padding and affine moves (``keras.utils.bounding_boxes``).

    xywh = convert_format(np.array([[10, 20, 30, 40]]), source="xyxy", target="xywh")   # [[10, 20, 20, 20]]
    clipped = clip_to_image_size({"boxes": boxes, "labels": labels}, height=100, width=120)
    moved = pad(crop(boxes, top=10, left=20, height=40, width=30), top=10, left=20)

The format arithmetic is shared with the augmentation layers (``tfkit.ops.image_boxes``);
the functions here add Keras's argument checks, dtypes and quirks on top. Results are
``tf.Tensor``s, so they work eagerly and inside ``tf.data`` pipelines alike.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.ops import image_boxes

SUPPORTED_FORMATS = image_boxes.FORMATS


def _check_format(value: Any, argument: str, who: str) -> str:
    if not isinstance(value, str) or value.lower() not in SUPPORTED_FORMATS:
        raise ValueError(f"{who}: `{argument}` must be one of {SUPPORTED_FORMATS} (case-insensitive), got {value!r}")
    return value.lower()


def _only_xyxy(bounding_box_format: Any, who: str) -> None:
    if bounding_box_format != "xyxy":
        raise NotImplementedError(
            f"{who} supports only bounding_box_format='xyxy' (as Keras does), "
            f"got {bounding_box_format!r}; convert first with "
            "tfkit.utils.bounding_boxes.convert_format"
        )


def _as_tensor(values: Any, argument: str, who: str, dtype: Any = None) -> tf.Tensor:
    tensor = tf.convert_to_tensor(values) if dtype is None else tf.cast(tf.convert_to_tensor(values), dtype)
    if tensor.shape.rank is not None and tensor.shape.rank >= 1 and tensor.shape[-1] not in (4, None):
        raise ValueError(
            f"{who}: `{argument}` must have a last dimension of 4 (one box per row), got shape {tuple(tensor.shape)}"
        )
    return tensor


def convert_format(
    boxes: Any, source: str, target: str, height: Any = None, width: Any = None, dtype: Any = "float32"
) -> Any:
    """Boxes converted from format ``source`` to format ``target`` (both case-insensitive).

    ``boxes`` is an array/tensor of shape ``(..., 4)``, or a dict whose
    ``"boxes"`` entry is converted in place (the dict is returned, as Keras
    does). Relative formats (``rel_*``) need the image ``height`` and ``width``.
    """
    if isinstance(boxes, dict):
        boxes["boxes"] = convert_format(boxes["boxes"], source, target, height=height, width=width, dtype=dtype)
        return boxes
    who = "convert_format()"
    tensor = tf.convert_to_tensor(boxes)
    if tensor.shape.rank is None or tensor.shape.rank < 1 or tensor.shape[-1] != 4:
        raise ValueError(f"{who}: `boxes` must have a last dimension of 4, got shape {tuple(tensor.shape)}")
    source = _check_format(source, "source", who)
    target = _check_format(target, "target", who)
    if (source.startswith("rel_") or target.startswith("rel_")) and (height is None or width is None):
        raise ValueError(
            f"{who} needs `height` and `width` to convert between relative and absolute formats; "
            f"got source={source!r}, target={target!r}, height={height}, width={width}"
        )
    tensor = tf.cast(tensor, dtype)
    if source == target:
        return tensor
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]  # the image size cancels out
    h = tf.cast(1 if height is None else height, tensor.dtype)
    w = tf.cast(1 if width is None else width, tensor.dtype)
    return image_boxes.from_xyxy(image_boxes.to_xyxy(tensor, source, h, w), target, h, w)


def clip_to_image_size(
    bounding_boxes: dict[str, Any], height: Any = None, width: Any = None, bounding_box_format: str = "xyxy"
) -> dict[str, Any]:
    """``bounding_boxes`` (a dict with ``"boxes"`` and optional ``"labels"``) clipped to the image.

    Works on ``xyxy`` (clipped to ``[0, width] x [0, height]``) and ``rel_xyxy``
    (clipped to ``[0, 1]``). A box whose clipped area is not positive gets label -1.
    Returns a new dict; other keys are kept.
    """
    who = "clip_to_image_size()"
    if not isinstance(bounding_boxes, dict) or "boxes" not in bounding_boxes:
        raise ValueError(
            f"{who}: `bounding_boxes` must be a dict with a 'boxes' key (and optionally 'labels'), "
            f"got {type(bounding_boxes).__name__}"
        )
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError(
            f"{who} supports bounding_box_format 'xyxy' or 'rel_xyxy' (as Keras does), got {bounding_box_format!r}"
        )
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError(
            f"{who}: `height` and `width` must be set when bounding_box_format='xyxy', "
            f"got height={height}, width={width}"
        )
    boxes = _as_tensor(bounding_boxes["boxes"], "bounding_boxes['boxes']", who)
    if bounding_box_format == "xyxy":
        upper_x, upper_y = tf.cast(width, boxes.dtype), tf.cast(height, boxes.dtype)
    else:
        upper_x = upper_y = tf.ones([], boxes.dtype)
    zero = tf.zeros([], boxes.dtype)
    x1, y1, x2, y2 = tf.unstack(boxes, 4, axis=-1)
    x1, x2 = tf.clip_by_value(x1, zero, upper_x), tf.clip_by_value(x2, zero, upper_x)
    y1, y2 = tf.clip_by_value(y1, zero, upper_y), tf.clip_by_value(y2, zero, upper_y)
    result = dict(bounding_boxes)
    result["boxes"] = tf.stack([x1, y1, x2, y2], axis=-1)
    labels = bounding_boxes.get("labels")
    if labels is not None:
        labels = tf.convert_to_tensor(labels)
        area = (x2 - x1) * (y2 - y1)  # signed, as Keras computes it
        result["labels"] = tf.where(area > 0, labels, tf.cast(-1, labels.dtype))
    return result


def _per_image(value: Any, batch: tf.Tensor, dtype: tf.DType) -> tf.Tensor:
    """A scalar or ``(batch,)`` parameter as a ``(batch,)`` tensor."""
    return tf.broadcast_to(tf.cast(value, dtype), [batch])


def _affine_matrix(
    center_x: tf.Tensor,
    center_y: tf.Tensor,
    angle: tf.Tensor,
    translate_x: tf.Tensor,
    translate_y: tf.Tensor,
    scale: tf.Tensor,
    shear_x: tf.Tensor,
    shear_y: tf.Tensor,
    height: Any,
    width: Any,
) -> tf.Tensor:
    """``(batch, 2, 3)`` matrices that map a box corner ``(x, y, 1)`` to its place after the transform.

    The same matrix Keras's affine augmentation builds: rotation by ``-angle``
    and shear by ``-shear`` degrees about the centre ``(center_x * (width - 1),
    center_y * (height - 1))``, translation by a fraction of ``width - 1`` and
    ``height - 1``, and scaling by ``scale``.
    """
    dtype = angle.dtype
    w1, h1 = tf.cast(width, dtype) - 1, tf.cast(height, dtype) - 1
    to_radians = math.pi / 180.0
    cx, cy = center_x * w1, center_y * h1
    rot, sx, sy = -angle * to_radians, -shear_x * to_radians, -shear_y * to_radians
    shift_x, shift_y = cx - translate_x * w1, cy - translate_y * h1
    cos_sy, tan_sx = tf.cos(sy), tf.tan(sx)
    a = tf.cos(rot - sy) / cos_sy
    b = a * tan_sx + tf.sin(rot)
    c = -tf.sin(rot - sy) / cos_sy
    d = tf.cos(rot) - c * tan_sx
    m00, m01, m10, m11 = d * scale, -b * scale, -c * scale, a * scale
    m02 = cx - m00 * shift_x - m01 * shift_y
    m12 = cy - m10 * shift_x - m11 * shift_y
    return tf.reshape(tf.stack([m00, m01, m02, m10, m11, m12], axis=-1), [-1, 2, 3])


def affine_transform(
    boxes: Any,
    angle: Any,
    translate_x: Any,
    translate_y: Any,
    scale: Any,
    shear_x: Any,
    shear_y: Any,
    height: Any,
    width: Any,
    center_x: Any = None,
    center_y: Any = None,
    bounding_box_format: str = "xyxy",
) -> tf.Tensor:
    """``xyxy`` boxes moved by an affine transform: each box becomes the box around its four moved corners.

    ``boxes`` is ``(N, 4)`` or ``(batch, N, 4)``; the transform parameters are
    scalars or one value per image (shape ``(batch,)``). ``angle``, ``shear_x``
    and ``shear_y`` are in degrees; translations and the centre (default 0.5)
    are fractions of the image size.
    """
    who = "affine_transform()"
    _only_xyxy(bounding_box_format, who)
    dtype = tf.convert_to_tensor(angle).dtype
    dtype = dtype if dtype.is_floating else tf.float32
    boxes = _as_tensor(boxes, "boxes", who, dtype)
    unbatched = boxes.shape.rank == 2
    if unbatched:
        boxes = boxes[tf.newaxis]
    if boxes.shape.rank != 3:
        raise ValueError(f"{who}: `boxes` must have shape (N, 4) or (batch, N, 4), got {tuple(boxes.shape)}")
    batch = tf.shape(boxes)[0]
    params = [_per_image(0.5 if v is None else v, batch, dtype) for v in (center_x, center_y)]
    params += [_per_image(v, batch, dtype) for v in (angle, translate_x, translate_y, scale, shear_x, shear_y)]
    matrix = _affine_matrix(*params, height=height, width=width)
    x1, y1, x2, y2 = tf.unstack(boxes, 4, axis=-1)
    xs = tf.stack([x1, x2, x2, x1], axis=-1)  # (b, n, 4 corners)
    ys = tf.stack([y1, y1, y2, y2], axis=-1)
    corners = tf.stack([xs, ys, tf.ones_like(xs)], axis=-1)  # (b, n, 4, 3)
    moved = tf.einsum("bnck,bjk->bncj", corners, matrix)  # (b, n, 4, 2)
    out = tf.concat([tf.reduce_min(moved, axis=2), tf.reduce_max(moved, axis=2)], axis=-1)
    return out[0] if unbatched else out


def _offsets(boxes: tf.Tensor, top: Any, left: Any) -> tuple[tf.Tensor, tf.Tensor]:
    return tf.cast(top, boxes.dtype), tf.cast(left, boxes.dtype)


def crop(boxes: Any, top: Any, left: Any, height: Any, width: Any, bounding_box_format: str = "xyxy") -> tf.Tensor:
    """``xyxy`` boxes in the coordinates of the crop ``[top, top + height) x [left, left + width)``.

    Boxes are shifted by ``(-left, -top)`` and clipped to ``[0, width] x [0,
    height]`` (no upper bound on an axis whose size is None).
    """
    who = "crop()"
    _only_xyxy(bounding_box_format, who)
    boxes = _as_tensor(boxes, "boxes", who)
    top, left = _offsets(boxes, top, left)
    x1, y1, x2, y2 = tf.unstack(boxes, 4, axis=-1)

    def clip(v: tf.Tensor, size: Any) -> tf.Tensor:
        v = tf.maximum(v, tf.zeros([], v.dtype))
        return v if size is None else tf.minimum(v, tf.cast(size, v.dtype))

    return tf.stack(
        [clip(x1 - left, width), clip(y1 - top, height), clip(x2 - left, width), clip(y2 - top, height)], axis=-1
    )


def pad(
    boxes: Any, top: Any, left: Any, height: Any = None, width: Any = None, bounding_box_format: str = "xyxy"
) -> tf.Tensor:
    """``xyxy`` boxes in the coordinates of an image padded by ``top`` rows and ``left`` columns.

    ``height`` and ``width`` are accepted for Keras's signature and unused.
    """
    who = "pad()"
    _only_xyxy(bounding_box_format, who)
    boxes = _as_tensor(boxes, "boxes", who)
    top, left = _offsets(boxes, top, left)
    return boxes + tf.stack([left, top, left, top])
