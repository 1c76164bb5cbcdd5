"""The files of a preset folder, reached by name only: no path a preset names leaves its folder.

    path = preset_file(directory, "config.json")          # MissingPresetFileError naming the preset and file
    config = read_json(directory, "tokenizer.json")       # size-limited, checked, plain data
    target = writable_file(directory, config_file)        # where save_to_preset may write a name it was given

Names come from tfkit's code (``config.json``) or from a preset's own data
(the shard names in ``model.weights.json``, a tokenizer's ``config_file``): a
name with a path separator other than ``/``, a ``..``, an empty part or a
leading ``/`` is refused, and so is a link that leads out of the folder, for
reading and for writing. A Hugging Face cache snapshot
(``models--org--name/snapshots/<revision>/``, its files links into the
repository's ``blobs/``) may lead anywhere inside its repository's folder.
"""

from __future__ import annotations

import os
from typing import Any

from tfkit.engine.config_safety import MAX_JSON_CHARS, check_config, loads_json

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
MAX_JSON_FILE_BYTES = 4 * MAX_JSON_CHARS  # UTF-8 spends at most 4 bytes a character


class MissingPresetFileError(FileNotFoundError, ValueError):
    """A file the preset needs is not there: a ``FileNotFoundError``, and a ``ValueError`` as every refusal of a
    preset is, so code catching either works."""


def checked_name(directory: str, name: Any) -> str:
    """The path of ``name`` (``"assets/tokenizer/merges.txt"``) inside ``directory``; ``ValueError`` unless it is a
    relative name of plain parts joined by ``/``."""
    if not isinstance(name, str):
        raise ValueError(f"preset {directory}: a file name must be a string, got {type(name).__name__}")
    parts = name.split("/")
    if (
        not name
        or len(name) > 1024
        or name.startswith("/")
        or any(c in name for c in "\\\0")
        or any(part in ("", ".", "..") for part in parts)
    ):
        raise ValueError(f"preset {directory}: {name[:200]!r} is not a file name inside the preset")
    return os.path.join(directory, *parts)


def _root(directory: str) -> str:
    """The folder the preset's links may lead into: its own, or a Hugging Face cache snapshot's repository."""
    real = os.path.realpath(directory)
    snapshots, repository = os.path.dirname(real), os.path.dirname(os.path.dirname(real))
    if os.path.basename(snapshots) == "snapshots" and os.path.isdir(os.path.join(repository, "blobs")):
        return repository
    return real


def _inside(directory: str, path: str) -> str:
    """``path``'s real path, or ``ValueError`` if it (or a link on the way) leads out of the preset folder."""
    root, real = _root(directory), os.path.realpath(path)
    if os.path.commonpath([root, real]) != root:
        raise ValueError(
            f"preset {directory}: {os.path.relpath(path, directory)} leads out of the preset folder (a link to "
            f"{real}?); refused"
        )
    return real


def preset_file(directory: str, name: str) -> str:
    """The path of file ``name`` (``"assets/tokenizer/merges.txt"``) inside preset ``directory``.

    Raises ``MissingPresetFileError`` (a ``FileNotFoundError`` and a ``ValueError``) when it is missing, and
    ``ValueError`` when ``name`` (or a link on the way) would leave the folder or is not a regular file.
    """
    path = checked_name(directory, name)
    real = _inside(directory, path)
    if not os.path.exists(real):
        raise MissingPresetFileError(f"preset {directory} has no {name}")
    if not os.path.isfile(real):
        raise ValueError(f"preset {directory}: {name} is not a regular file")
    return path


def has_file(directory: str, name: str) -> bool:
    """Whether preset ``directory`` holds file ``name``; ``ValueError`` if the name or a link leads out of it."""
    try:
        preset_file(directory, name)
    except MissingPresetFileError:
        return False
    return True


def writable_file(directory: str, name: Any) -> str:
    """The path ``save_to_preset`` writes file ``name`` (a name it was given, such as a ``config_file``) to:
    ``ValueError`` if it, or a link among the folders on the way, would leave ``directory``."""
    path = checked_name(directory, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    _inside(directory, os.path.dirname(path))
    if os.path.islink(path):  # the file is renamed over: a link would be replaced, never written through
        _inside(directory, path)
    return path


def read_json(directory: str, name: str) -> Any:
    """File ``name`` of the preset, parsed as JSON under tfkit's config limits and checked as a config (no code)."""
    path = preset_file(directory, name)
    with open(path, "rb") as handle:
        data = handle.read(MAX_JSON_FILE_BYTES + 1)  # never more: a larger file is refused unread
    if len(data) > MAX_JSON_FILE_BYTES:
        raise ValueError(f"preset {directory}: {name} is over {MAX_JSON_FILE_BYTES} bytes; the limit for a config")
    value = loads_json(data, f"preset {directory}: {name}")
    check_config(value, f"preset {directory}: {name}")
    return value
