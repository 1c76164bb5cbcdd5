"""A preset whose weights are split into shards (``model.weights.json``), read one shard and one layer at a time.

    shards = shard_groups(directory)                  # {"model_00000.weights.h5": ["layers/token_embedding"], ...}
    with element_budget(directory, list(shards), source):   # no more than the shards can hold
        backbone = ...
    assign_shards(backbone, directory, shards, source)  # each shard's layers read, checked and assigned in turn

KerasHub writes shards for backbones over ``max_shard_size`` (10 GB by default).
Its index maps each layer's ``<path>/vars`` to the shard (or shards) holding it;
each shard is a Keras 3 weights file of part of the model. The index only says
which of the model's top-level layers to look for in a shard: each shard is read
as ``streamed_weights`` reads a single file (one top-level layer's arrays in
memory at a time, each assigned into its variable's own buffer, the shard's
bytes checked against what was read), and the shards together must cover every
variable the model stores, or the load fails naming the ones left out.
"""

from __future__ import annotations

import os
from typing import Any

from tfkit.hub.presets import files, streamed_weights
from tfkit.saving.guard import variable_budget


def _group(key: str) -> str:
    """The top-level group of an index key: ``/layers/decoder/_dense/vars`` -> ``layers/decoder``."""
    parts = key.strip("/").split("/")
    return "/".join(parts[:2]) if parts[0] == "layers" else parts[0]


def shard_groups(directory: str) -> dict[str, list[str]]:
    """The shard files ``model.weights.json`` names (each checked to be a file of the preset folder), sorted, with
    the top-level groups the index places in each."""
    index = files.read_json(directory, files.SHARDED_MODEL_WEIGHTS_CONFIG_FILE)
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict):
        raise ValueError(f"preset {directory}: {files.SHARDED_MODEL_WEIGHTS_CONFIG_FILE} has no weight_map object")
    groups: dict[str, set[str]] = {}
    for where, value in weight_map.items():
        for name in value if isinstance(value, list) else [value]:
            if not isinstance(name, str) or not isinstance(where, str):
                raise ValueError(
                    f"preset {directory}: {files.SHARDED_MODEL_WEIGHTS_CONFIG_FILE} maps {where!r} to "
                    f"{name!r}; expected shard file names"
                )
            groups.setdefault(name, set()).add(_group(where))
    for name in groups:
        files.preset_file(directory, name)
    return {name: sorted(groups[name]) for name in sorted(groups)}


def element_budget(directory: str, names: list[str], source: str) -> Any:
    """The variable budget of a sharded preset: no more elements than the shards' bytes could hold."""
    size = sum(os.path.getsize(files.preset_file(directory, name)) for name in names)
    return variable_budget(size, size, size, source)


def assign_shards(model: Any, directory: str, shards: dict[str, list[str]], source: str) -> set[int]:
    """Each shard's weights into ``model``, layer by layer (``shard_groups``' groups that ``model`` has);
    ``ValueError`` if a layer does not fit, a shard holds more than was read, or the shards leave any variable
    out. Returns the ids of the variables assigned."""
    assigned: set[int] = set()
    model_groups = streamed_weights.layer_groups(model)
    for name, groups in shards.items():
        path = files.preset_file(directory, name)
        wanted = [group for group in model_groups if group in groups]
        assigned |= streamed_weights.assign_file_by_layer(model, path, source, wanted)
    streamed_weights.check_complete(model, assigned, f"preset {directory}: its shards ({', '.join(shards)}) hold")
    return assigned
