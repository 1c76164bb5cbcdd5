"""ImageNet-1k class ids and names, and the top classes of a batch of predictions, as KerasHub's ``utils`` give them.

keras_hub.utils.imagenet_id_to_name(1)                 # "goldfish"
keras_hub.utils.decode_imagenet_predictions(preds)     # [[("goldfish", 0.93), ...], ...]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.utils.imagenet_classes import IMAGENET_NAMES, IMAGENET_SYNSETS

IMAGENET_CLASSES = list(zip(IMAGENET_SYNSETS, IMAGENET_NAMES))  # (synset, name) by class id

_IDS = {name: index for index, (_, name) in enumerate(IMAGENET_CLASSES)}


def imagenet_id_to_name(id: int) -> str:
    """The name of ImageNet-1k class `id`.

    Args:
        id: An integer class id from 0 to 999.

    Returns:
        The class name, such as `"goldfish"`.

    Raises:
        KeyError: If `id` is not a class id (as KerasHub's lookup raises).

    Example:
        >>> import tfkit.hub as keras_hub
        >>> keras_hub.utils.imagenet_id_to_name(1)
        'goldfish'
    """
    if isinstance(id, bool) or not isinstance(id, (int, np.integer)) or not 0 <= id < len(IMAGENET_CLASSES):
        raise KeyError(id)
    return IMAGENET_CLASSES[int(id)][1]


def imagenet_name_to_id(name: str) -> int:
    """The class id of ImageNet-1k class `name`.

    Args:
        name: A class name, such as `"goldfish"`.

    Returns:
        The integer class id, 0 to 999.

    Raises:
        KeyError: If `name` is not a class name.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> keras_hub.utils.imagenet_name_to_id("goldfish")
        1
    """
    return _IDS[name]


def decode_imagenet_predictions(preds: Any, top: int = 5, include_synset_ids: bool = False) -> list[list[tuple]]:
    """The `top` classes of each prediction in a batch of ImageNet-1k scores, best first.

    Args:
        preds: A batch of predictions, `(samples, 1000)` (an array or tensor).
        top: How many classes to return per sample. Defaults to `5`.
        include_synset_ids: Whether each entry is `(synset_id, name, score)`
            instead of `(name, score)`. Defaults to `False`.

    Returns:
        One list of tuples per sample, highest score first.

    Raises:
        ValueError: If `preds` is not of shape `(samples, 1000)`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> preds = np.zeros((1, 1000), "float32"); preds[0, 1] = 0.75; preds[0, 2] = 0.25
        >>> keras_hub.utils.decode_imagenet_predictions(preds, top=2)
        [[('goldfish', 0.75), ('great_white_shark', 0.25)]]
    """
    preds = np.asarray(preds)
    if preds.ndim != 2 or preds.shape[1] != len(IMAGENET_CLASSES):
        raise ValueError(
            "`decode_imagenet_predictions` expects a batch of predictions (i.e. a 2D array of shape "
            f"(samples, 1000)). Received array with shape: {preds.shape}"
        )
    results = []
    for pred in preds:
        best = pred.argsort()[-top:][::-1]
        entries = sorted(((*IMAGENET_CLASSES[i], float(pred[i])) for i in best), key=lambda e: e[2], reverse=True)
        results.append(entries if include_synset_ids else [(name, score) for _, name, score in entries])
    return results
