"""Whole-model and weights files in HDF5.

    model.save("vae.h5")                             # config, weights, compile config, optimizer state
    same = tfkit.load_model("vae.h5")                # built, compiled, ready to predict or fit on
    model.save_weights("vae_weights.h5"); model.load_weights("vae_weights.h5")   # ("x.weights.h5": Keras's layout)

See ``h5_format`` for the layout. Loading rebuilds the model from its config
(registered names only), creates every weight from the stored input shapes,
checks every dataset's shape and dtype against its variable, and only then
reads and assigns; with ``compile=True`` it compiles the model from the
stored arguments and restores the optimizer's variables and the shuffling
seed, so ``fit`` continues exactly where the saved model stopped.
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import h5py
import numpy as np

from tfkit.base import registry
from tfkit.engine.config_safety import check_config, loads_json
from tfkit.files import atomic
from tfkit.saving import h5_format, h5_writer, keras_files, weights_io
from tfkit.saving.build_rollback import rollback_build_on_error
from tfkit.saving.h5_snapshot import read_snapshot
from tfkit.saving.keras_files.weights_layout import keras3_pairs
from tfkit.saving.model_config import serialize_model
from tfkit.saving.rebuild import REBUILD_ERRORS, budget, rebuild_model

# tfkit's own HDF5 format lives under these names; ".keras" is Keras 3's zip archive (keras_files.archive_writer).
# A ".keras" file tfkit wrote as HDF5 before it wrote archives is still read: loaders go by content, not name.
H5_SUFFIXES = (".h5", ".hdf5")


def is_h5_path(filepath: Any) -> bool:
    return os.fspath(filepath).lower().endswith(H5_SUFFIXES)


def _dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"The {what} is not plain JSON data and cannot be saved: {error}") from None


# ------------------------------------------------------------------ saving


def _write_training_state(f: h5py.File, model: Any) -> None:
    optimizer = model.optimizer
    if optimizer is not None and getattr(optimizer, "built", False):
        group = f.create_group("optimizer")
        group.attrs["class_name"] = type(optimizer).__name__
        group.attrs["count"] = np.int64(len(optimizer.variables))
        for index, variable in enumerate(optimizer.variables):
            dataset = h5_format.write_array(group, str(index), h5_format.to_storage(variable), variable.dtype.name)
            dataset.attrs["name"] = variable.name.split(":")[0]
    extra = model._checkpoint_state()
    if extra:
        h5_format.write_variables(f.create_group("training"), extra)


def save_model(model: Any, filepath: str, overwrite: bool = True, include_optimizer: bool = True) -> None:
    """Write ``model`` (config, build shapes, weights, compile config, optimizer state) to an .h5 file.

    The file is written beside the target and renamed over it, so a save
    that is killed midway leaves the previous file intact.
    """

    filepath = os.fspath(filepath)
    if not is_h5_path(filepath):
        raise ValueError(
            f"tfkit writes its own HDF5 model files as .h5 or .hdf5, got {filepath!r}. Save .keras files (Keras 3's "
            f"archive) with tfkit.saving.save_model, use model.export(path) for a SavedModel (serving) or "
            f"model.save_weights('dir/ckpt') for a TensorFlow checkpoint."
        )
    config = serialize_model(model, allow_missing=True)  # a config that cannot be captured: warned, weights kept
    check_config(config, "model_config")  # never write a file that loading would refuse
    build = weights_io.build_config(model)
    compiled = model.get_compile_config()
    groups = weights_io.variable_groups(model)
    header = {
        "model_class": config["class_name"],
        "model_config": _dumps(config, f"config of model '{model.name}'"),
        "build_config": _dumps(build, "build config") if build is not None else None,
        "compile_config": _dumps(compiled, "compile config") if compiled is not None else None,
    }
    with atomic.atomic_file(filepath, overwrite) as tmp:
        with h5_writer.create(tmp) as f:
            h5_format.write_header(f, "model", header)
            for name, variables in groups.items():
                h5_format.write_variables(f.create_group(name), variables)
            if compiled is not None and include_optimizer:
                _write_training_state(f, model)


def save_weights_h5(model: Any, filepath: str, overwrite: bool = True) -> None:
    """Write the model's weights and state (by path) and its build shapes to an .h5 file."""
    build = weights_io.build_config(model)
    if not model.built:
        raise ValueError(
            f"Model '{model.name}' has no weights yet; call it on a batch (or model.build(input_shape)) before save_weights"
        )
    groups = weights_io.variable_groups(model)
    header = {
        "model_class": registry.registered_name(type(model)) or type(model).__name__,
        "build_config": _dumps(build, "build config") if build is not None else None,
    }
    with atomic.atomic_file(filepath, overwrite) as tmp:
        with h5_writer.create(tmp) as f:
            h5_format.write_header(f, "weights", header)
            for name, variables in groups.items():
                h5_format.write_variables(f.create_group(name), variables)


