"""COCO category ids and names, as KerasHub's ``utils`` give them (0 is "unlabeled", 91 "hair_brush").

keras_hub.utils.coco_id_to_name(2)         # "bicycle"
keras_hub.utils.coco_name_to_id("bicycle")  # 2
"""

from __future__ import annotations

from tfkit.hub.utils.coco_classes import COCO_NAMES

COCO_CLASSES = dict(enumerate(COCO_NAMES))

_IDS = {name: index for index, name in COCO_CLASSES.items()}


def coco_id_to_name(id: int) -> str:
    """The name of COCO category `id`.

    Args:
        id: An integer category id from 0 to 91.

    Returns:
        The category name, such as `"bicycle"`.

    Raises:
        KeyError: If `id` is not a category id.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> keras_hub.utils.coco_id_to_name(2)
        'bicycle'
    """
    return COCO_CLASSES[id]


def coco_name_to_id(name: str) -> int:
    """The id of COCO category `name`.

    Args:
        name: A category name, such as `"bicycle"`.

    Returns:
        The integer category id, 0 to 91.

    Raises:
        KeyError: If `name` is not a category name.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> keras_hub.utils.coco_name_to_id("bicycle")
        2
    """
    return _IDS[name]
