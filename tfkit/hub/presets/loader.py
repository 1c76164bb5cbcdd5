"""Rebuilding a preset's objects in tfkit: configs by registered name, weights by Keras's layout.

    backbone = load_backbone(directory, GPT2Backbone, load_weights=True, dtype="bfloat16")
    tokenizer = load_tokenizer(directory)
    entry = task_entry(directory, TextClassifier)              # task.json, when it describes that kind
    task = load_task(directory, entry, load_task_weights=True, backbone=backbone)

A KerasHub preset's configs are Keras objects (``"registered_name":
"keras_hub>GPT2Backbone"``); they are translated by tfkit's Keras-config
reader (``tfkit.saving.keras_files.config_from_keras``), checked (no code,
tfkit's cost limits) and rebuilt by registered name, so ``keras_hub>X`` names
tfkit's class ``X``. A backbone's config is first held to what its weights
store (``config_budget``: no more layers than stored arrays, no width beyond
the largest, read from the files' layout before any array), then built within
a variable budget of the same sizes, so a config asking for a larger model
than the preset stores is refused before it allocates; its variables start as
zeros, and the weights are then read by tfkit's guarded HDF5 reader one
top-level layer at a time (of each shard in turn, ``weight_files``), every
shape and dtype of it checked before it is assigned (``streamed_weights``),
and must cover the backbone exactly: a file that does not fit, a layer the
config lacks or a variable the files lack raises, and the new backbone is
discarded. A task's head is built within the budget of its
``task.weights.h5`` the same way, and read whole: it is the head alone.
"""

from __future__ import annotations

import contextlib
from typing import Any

from tfkit.base import dtype_policy_float, registry, settings
from tfkit.engine.config_safety import check_config
from tfkit.hub.presets import config_budget, files, streamed_weights, task_weights, weight_files
from tfkit.saving import serialization_api
from tfkit.saving.h5_snapshot import read_snapshot
from tfkit.saving.keras_files.config_from_keras import ImportReport, translate_object
from tfkit.saving.keras_files.config_values import plain_values
from tfkit.saving.rebuild import budget


def config_class(entry: Any, source: str) -> type:
    """The tfkit class a preset's config entry names (``keras_hub>GPT2Backbone`` -> ``GPT2Backbone``)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("class_name"), str):
        raise ValueError(f"{source}: expected an object with a class_name, got {str(entry)[:80]}")
    try:
        return registry.lookup("layers", entry["class_name"], None, entry.get("registered_name"), entry.get("module"))
    except ValueError as error:
        raise ValueError(
            f"{source} names {entry.get('registered_name') or entry['class_name']}, which tfkit.hub does not have: "
            f"{error}"
        ) from None


def _with_arguments(entry: dict, arguments: dict[str, Any]) -> dict:
    config = entry.get("config")
    return {**entry, "config": {**(config if isinstance(config, dict) else {}), **arguments}}


def _translated(entry: Any, source: str, arguments: dict[str, Any]) -> dict:
    if not isinstance(entry, dict):
        raise ValueError(f"{source}: expected a serialized object, got {type(entry).__name__}")
    report = ImportReport(source)
    entry = plain_values(_with_arguments(entry, arguments), source)
    translated = translate_object(entry, report, None, "config", "layers")
    check_config(translated, source)
    config_budget.check_values(translated, source)
    _check_file_names(translated, source)
    return translated


def _check_file_names(config: Any, source: str) -> None:
    """``ValueError`` where a config (a tokenizer's, a preprocessor's) names a ``config_file`` that is not a plain
    file name inside the preset: ``save_to_preset`` writes there, and the assets are read from beside it."""
    stack = [config]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if "config_file" in value:
                try:
                    files.checked_name(".", value["config_file"])
                except ValueError:
                    raise ValueError(
                        f"{source}: config_file {str(value['config_file'])[:200]!r} is not a file name inside the "
                        f"preset (save_to_preset would write it there)"
                    ) from None
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def deserialize_entry(entry: Any, source: str, **arguments: Any) -> Any:
    """The object a preset's config entry describes, ``arguments`` overriding its config (``dtype=...``)."""
    return serialization_api.deserialize(_translated(entry, source, arguments))


def resolved_dtype(entry: Any, dtype: Any) -> Any:
    """The dtype a preset's backbone is built in, as KerasHub resolves it.

    ``dtype`` when the caller gives one; else, for a preset saved under a plain
    float policy (KerasHub's own presets are mostly saved in bfloat16), the
    global policy, its weights cast on load; else (a quantized policy map, a
    mixed policy) ``None``: the saved one stands.
    """
    if dtype is not None:
        return dtype
    config = entry.get("config") if isinstance(entry, dict) else None
    saved = config.get("dtype") if isinstance(config, dict) else None
    if isinstance(saved, dict):
        saved = saved.get("config", {}).get("name") if isinstance(saved.get("config"), dict) else None
    if isinstance(saved, str) and saved in settings.FLOAT_DTYPES:
        return dtype_policy_float.global_policy().name
    return None