# ----------------------------------------------------------------- loading


def _read_json(f: h5py.File, name: str, required: bool) -> Any:
    text = h5_format.read_attr(f, name, "text", required=required)
    if text is None:
        return None
    try:
        value = loads_json(text, name)
        check_config(value, name)
    except ValueError as error:
        raise ValueError(f"{f.filename}: {error}") from None
    return value


def _tables(f: h5py.File) -> dict[str, dict[str, h5py.Dataset]]:
    return {group: h5_format.dataset_table(f, group) for group in weights_io.GROUPS}


def _ensure_built(model: Any, f: h5py.File, tables: dict, source: str, build: Any = None) -> None:
    if model.built and model.weights:
        return
    build = build if build is not None else _read_json(f, "build_config", required=False)
    if build is None:
        if model.built:
            return
        raise ValueError(
            f"Model '{model.name}' is not built and {source} stores no input shapes to build it from. "
            f"Call the model on a batch of data (or model.build(input_shape)) first, then load the weights."
        )
    _check_build_config(build, source)
    try:
        with budget(tables, source):
            weights_io.build_from_config(model, build)
    except REBUILD_ERRORS as error:
        raise ValueError(
            f"Could not build model '{model.name}' from the input shapes in {source}: {type(error).__name__}: {error}"
        ) from error


def _check_build_config(build: Any, source: str) -> None:
    try:
        weights_io.check_build_config(build)
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None


def _restore_optimizer(model: Any, f: h5py.File, source: str) -> None:
    optimizer = model.optimizer
    table = h5_format.dataset_table(f, "optimizer")
    if optimizer is None or not table:
        return
    bad = [key for key in table if not key.isdigit()]
    if bad:
        raise ValueError(f"{source}: /optimizer holds datasets {bad[:5]}; expected only indices 0, 1, 2, ...")
    ordered = [table.get(str(i)) for i in range(len(table))]
    if any(d is None for d in ordered):
        raise ValueError(f"{source}: /optimizer indices are not 0..{len(table) - 1}")
    optimizer.build(model.trainable_weights)
    variables = list(optimizer.variables)
    if len(variables) != len(ordered):
        raise ValueError(
            f"{source} stores {len(ordered)} optimizer variables, but {type(optimizer).__name__} built for "
            f"model '{model.name}' has {len(variables)}; the trainable weights differ from those the optimizer "
            f"was built for (a layer's `trainable` changed after compile?). Load with compile=False and compile again."
        )
    problems = []
    for index, (variable, dataset) in enumerate(zip(variables, ordered)):
        reason = weights_io.problem(variable, dataset)
        if reason is not None:
            problems.append(f"optimizer/{index} ({variable.name.split(':')[0]}): {reason}")
    if problems:
        raise ValueError(
            f"{source}: optimizer state does not match:\n  "
            + "\n  ".join(problems)
            + "\nLoad with compile=False and compile again to start with a fresh optimizer."
        )
    weights_io.assign([(v, d, f"/optimizer/{i}") for i, (v, d) in enumerate(zip(variables, ordered))])


def _restore_training_state(model: Any, f: h5py.File, source: str) -> None:
    table = h5_format.dataset_table(f, "training")
    state = model._checkpoint_state()
    pairs = []
    for name, dataset in table.items():
        variable = state.get(name)
        if variable is not None and weights_io.problem(variable, dataset) is None:
            pairs.append((variable, dataset, f"/training/{name}"))
    weights_io.assign(pairs)


