"""The files of a preset folder, reached by name only: no path a preset names leaves its folder.

    path = preset_file(directory, "config.json")          # FileNotFoundError naming the preset and file
    config = read_json(directory, "tokenizer.json")       # size-limited, checked, plain data

Names come from tfkit's code (``config.json``) or from a preset's own data
(the shard names in ``model.weights.json``, a tokenizer's ``config_file``): a
name with a path separator, ``..``, or a link out of the folder is refused.
"""

from __future__ import annotations

import os
from typing import Any

from tfkit.engine.config_safety import check_config, loads_json

CONFIG_FILE = "config.json"
TOKENIZER_CONFIG_FILE = "tokenizer.json"
PREPROCESSOR_CONFIG_FILE = "preprocessor.json"
IMAGE_CONVERTER_CONFIG_FILE = "image_converter.json"
TASK_CONFIG_FILE = "task.json"
METADATA_FILE = "metadata.json"
MODEL_WEIGHTS_FILE = "model.weights.h5"
SHARDED_MODEL_WEIGHTS_CONFIG_FILE = "model.weights.json"
TASK_WEIGHTS_FILE = "task.weights.h5"
ASSET_DIR = "assets"


def _checked_name(directory: str, name: str) -> str:
    parts = name.split("/")
    if not name or name.startswith("/") or "\\" in name or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"preset {directory}: {name!r} is not a file name inside the preset")
    return os.path.join(directory, *parts)


def preset_file(directory: str, name: str) -> str:
    """The path of file ``name`` (``"assets/tokenizer/merges.txt"``) inside preset ``directory``.

    Raises ``FileNotFoundError`` when it is missing and ``ValueError`` when ``name`` (or a link on the way)
    would leave the folder.
    """
    path = _checked_name(directory, name)
    real_root = os.path.realpath(directory)
    real = os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root:
        raise ValueError(f"preset {directory}: {name} leads out of the preset folder (a link?)")
    if not os.path.isfile(real):
        raise FileNotFoundError(f"preset {directory} has no {name}")
    return path


def has_file(directory: str, name: str) -> bool:
    """Whether preset ``directory`` holds file ``name`` (a regular file inside the folder)."""
    try:
        preset_file(directory, name)
    except (FileNotFoundError, ValueError):
        return False
    return True


def read_json(directory: str, name: str) -> Any:
    """File ``name`` of the preset, parsed as JSON under tfkit's config limits and checked as a config (no code)."""
    path = preset_file(directory, name)
    with open(path, "rb") as handle:
        data = handle.read()
    value = loads_json(data, f"preset {directory}: {name}")
    check_config(value, f"preset {directory}: {name}")
    return value
