"""The ImageNet class index (``imagenet_class_index.json``) that ``decode_predictions`` needs, read from a local file.

    os.environ["TFKIT_IMAGENET_CLASS_INDEX"] = "/data/imagenet_class_index.json"   # or pass class_index_path=
    index = load_class_index()          # {0: ("n01440764", "tench"), ..., 999: (...)}
    load_class_index("/elsewhere/imagenet_class_index.json")

Keras downloads the file; tfkit never does. It is looked for at the path
given, then ``$TFKIT_IMAGENET_CLASS_INDEX``, then Keras's cache
(``~/.keras/models/imagenet_class_index.json``); otherwise a ValueError
says where to get it. The file is parsed as JSON data and checked.
"""

from __future__ import annotations

import json
import os
from typing import Any

CLASS_INDEX_URL = "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
ENVIRONMENT_VARIABLE = "TFKIT_IMAGENET_CLASS_INDEX"
KERAS_CACHE = os.path.join("~", ".keras", "models", "imagenet_class_index.json")
CLASSES = 1000
MAX_BYTES = 1 << 20  # the real file is ~35 KB

_loaded: dict[str, dict[int, tuple[str, str]]] = {}


def find_class_index(path: str | os.PathLike | None = None) -> str:
    """The class index file to read: ``path``, ``$TFKIT_IMAGENET_CLASS_INDEX`` or Keras's cached copy."""
    if path is not None:
        return os.fspath(path)
    if os.environ.get(ENVIRONMENT_VARIABLE):
        return os.environ[ENVIRONMENT_VARIABLE]
    cached = os.path.expanduser(KERAS_CACHE)
    if os.path.isfile(cached):
        return cached
    raise ValueError(
        f"decode_predictions needs the ImageNet class index, which tfkit does not download. Fetch "
        f"{CLASS_INDEX_URL} where you can, then pass its path (decode_predictions(preds, "
        f"class_index_path='/path/to/imagenet_class_index.json')) or set ${ENVIRONMENT_VARIABLE} to it."
    )


def load_class_index(path: str | os.PathLike | None = None) -> dict[int, tuple[str, str]]:
    """``{class number: (WordNet id, name)}`` for the 1000 ImageNet classes, from the file :func:`find_class_index` picks."""
    source = find_class_index(path)
    if source not in _loaded:
        _loaded[source] = _read(source)
    return _loaded[source]


def _read(source: str) -> dict[int, tuple[str, str]]:
    try:
        with open(source, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as error:
        raise ValueError(f"ImageNet class index {source!r}: cannot read it ({error.strerror or error})") from None
    if len(data) > MAX_BYTES:
        raise ValueError(
            f"ImageNet class index {source!r}: expected a JSON file of ~35 KB, it is over {MAX_BYTES} bytes"
        )
    try:
        raw: Any = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"ImageNet class index {source!r}: not a JSON file ({error})") from None
    expected = {str(i) for i in range(CLASSES)}
    if not isinstance(raw, dict) or set(raw) != expected:
        raise ValueError(
            f"ImageNet class index {source!r}: expected an object with keys '0' ... '999' "
            f"(Keras's imagenet_class_index.json), got {type(raw).__name__} "
            f"with {len(raw) if isinstance(raw, (dict, list)) else 0} entries"
        )
    index: dict[int, tuple[str, str]] = {}
    for key, entry in raw.items():
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(e, str) for e in entry)):
            raise ValueError(
                f"ImageNet class index {source!r}: entry {key!r} should be [wordnet_id, name], got {str(entry)[:80]}"
            )
        index[int(key)] = (entry[0], entry[1])
    return index
