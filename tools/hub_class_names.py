"""Writes the class-name tables of ``tfkit.hub.utils`` (ImageNet-1k synsets and names, COCO categories).

    python tools/hub_class_names.py && ruff format tfkit/hub/utils   # needs keras-hub (the test extra)

The tables are data (the datasets' published class lists), taken once from the
installed KerasHub's tables so that ids and names are KerasHub's exactly, and
kept in tfkit as Python literals: nothing is downloaded or read at run time.
"""

from __future__ import annotations

import os
import pathlib
import textwrap

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

TARGET = pathlib.Path(__file__).resolve().parents[1] / "tfkit" / "hub" / "utils"
HEADER = '"""{what}, by class id: KerasHub 0.32\'s table, written by tools/hub_class_names.py."""\n\n'


def _packed(name: str, words: list[str]) -> str:
    """``NAME = "w1 w2 ..."`` as one string over lines of about 100 characters (words hold no spaces)."""
    lines = textwrap.wrap(" ".join(words), 100, break_on_hyphens=False, break_long_words=False)
    body = "\n".join(f'    "{line} "' for line in lines)
    return f"{name} = (\n{body}\n).split()\n"


def main() -> None:
    from keras_hub.src.utils.coco import coco_utils
    from keras_hub.src.utils.imagenet import imagenet_utils

    imagenet = [imagenet_utils.IMAGENET_NAMES[i] for i in range(len(imagenet_utils.IMAGENET_NAMES))]
    (TARGET / "imagenet_classes.py").write_text(
        HEADER.format(what="ImageNet-1k's synsets and names")
        + _packed("IMAGENET_SYNSETS", [synset for synset, _ in imagenet])
        + "\n"
        + _packed("IMAGENET_NAMES", [name for _, name in imagenet])
    )
    coco = [coco_utils.COCO_NAMES[i] for i in range(len(coco_utils.COCO_NAMES))]
    (TARGET / "coco_classes.py").write_text(HEADER.format(what="COCO's category names") + _packed("COCO_NAMES", coco))


if __name__ == "__main__":
    main()
