"""The tfkit HDF5 layout, and reading it without trusting it.

    with open_h5("m.h5") as f:
        check_header(f, kinds=("model",))
        arrays = dataset_table(f, "weights")          # {"encoder/dense_proj/kernel": <Dataset>}

Layout (readable with plain h5py; ``h5dump`` shows it too)::

    /                 attrs: format="tfkit", format_version=2, kind="model"|"weights",
                             tfkit_version, model_class, model_config (JSON),
                             build_config (JSON), compile_config (JSON, optional)
    /weights/<path>   one dataset per weight, at its attribute path; attrs dtype, crc32 (of its bytes)
    /state/<path>     non-weight variables (random-generator seeds, metric counters)
    /optimizer/<i>    optimizer variables by index, attr "name" on each
    /training/data_seed   the shuffling seed, so fit resumes with the same order

Reading trusts nothing: the file is parsed in a child process under memory,
CPU and time limits (``h5_reader_child.py``), which reads only numeric
datasets and string/int attributes (no pickles, no object arrays, no
references), follows only plain hard links, refuses external data and
filters other than HDF5's built-in ones, and checks that a dataset's
declared size is backed by data stored in the file.

Checksums: every array carries the CRC-32 of its stored bytes in attribute
``crc32``, verified whenever the array is read (``h5_snapshot``); a mismatch
is a ``ValueError`` naming the file and the dataset, so a flipped bit never
loads as a silently different weight. Arrays without one (files written
before checksums, datasets added by hand) load as before; ``tfkit inspect``
says how many arrays were verified.
"""

from __future__ import annotations

import contextlib
import os
import zlib
from typing import Any, Iterator

import h5py
import numpy as np
import tensorflow as tf

from tfkit.base import settings
from tfkit.base.version import VERSION
from tfkit.saving.h5_snapshot import CHECKSUM_ATTR, MAX_TEXT_BYTES, Snapshot, SnapshotDataset, read_snapshot

FORMAT = "tfkit"
# 2: layers of functional and Sequential models are keyed by structure (dense, dense_1, ...);
# 1: by layer name. Both are read.
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
KINDS = ("model", "weights")


# ----------------------------------------------------------------- dtypes


def storage_dtype(dtype: Any) -> np.dtype:
    """The numpy dtype a variable of ``dtype`` is stored as (bfloat16 as its uint16 bits)."""
    dtype = tf.as_dtype(dtype)
    if dtype == tf.bfloat16:
        return np.dtype("uint16")
    try:
        out = np.dtype(dtype.as_numpy_dtype)
    except TypeError:
        out = None
    if out is None or out.kind not in "biufc":
        raise ValueError(f"Variables of dtype {dtype.name} cannot be stored in an HDF5 file")
    return out


def to_storage(variable: tf.Variable) -> np.ndarray:
    value = variable.numpy()
    if variable.dtype == tf.bfloat16:
        return np.asarray(value).view(np.uint16)
    return np.asarray(value, dtype=storage_dtype(variable.dtype))


def from_storage(array: np.ndarray, dtype: Any) -> Any:
    dtype = tf.as_dtype(dtype)
    if dtype == tf.bfloat16:
        return tf.bitcast(tf.constant(array, tf.uint16), tf.bfloat16)
    return array


def loads_into(stored_dtype: str, dtype: Any) -> bool:
    """Whether values stored as ``stored_dtype`` (a dtype name) load into a variable of ``dtype``.

    The same dtype, or floats into floats, cast on load as Keras does: a
    float32 checkpoint into a model built in ``bfloat16``. Integers and
    booleans load only as themselves.
    """
    wanted = tf.as_dtype(dtype).name
    return stored_dtype == wanted or (stored_dtype in settings.FLOAT_DTYPES and wanted in settings.FLOAT_DTYPES)


def stored_as_claimed(dataset: SnapshotDataset) -> bool:
    """Whether a dataset's bytes are what its claimed dtype is stored as (bfloat16 as uint16 bits)."""
    try:
        return dataset.dtype == storage_dtype(dataset.tf_dtype)
    except (TypeError, ValueError):  # a dtype name TensorFlow does not know, or one tfkit never stores
        return False


def loaded_value(array: np.ndarray, stored_dtype: str, dtype: Any) -> Any:
    """A stored array as a value for a variable of ``dtype`` (``loads_into`` checked): decoded, then cast."""
    value = from_storage(array, stored_dtype)
    if stored_dtype != tf.as_dtype(dtype).name:
        value = tf.cast(value, dtype)
    return value


# ---------------------------------------------------------------- writing


def crc32(array: np.ndarray) -> int:
    """The CRC-32 (zlib's, as in zip files) of an array's bytes in C order."""
    return zlib.crc32(np.ascontiguousarray(array))


def write_header(f: h5py.File, kind: str, attrs: dict[str, Any]) -> None:
    f.attrs["format"] = FORMAT
    f.attrs["format_version"] = np.int64(FORMAT_VERSION)
    f.attrs["kind"] = kind
    f.attrs["tfkit_version"] = VERSION
    for key, value in attrs.items():
        if value is not None:
            f.attrs[key] = value


