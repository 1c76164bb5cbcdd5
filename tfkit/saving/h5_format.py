"""The tfkit HDF5 layout, and reading it without trusting it.

    with open_h5("m.h5") as f:
        check_header(f, kinds=("model",))
        arrays = dataset_table(f, "weights")          # {"encoder/dense_proj/kernel": <Dataset>}

Layout (readable with plain h5py; ``h5dump`` shows it too)::

    /                 attrs: format="tfkit", format_version=1, kind="model"|"weights",
                             tfkit_version, model_class, model_config (JSON),
                             build_config (JSON), compile_config (JSON, optional)
    /weights/<path>   one dataset per weight, at its attribute path
    /state/<path>     non-weight variables (random-generator seeds, metric counters)
    /optimizer/<i>    optimizer variables by index, attr "name" on each
    /training/data_seed   the shuffling seed, so fit resumes with the same order

Reading trusts nothing: only h5py's numeric datasets and string/int
attributes are read (no pickles, no object arrays, no references), links
must be plain hard links, datasets may not point at external files or use
filters other than HDF5's built-in ones, and a dataset's declared size must
be backed by data actually stored in the file.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator

import h5py
import numpy as np
import tensorflow as tf

FORMAT = "tfkit"
FORMAT_VERSION = 1
KINDS = ("model", "weights")
MAX_ENTRIES = 200_000
MAX_TEXT_BYTES = 64 * 2**20
MAX_COMPRESSION_RATIO = 1100
# deflate (gzip), shuffle, fletcher32 and h5py's lzf: no plugin is ever loaded.
ALLOWED_FILTERS = {1: "deflate", 2: "shuffle", 3: "fletcher32", 32000: "lzf"}


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


# ---------------------------------------------------------------- writing

def write_header(f: h5py.File, kind: str, attrs: dict[str, Any]) -> None:
    from tfkit import __version__

    f.attrs["format"] = FORMAT
    f.attrs["format_version"] = np.int64(FORMAT_VERSION)
    f.attrs["kind"] = kind
    f.attrs["tfkit_version"] = __version__
    for key, value in attrs.items():
        if value is not None:
            f.attrs[key] = value


def write_variables(group: h5py.Group, variables: dict[str, tf.Variable]) -> None:
    """One dataset per variable at its path, tagged with the TensorFlow dtype name."""
    for path, variable in variables.items():
        dataset = group.create_dataset(path, data=to_storage(variable))
        dataset.attrs["dtype"] = variable.dtype.name


# ---------------------------------------------------------------- reading

@contextlib.contextmanager
def open_h5(path: str) -> Iterator[h5py.File]:
    """Open ``path`` read-only; anything that is not an intact HDF5 file is a ``ValueError``."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"No such file: {path}")
    if os.path.isdir(path):
        raise ValueError(f"{path} is a folder, not an HDF5 file (a SavedModel? tfkit loads SavedModels with tf.saved_model.load)")
    size = os.path.getsize(path)
    if size == 0:
        raise ValueError(f"{path} is empty (0 bytes), not a tfkit HDF5 file")
    try:
        is_hdf5 = h5py.is_hdf5(path)
    except OSError as error:
        raise ValueError(f"{path} could not be read ({error})") from None
    if not is_hdf5:
        with open(path, "rb") as handle:
            head = handle.read(16)
        hint = " (a zip archive, such as a Keras .keras file?)" if head.startswith(b"PK") else ""
        raise ValueError(f"{path} is not an HDF5 file{hint}: it starts with bytes {head!r}, not the HDF5 signature")
    try:
        handle = h5py.File(path, "r")
    except (OSError, RuntimeError, ValueError) as error:
        raise ValueError(f"{path} is a damaged HDF5 file (truncated or corrupt): {error}") from None
    try:
        yield handle
    finally:
        handle.close()


