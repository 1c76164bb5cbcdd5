"""What is inside a tfkit .h5 file, a Keras 3 .keras archive or .weights.h5 file, or a SavedModel, as lines.

    for line in describe("vae.h5"): print(line)        # what ``tfkit inspect vae.h5`` prints
    # format: tfkit 1 (model) ... weights/encoder/dense_proj/kernel  (784, 64)  float32 ... checksums: ...

A layer whose name is automatic (``dense_3``) stores its weights under a key
numbered by class in layer order (``dense/``; Keras's files number every layer
that way), so that a file does not depend on what the saving process built
before: the layers table shows that key beside the name where the two differ.
A tf-keras (Keras 2) ``.h5`` file is not described: the error gives the
``tfkit convert`` command that reads it.

Nothing is built or run: an .h5 file or a .keras archive is read with the same checks as
``load_model`` (no class is looked up, so custom classes need not be
importable; every array's checksum is verified) and a SavedModel's signatures are read from ``saved_model.pb``
without loading its graph, and its variables from ``variables.index`` by
tfkit's own index reader (``checkpoint_index``), never TensorFlow's, which
aborts the process on a damaged entry.
"""

from __future__ import annotations

import os
import shlex
import stat
from typing import Any, Callable

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2

from tfkit.engine.config_safety import loads_json
from tfkit.engine.naming import to_snake_case
from tfkit.engine.tracking import keys_by_structure
from tfkit.files.checkpoint_index import check_checkpoint
from tfkit.saving import h5_format
from tfkit.saving.errors import loader
from tfkit.saving.h5_snapshot import read_snapshot
from tfkit.saving.keras_files.archive import is_zip, read_archive
from tfkit.saving.keras_files.importer import is_legacy

MAX_PROTO_BYTES = 2**31 - 1  # protobuf's limit: a larger saved_model.pb cannot be valid


@loader
def describe(path: str) -> list[str]:
    """Lines describing ``path``: an .h5 file written by tfkit, a Keras 3 .keras archive, or a SavedModel folder."""
    path = os.fspath(path)
    if os.path.isdir(path):
        if not os.path.exists(os.path.join(path, "saved_model.pb")):
            raise ValueError(f"{path} is a folder without saved_model.pb; expected a SavedModel or a tfkit .h5 file")
        return describe_saved_model(path)
    if os.path.isfile(path) and is_zip(path):
        return describe_keras_archive(path)
    return describe_h5(path)


def _json_attr(f: Any, name: str) -> Any:
    text = h5_format.read_attr(f, name, "text", required=False)
    if text is None:
        return None
    try:
        return loads_json(text, name)
    except ValueError as error:
        raise ValueError(f"{f.filename}: {error}") from None


def _table_lines(title: str, table: dict[str, Any]) -> list[str]:
    if not table:
        return []
    width = max(len(p) for p in table) + 2
    total = sum(int(np.prod(d.shape, dtype=object)) for d in table.values())
    lines = [f"{title} ({len(table)} arrays, {total:,} values):"]
    for path, dataset in table.items():
        lines.append(f"  {path:<{width}}{str(tuple(dataset.shape)):<16}{h5_format.dataset_dtype_name(dataset)}")
    return lines


def _layer_lines(
    config: Any, keys_of: Callable[[list[dict]], list[str | None]], stored: set[str], prefix: str
) -> list[str]:
    """Names and classes of a functional or Sequential model's layers, as the config states them.

    ``keys_of(entries)`` gives each layer's key in the weights table; where it differs from the
    layer's name and the table holds it, the row says ``weights under <prefix><key>/``.
    """
    inner = config.get("config") if isinstance(config, dict) else None
    entries = inner.get("layers") if isinstance(inner, dict) else None
    if not isinstance(entries, list):
        return []
    entries = [entry for entry in entries if isinstance(entry, dict)]
    keys = keys_of(entries)
    lines = ["layers:"]
    for entry, key in zip(entries, keys):
        layer_config = entry.get("config") if isinstance(entry.get("config"), dict) else {}
        name = str(entry.get("name") or layer_config.get("name") or "?")
        class_name = str(entry.get("class_name"))[:60]
        if key is not None and key != name and key in stored:
            lines.append(f"  {name:<24}{class_name:<16}weights under {prefix}{key}/")
        else:
            lines.append(f"  {name:<24}{class_name}")
    return lines


