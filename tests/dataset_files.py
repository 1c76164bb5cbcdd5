"""Small files in the formats of Keras's data sets, written by the tests (no real data offline).

raw = dumps_py2({b"data": images, b"labels": [3, 1]})   # what Python 2's cPickle wrote for CIFAR
write_tar(path, {"cifar-10-batches-py/test_batch": raw})
write_sequences_npz(path, x_train=[[1, 2], [3]], y_train=[0, 1])
"""

from __future__ import annotations

import gzip
import io
import pickle
import struct
import tarfile
from pathlib import Path

import numpy as np


class _Py2Pickler(pickle._Pickler):
    """Python's pure pickler, writing str and bytes the way Python 2's cPickle wrote its str."""

    dispatch = dict(pickle._Pickler.dispatch)

    def _save_py2_str(self, obj):
        raw = obj.encode("latin1") if isinstance(obj, str) else obj
        if len(raw) < 256:
            self.write(pickle.SHORT_BINSTRING + bytes([len(raw)]) + raw)
        else:
            self.write(pickle.BINSTRING + struct.pack("<i", len(raw)) + raw)
        self.memoize(obj)

    dispatch[bytes] = _save_py2_str
    dispatch[str] = _save_py2_str


def dumps_py2(obj) -> bytes:
    """``obj`` pickled at protocol 2 with every string as a Python 2 ``BINSTRING``/``SHORT_BINSTRING``."""
    buffer = io.BytesIO()
    _Py2Pickler(buffer, protocol=2).dump(obj)
    return buffer.getvalue()


def write_tar(path: Path, members: dict[str, bytes]) -> Path:
    """A ``.tar.gz`` holding ``members`` (name -> bytes), with their folder entry first."""
    with tarfile.open(path, "w:gz", compresslevel=1) as archive:
        folders = sorted({name.split("/")[0] for name in members if "/" in name})
        for folder in folders:
            info = tarfile.TarInfo(folder)
            info.type = tarfile.DIRTYPE
            archive.addfile(info)
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def object_array(rows) -> np.ndarray:
    """A 1-D object array of lists (even when the rows have equal lengths)."""
    array = np.empty(len(rows), dtype=object)
    for index, row in enumerate(rows):
        array[index] = list(row)
    return array


def write_sequences_npz(path: Path, **arrays) -> Path:
    """An ``.npz`` as imdb/reuters store them: ``x*`` object arrays of int lists, ``y*`` int64 labels."""
    stored = {
        name: object_array(value) if name.startswith("x") else np.asarray(value, dtype=np.int64)
        for name, value in arrays.items()
    }
    np.savez(path, **stored)
    return path


def write_idx_gz(path: Path, array: np.ndarray) -> Path:
    """A gzipped IDX file of a uint8 array (magic 0x0801 for 1-D, 0x0803 for 3-D)."""
    header = bytes([0, 0, 0x08, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wb", compresslevel=1) as handle:
        handle.write(header + np.ascontiguousarray(array, dtype=np.uint8).tobytes())
    return path


def isolated_data_dir(tmp_path: Path, monkeypatch) -> Path:
    """An empty ``$TFKIT_DATA_DIR`` (and cache) for one test: loaders find only what the test writes."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("TFKIT_DATA_DIR", str(data))
    monkeypatch.setenv("TFKIT_CACHE_DIR", str(tmp_path / "cache"))
    return data
