"""A Hugging Face checkpoint's tensors by name, read one at a time from ``model.safetensors`` (or its shards).

    checkpoint = SafetensorsCheckpoint(directory)     # every header read and checked; no tensor yet
    checkpoint.sizes()                                # StoredSizes: what the config may ask for
    checkpoint.tensor("h.0.attn.c_attn.weight")       # a NumPy array; nothing else is read

A safetensors file is an 8-byte little-endian header length, a JSON header
naming each tensor's dtype, shape and byte range, and the raw little-endian
arrays: data, no code. tfkit reads it itself, under limits: the header's
length and entry count are bounded before it is parsed, and every entry is
checked (a known dtype, a shape of non-negative integers, a byte range of
exactly that size, the ranges tiling the data with no gap or overlap, as the
format requires, inside the file) before any tensor is read, so a damaged or
hostile file is one ``ValueError`` naming the file and the tensor. Each tensor
is read when its variable is assigned, so a checkpoint never sits in memory
twice. A sharded checkpoint's index (``model.safetensors.index.json``) names
its shards, which must be files of the folder. Keys may carry the prefix of the
model class that saved them (``transformer.h.0...``, ``model.layers.0...``); a
key is found with or without it.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import struct
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.engine.config_safety import MAX_NAME_CHARS, loads_json
from tfkit.hub.presets import files
from tfkit.hub.presets.config_budget import StoredSizes

SAFETENSORS_FILE = "model.safetensors"
SAFETENSORS_INDEX_FILE = "model.safetensors.index.json"
# A header is about 100 bytes a tensor: a 400-billion-parameter checkpoint's largest shard header is under 1 MB.
MAX_HEADER_BYTES = 16 * 2**20
MAX_TENSORS_PER_FILE = 2**17  # a mixture of 128 experts in 94 layers stores about 37,000
MAX_TENSORS = 2**20  # over all shards: DeepSeek-V3 stores about 91,000 in 163
MAX_SHARDS = 4096
MAX_RANK = 16
_DTYPES = {
    "BOOL": np.dtype("bool"),
    "U8": np.dtype("uint8"),
    "I8": np.dtype("int8"),
    "U16": np.dtype("<u2"),
    "I16": np.dtype("<i2"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),  # read as its bit patterns, viewed as bfloat16 (TensorFlow's NumPy type)
    "U32": np.dtype("<u4"),
    "I32": np.dtype("<i4"),
    "F32": np.dtype("<f4"),
    "U64": np.dtype("<u8"),
    "I64": np.dtype("<i8"),
    "F64": np.dtype("<f8"),
}


class TensorEntry:
    """Where one tensor lies in its file: dtype name, shape, and its bytes' offset (from the file's start)."""

    __slots__ = ("dtype", "shape", "offset", "nbytes")

    def __init__(self, dtype: str, shape: tuple[int, ...], offset: int, nbytes: int) -> None:
        self.dtype, self.shape, self.offset, self.nbytes = dtype, shape, offset, nbytes


def read_header(path: str, what: str) -> dict[str, TensorEntry]:
    """The tensors of safetensors file ``path`` by name, every entry checked against the format and the file.

    Args:
        path: The file.
        what: The file as errors name it (``"preset p: model.safetensors"``).

    Returns:
        Each tensor's dtype, shape and byte range.

    Raises:
        ValueError: naming ``what`` (and the tensor), if the file is not an
            intact safetensors file or exceeds the limits.
    """
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        start = handle.read(8)
        if len(start) < 8:
            raise ValueError(f"{what} is {size} bytes long: too short to be a safetensors file")
        (length,) = struct.unpack("<Q", start)
        if length > MAX_HEADER_BYTES or length > size - 8:
            raise ValueError(
                f"{what}: its header claims {length} bytes; the file has {size - 8} after the length and the "
                f"limit is {MAX_HEADER_BYTES} (not a safetensors file, or a damaged one)"
            )
        raw = handle.read(length)
    if raw.count(b"{") > MAX_TENSORS_PER_FILE + 2:  # one object a tensor: bounded before anything is parsed
        raise ValueError(f"{what}: its header holds more than {MAX_TENSORS_PER_FILE} tensors, the limit for one file")
    header = loads_json(raw, f"{what} (its header)")
    if not isinstance(header, dict):
        raise ValueError(f"{what}: its header is not a JSON object but {type(header).__name__}")
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise ValueError(f"{what}: __metadata__ must map names to strings")
    entries = {name: _entry(name, value, 8 + length, what) for name, value in header.items()}
    _check_tiling(entries, size - 8 - length, what)
    return entries


def _entry(name: str, value: Any, data_start: int, what: str) -> TensorEntry:
    where = f"{what}: tensor {name[:200]!r}"
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"{what}: a tensor name of {len(name)} characters; the limit is {MAX_NAME_CHARS}")
    if not isinstance(value, dict) or set(value) != {"dtype", "shape", "data_offsets"}:
        raise ValueError(f"{where}: expected {{dtype, shape, data_offsets}}, got {str(value)[:120]}")
    dtype, shape, offsets = value["dtype"], value["shape"], value["data_offsets"]
    if dtype not in _DTYPES:
        raise ValueError(f"{where}: dtype {str(dtype)[:40]!r}; tfkit reads {', '.join(_DTYPES)}")
    if not isinstance(shape, list) or len(shape) > MAX_RANK or not all(_count(d) for d in shape):
        raise ValueError(f"{where}: shape {str(shape)[:120]} is not a list of non-negative integers")
    if not isinstance(offsets, list) or len(offsets) != 2 or not all(_count(o) for o in offsets):
        raise ValueError(f"{where}: data_offsets {str(offsets)[:120]} is not [begin, end]")
    begin, end = offsets
    nbytes = math.prod(shape) * _DTYPES[dtype].itemsize
    if end - begin != nbytes:
        raise ValueError(
            f"{where}: data_offsets {offsets} span {end - begin} bytes; a {dtype} tensor of shape {shape} has {nbytes}"
        )
    return TensorEntry(dtype, tuple(shape), data_start + begin, nbytes)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_tiling(entries: dict[str, TensorEntry], data_bytes: int, what: str) -> None:
    """The tensors' byte ranges cover the data exactly, with no gap or overlap (the format's own rule)."""
    position = min((entry.offset for entry in entries.values()), default=0)
    first = position
    for name, entry in sorted(entries.items(), key=lambda item: (item[1].offset, item[1].nbytes)):
        if entry.offset != position:
            raise ValueError(
                f"{what}: tensor {name[:200]!r} starts at byte {entry.offset - first} of the data, where the "
                f"previous one ends at {position - first} (overlapping or gapped data)"
            )
        position += entry.nbytes
    if position - first != data_bytes:
        raise ValueError(
            f"{what}: its tensors hold {position - first} bytes of data, the file {data_bytes} after its header "
            f"(truncated, or bytes no tensor names)"
        )


def read_tensor(path: str, entry: TensorEntry, what: str) -> np.ndarray:
    """The tensor ``entry`` describes, read from ``path`` now (bfloat16 as TensorFlow's NumPy bfloat16)."""
    dtype = _DTYPES[entry.dtype]
    count = entry.nbytes // dtype.itemsize
    with open(path, "rb") as handle:
        handle.seek(entry.offset)
        array = np.fromfile(handle, dtype=dtype, count=count) if count else np.empty(0, dtype)
    if array.size != count:
        raise ValueError(f"{what}: the file ended inside a tensor (truncated while being read?)")
    if entry.dtype == "BF16":
        array = array.view(tf.bfloat16.as_numpy_dtype)
    return array.astype(array.dtype.newbyteorder("="), copy=False).reshape(entry.shape)


class SafetensorsCheckpoint(contextlib.AbstractContextManager):
    """The tensors of a Hugging Face checkpoint folder, by name: every header read and checked when it opens.

    Args:
        directory: The checkpoint folder (`config.json`, `model.safetensors`
            or `model.safetensors.index.json` and its shards).

    Raises:
        ValueError: naming the file, if the index or a header is damaged,
            exceeds the limits, or names a file outside the folder.
    """

    def __init__(self, directory: str) -> None:
        self.directory = directory
        if files.has_file(directory, SAFETENSORS_INDEX_FILE):
            index = files.read_json(directory, SAFETENSORS_INDEX_FILE)
            weight_map = index.get("weight_map") if isinstance(index, dict) else None
            if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
                raise ValueError(
                    f"{directory}/{SAFETENSORS_INDEX_FILE}: weight_map must map tensor names to file names"
                )
            names = sorted(set(weight_map.values()))
            if len(names) > MAX_SHARDS:
                raise ValueError(
                    f"{directory}/{SAFETENSORS_INDEX_FILE} names {len(names)} shards; the limit is {MAX_SHARDS}"
                )
        else:
            names = [SAFETENSORS_FILE]
        self._paths = {name: files.preset_file(directory, name) for name in names}  # all inside, before any read
        self._entries: dict[str, tuple[str, TensorEntry]] = {}
        for name, path in self._paths.items():
            for key, entry in read_header(path, f"preset {directory}: {name}").items():
                if key in self._entries:
                    raise ValueError(f"preset {directory}: tensor {key[:200]!r} is stored twice ({name} and another)")
                self._entries[key] = (name, entry)
            if len(self._entries) > MAX_TENSORS:
                raise ValueError(f"preset {directory}: its shards hold more than {MAX_TENSORS} tensors")
        self._prefix: str | None = None

    def __exit__(self, *exc: Any) -> None:
        return None

    def _key(self, key: str) -> str:
        if key in self._entries:
            return key
        if self._prefix is None:
            self._prefix = next((k[: -len(key)] for k in self._entries if k.endswith("." + key)), "")
        full = self._prefix + key
        if full not in self._entries:
            raise KeyError(f"{self.directory}: the checkpoint has no tensor {key!r}")
        return full

    def keys(self) -> list[str]:
        """Every tensor name the checkpoint stores."""
        return list(self._entries)

    def full_key(self, key: str) -> str:
        """The name tensor ``key`` is stored under (with its class's prefix, if the checkpoint has one).

        Raises:
            KeyError: If the checkpoint has no such tensor.
        """
        return self._key(key)

    def has(self, key: str) -> bool:
        """Whether the checkpoint stores tensor `key` (with or without its class's prefix)."""
        try:
            self._key(key)
        except KeyError:
            return False
        return True

    def sizes(self, stacked: "re.Pattern[str] | None" = None) -> StoredSizes:
        """How many tensors the checkpoint stores, the largest's and all their elements.

        With `stacked` (a converter's pattern for tensors that fill one variable together, such as a
        mixture's per-expert kernels, its group `expert` the part that numbers them), the tensors whose
        keys are the same but for that part count as one array of their summed size: the variable the
        model builds from them.
        """
        if stacked is None:
            return StoredSizes.of(entry.shape for _, entry in self._entries.values())
        groups: dict[str, int] = {}
        for key, (_, entry) in self._entries.items():
            match = stacked.match(key)
            group = key if match is None else key[: match.start("expert")] + key[match.end("expert") :]
            groups[group] = groups.get(group, 0) + math.prod(int(d) for d in entry.shape)
        sizes = StoredSizes.of((size,) for size in groups.values())
        return StoredSizes(len(self._entries), sizes.largest, sizes.total)

    def tensor(self, key: str) -> np.ndarray:
        """Tensor `key` as a NumPy array, read now."""
        full = self._key(key)
        name, entry = self._entries[full]
        return read_tensor(self._paths[name], entry, f"preset {self.directory}: {name}: tensor {full!r}")