def _entry_name(entry: dict) -> Any:
    layer_config = entry.get("config") if isinstance(entry.get("config"), dict) else {}
    return entry.get("name") or layer_config.get("name")


def _tfkit_keys(entries: list[dict]) -> list[str | None]:
    """The keys tfkit's weight files give these layers (``tracking.keys_by_structure``)."""
    class_names, names = [entry.get("class_name") for entry in entries], [_entry_name(entry) for entry in entries]
    if not all(isinstance(value, str) for value in class_names + names):
        return [None] * len(entries)
    return keys_by_structure(class_names, names)


def _keras_keys(entries: list[dict]) -> list[str | None]:
    """The keys Keras 3's weight files give these layers: by class in layer order, names ignored.

    Operations recorded in a functional graph (module ``keras.src.ops...``) are no layers and hold no key.
    """
    counts: dict[str, int] = {}
    keys: list[str | None] = []
    for entry in entries:
        module, class_name = entry.get("module"), entry.get("class_name")
        if not isinstance(class_name, str) or isinstance(module, str) and module.startswith("keras.src.ops"):
            keys.append(None)
            continue
        base = to_snake_case(class_name)
        count = counts.get(base, 0)
        counts[base] = count + 1
        keys.append(base if count == 0 else f"{base}_{count}")
    return keys


def _legacy_refusal(path: str, f: Any) -> ValueError:
    """tf-keras's own .h5 files are read by ``tfkit convert`` (a model) or ``load_weights`` (weights only)."""
    if "model_config" in f.attrs:
        target = f"{os.path.splitext(path)[0]}_tfkit.h5"
        return ValueError(
            f"{path} is a tf-keras (Keras 2) model file, which tfkit inspect does not describe; convert it to a tfkit "
            f"file, then inspect that: tfkit convert {shlex.quote(path)} {shlex.quote(target)} && "
            f"tfkit inspect {shlex.quote(target)}"
        )
    return ValueError(
        f"{path} is a tf-keras (Keras 2) weights file, which tfkit inspect does not describe (tfkit convert reads "
        f"whole-model files); model.load_weights({path!r}) reads it into a tfkit model with the same layers"
    )


def _compile_summary(config: dict) -> str:
    optimizer = config.get("optimizer")
    name = optimizer.get("class_name") if isinstance(optimizer, dict) else optimizer
    loss = config.get("loss")
    loss_name = loss.get("class_name") if isinstance(loss, dict) and "class_name" in loss else loss
    return f"optimizer={name}, loss={loss_name}, metrics={config.get('metrics')}"


