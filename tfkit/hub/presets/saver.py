"""Writing a preset folder in KerasHub's layout, so that KerasHub's ``from_preset`` loads it unchanged.

    save_backbone(backbone, "my_gpt2")          # config.json, model.weights.h5, metadata.json
    save_tokenizer(tokenizer, "my_gpt2")        # tokenizer.json and assets/tokenizer/
    save_task(causal_lm, "my_gpt2")             # task.json, the backbone, the preprocessor

Configs are written as Keras writes them (``tfkit.saving``'s Keras form: a
``keras_hub>Name`` registered name, dtype policies as objects, no
``build_config`` or ``compile_config``), weights in Keras 3's weights layout.
Each file is written beside its target and renamed over it, so a failed save
leaves the preset's previous files as they were. A file name the objects carry
(a tokenizer's or preprocessor's ``config_file``, which a loaded preset sets)
is written only inside the folder (``files.writable_file``).
"""

from __future__ import annotations

import datetime
import json
import os
from typing import Any

from tfkit.engine import tracking
from tfkit.files import atomic
from tfkit.hub.presets import files
from tfkit.saving import serialization_api
from tfkit.saving.keras_files.archive_writer import save_keras_weights
from tfkit.saving.keras_files.keras_classes_table import KERAS_VERSION
from tfkit.saving.keras_files.object_to_keras import keras_object

KERAS_HUB_VERSION = "0.32.0"  # the KerasHub release whose preset layout tfkit writes


def _without(config: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(config, dict):
        return {key: _without(value, keys) for key, value in config.items() if key not in keys}
    if isinstance(config, list):
        return [_without(value, keys) for value in config]
    return config


def keras_entry(obj: Any, where: str) -> dict:
    """``obj`` serialized as Keras writes it into a preset's JSON files."""
    entry = keras_object(serialization_api.serialize(obj), "layers", where)
    return _without(entry, ("build_config", "compile_config"))


def write_json(directory: str, name: str, value: Any) -> None:
    """``value`` as the preset's file ``name`` (indented as KerasHub writes it), atomically."""
    os.makedirs(directory, exist_ok=True)
    with atomic.atomic_file(files.writable_file(directory, name)) as tmp:  # a name it was given stays inside
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(value, indent=4))


def write_serialized(obj: Any, directory: str, config_file: str) -> None:
    """``obj``'s config as ``config_file`` of preset ``directory``."""
    write_json(directory, config_file, keras_entry(obj, f"{config_file}: {getattr(obj, 'name', type(obj).__name__)}"))


def save_backbone(backbone: Any, directory: str, tasks: list[str]) -> None:
    """``config.json``, ``model.weights.h5`` and ``metadata.json`` of ``backbone`` (``tasks``: its task kinds)."""
    write_serialized(backbone, directory, files.CONFIG_FILE)
    save_keras_weights(backbone, os.path.join(directory, files.MODEL_WEIGHTS_FILE))
    metadata = {
        "keras_version": KERAS_VERSION,
        "keras_hub_version": KERAS_HUB_VERSION,
        "parameter_count": backbone.count_params(),
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
        "tasks": sorted(set(tasks)),
    }
    write_json(directory, files.METADATA_FILE, metadata)


def save_tokenizer(tokenizer: Any, directory: str) -> None:
    """The tokenizer's config (``tokenizer.json``, or its ``config_file``) and its assets under ``assets/``."""
    config_file = getattr(tokenizer, "config_file", files.TOKENIZER_CONFIG_FILE)
    write_serialized(tokenizer, directory, config_file)
    asset_dir = os.path.dirname(files.writable_file(directory, f"{files.ASSET_DIR}/{config_file.split('.')[0]}/-"))
    tokenizer.save_assets(asset_dir)


def save_plain_preprocessor(layer: Any, directory: str) -> None:
    """A task's preprocessor that is a plain layer (a ``Pipeline`` of image layers), as KerasHub saves one: its
    config as ``preprocessor.json`` (or its ``config_file``), then every nested layer that saves itself to a
    preset (a tokenizer, an image converter)."""
    write_serialized(layer, directory, getattr(layer, "config_file", files.PREPROCESSOR_CONFIG_FILE))
    for inner in tracking.flatten_layers(layer, include_self=False):
        if hasattr(inner, "save_to_preset"):
            inner.save_to_preset(directory)
