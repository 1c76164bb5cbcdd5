"""Writes the class-name tables of ``tfkit.hub.utils`` (ImageNet-1k synsets and names, COCO categories).

    python tools/hub_class_names.py && ruff format tfkit/hub/utils   # needs keras-hub (the test extra)

The tables are data (the datasets' published class lists), taken once from the
installed KerasHub's tables so that ids and names are KerasHub's exactly, and
kept in tfkit as Python literals: nothing is downloaded or read at run time.
"""

from __future__ import annotations

import os
import pathlib
import pprint

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

TARGET = pathlib.Path(__file__).resolve().parents[1] / "tfkit" / "hub" / "utils"
HEADER = '"""{what}, by class id: KerasHub 0.32\'s table, written by tools/hub_class_names.py."""\n\n'


def main() -> None:
    from keras_hub.src.utils.coco import coco_utils
    from keras_hub.src.utils.imagenet import imagenet_utils

    imagenet = [list(imagenet_utils.IMAGENET_NAMES[i]) for i in range(len(imagenet_utils.IMAGENET_NAMES))]
    (TARGET / "imagenet_classes.py").write_text(
        HEADER.format(what="ImageNet-1k's (synset, name) pairs")
        + "IMAGENET_CLASSES = "
        + pprint.pformat([tuple(pair) for pair in imagenet], width=100, compact=True)
        + "\n"
    )
    (TARGET / "coco_classes.py").write_text(
        HEADER.format(what="COCO's category names")
        + "COCO_CLASSES = "
        + pprint.pformat(dict(coco_utils.COCO_NAMES), width=100, compact=True, sort_dicts=True)
        + "\n"
    )


if __name__ == "__main__":
    main()