def read_attr(f: h5py.File, name: str, kind: str, required: bool = True) -> Any:
    """A root attribute that must be a scalar string (``kind="text"``) or integer (``kind="int"``)."""
    if name not in f.attrs:
        if required:
            raise ValueError(f"{f.filename}: the attribute {name!r} is missing; this is not a complete tfkit file")
        return None
    try:
        attr = h5py.h5a.open(f.id, name.encode("utf-8"))
        dtype, shape = attr.dtype, attr.shape
    except (OSError, RuntimeError, KeyError) as error:
        raise ValueError(f"{f.filename}: attribute {name!r} cannot be read ({error})") from None
    if shape not in ((), None):
        raise ValueError(f"{f.filename}: attribute {name!r} must be a single value, got an array of shape {shape}")
    if kind == "text":
        if h5py.check_string_dtype(dtype) is None and dtype.kind not in "SU":
            raise ValueError(f"{f.filename}: attribute {name!r} must be text, got dtype {dtype}")
    elif dtype.kind not in "iu":
        raise ValueError(f"{f.filename}: attribute {name!r} must be an integer, got dtype {dtype}")
    try:
        value = f.attrs[name]
    except (OSError, RuntimeError, TypeError) as error:
        raise ValueError(f"{f.filename}: attribute {name!r} cannot be read ({error})") from None
    if kind == "int":
        return int(value)
    if isinstance(value, bytes):
        if len(value) > MAX_TEXT_BYTES:
            raise ValueError(f"{f.filename}: attribute {name!r} is larger than {MAX_TEXT_BYTES} bytes")
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{f.filename}: attribute {name!r} is not UTF-8 text") from None
    return str(value)


def check_header(f: h5py.File, kinds: tuple[str, ...] = KINDS) -> str:
    """Check ``format``/``format_version``/``kind``; returns the kind."""
    if "format" not in f.attrs:
        legacy = [key for key in ("keras_version", "backend", "model_config", "layer_names") if key in f.attrs]
        hint = f" It looks like a Keras legacy .h5 file (it has {legacy}); tfkit does not read that format." if legacy else ""
        raise ValueError(f"{f.filename} is not a tfkit file: its root has no 'format' attribute.{hint}")
    fmt = read_attr(f, "format", "text")
    if fmt != FORMAT:
        raise ValueError(f"{f.filename} is not a tfkit file: format is {fmt[:60]!r}, expected {FORMAT!r}")
    version = read_attr(f, "format_version", "int")
    if version != FORMAT_VERSION:
        raise ValueError(
            f"{f.filename} has format_version {version}; this tfkit reads format_version {FORMAT_VERSION} only"
        )
    kind = read_attr(f, "kind", "text")
    if kind not in KINDS:
        raise ValueError(f"{f.filename}: kind is {kind[:60]!r}, expected one of {list(KINDS)}")
    if kind not in kinds:
        advice = "load it with model.load_weights(path)" if kind == "weights" else "load it with tfkit.load_model(path)"
        raise ValueError(f"{f.filename} is a tfkit {kind} file; {advice}")
    return kind


def dataset_table(f: h5py.File, group_name: str) -> dict[str, h5py.Dataset]:
    """Every dataset under ``group_name`` by path relative to it (checked, not read)."""
    if group_name not in f:
        return {}
    link = f.get(group_name, getlink=True)
    if not isinstance(link, h5py.HardLink) or not isinstance(f[group_name], h5py.Group):
        raise ValueError(f"{f.filename}: /{group_name} must be a plain group")
    out: dict[str, h5py.Dataset] = {}
    seen: set[Any] = set()
    stack: list[tuple[h5py.Group, str]] = [(f[group_name], "")]
    entries = 0
    while stack:
        group, prefix = stack.pop()
        key = _object_key(group)
        if key in seen:
            raise ValueError(f"{f.filename}: /{group_name}/{prefix} is reachable twice (hard-link cycle or alias)")
        seen.add(key)
        for name in group:
            entries += 1
            if entries > MAX_ENTRIES:
                raise ValueError(f"{f.filename}: /{group_name} has more than {MAX_ENTRIES} entries")
            path = f"{prefix}{name}"
            link = group.get(name, getlink=True)
            if not isinstance(link, h5py.HardLink):
                raise ValueError(
                    f"{f.filename}: /{group_name}/{path} is a {type(link).__name__}; tfkit files hold only "
                    f"plain groups and datasets (no soft or external links)"
                )
            item = group[name]
            if isinstance(item, h5py.Group):
                stack.append((item, path + "/"))
            elif isinstance(item, h5py.Dataset):
                check_dataset(item, f"{f.filename}: /{group_name}/{path}")
                out[path] = item
            else:
                raise ValueError(f"{f.filename}: /{group_name}/{path} is a {type(item).__name__}, not a dataset")
    return dict(sorted(out.items()))


