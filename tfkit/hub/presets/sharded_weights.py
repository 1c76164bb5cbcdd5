"""A preset whose weights are split into shards (``model.weights.json``), read one shard at a time.

    names = shard_names(directory)                   # ["model_00000.weights.h5", ...], each a file of the preset
    with element_budget(directory, names, source):   # the config may not ask for more than the shards can hold
        backbone = ...
    assign_shards(backbone, directory, names)        # each shard read, checked and assigned, then dropped

KerasHub writes shards for backbones over ``max_shard_size`` (10 GB by default).
Its index maps each layer's ``<path>/vars`` to the shard (or shards) holding it;
each shard is a Keras 3 weights file of part of the model. Only one shard's
arrays are in memory at a time, and the shards together must cover every
variable the model stores, or the load fails naming the ones left out.
"""

from __future__ import annotations

import os
from typing import Any

from tfkit.hub.presets import files
from tfkit.saving import weights_io
from tfkit.saving.guard import variable_budget
from tfkit.saving.h5_snapshot import read_snapshot
from tfkit.saving.keras_files.weights_layout import keras3_pairs, keras3_variables


def shard_names(directory: str) -> list[str]:
    """The shard files ``model.weights.json`` names, each checked to be a file of the preset folder."""
    index = files.read_json(directory, files.SHARDED_MODEL_WEIGHTS_CONFIG_FILE)
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict):
        raise ValueError(f"preset {directory}: {files.SHARDED_MODEL_WEIGHTS_CONFIG_FILE} has no weight_map object")
    names: set[str] = set()
    for where, value in weight_map.items():
        for name in value if isinstance(value, list) else [value]:
            if not isinstance(name, str):
                raise ValueError(
                    f"preset {directory}: {files.SHARDED_MODEL_WEIGHTS_CONFIG_FILE} maps {where!r} to "
                    f"{name!r}; expected shard file names"
                )
            names.add(name)
    for name in names:
        files.preset_file(directory, name)
    return sorted(names)


def element_budget(directory: str, names: list[str], source: str) -> Any:
    """The variable budget of a sharded preset: no more elements than the shards' bytes could hold."""
    size = sum(os.path.getsize(files.preset_file(directory, name)) for name in names)
    return variable_budget(size, size, size, source)


def assign_shards(model: Any, directory: str, names: list[str]) -> set[int]:
    """Each shard's weights into ``model`` (checked shard by shard); ``ValueError`` if the shards leave any out.
    Returns the ids of the variables assigned."""
    assigned: set[int] = set()
    for name in names:
        path = files.preset_file(directory, name)
        pairs = keras3_pairs(model, read_snapshot(path, ("*",)).tables, path, partial=True)
        weights_io.assign(pairs)
        assigned.update(id(variable) for variable, _, _ in pairs)
        del pairs
    missing = [v.name for v in keras3_variables(model) if id(v) not in assigned]
    if missing:
        raise ValueError(
            f"preset {directory}: its shards ({', '.join(names)}) hold no values for {len(missing)} variables: "
            f"{missing[:10]}"
        )
    return assigned
