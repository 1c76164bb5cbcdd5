"""Target ``checkpoint_index``: ``tfkit.files.checkpoint_index.check_checkpoint``, the index read before TensorFlow's.

TensorFlow's C++ checkpoint reader aborts the process on a damaged index, so
tfkit reads ``prefix.index`` first and hands a checkpoint on only when every entry
holds up. One input is a checkpoint: a 4-byte little-endian length, the index
file, then the single data shard. Reference: TensorFlow's own reader
(``tf.train.load_checkpoint``), run on every checkpoint tfkit passes: it must list
the same tensors with the same shapes and dtypes, and reading each tensor may
fail only cleanly (a ``tf.errors`` error); an abort there is a crash the fuzzer
reports, which is exactly what the check exists to prevent.
"""

from __future__ import annotations

import struct
from pathlib import Path

from fuzzing.target import Finding, Target, read_guarded, scratch_path, write_seeds

PREFIX_NAME = "fuzz-ckpt"
DATA_SUFFIX = ".data-00000-of-00001"


def split(data: bytes) -> tuple[bytes, bytes]:
    if len(data) < 4:
        return data, b""
    (length,) = struct.unpack("<I", data[:4])
    return data[4:4 + length], data[4 + length:]


def _compare(prefix: str, entries: dict) -> None:
    import tensorflow as tf

    try:
        reader = tf.train.load_checkpoint(prefix)
    except (tf.errors.OpError, ValueError) as error:
        raise Finding(f"tfkit passed a checkpoint TensorFlow's reader refuses: {type(error).__name__}: {error}")
    shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
    if set(shapes) != set(entries):
        raise Finding(f"tfkit and TensorFlow list different tensors: {sorted(set(shapes) ^ set(entries))[:5]}")
    for key, entry in entries.items():
        if tuple(shapes[key]) != tuple(entry.shape) or dtypes[key].name != entry.dtype:
            raise Finding(f"{key}: tfkit reads {entry.dtype} {entry.shape}, TensorFlow "
                          f"{dtypes[key].name} {tuple(shapes[key])}")
        try:
            reader.get_tensor(key)
        except tf.errors.OpError:
            pass                         # the data's checksums are TensorFlow's to check: a clean refusal


def check(data: bytes) -> None:
    from tfkit.files.checkpoint_index import check_checkpoint

    index, shard = split(data)
    prefix = str(scratch_path(PREFIX_NAME))
    Path(prefix + ".index").write_bytes(index)
    Path(prefix + DATA_SUFFIX).write_bytes(shard)
    accepted, entries = read_guarded(frozenset(), (), prefix, lambda: check_checkpoint(prefix))
    if accepted:
        _compare(prefix, entries)


def seeds(folder: Path) -> int:
    import numpy as np
    import tensorflow as tf

    named = []
    kinds = {
        "floats": {"w": tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4)), "b": tf.Variable([1.0, 2.0])},
        "mixed": {"step": tf.Variable(7, dtype=tf.int64), "half": tf.Variable(np.ones(3, np.float16)),
                  "flag": tf.Variable([True, False]), "scalar": tf.Variable(2.5, dtype=tf.float64)},
        "strings": {"words": tf.Variable(["a", "bc", ""]), "n": tf.Variable(1)},
        "nested": {"layer": tf.Module()},
    }
    kinds["nested"]["layer"].kernel = tf.Variable(np.zeros((2, 2), np.float32))
    for name, objects in kinds.items():
        prefix = str(scratch_path(f"seed-{name}"))
        written = tf.train.Checkpoint(**objects).write(prefix)
        index = Path(written + ".index").read_bytes()
        shard = Path(written + DATA_SUFFIX).read_bytes()
        named.append((name, struct.pack("<I", len(index)) + index + shard))
    return write_seeds(folder, named)


def setup() -> None:
    import tfkit.files.checkpoint_index  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="checkpoint_index", reader="tfkit.files.checkpoint_index.check_checkpoint (TensorFlow checkpoint index)",
    modules=("tfkit.files.checkpoint_index",), check=check, seeds=seeds, setup=setup, max_len=16384,
    dictionary=(b"\x57\xfb\x80\x8b\x24\x75\x47\xdb", b"_CHECKPOINTABLE_OBJECT_GRAPH", b".ATTRIBUTES/VARIABLE_VALUE"),
    suite_runs=3000,
)