def _object_key(obj: Any) -> Any:
    try:
        return h5py.h5o.get_info(obj.id).addr
    except (AttributeError, TypeError, OSError):
        return hash(obj.id)


def nominal_bytes(dataset: h5py.Dataset) -> int:
    return int(np.prod(dataset.shape, dtype=object)) * dataset.dtype.itemsize


def check_dataset(dataset: h5py.Dataset, where: str) -> None:
    """Refuse datasets that are not plain numeric arrays stored in this file."""
    dtype = dataset.dtype
    if dtype.kind not in "biufc" or dtype.fields is not None or dtype.subdtype is not None \
            or h5py.check_string_dtype(dtype) is not None or h5py.check_vlen_dtype(dtype) is not None:
        what = "opaque bytes (a pickle?)" if dtype.kind == "V" and dtype.fields is None else f"dtype {dtype}"
        raise ValueError(f"{where} holds {what}; tfkit weights are plain numeric arrays (no objects, strings or records)")
    if dataset.shape is None:
        raise ValueError(f"{where} is an empty (null-shaped) dataset")
    if dataset.is_virtual:
        raise ValueError(f"{where} is a virtual dataset (data in other files); tfkit reads data stored in this file only")
    if dataset.external:
        raise ValueError(f"{where} stores its data in external files {dataset.external!r}; refused")
    plist = dataset.id.get_create_plist()
    filters = [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]
    unknown = [code for code in filters if code not in ALLOWED_FILTERS]
    if unknown:
        raise ValueError(f"{where} uses HDF5 filter(s) {unknown}; tfkit reads only {sorted(ALLOWED_FILTERS.values())}")
    declared = nominal_bytes(dataset)
    stored = dataset.id.get_storage_size()
    if declared and not stored:
        raise ValueError(f"{where} declares shape {dataset.shape} but holds no data")
    compressed = any(code in (1, 32000) for code in filters)
    if not compressed and stored < declared:
        raise ValueError(f"{where} declares {declared} bytes (shape {dataset.shape}) but stores only {stored}; truncated")
    if compressed and declared > stored * MAX_COMPRESSION_RATIO:
        raise ValueError(
            f"{where} declares {declared} bytes (shape {dataset.shape}) from {stored} compressed bytes; "
            f"a ratio above {MAX_COMPRESSION_RATIO} is refused"
        )


def dataset_dtype_name(dataset: h5py.Dataset) -> str:
    """The TensorFlow dtype name the file claims for ``dataset`` (its ``dtype`` attribute, else its numpy dtype)."""
    if "dtype" in dataset.attrs:
        try:
            attr = h5py.h5a.open(dataset.id, b"dtype")
            if attr.shape in ((), None) and (h5py.check_string_dtype(attr.dtype) is not None or attr.dtype.kind in "SU"):
                value = dataset.attrs["dtype"]
                value = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                return value[:40]
        except (OSError, RuntimeError, KeyError, TypeError):
            pass
        return "<unreadable>"
    return dataset.dtype.name


def read_dataset(dataset: h5py.Dataset, where: str) -> np.ndarray:
    """Read a checked dataset fully into memory; read errors become ``ValueError``."""
    out = np.empty(dataset.shape, dtype=dataset.dtype)
    try:
        if out.size:
            dataset.read_direct(out)
    except (OSError, RuntimeError, ValueError, TypeError) as error:
        raise ValueError(f"{where} could not be read; the file is damaged ({error})") from None
    return out
