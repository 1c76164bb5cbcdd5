"""Writing a Keras 3 ``.keras`` archive of a tfkit model, atomically: Keras's ``load_model`` reads it.

    save_archive(model, "model.keras")           # what model.save("model.keras") runs
    keras_model = keras.saving.load_model("model.keras")   # in a process with Keras
    save_keras_weights(model, "model.weights.h5")          # what model.save_weights("model.weights.h5") runs

The archive is what Keras 3 writes: a zip of ``metadata.json``,
``config.json`` (``config_to_keras``), ``model.weights.h5`` (``weights_to_keras``)
and, for adapted lookup layers, ``assets/layers/<path>/vocabulary.txt``, every
member stored uncompressed. One more member, ``tfkit.json``, holds what only
tfkit reads back (Keras's loader never opens a member it does not know): the
model's compile arguments in tfkit's own terms (``steps_per_execution="auto"``,
``jit_compile="auto"``) and the data-shuffling seed, so a tfkit model loaded
from the archive continues ``fit`` exactly where this one stopped.

A model whose weights a ``variable_partitioner`` split over parameter servers
is written with its weights gathered and without its optimizer's state (which
its optimizer holds per part; the loaded model's optimizer starts afresh).

Everything Keras could not rebuild is refused before a byte is written (the
config is built first). The archive is written in a folder of its own beside
the target, synced and renamed over it (``tfkit.files.atomic``), so a failed
or killed save leaves the previous file as it was.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import os
import zipfile
from typing import Any, BinaryIO, Iterator

import h5py
import numpy as np

from tfkit.base.version import VERSION
from tfkit.engine.config_safety import check_config, loads_json
from tfkit.files import atomic
from tfkit.files.zip_errors import ZIP_READ_ERRORS
from tfkit.saving import h5_writer, one_device
from tfkit.saving.keras_files.config_to_keras import keras_compile_config, keras_model_config
from tfkit.saving.keras_files.keras_classes_table import KERAS_VERSION
from tfkit.saving.keras_files.layer_assets import collect_assets
from tfkit.saving.keras_files.weights_to_keras import write_keras_weights, write_weights_file

EXTRAS = "tfkit.json"
MAX_EXTRAS_BYTES = 2**20
IN_MEMORY_BYTES = 2**30  # weights (and optimizer state) smaller than this are built in memory, as Keras does
_EPOCH = (1980, 1, 1, 0, 0, 0)  # every member's date: the same model gives the same bytes


def _dumps(value: Any, what: str) -> bytes:
    try:
        return json.dumps(value).encode("utf-8")
    except (TypeError, ValueError) as error:
        raise ValueError(f"The {what} is not plain JSON data and cannot be saved: {error}") from None


def _variable_data(variable: Any) -> dict[str, Any]:
    value = np.asarray(variable.numpy())
    return {"dtype": variable.dtype.name, "shape": list(value.shape), "value": value.tolist()}


def extras(model: Any) -> dict[str, Any]:
    """``tfkit.json``: tfkit's compile config and the training state (``_checkpoint_state()``) as plain data."""
    compiled = model.get_compile_config() if hasattr(model, "get_compile_config") else None
    state = model._checkpoint_state() if compiled is not None else {}
    return {
        "tfkit_version": VERSION,
        "compile_config": compiled,
        "training": {name: _variable_data(variable) for name, variable in state.items()},
    }


