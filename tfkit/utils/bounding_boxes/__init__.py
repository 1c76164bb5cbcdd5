"""``tfkit.utils.bounding_boxes``: Keras's box utilities (formats, clipping, IoU, anchor deltas).

xywh = tfkit.utils.bounding_boxes.convert_format(boxes, source="xyxy", target="xywh")
iou = tfkit.utils.bounding_boxes.compute_iou(boxes1, boxes2, bounding_box_format="xyxy")
deltas = tfkit.utils.bounding_boxes.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy")
"""

from tfkit.utils.bounding_boxes.converters import affine_transform, clip_to_image_size, convert_format, crop, pad  # noqa: F401
from tfkit.utils.bounding_boxes.deltas import decode_deltas_to_boxes, encode_box_to_deltas  # noqa: F401
from tfkit.utils.bounding_boxes.iou import compute_ciou, compute_iou  # noqa: F401