def _scalar_attr(owner: h5py.HLObject, name: str, value: np.ndarray) -> None:
    """What ``owner.attrs[name] = value`` writes (a scalar attribute), in half of h5py's time."""
    htype = h5py.h5t.py_create(value.dtype, logical=True)
    h5py.h5a.create(owner.id, name.encode("utf-8"), htype, h5py.h5s.create(h5py.h5s.SCALAR)).write(value)


_TEXT = h5py.string_dtype()  # what h5py stores a Python str attribute as: variable-length UTF-8


def write_array(group: h5py.Group, path: str, array: np.ndarray, dtype_name: str) -> h5py.Dataset:
    """A dataset at ``path`` holding ``array``, tagged with the TensorFlow dtype name and its CRC-32."""
    dataset = group.create_dataset(path, data=array)
    _scalar_attr(dataset, "dtype", np.array(dtype_name, dtype=_TEXT))
    _scalar_attr(dataset, CHECKSUM_ATTR, np.array(crc32(array), dtype="<i8"))
    return dataset


def write_variables(group: h5py.Group, variables: dict[str, tf.Variable]) -> None:
    """One dataset per variable at its path, tagged with the TensorFlow dtype name and a checksum."""
    for path, variable in variables.items():
        write_array(group, path, to_storage(variable), variable.dtype.name)


# ---------------------------------------------------------------- reading
#
# Untrusted files are parsed by libhdf5 in a child process under limits
# (``h5_snapshot``); what comes back is plain data, checked again here.


# tfkit's groups, then Keras 3's (layers, vars) and tf-keras's (model_weights), so one read serves either.
READ_GROUPS = ("weights", "state", "optimizer", "training", "layers", "vars", "model_weights")


@contextlib.contextmanager
def open_h5(path: str) -> Iterator[Snapshot]:
    """Read ``path`` through the guarded child reader; anything but an intact HDF5 file is a ``ValueError``."""
    yield read_snapshot(os.fspath(path), READ_GROUPS)


def read_attr(f: Snapshot, name: str, kind: str, required: bool = True) -> Any:
    """A root attribute that must be a scalar string (``kind="text"``) or integer (``kind="int"``)."""
    if name not in f.attrs:
        if required:
            raise ValueError(f"{f.filename}: the attribute {name!r} is missing; this is not a complete tfkit file")
        return None
    value = f.attrs[name]
    if isinstance(value, dict):
        raise ValueError(f"{f.filename}: attribute {name!r} cannot be read ({str(value.get('unreadable'))[:200]})")
    if kind == "text" and not isinstance(value, str):
        raise ValueError(f"{f.filename}: attribute {name!r} must be text, got {type(value).__name__}")
    if kind == "int" and (not isinstance(value, int) or isinstance(value, bool)):
        raise ValueError(f"{f.filename}: attribute {name!r} must be an integer, got {type(value).__name__}")
    if kind == "text" and len(value) > MAX_TEXT_BYTES:
        raise ValueError(f"{f.filename}: attribute {name!r} is larger than {MAX_TEXT_BYTES} bytes")
    return value


def check_header(f: Snapshot, kinds: tuple[str, ...] = KINDS) -> str:
    """Check ``format``/``format_version``/``kind``; returns the kind."""
    if "format" not in f.attrs:
        legacy = [key for key in ("keras_version", "backend", "model_config", "layer_names") if key in f.attrs]
        hint = (
            f" It looks like a Keras legacy .h5 file (it has {legacy}); tfkit does not read that format."
            if legacy
            else ""
        )
        raise ValueError(f"{f.filename} is not a tfkit file: its root has no 'format' attribute.{hint}")
    fmt = read_attr(f, "format", "text")
    if fmt != FORMAT:
        raise ValueError(f"{f.filename} is not a tfkit file: its format attribute is not {FORMAT!r}")
    version = read_attr(f, "format_version", "int")
    if version not in READABLE_VERSIONS:
        raise ValueError(
            f"{f.filename} has format_version {version}; this tfkit reads format_version {READABLE_VERSIONS}"
        )
    kind = read_attr(f, "kind", "text")
    if kind not in KINDS:
        raise ValueError(f"{f.filename}: its kind attribute is not one of {list(KINDS)}")
    if kind not in kinds:
        advice = "load it with model.load_weights(path)" if kind == "weights" else "load it with tfkit.load_model(path)"
        raise ValueError(f"{f.filename} is a tfkit {kind} file; {advice}")
    return kind


def dataset_table(f: Snapshot, group_name: str) -> dict[str, SnapshotDataset]:
    """Every dataset under ``group_name`` by path relative to it (checked by the reader)."""
    return dict(sorted(f.tables.get(group_name, {}).items()))


def nominal_bytes(dataset: SnapshotDataset) -> int:
    return int(np.prod(dataset.shape, dtype=object)) * dataset.dtype.itemsize


def dataset_dtype_name(dataset: SnapshotDataset) -> str:
    """The TensorFlow dtype name the file claims for ``dataset`` (its ``dtype`` attribute, else its numpy dtype)."""
    return dataset.tf_dtype


def read_dataset(dataset: SnapshotDataset, where: str) -> np.ndarray:
    """The values of a dataset the reader has already read and checked."""
    return dataset.array
