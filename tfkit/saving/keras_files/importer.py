"""Keras 3 ``.keras`` archives, ``.weights.h5`` files and tf-keras ``.h5`` files read into tfkit models.

    model, report = import_keras("model.keras")        # also tf-keras model .h5 files
    print(report)                                        # what did not map (nothing, usually)
    load_keras_weights(model, snapshot, "w.weights.h5")  # a Keras weights file into a tfkit model

Nothing from the file runs: configs are translated as data
(``config_from_keras``), checked by ``check_config`` (Lambda bytecode is
refused whatever ``safe_mode`` says; a named function is found by its name),
rebuilt from tfkit's own classes or ``custom_objects``, under the same object and
variable budgets as tfkit's own files; HDF5 bytes are parsed only by the
guarded child reader; zip members are read by exact name under size limits.
A lookup layer's vocabulary (Keras keeps it in ``assets/``, not in the
weights) is read as text and set with ``set_vocabulary``; in
``output_mode="tf_idf"`` with the idf weights the archive stores for it
(``layers/<path>/vars/idf_weights``), before the weights are assigned.
The compile config's losses and metrics, Keras's classes and functions and the
user's (``{"class_name": "function", "config": "my_pkg>my_loss"}``), are found
through ``custom_objects`` and the registry; one that is not found leaves the
model uncompiled, and the report (a warning) names it.
"""

from __future__ import annotations

import copy
import os
import warnings
from typing import Any, Mapping

import numpy as np
import tensorflow as tf

from tfkit import losses, metrics, optimizers
from tfkit.base import registry
from tfkit.engine.config_safety import check_config, loads_json
from tfkit.saving import h5_format, weights_io
from tfkit.saving.h5_snapshot import Snapshot, read_snapshot
from tfkit.saving.keras_files.archive import is_zip, read_archive, require_weights
from tfkit.saving.keras_files.archive_state import restore_training_state
from tfkit.saving.keras_files.config_from_keras import (
    ImportReport,
    entry_kind,
    lookup_layer_configs,
    translate_model_config,
    translate_object,
)
from tfkit.saving.keras_files.layer_assets import restore_assets
from tfkit.saving.keras_files.legacy_order import read_legacy_order
from tfkit.saving.keras_files.weights_layout import keras3_layer_paths, keras3_pairs, legacy_pairs
from tfkit.saving.rebuild import budget, rebuild_model

# every top-level group: a subclassed model keeps its layers under their attribute names (``d1/vars/0``)
KERAS3_GROUPS = ("*",)
LEGACY_GROUPS = ("model_weights",)


def is_keras_archive(path: str) -> bool:
    return os.path.isfile(path) and is_zip(path)


def is_keras3_weights(snapshot: Snapshot) -> bool:
    return "format" not in snapshot.attrs and "layers" in snapshot.tables


def is_legacy(snapshot: Snapshot) -> bool:
    return "format" not in snapshot.attrs and ("keras_version" in snapshot.attrs or "layer_names" in snapshot.attrs)


