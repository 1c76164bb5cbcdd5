"""``tfkit.hub.utils``: KerasHub's class-name helpers for ImageNet-1k and COCO.

    keras_hub.utils.decode_imagenet_predictions(classifier.predict(images))   # top-5 (name, score) per image
    keras_hub.utils.coco_id_to_name(2)                                         # "bicycle"

The class tables are KerasHub 0.32's, kept in tfkit as data: nothing is downloaded.
"""

from tfkit.hub.utils.coco import coco_id_to_name, coco_name_to_id
from tfkit.hub.utils.imagenet import decode_imagenet_predictions, imagenet_id_to_name, imagenet_name_to_id

__all__ = [
    "coco_id_to_name",
    "coco_name_to_id",
    "decode_imagenet_predictions",
    "imagenet_id_to_name",
    "imagenet_name_to_id",
]
