"""Target ``safetensors``: ``tfkit.hub.presets.safetensors_files``, tfkit's reader of Hugging Face checkpoints.

Reference: the ``safetensors`` package (Hugging Face's own reader). Wherever tfkit accepts a file, the package
accepts it too and every tensor is equal; wherever the package accepts a file within tfkit's limits (its dtypes,
rank and entry counts), tfkit accepts it too. tfkit also refuses what the package's header checks refuse.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from fuzzing.target import Finding, Target, as_file, equal, read_guarded, write_seeds

NAME = "fuzz-model.safetensors"


def _read_all(path: str) -> dict[str, np.ndarray]:
    from tfkit.hub.presets import safetensors_files

    entries = safetensors_files.read_header(path, NAME)
    return {key: safetensors_files.read_tensor(path, entry, NAME) for key, entry in entries.items()}


def reference(path: str) -> dict[str, np.ndarray] | None:
    """The package's tensors, or None where it refuses the file (bfloat16 through its TensorFlow reader: NumPy
    has no bfloat16 of its own)."""
    try:
        from safetensors import safe_open
    except ImportError:
        return None
    try:
        out = {}
        with safe_open(path, framework="np") as opened:
            kinds = {key: opened.get_slice(key).get_dtype() for key in opened.keys()}
            out = {key: opened.get_tensor(key) for key, kind in kinds.items() if kind != "BF16"}
        if any(kind == "BF16" for kind in kinds.values()):
            with safe_open(path, framework="tf") as opened:
                out.update({key: opened.get_tensor(key).numpy() for key, kind in kinds.items() if kind == "BF16"})
        return out
    except Exception:  # noqa: BLE001  the package's SafetensorError, or a dtype it cannot hand over
        return None


def _comparable(array: np.ndarray) -> np.ndarray:
    """bfloat16 (a NumPy extension type) as its bit patterns, which ``equal`` compares; other arrays as they are."""
    return array.view(np.uint16) if array.dtype.kind == "V" and array.dtype.itemsize == 2 else array


def _header(data: bytes) -> dict | None:
    if len(data) < 8:
        return None
    (length,) = struct.unpack("<Q", data[:8])
    try:
        value = json.loads(data[8 : 8 + length])
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _within_limits(header: dict) -> bool:
    from tfkit.hub.presets import safetensors_files as sf

    tensors = {k: v for k, v in header.items() if k != "__metadata__"}
    return len(tensors) <= sf.MAX_TENSORS_PER_FILE and all(
        isinstance(v, dict) and v.get("dtype") in sf._DTYPES and len(v.get("shape") or []) <= sf.MAX_RANK
        for v in tensors.values()
    )


def check(data: bytes) -> None:
    path = as_file(data, NAME)
    accepted, tensors = read_guarded(frozenset(), (), NAME, lambda: _read_all(path))
    expected = reference(path)
    if accepted and expected is None:
        raise Finding("tfkit accepted a file the safetensors package refuses")
    if accepted:
        if sorted(tensors) != sorted(expected):
            raise Finding(f"tfkit and the package list other tensors: {sorted(tensors)[:5]} vs {sorted(expected)[:5]}")
        for key, value in expected.items():
            if not equal(_comparable(tensors[key]), _comparable(value)):
                raise Finding(f"tensor {key!r} differs from the package's")
    header = _header(data)
    if not accepted and expected is not None and header is not None and _within_limits(header):
        raise Finding("tfkit refused a file the safetensors package reads, within tfkit's limits")


def seeds(folder: Path) -> int:
    from safetensors.numpy import save

    rng = np.random.RandomState(0)
    named = [
        ("floats", save({"w": rng.rand(3, 4).astype(np.float32), "b": np.arange(3, dtype=np.float32)})),
        (
            "mixed",
            save({"h": np.ones((2, 2), np.float16), "i": np.arange(4, dtype=np.int64), "flag": np.ones(2, bool)}),
        ),
        ("empty-and-scalar", save({"e": np.zeros((0, 3), np.float32), "s": np.array(2.5, np.float64)})),
        ("metadata", save({"x": np.arange(6, dtype=np.int32).reshape(2, 3)}, metadata={"format": "pt"})),
    ]
    bf16 = {"x": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}
    raw = json.dumps(bf16).encode()
    named.append(("bfloat16", struct.pack("<Q", len(raw)) + raw + b"\x80\x3f\x00\x40"))
    return write_seeds(folder, named)


def setup() -> None:
    import tfkit.hub.presets.safetensors_files  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="safetensors",
    reader="tfkit.hub.presets.safetensors_files (Hugging Face safetensors checkpoints)",
    modules=("tfkit.hub.presets.safetensors_files",),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=8192,
    dictionary=(b'"dtype"', b'"shape"', b'"data_offsets"', b'"__metadata__"', b'"F32"', b'"BF16"', b'"I64"'),
    suite_runs=2000,
)