def describe_h5(path: str) -> list[str]:
    with h5_format.open_h5(path) as f:
        if "format" not in f.attrs and "layers" in f.tables:  # Keras 3's .weights.h5 (tfkit's or Keras's)
            return _describe_keras_weights(path, f)
        if is_legacy(f):
            raise _legacy_refusal(path, f)
        kind = h5_format.check_header(f)
        version = h5_format.read_attr(f, "format_version", "int")
        written_by = h5_format.read_attr(f, "tfkit_version", "text", required=False)
        lines = [
            f"file: {path}",
            f"format: tfkit, format_version {version}, kind {kind}"
            + (f", written by tfkit {written_by}" if written_by else ""),
        ]
        model_class = h5_format.read_attr(f, "model_class", "text", required=False)
        config = _json_attr(f, "model_config")
        if isinstance(config, dict) and isinstance(config.get("class_name"), str):
            model_class = config["class_name"]
            inner = config.get("config")
            if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                model_class += f" (name '{inner['name']}')"
            if isinstance(inner, dict) and isinstance(inner.get("layers"), list):
                model_class += f", {len(inner['layers'])} layers"
        lines.append(f"model class: {model_class or 'unknown'}")
        weights = h5_format.dataset_table(f, "weights")
        lines += _layer_lines(config, _tfkit_keys, {path.split("/")[0] for path in weights}, "")
        build = _json_attr(f, "build_config")
        lines.append(
            f"input shape: {build.get('input_shape') if isinstance(build, dict) else 'not stored (model unbuilt)'}"
        )
        compiled = _json_attr(f, "compile_config")
        lines.append(f"compiled: {_compile_summary(compiled) if isinstance(compiled, dict) else 'no'}")
        lines += _table_lines("weights", weights)
        lines += _table_lines("state", h5_format.dataset_table(f, "state"))
        optimizer = h5_format.dataset_table(f, "optimizer")
        if optimizer:
            iterations = optimizer.get("0")
            step = ""
            if iterations is not None and iterations.shape == () and iterations.dtype.kind in "iu":
                step = f", iterations={int(h5_format.read_dataset(iterations, '/optimizer/0'))}"
            lines.append(f"optimizer state: {len(optimizer)} variables{step}")
        lines.append(_checksum_line(f))
        return lines


def _keras_weights_lines(f: Any, title: str, writer: str) -> list[str]:
    """The weights table, optimizer state and checksum line of a Keras 3 weights layout."""
    layers = {
        f"{group}/{key}": dataset
        for group in ("vars", "layers")
        for key, dataset in h5_format.dataset_table(f, group).items()
    }
    lines = _table_lines(title, layers)
    optimizer = h5_format.dataset_table(f, "optimizer")
    if optimizer:
        iterations = optimizer.get("vars/0")
        step = ""
        if iterations is not None and iterations.shape == () and iterations.dtype.kind in "iu":
            step = f", iterations={int(h5_format.read_dataset(iterations, 'optimizer/vars/0'))}"
        lines.append(f"optimizer state: {len(optimizer)} variables{step}")
    return lines + [_checksum_line(f, writer)]


def _describe_keras_weights(path: str, f: Any) -> list[str]:
    build = _json_attr(f, "tfkit_build_config")
    writer = "tfkit" if build is not None else "Keras"  # tfkit stores the input shapes beside the weights
    lines = [f"file: {path}", f"format: Keras 3 weights file (.weights.h5), written by {writer}"]
    if isinstance(build, dict):
        lines.append(f"input shape: {build.get('input_shape')}")
    return lines + _keras_weights_lines(f, "weights", writer)


def describe_keras_archive(path: str) -> list[str]:
    """A Keras 3 ``.keras`` archive: who wrote it, its model, layers, compile arguments and weights."""
    with read_archive(path) as archive:
        metadata, config = archive.metadata, archive.config
        writer = f"tfkit {metadata['tfkit_version']}" if "tfkit_version" in metadata else "Keras"
        lines = [
            f"file: {path}",
            f"format: Keras 3 archive (.keras), written by {writer}"
            + (f" as Keras {metadata['keras_version']}" if "keras_version" in metadata else ""),
        ]
        model_class = str(config.get("class_name"))[:60]
        inner = config.get("config")
        if isinstance(inner, dict) and isinstance(inner.get("name"), str):
            model_class += f" (name '{inner['name'][:60]}')"
        if isinstance(inner, dict) and isinstance(inner.get("layers"), list):
            model_class += f", {len(inner['layers'])} layers"
        lines.append(f"model class: {model_class}")
        f = read_snapshot(archive.weights_path, ("layers", "vars", "optimizer")) if archive.weights_path else None
        stored = {key.split("/")[0] for key in f.tables.get("layers", {})} if f is not None else set()
        lines += _layer_lines(config, _keras_keys, stored, "layers/")
        build = config.get("build_config")
        lines.append(f"input shape: {build.get('input_shape') if isinstance(build, dict) else 'not stored'}")
        compiled = config.get("compile_config")
        lines.append(f"compiled: {_compile_summary(compiled) if isinstance(compiled, dict) and compiled else 'no'}")
        if archive.vocabularies:
            lines.append(f"assets: vocabularies of {', '.join(sorted(archive.vocabularies))}")
        if archive.other_members:
            lines.append(f"other members: {', '.join(archive.other_members[:20])}")
        if f is None:
            lines.append("weights: none (no model.weights.h5)")
            return lines
        return lines + _keras_weights_lines(
            f, "weights (model.weights.h5)", "tfkit" if "tfkit_version" in metadata else "Keras"
        )