def import_keras(
    path: str, custom_objects: Mapping[str, Any] | None = None, compile: bool = True
) -> tuple[Any, ImportReport]:
    """A tfkit model from a Keras 3 ``.keras`` archive or a tf-keras model ``.h5`` file, and the report."""
    path = os.fspath(path)
    report = ImportReport(path)
    if is_keras_archive(path):
        with read_archive(path) as archive:
            for name in archive.other_members:
                report.add(f"archive member {name!r} is not read (tfkit reads config.json and model.weights.h5)")
            snapshot = _archive_weights(archive.weights_path, path) if archive.weights_path else None
            config = _with_vocabularies(archive.config, archive.vocabularies, snapshot, path)
            model = _rebuild(config, snapshot, report, custom_objects)
            require_weights(archive, len(model.weights))  # after the config, as Keras: its errors come first
            _set_vocabularies(model, archive.vocabularies, report, path, snapshot)  # first: tf_idf makes weights
            for unclaimed in restore_assets(model, archive.assets, path):
                if unclaimed not in archive.vocabularies:  # a lookup layer's, set above
                    report.add(f"assets/{unclaimed}/ belongs to no layer of the model that loads assets; not read")
            if snapshot is not None:
                _assign(lambda: keras3_pairs(model, snapshot.tables, path), report)
            compile_config = config.get("compile_config")
    else:
        snapshot = read_snapshot(path, LEGACY_GROUPS)
        if not is_legacy(snapshot) or "model_config" not in snapshot.attrs:
            raise ValueError(f"{path} is neither a Keras .keras archive nor a Keras model .h5 file")
        config = loads_json(h5_format.read_attr(snapshot, "model_config", "text"), f"{path}: model_config")
        model = _rebuild(config, snapshot, report, custom_objects)
        _assign(
            lambda: legacy_pairs(
                model, snapshot.tables.get("model_weights", {}), path, lambda: read_legacy_order(path, "model_weights")
            ),
            report,
        )
        compile_config = None
        if "training_config" in snapshot.attrs:
            training = loads_json(h5_format.read_attr(snapshot, "training_config", "text"), f"{path}: training_config")
            compile_config = _legacy_compile_config(training)
    if compile and compile_config:
        _compile(model, compile_config, report, custom_objects)
        restore_training_state(model, path, snapshot, report, custom_objects)  # optimizer/vars, tfkit.json
    if report.unmapped:
        warnings.warn(str(report), stacklevel=3)
    model._tfkit_import_report = report
    return model, report


def _archive_weights(weights_path: str, path: str) -> Snapshot:
    """The archive's ``model.weights.h5`` through the guarded reader; errors name the archive, not the copy."""
    try:
        return read_snapshot(weights_path, KERAS3_GROUPS)
    except ValueError as error:
        raise ValueError(str(error).replace(weights_path, f"{path}: model.weights.h5")) from error
    except OSError as error:  # the machine fell short (no room to hand the arrays back): not the file
        if error.errno is None or not error.strerror:
            raise
        raise OSError(error.errno, error.strerror.replace(weights_path, f"{path}: model.weights.h5"), path) from error


def _with_vocabularies(config: Any, vocabularies: Mapping[str, bytes], snapshot: Snapshot | None, path: str) -> Any:
    """The model config with each lookup layer's archived vocabulary (and, in tf_idf mode, idf weights) written
    into the layer's config, so the layer has them when the model is rebuilt: its output depth (the width the
    next layer is built for) and, for tf_idf, its ``idf_weights`` variable follow from them, as in Keras, where
    the layer's config gives ``vocabulary_size``."""
    if not vocabularies or not isinstance(config, dict):
        return config
    config = copy.deepcopy(config)
    for prefix, layer_config in lookup_layer_configs(config):
        data = vocabularies.get(f"layers/{prefix}")
        if data is None or layer_config.get("vocabulary") is not None:
            continue
        integer = "vocabulary_dtype" in layer_config and layer_config.get("vocabulary_dtype") != "string"
        lines = _vocabulary_lines(
            data, integer, f"IntegerLookup '{layer_config.get('name')}'", f"assets/layers/{prefix}/vocabulary.txt", path
        )
        layer_config["vocabulary"] = lines
        if layer_config.get("output_mode") in ("tf_idf", "tf-idf"):
            layer_config["idf_weights"] = _stored_idf(snapshot, prefix, len(lines), path).tolist()
    return config


def _vocabulary_lines(data: bytes, integer: bool, who: str, member: str, path: str) -> list[Any]:
    """An archived ``vocabulary.txt``: one token a line (an integer a line for ``integer`` lookups)."""
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: {member} is not UTF-8 text ({error})") from None
    if integer:
        try:
            return [int(line) for line in lines]
        except ValueError:
            raise ValueError(f"{path}: {member} must hold one integer a line for {who}") from None
    return lines