def _member(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    zf.writestr(zipfile.ZipInfo(name, date_time=_EPOCH), data, compress_type=zipfile.ZIP_STORED)


def save_archive(model: Any, filepath: str, overwrite: bool = True, include_optimizer: bool = True) -> None:
    """Write ``model`` to ``filepath`` as a Keras 3 ``.keras`` archive (see the module docstring).

    Raises ``ValueError`` (``NotExpressible``), naming the layer by path, for anything Keras 3 could not
    rebuild, before anything is written.
    """
    filepath = os.fspath(filepath)
    source = one_device.on_one_device(model)  # weights a variable_partitioner split: a copy, gathered
    config, assets = keras_model_config(source)
    assets.update(collect_assets(source))  # a tokenizer's vocabulary files, as Keras's save_assets writes them
    if source is not model:  # the copy is not compiled; the optimizer holds its state per part
        compiled = model.get_compile_config()
        config["compile_config"] = keras_compile_config(compiled) if compiled is not None else None
        include_optimizer = False
    config_bytes = _dumps(config, f"config of model '{model.name}'")
    extra = extras(model)
    check_config(extra["compile_config"], "compile_config")  # never write what loading would refuse
    extra_bytes = _dumps(extra, "training state")
    metadata = _dumps(
        {
            "keras_version": KERAS_VERSION,
            "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
            "tfkit_version": VERSION,
        },
        "metadata",
    )
    with atomic.atomic_file(filepath, overwrite) as tmp:
        with _weights(source, include_optimizer, os.path.dirname(tmp)) as weights:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as zf:
                _member(zf, "metadata.json", metadata)
                _member(zf, "config.json", config_bytes)
                _copy_member(zf, "model.weights.h5", weights)
                for name, data in sorted(assets.items()):
                    _member(zf, name, data)
                _member(zf, EXTRAS, extra_bytes)


def _state_bytes(model: Any) -> int:
    variables = list(model.variables) + list(getattr(getattr(model, "optimizer", None), "variables", None) or [])
    return sum(int(np.prod(v.shape)) * v.dtype.size for v in variables)


@contextlib.contextmanager
def _weights(model: Any, include_optimizer: bool, folder: str) -> Iterator[BinaryIO]:
    """``model.weights.h5``, open for reading from the start. Built in memory, as Keras does when there is room,
    so the target's disk holds only the archive; a model over ``IN_MEMORY_BYTES`` goes through a file in
    ``folder`` (the save's own temporary folder, removed with it)."""
    if _state_bytes(model) < IN_MEMORY_BYTES:
        buffer = io.BytesIO()
        with h5_writer.signals_deferred(), h5py.File(buffer, "w") as f:
            write_keras_weights(f, model, include_optimizer)
        buffer.seek(0)
        yield buffer
        return
    path = os.path.join(folder, "model.weights.h5")
    with h5_writer.create(path) as f:  # a full disk: one OSError once libhdf5 has closed the file
        write_keras_weights(f, model, include_optimizer)
    with open(path, "rb") as handle:
        yield handle


def _copy_member(zf: zipfile.ZipFile, name: str, source: BinaryIO) -> None:
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    with zf.open(info, "w", force_zip64=True) as target:
        while chunk := source.read(2**20):
            target.write(chunk)


def save_keras_weights(model: Any, filepath: str, overwrite: bool = True) -> None:
    """Write ``model``'s weights (and optimizer state) as a Keras 3 ``.weights.h5``, atomically."""
    if not model.built:
        raise ValueError(
            f"Model '{model.name}' has no weights yet; call it on a batch (or "
            f"model.build(input_shape)) before save_weights"
        )
    with atomic.atomic_file(os.fspath(filepath), overwrite) as tmp:
        with h5_writer.create(tmp) as f:
            write_weights_file(f, model)


def read_extras(path: str) -> dict[str, Any] | None:
    """The ``tfkit.json`` of a ``.keras`` archive tfkit wrote, as checked data; ``None`` if it has none."""
    try:
        with zipfile.ZipFile(path) as zf:
            infos = [info for info in zf.infolist() if info.filename == EXTRAS]
            if not infos:
                return None
            info = infos[0]
            if (
                len(infos) > 1
                or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
                or info.file_size > MAX_EXTRAS_BYTES
            ):
                raise ValueError(f"{path}: {EXTRAS} must be one stored member of at most {MAX_EXTRAS_BYTES} bytes")
            with zf.open(info) as member:
                data = member.read(MAX_EXTRAS_BYTES + 1)
    except ZIP_READ_ERRORS as error:
        raise ValueError(f"{path}: {EXTRAS} cannot be read ({type(error).__name__}: {error})") from None
    value = loads_json(data, f"{path}: {EXTRAS}")
    if not isinstance(value, dict):
        raise ValueError(f"{path}: {EXTRAS} must hold an object")
    check_config(value.get("compile_config"), f"{path}: {EXTRAS} compile_config")
    return value