def _checksum_line(f: Any, writer: str = "tfkit") -> str:
    """How many of the file's arrays carried a CRC-32 (each was verified when the file was read)."""
    arrays = [dataset for table in f.tables.values() for dataset in table.values()]
    verified = sum(dataset.verified for dataset in arrays)
    if verified == len(arrays):
        return f"checksums: all {verified} arrays verified (crc32)"
    if verified == 0 and writer != "tfkit":
        return f"checksums: none ({writer} stores none); {len(arrays)} arrays read unverified"
    if verified == 0:
        return f"checksums: none stored (a file written before tfkit stored them); {len(arrays)} arrays unverified"
    return f"checksums: {verified} of {len(arrays)} arrays verified (crc32); {len(arrays) - verified} have none"


def _regular_file_size(path: str) -> int:
    """The size of ``path``; ``ValueError`` unless it is a regular file (a FIFO would block, a device never end)."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise ValueError(f"{path} could not be read ({error.strerror or type(error).__name__})") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path} is not a regular file (a FIFO, device or folder); a SavedModel is made of files")
    return info.st_size


def describe_saved_model(path: str) -> list[str]:
    proto = saved_model_pb2.SavedModel()
    graph = os.path.join(path, "saved_model.pb")
    size = _regular_file_size(graph)
    if size >= MAX_PROTO_BYTES:
        raise ValueError(f"{graph} is {size} bytes; a protocol buffer holds less than 2 GB, so it is not a SavedModel")
    try:
        with open(graph, "rb") as handle:
            proto.ParseFromString(handle.read(size + 1))  # read(n) allocates n bytes up front
    except Exception as error:  # protobuf's DecodeError and friends
        raise ValueError(f"{graph} is not a valid SavedModel ({error})") from None
    lines = [f"SavedModel: {path}"]
    for meta in proto.meta_graphs:
        lines.append(f"tags: {', '.join(meta.meta_info_def.tags)}")
        for name in sorted(meta.signature_def):
            if name.startswith("__"):
                continue
            signature = meta.signature_def[name]
            lines.append(f"signature '{name}':")
            for title, tensors in (("inputs", signature.inputs), ("outputs", signature.outputs)):
                for key in sorted(tensors):
                    info = tensors[key]
                    dims = tuple(None if d.size < 0 else d.size for d in info.tensor_shape.dim)
                    shape = "unknown rank" if info.tensor_shape.unknown_rank else str(dims)
                    lines.append(f"  {title[:-1]} {key}: {tf.as_dtype(info.dtype).name} {shape}")
    prefix = os.path.join(path, "variables", "variables")
    if os.path.lexists(prefix + ".index"):  # read by tfkit's own index reader, never TensorFlow's
        variables = [entry.shape for name, entry in check_checkpoint(prefix).items() if "VARIABLE_VALUE" in name]
        total = sum(int(np.prod(shape, dtype=object)) for shape in variables)
        lines.append(f"variables: {len(variables)} arrays, {total:,} values")
    if os.path.exists(os.path.join(path, "assets.extra", "tf_serving_warmup_requests")):
        lines.append("warmup requests: assets.extra/tf_serving_warmup_requests")
    return lines