def load_backbone(directory: str, cls: type, load_weights: bool = True, entry: Any = None, **arguments: Any) -> Any:
    """The backbone of KerasHub preset ``directory`` (a subclass of ``cls``), its weights loaded when
    ``load_weights``; ``entry`` is its parsed ``config.json`` when the caller has read it."""
    source = f"preset {directory}: {files.CONFIG_FILE}"
    if entry is None:
        entry = files.read_json(directory, files.CONFIG_FILE)
    found = config_class(entry, source)
    if not (isinstance(found, type) and issubclass(found, cls)):
        raise ValueError(
            f"{source} describes a {found.__name__}, not a {cls.__name__}; call {found.__name__}.from_preset"
        )
    arguments["dtype"] = resolved_dtype(entry, arguments.get("dtype"))
    translated = _translated(entry, source, {key: value for key, value in arguments.items() if value is not None})
    names = weight_files.weight_files(directory) if load_weights or _has_weights(directory) else []
    layouts = weight_files.read_layouts(directory, names)  # shapes only: what the config may ask for
    sizes = weight_files.stored_sizes(layouts) if layouts else None
    unstored = getattr(found, "unstored_widths", ())
    config_budget.check_arguments(translated.get("config") or {}, sizes, source, unstored=unstored)
    budget = config_budget.building_within(sizes, source) if sizes is not None else contextlib.nullcontext()
    if not load_weights:
        with budget:
            return serialization_api.deserialize(translated)
    # variables start as zeros, filled from the files next; none larger, nor more, than they store
    with budget, streamed_weights.placeholder_values() as made:
        backbone = serialization_api.deserialize(translated)
    made.restore_unassigned(weight_files.assign_files(backbone, directory, layouts, source))
    return backbone


def _has_weights(directory: str) -> bool:
    return files.has_file(directory, files.MODEL_WEIGHTS_FILE) or files.has_file(
        directory, files.SHARDED_MODEL_WEIGHTS_CONFIG_FILE
    )


def load_serialized(directory: str, config_file: str, cls: type, entry: Any = None, **arguments: Any) -> Any:
    """The object ``config_file`` describes (a tokenizer, a preprocessor), with its preset assets loaded;
    ``entry`` is the file's parsed content when the caller has read it."""
    source = f"preset {directory}: {config_file}"
    if entry is None:
        entry = files.read_json(directory, config_file)
    found = config_class(entry, source)
    if not (isinstance(found, type) and issubclass(found, cls)):
        raise ValueError(f"{source} describes a {found.__name__}, not a {cls.__name__}")
    made = deserialize_entry(entry, source, **arguments)
    if hasattr(made, "load_preset_assets"):
        made.load_preset_assets(directory)
    return made


def task_entry(directory: str, cls: type) -> dict | None:
    """The ``task.json`` entry of preset ``directory`` when it describes a ``cls`` (a subclass of it); ``None``
    when there is none, or it describes another task (a classifier's preset asked for a masked LM), or a task
    tfkit.hub does not have and no ``task.weights.h5`` (nothing is lost building the kind from the backbone);
    ``ValueError`` for a task tfkit.hub does not have whose head's weights the preset holds."""
    if not files.has_file(directory, files.TASK_CONFIG_FILE):
        return None
    entry = files.read_json(directory, files.TASK_CONFIG_FILE)
    try:
        found = config_class(entry, f"preset {directory}: {files.TASK_CONFIG_FILE}")
    except ValueError:
        if files.has_file(directory, files.TASK_WEIGHTS_FILE):  # a head tfkit.hub could not rebuild: never dropped
            raise
        return None  # a task tfkit.hub does not have, with no weights of its own: built from the backbone instead
    return entry if isinstance(found, type) and issubclass(found, cls) else None


def load_task(directory: str, entry: dict, load_task_weights: bool, **objects: Any) -> Any:
    """The task ``entry`` (``task.json``) describes, around ``objects["backbone"]``; ``objects`` (the caller's
    arguments: the backbone, ``num_classes``, a preprocessor) replace the entry's. Its preprocessor, when made
    from the entry, gets the preset's assets; its own weights are read from ``task.weights.h5`` when
    ``load_task_weights``. The head is built within that file's budget unless the caller sized it
    (``num_classes``)."""
    source = f"preset {directory}: {files.TASK_CONFIG_FILE}"
    config = entry.get("config") if isinstance(entry.get("config"), dict) else {}
    kept = {key: value for key, value in config.items() if key != "backbone" and key not in objects}
    translated = _translated({**entry, "config": kept}, source, {})
    translated = {**translated, "config": {**translated.get("config", {}), **objects}}
    weights_path = (
        files.preset_file(directory, files.TASK_WEIGHTS_FILE)
        if files.has_file(directory, files.TASK_WEIGHTS_FILE)  # ValueError for a link out of the folder
        else None
    )
    tables = None
    guard: Any = contextlib.nullcontext()
    if "num_classes" not in objects:
        tables = read_snapshot(weights_path, ("*",)).tables if weights_path is not None else {}
        guard = budget(tables, source)
    with guard:
        task = serialization_api.deserialize(translated)
    if load_task_weights and weights_path is None and task_weights.has_task_weights(task):
        raise files.MissingPresetFileError(
            f"preset {directory}: {files.TASK_CONFIG_FILE} describes a {type(task).__name__} whose own weights "
            f"(its head) are not in the preset: it has no {files.TASK_WEIGHTS_FILE}. Pass num_classes= for a new "
            f"head, or load_weights=False for a new model"
        )
    preprocessor = getattr(task, "preprocessor", None)
    if "preprocessor" not in objects and hasattr(preprocessor, "load_preset_assets"):
        preprocessor.load_preset_assets(directory)
    if load_task_weights and weights_path is not None:
        task_weights.assign_task_weights(task, tables, weights_path)
    return task
