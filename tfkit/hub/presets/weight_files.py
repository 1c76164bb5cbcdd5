"""A preset's backbone weights, one file (``model.weights.h5``) or its shards (``model.weights.json``), read one
file and one top-level layer at a time, and covering the backbone exactly.

    names = weight_files(directory)                      # ["model.weights.h5"], or the shards the index names
    layouts = read_layouts(directory, names)              # each file's shapes and dtypes, no array read
    sizes = stored_sizes(layouts)                         # what rebuilding may create (config_budget)
    assigned = assign_files(backbone, directory, layouts, source)   # every stored array used, every variable set

KerasHub writes shards for backbones over ``max_shard_size`` (10 GB by default),
each a Keras 3 weights file of part of the model, with an index mapping each
layer's ``<path>/vars`` to its shard. tfkit takes only the shard names from the
index (each a file of the preset folder): which layers a shard holds is read
from the shard itself. Each file is read as ``streamed_weights`` reads one (one
top-level layer's arrays in memory at a time, each assigned into its variable's
own buffer). The files together must cover every variable the backbone stores
and hold nothing else: a layer the backbone lacks (weights of a two-layer model
under a config of one) is refused, not left unread.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.presets import files, streamed_weights
from tfkit.hub.presets.config_budget import StoredSizes
from tfkit.saving.h5_snapshot import DatasetLayout, read_layout

Layout = dict[str, dict[str, DatasetLayout]]  # a weights file's datasets, by top-level group and path


def group_of(key: str) -> str:
    """The top-level group of a weights key: ``layers/decoder/_dense/vars/0`` -> ``layers/decoder``."""
    parts = key.strip("/").split("/")
    return "/".join(parts[:2]) if parts[0] == "layers" else parts[0]


def weight_files(directory: str) -> list[str]:
    """The backbone's weights files in preset ``directory``: ``model.weights.h5``, or (when only the index is
    there) the shard files ``model.weights.json`` names, sorted, each checked to be a file of the folder."""
    if files.has_file(directory, files.MODEL_WEIGHTS_FILE) or not files.has_file(
        directory, files.SHARDED_MODEL_WEIGHTS_CONFIG_FILE
    ):
        files.preset_file(directory, files.MODEL_WEIGHTS_FILE)  # FileNotFoundError naming it when missing
        return [files.MODEL_WEIGHTS_FILE]
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


def read_layouts(directory: str, names: list[str]) -> dict[str, Layout]:
    """Each weights file's datasets (shapes and dtypes, by the guarded reader), by file name."""
    return {name: read_layout(files.preset_file(directory, name)) for name in names}


def stored_sizes(layouts: dict[str, Layout]) -> StoredSizes:
    """How many arrays the files store, the largest's and all their elements."""
    return StoredSizes.of(
        dataset.shape for layout in layouts.values() for table in layout.values() for dataset in table.values()
    )


def _groups(layout: Layout) -> set[str]:
    return {group_of(f"{top}/{path}") for top, table in layout.items() for path in table}


def assign_files(model: Any, directory: str, layouts: dict[str, Layout], source: str) -> set[int]:
    """Each file's weights into ``model`` (new), one top-level layer at a time, largest first. ``ValueError``
    naming the layers if the files hold a layer ``model`` lacks (before any is read), if a layer's arrays do
    not fit, or if the files leave any of ``model``'s variables out. Returns the ids of the variables assigned."""
    model_groups = streamed_weights.layer_groups(model)
    stored = {name: _groups(layout) for name, layout in layouts.items()}
    extra = sorted(set().union(*stored.values()) - set(model_groups))
    if extra:
        raise ValueError(
            f"{source}: the weights ({', '.join(layouts)}) hold layers the model built from the config does not "
            f"have: {', '.join(extra[:10])}{' and more' if len(extra) > 10 else ''}; the config describes a "
            f"smaller model than its weights (a layer count or a layer left out?)"
        )
    assigned: set[int] = set()
    for name, groups in stored.items():
        path = files.preset_file(directory, name)
        assigned |= streamed_weights.assign_file_by_layer(model, path, source, [g for g in model_groups if g in groups])
    streamed_weights.check_complete(model, assigned, f"{source}: the weights ({', '.join(layouts)}) hold")
    return assigned