def _stored_idf(snapshot: Snapshot | None, prefix: str, entries: int, path: str) -> np.ndarray:
    """The first ``entries`` of ``layers/<prefix>/vars/idf_weights`` (Keras pads them with zeros to ``max_tokens``;
    ``keras3_pairs`` assigns the whole stored array afterwards)."""
    stored = (snapshot.tables.get("layers", {}) if snapshot is not None else {}).get(f"{prefix}/vars/idf_weights")
    if stored is None:
        raise ValueError(
            f"{path}: the lookup layer at layers/{prefix} is in output_mode='tf_idf' but the archive "
            f"has no layers/{prefix}/vars/idf_weights for its vocabulary"
        )
    weights = np.asarray(stored.array, dtype=np.float64).ravel()
    if weights.size < entries:
        raise ValueError(
            f"{path}: layers/{prefix}/vars/idf_weights holds {weights.size} weights, fewer than the "
            f"{entries} entries of assets/layers/{prefix}/vocabulary.txt"
        )
    return weights[:entries]


def _set_vocabularies(
    model: Any, vocabularies: Mapping[str, bytes], report: ImportReport, path: str, snapshot: Snapshot | None = None
) -> None:
    """Each lookup layer's ``assets/layers/<path>/vocabulary.txt`` (one token a line, special tokens first); a
    tf_idf layer's with the first ``len(vocabulary)`` of its stored ``idf_weights`` (Keras pads them with zeros
    to ``max_tokens``), which makes its ``idf_weights`` variable: ``keras3_pairs`` then assigns the stored array."""
    applied: list[str] = []
    for prefix, layer in keras3_layer_paths(model):
        data = vocabularies.get(f"layers/{prefix}")
        if data is None or not hasattr(layer, "set_vocabulary"):
            continue
        lines = _vocabulary_lines(
            data,
            getattr(layer, "key_dtype", tf.string) != tf.string,  # IntegerLookup
            f"{type(layer).__name__} '{layer.name}'",
            f"assets/layers/{prefix}/vocabulary.txt",
            path,
        )
        if getattr(layer, "output_mode", None) == "tf_idf":
            layer.set_vocabulary(lines, _stored_idf(snapshot, prefix, len(lines), path))
        else:
            layer.set_vocabulary(lines)
        applied.append(f"layers/{prefix}")
    for key in sorted(vocabularies):
        if not any(key == done or key.startswith(done + "/") for done in applied):  # a sub-layer's copy is covered
            report.add(f"archive member 'assets/{key}/vocabulary.txt' is not read (no lookup layer at {key})")


def _assign(pairs: Any, report: ImportReport) -> None:
    """Assign the weights; a mismatch error also says what the config translation left out (often why)."""
    try:
        weights_io.assign(pairs())
    except ValueError as error:
        if not report.unmapped:
            raise
        raise ValueError(f"{error}\n{report}") from error


def _rebuild(
    config: Any, snapshot: Snapshot | None, report: ImportReport, custom_objects: Mapping[str, Any] | None
) -> Any:
    translated = translate_model_config(config, report, custom_objects)
    check_config(translated, f"{report.source}: model config")  # code in the file: refused, whatever safe_mode says
    tables = snapshot.tables if snapshot is not None else {}
    with registry.custom_object_scope(custom_objects or {}):
        with budget(tables, report.source):
            model = rebuild_model(translated, custom_objects, report.source)
            shape = (config.get("build_config") or {}).get("input_shape") if isinstance(config, dict) else None
            if not model.built and shape is not None:
                weights_io.build_from_config(model, {"input_shape": shape})
    return model


def _legacy_compile_config(training: Any) -> dict[str, Any] | None:
    if not isinstance(training, dict):
        return None
    return {
        "optimizer": training.get("optimizer_config"),
        "loss": training.get("loss"),
        "metrics": training.get("metrics"),
        "loss_weights": training.get("loss_weights"),
        "weighted_metrics": training.get("weighted_metrics"),
    }