def load_model(filepath: str, custom_objects: Mapping[str, Any] | None = None, compile: bool = True) -> Any:
    """Rebuild a model from a tfkit (or tf-keras) ``.h5`` file: built, weights loaded, compiled (``compile=True``).

    ``tfkit.saving.load_model`` checks its arguments and picks this reader;
    ``custom_objects`` maps registered names to classes or functions.
    """
    filepath = os.fspath(filepath)
    source = filepath
    with h5_format.open_h5(filepath) as f:
        if keras_files.is_legacy(f):  # a tf-keras model file: imported as data, like any file
            return keras_files.import_keras(filepath, custom_objects, compile)[0]
        h5_format.check_header(f, ("model",))
        config = _read_json(f, "model_config", required=True)
        build = _read_json(f, "build_config", required=False)
        compiled = _read_json(f, "compile_config", required=False)
        tables = _tables(f)
        with registry.custom_object_scope(custom_objects or {}):
            model = rebuild_built(config, build, tables, source, custom_objects)
            structural = h5_format.read_attr(f, "format_version", "int") >= 2
            pairs = weights_io.match(weights_io.variable_groups(model, structural), tables, source, model.name)
            weights_io.assign(pairs)
            if compile and compiled is not None:
                compile_from(model, compiled, source)  # names resolve in the custom-object scope above
                _restore_optimizer(model, f, source)
                _restore_training_state(model, f, source)
    return model


def rebuild_built(config: Any, build: Any, tables: dict, source: str, custom_objects: Mapping[str, Any] | None) -> Any:
    """The model a file's ``model_config`` describes, built from its checked ``build_config``, within the
    budget of what the file stores (``tables``); every error a file can provoke is a ``ValueError`` naming it."""
    if build is not None:
        _check_build_config(build, source)
    with budget(tables, source):
        model = rebuild_model(config, custom_objects, source)
        if build is not None and not (model.built and model.weights):
            try:
                weights_io.build_from_config(model, build)
            except REBUILD_ERRORS as error:
                raise ValueError(
                    f"{source}: could not build the model from build_config: {type(error).__name__}: {error}"
                ) from error
    return model


def compile_from(model: Any, compiled: Any, source: str) -> None:
    """``model.compile_from_config`` of a file's ``compile_config``; its errors name the file."""
    try:
        model.compile_from_config(compiled)
    except (ValueError, TypeError, KeyError) as error:
        raise ValueError(f"{source}: could not compile the model from compile_config: {error}") from error


def load_weights_h5(model: Any, filepath: str, skip_mismatch: bool = False) -> None:
    """Load weights (and state) by path from a tfkit weights or model file; all or nothing."""
    filepath = os.fspath(filepath)
    f = read_snapshot(filepath, ("*",))  # every group: a Keras 3 file keys a subclassed model's by attribute
    if "format" not in f.attrs:  # Keras's: 3's .weights.h5 (tfkit's or Keras's) or tf-keras's
        with rollback_build_on_error(model):  # a failed load leaves an unbuilt model unbuilt
            if not (model.built and model.weights):
                build = _read_json(f, keras_files.BUILD_ATTR, required=False)  # a .weights.h5 tfkit wrote
                if build is None:
                    raise ValueError(
                        f"Model '{model.name}' is not built and {filepath} (a Keras weights file) "
                        f"stores no input shapes. Call the model on a batch of data (or "
                        f"model.build(input_shape)) first."
                    )
                _ensure_built(model, f, {}, filepath, build)
            if keras_files.is_legacy(f):
                keras_files.load_keras_weights(model, f, filepath)
            else:
                weights_io.assign(keras3_pairs(model, f.tables, filepath, skip_mismatch))
        return
    h5_format.check_header(f, ("weights", "model"))
    tables = _tables(f)
    with rollback_build_on_error(model):  # a failed load leaves an unbuilt model unbuilt
        _ensure_built(model, f, tables, filepath)
        structural = h5_format.read_attr(f, "format_version", "int") >= 2
        pairs = weights_io.match(
            weights_io.variable_groups(model, structural), tables, filepath, model.name, skip_mismatch
        )
        weights_io.assign(pairs)
