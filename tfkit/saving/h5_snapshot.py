"""A tfkit HDF5 file as plain data, read by a child process under memory, CPU and time limits.

    snapshot = read_snapshot("m.h5")            # ValueError for anything but an intact tfkit file
    snapshot.attrs["model_config"]              # text or int attributes only
    snapshot.tables["weights"]["dense/kernel"]  # SnapshotDataset: .shape, .dtype, .tf_dtype, .array

libhdf5 has a long history of parser bugs, so it never sees untrusted bytes in
the caller's process: ``h5_reader_child.py`` parses the file in a fresh Python
(h5py and numpy only, no TensorFlow), forked from a waiting zygote (``h5_reader_zygote``;
a fresh ``python`` per file when it cannot be used), with its own
address-space and CPU-time limits, under a wall-clock timeout, and sends back
validated plain data. A hang, an allocation bomb or a crash in the parser
becomes a ``ValueError`` naming the file, and costs the caller nothing.

Limits scale with the file: memory is ``base + 4 x file size`` (at most
``TFKIT_LOAD_MEMORY_LIMIT`` bytes when set), the declared weights may not
exceed what that memory can hold, and gzip/lzf data may expand at most
``MAX_COMPRESSION_RATIO`` times.

The arrays come back through a data file that the child fills and this
process maps: the first of /dev/shm (``TFKIT_SHM_DIR`` overrides it) and the
temporary folder (TMPDIR) where the child can reserve room for all of them,
else through the child's stdout. A lack of space or file handles is an
``OSError`` saying so, never "a damaged file": a user must not delete a good
model because /dev/shm was small. Every array that carries a CRC-32 (tfkit
files do) is checked against it here.
"""

from __future__ import annotations

import contextlib
import errno
import json
import mmap
import os
import signal
import struct
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from tfkit.saving import h5_reader_zygote

CHECKSUM_ATTR = "crc32"  # an array's CRC-32 (zlib) in tfkit files; verified whenever present
CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "h5_reader_child.py")
MAGIC = b"TFKSNAP1"
BASE_MEMORY_BYTES = 768 * 2**20  # the child's Python, h5py and numpy take ~150 MB of address space
MEMORY_PER_FILE_BYTE = 4
MAX_TEXT_BYTES = 16 * 2**20
MAX_ENTRIES = 200_000
MAX_COMPRESSION_RATIO = 64
CPU_SECONDS_BASE = 3
WALL_SECONDS_FACTOR = 3
SHM_DIR_ENV = "TFKIT_SHM_DIR"  # the reader's first choice of folder for its data file (default /dev/shm)