def _compile(model: Any, compile_config: Any, report: ImportReport, custom_objects: Mapping[str, Any] | None) -> None:
    """``model.compile`` from Keras's compile config; what does not map is reported and the model left uncompiled."""
    if not isinstance(compile_config, dict):
        return
    try:
        optimizer = compile_config.get("optimizer")
        if isinstance(optimizer, dict) and isinstance(optimizer.get("class_name"), str):
            optimizer = translate_object(
                optimizer, report, custom_objects, "compile_config.optimizer", entry_kind(optimizer, "optimizers")
            )
        optimizer = optimizers.get(optimizer or "rmsprop", custom_objects)
        with registry.custom_object_scope(custom_objects or {}):
            loss, metric_list, weighted = (
                _plain_names(compile_config.get(key), module, report, key, custom_objects)
                for key, module in (("loss", losses), ("metrics", metrics), ("weighted_metrics", metrics))
            )
            model.compile(
                optimizer=optimizer,
                loss=loss,
                metrics=metric_list,
                weighted_metrics=weighted,
                loss_weights=compile_config.get("loss_weights"),
            )
    except (ValueError, TypeError, KeyError) as error:
        report.add(
            f"compile_config: not compiled ({type(error).__name__}: {str(error)[:200]}); "
            f"call model.compile(...) yourself"
        )


def _plain_names(
    value: Any, module: Any, report: ImportReport, what: str, custom_objects: Mapping[str, Any] | None = None
) -> Any:
    """Loss and metric entries (names, Keras's ``{"class_name", "config"}`` objects, named functions, per output
    lists and dicts) as objects ``compile`` takes, found through ``custom_objects`` and the registry; what cannot
    be found is a ``ValueError`` naming it."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        if len(value) == 1 and isinstance(value[0], list):  # tf-keras: one list per output
            value = value[0]
        return [_plain_names(item, module, report, what, custom_objects) for item in value]
    if isinstance(value, dict) and value.get("class_name") == "MeanMetricWrapper":
        config = value.get("config") or {}  # tf-keras: the name the user wrote, or its fn
        for name in (config.get("name"), config.get("fn")):
            if isinstance(name, str):
                try:
                    module.get(name)
                    return name
                except ValueError:
                    continue
        raise ValueError(f"{what}: MeanMetricWrapper {str(config)[:100]} names no tfkit metric")
    if isinstance(value, dict) and value.get("class_name") == "function" and isinstance(value.get("config"), str):
        return _compile_function(value, module, what, custom_objects)
    if isinstance(value, dict) and "class_name" in value:
        kind = "losses" if module is losses else "metrics"
        entry = translate_object(value, report, custom_objects, f"compile_config.{what}", entry_kind(value, kind))
        return module.get(
            {key: entry[key] for key in ("class_name", "config", "module", "registered_name") if key in entry}
        )
    if isinstance(value, dict):
        return {key: _plain_names(item, module, report, what, custom_objects) for key, item in value.items()}
    return value


def _compile_function(entry: dict, module: Any, what: str, custom_objects: Mapping[str, Any] | None) -> Any:
    """A loss or metric saved as a named function (``{"class_name": "function", "config": "my_pkg>my_loss"}``):
    the caller's, a registered one, else tfkit's built-in of that name."""
    name, saved_from = entry["config"], entry.get("module")
    kind = "losses" if module is losses else "metrics"
    for table in (kind, "functions"):
        try:
            return registry.lookup(table, name, custom_objects, None, saved_from)
        except ValueError:
            continue
    if isinstance(saved_from, str) and saved_from.split(".", 1)[0] in ("keras", "tfkit"):
        return module.get(name)  # Keras's own function: tfkit's of that name
    return registry.lookup(kind, name, custom_objects, None, saved_from)  # the error: what to pass, or register


def load_keras_weights(model: Any, snapshot: Snapshot, source: str) -> None:
    """Load a Keras 3 ``.weights.h5`` or tf-keras weights/model ``.h5`` snapshot into ``model``; all or nothing."""
    if is_keras3_weights(snapshot):
        weights_io.assign(keras3_pairs(model, snapshot.tables, source))
        return
    if "model_weights" in snapshot.tables:
        weights_io.assign(
            legacy_pairs(
                model, snapshot.tables["model_weights"], source, lambda: read_legacy_order(source, "model_weights")
            )
        )
        return
    legacy = read_snapshot(source, ("*",))  # a tf-keras weights file: one group per layer
    table = {
        f"{group}/{path}": dataset for group, entries in legacy.tables.items() for path, dataset in entries.items()
    }
    weights_io.assign(legacy_pairs(model, table, source, lambda: read_legacy_order(source, "")))