@dataclass
class SnapshotDataset:
    """One stored array: its shape and numpy dtype, the TensorFlow dtype the file names, its values.

    ``verified``: the array carried a CRC-32 (attribute ``crc32``) and its bytes match it.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    tf_dtype: str
    array: np.ndarray
    verified: bool = False


@dataclass
class Snapshot:
    """What a tfkit file holds, as plain data."""

    filename: str
    attrs: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, dict[str, SnapshotDataset]] = field(default_factory=dict)


def limits_for(path: str) -> dict[str, Any]:
    """The child's limits for a file of this size."""
    size = os.path.getsize(path)
    memory = BASE_MEMORY_BYTES + MEMORY_PER_FILE_BYTE * size
    cap = os.environ.get("TFKIT_LOAD_MEMORY_LIMIT", "").strip()
    if cap.isdigit():
        memory = min(memory, int(cap))
    return {
        "memory_bytes": memory,
        "cpu_seconds": CPU_SECONDS_BASE + size // (20 * 2**20),
        "max_text_bytes": MAX_TEXT_BYTES,
        "max_entries": MAX_ENTRIES,
        "max_total_bytes": max(0, (memory - BASE_MEMORY_BYTES) // 2) + 64 * 2**20,
        "compression_ratio": MAX_COMPRESSION_RATIO,
    }


def read_snapshot(path: str, groups: tuple[str, ...] | None = None) -> Snapshot:
    """Read ``path`` in a limited child process; ``ValueError`` (naming ``path``) for anything refused.

    ``groups`` names the top-level groups whose datasets are read (tfkit's by
    default; ``("*",)`` for all of them, as Keras's legacy weight files need).
    """
    path = os.fspath(path)
    limits = _checked_limits(path, groups)
    with _data_files() as data_paths:
        header, rest = _child_result(path, limits, data_paths)
        index = header.get("data_file")
        if index is None:  # no data file had room: the arrays came through the pipe
            return _build(path, header, rest, limits)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(data_paths):
            raise ValueError(f"{path} could not be read: the HDF5 reader's result is malformed (data_file {index!r})")
        return _build(path, header, _map(data_paths[index]), limits)


@dataclass
class DatasetLayout:
    """One stored array's shape, numpy dtype and the TensorFlow dtype the file names, without its values."""

    shape: tuple[int, ...]
    dtype: np.dtype
    tf_dtype: str


def read_layout(path: str, groups: tuple[str, ...] = ("*",)) -> dict[str, dict[str, DatasetLayout]]:
    """The shapes and dtypes of ``path``'s datasets under ``groups`` (all top-level groups by default), by group
    and path, as ``read_snapshot`` would give them: checked by the same limited child, no array read.

    What a file stores sizes what rebuilding from it may create (``guard.variable_budget``) and says which
    of its layers a model leaves unread, before any array is read. ``ValueError`` (naming ``path``) for
    anything refused."""
    path = os.fspath(path)
    limits = {**_checked_limits(path, groups), "layout_only": True}
    header, _ = _child_result(path, limits, [])
    tables: dict[str, dict[str, DatasetLayout]] = {}
    for entry in header.get("datasets") or []:
        try:
            dtype = np.dtype(entry["dtype"])
            shape = tuple(int(d) for d in entry["shape"])
            group, relative = str(entry["group"]), str(entry["path"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path} could not be read: the HDF5 reader's result is malformed ({error})") from None
        if dtype.kind not in "biufc" or dtype.hasobject or any(d < 0 for d in shape):
            raise ValueError(f"{path} could not be read: the HDF5 reader's result is inconsistent")
        tables.setdefault(group, {})[relative] = DatasetLayout(shape, dtype, _tf_dtype(dtype, entry.get("dtype_attr")))
    return tables


def _tf_dtype(dtype: np.dtype, dtype_attr: Any) -> str:
    """The TensorFlow dtype a dataset holds: its ``dtype`` attribute when it has one (bfloat16), else numpy's."""
    return dtype.name if dtype_attr is None else dtype_attr[:40] if isinstance(dtype_attr, str) else "<unreadable>"


def _checked_limits(path: str, groups: tuple[str, ...] | None) -> dict[str, Any]:
    """The child's limits for ``path`` (reading ``groups``), once it is a non-empty regular file with HDF5's
    signature; ``FileNotFoundError`` or ``ValueError`` naming it otherwise."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"No such file: {path}")
    if os.path.isdir(path):
        raise ValueError(
            f"{path} is a folder, not an HDF5 file (a SavedModel? tfkit loads SavedModels with tf.saved_model.load)"
        )
    if not os.path.isfile(path):
        raise ValueError(f"{path} is not a regular file")
    if os.path.getsize(path) == 0:
        raise ValueError(f"{path} is empty (0 bytes), not a tfkit HDF5 file")
    signature = _signature(path)
    if signature != b"\x89HDF\r\n\x1a\n":
        hint = " (a zip archive, such as a Keras .keras file?)" if signature.startswith(b"PK") else ""
        raise ValueError(f"{path} is not an HDF5 file{hint}: it does not start with the HDF5 signature")
    limits = limits_for(path)
    if groups is not None:
        limits["groups"] = list(groups)
    return limits


def _child_result(path: str, limits: dict[str, Any], data_paths: list[str]) -> tuple[dict[str, Any], memoryview]:
    """The limited child's header and the bytes after it; ``ValueError`` naming ``path`` for a refusal, a
    hang, a crash or a malformed result."""
    # PYTEST_CURRENT_TEST changes with every test: passing it on would restart the reader's zygote each time
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "HDF5_PLUGIN")) and key != "PYTEST_CURRENT_TEST"
    }
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", HDF5_PLUGIN_PATH="", HDF5_USE_FILE_LOCKING="FALSE")
    timeout = WALL_SECONDS_FACTOR * limits["cpu_seconds"]
    try:
        returncode, output = _run_child(env, path, limits, data_paths, timeout)
    except subprocess.TimeoutExpired:
        raise ValueError(
            f"{path} could not be read within {timeout} s (a damaged or hostile file: the HDF5 "
            f"parser did not finish); nothing was loaded"
        ) from None
    if returncode != 0:
        raise ValueError(
            f"{path} could not be read: the HDF5 reader {_how_it_ended(returncode, limits)} "
            f"(a damaged or hostile file); nothing was loaded"
        )
    header, rest = _parse_header(output, path)
    if "error" in header:
        _raise_refusal(path, header, data_paths)
    return header, rest


def _run_child(
    env: dict[str, str], path: str, limits: dict[str, Any], data_paths: list[str], timeout: float
) -> tuple[int, bytes]:
    """The reader's exit code and output: forked by the zygote when it can, else a one-shot child."""
    served = h5_reader_zygote.run_reader(CHILD_SCRIPT, env, path, limits, data_paths, timeout)
    if served is not None:
        return served
    command = [sys.executable, "-I", CHILD_SCRIPT, path, json.dumps(limits), json.dumps(data_paths)]
    done = subprocess.run(command, capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout


def _raise_refusal(path: str, header: dict[str, Any], data_paths: list[str]) -> None:
    """The child's refusal as an error: ``ValueError`` for the file, ``OSError`` when the machine fell short."""
    error, kind = str(header["error"]), header.get("resource")
    if kind in ("space", "io"):
        folders = ", ".join(os.path.dirname(p) for p in data_paths) or "no writable folder"
        what = "not enough space to hand its arrays back" if kind == "space" else "handing its arrays back failed"
        raise OSError(
            errno.ENOSPC if kind == "space" else errno.EIO,
            f"{path} could not be read: {what} ({error}; tried {folders}). The file itself was not "
            f"judged: free some space in /dev/shm or point TMPDIR at a folder with room, and load it "
            f"again",
            path,
        )
    if kind == "files":
        raise OSError(
            errno.EMFILE,
            f"{path} could not be read: too many open files ({error}). The file itself "
            f"was not judged: close some files or raise the limit (ulimit -n)",
            path,
        )
    if kind == "memory":
        raise ValueError(
            f"{path} could not be read: {error} (the limit grows with the file's size; "
            f"TFKIT_LOAD_MEMORY_LIMIT, when set, lowers it)"
        )
    raise ValueError(f"{path}: {error}" if not error.startswith("not an HDF5") else f"{path} is {error}")


def data_folders() -> list[str]:
    """Where the reader's data file may go, in order: /dev/shm (or ``TFKIT_SHM_DIR``), then the temporary folder.

    /dev/shm keeps the arrays in memory (no disk write, no disk read); Docker gives it 64 MB by default, so a
    larger model goes to ``tempfile.gettempdir()`` (TMPDIR), which the user controls. Never the model's own
    folder: it may be read-only, remote or the very disk that is full, and a file left there by a killed
    process would sit beside the user's files.
    """
    folders = []
    for folder in (os.environ.get(SHM_DIR_ENV) or "/dev/shm", tempfile.gettempdir()):
        folder = os.path.abspath(folder)
        if folder not in folders and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            folders.append(folder)
    return folders


@contextlib.contextmanager
def _data_files() -> Iterator[list[str]]:
    """An empty file for the child's arrays in each of :func:`data_folders`; all removed after."""
    names = []
    try:
        for folder in data_folders():
            try:
                handle, name = tempfile.mkstemp(prefix="tfkit-h5-", suffix=".bin", dir=folder)
            except OSError as error:
                if error.errno in (errno.EMFILE, errno.ENFILE):
                    raise
                continue  # a full or read-only folder: the next one, or the pipe
            os.close(handle)
            names.append(name)
        yield names
    finally:
        for name in names:
            with contextlib.suppress(OSError):
                os.remove(name)


def _map(data_path: str) -> memoryview:
    """The child's array bytes, mapped (not copied); the mapping outlives the file's name."""
    size = os.path.getsize(data_path)
    if size == 0:
        return memoryview(b"")
    with open(data_path, "rb") as handle:
        return memoryview(mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_READ))


def _signature(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(8)
    except OSError as error:
        raise ValueError(f"{path} could not be read ({error.strerror or type(error).__name__})") from None


def _how_it_ended(code: int, limits: dict[str, int]) -> str:
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else f"signal {-code}"
        if name == "SIGXCPU":
            return f"used more than its {limits['cpu_seconds']} s of CPU time"
        if name in ("SIGSEGV", "SIGABRT", "SIGBUS"):
            return f"crashed ({name}), likely on memory: it may use {limits['memory_bytes']} bytes"
        return f"was stopped by {name}"
    return f"failed (exit code {code})"


def _parse_header(output: bytes, path: str) -> tuple[dict[str, Any], memoryview]:
    if len(output) < 16 or output[:8] != MAGIC:
        raise ValueError(f"{path} could not be read: the HDF5 reader gave no result (a damaged or hostile file)")
    (length,) = struct.unpack("<Q", output[8:16])
    if length > len(output) - 16:
        raise ValueError(f"{path} could not be read: the HDF5 reader's result is incomplete")
    try:
        header = json.loads(output[16 : 16 + length].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} could not be read: the HDF5 reader's result is malformed ({error})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{path} could not be read: the HDF5 reader's result is malformed")
    return header, memoryview(output)[16 + length :]


def _build(path: str, header: dict[str, Any], body: memoryview, limits: dict[str, int]) -> Snapshot:
    snapshot = Snapshot(filename=path, attrs=dict(header.get("attrs") or {}))
    offset = 0
    for entry in header.get("datasets") or []:
        try:
            dtype = np.dtype(entry["dtype"])
            shape = tuple(int(d) for d in entry["shape"])
            nbytes = int(entry["nbytes"])
            group, relative = str(entry["group"]), str(entry["path"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path} could not be read: the HDF5 reader's result is malformed ({error})") from None
        if (
            dtype.kind not in "biufc"
            or dtype.hasobject
            or nbytes != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            or offset + nbytes > len(body)
        ):
            raise ValueError(f"{path} could not be read: the HDF5 reader's result is inconsistent")
        data = body[offset : offset + nbytes]
        array = np.frombuffer(data, dtype=dtype).reshape(shape)
        offset += nbytes
        tf_dtype = _tf_dtype(dtype, entry.get("dtype_attr"))
        verified = _verify(path, f"/{group}/{relative}", entry.get("crc32"), data)
        snapshot.tables.setdefault(group, {})[relative] = SnapshotDataset(shape, dtype, tf_dtype, array, verified)
    return snapshot


def _verify(path: str, where: str, stored: Any, data: memoryview) -> bool:
    """Whether the array had a checksum (it matched); ``ValueError`` naming the dataset if it does not match."""
    if stored is None:
        return False
    if not isinstance(stored, int) or isinstance(stored, bool):
        raise ValueError(
            f"{path} is damaged: the {CHECKSUM_ATTR} attribute of {where} cannot be read "
            f"({str(stored)[:200]}); nothing was loaded"
        )
    computed = zlib.crc32(data)
    if computed != stored:
        raise ValueError(
            f"{path} is damaged: the data of {where} do not match their checksum ({CHECKSUM_ATTR} "
            f"{stored:#010x} stored, {computed:#010x} read); nothing was loaded"
        )
    return True
