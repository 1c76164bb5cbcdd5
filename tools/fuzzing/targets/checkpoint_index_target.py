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
    return data[4 : 4 + length], data[4 + length :]


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
            raise Finding(
                f"{key}: tfkit reads {entry.dtype} {entry.shape}, TensorFlow {dtypes[key].name} {tuple(shapes[key])}"
            )
        try:
            reader.get_tensor(key)
        except tf.errors.OpError:
            pass  # the data's checksums are TensorFlow's to check: a clean refusal


def repair_checksums(index: bytes) -> bytes:
    """``index`` with the CRC-32C of every block the footer reaches recomputed (meta-index, index, data).

    A random mutation almost never keeps a block's checksum right, so without this the fuzzer stays in
    front of the checksum test and the entry checks behind it are seldom reached. Blocks that cannot be
    found (a damaged footer or handle) are left as they are: the reader's refusal of those is fuzzed too.
    """
    from tfkit.files import checkpoint_index as ci

    data = bytearray(index)

    def fix(offset: int, size: int) -> bool:
        if offset + size + ci.BLOCK_TRAILER_BYTES > len(data) - ci.FOOTER_BYTES:
            return False
        struct.pack_into("<I", data, offset + size + 1, ci._masked_crc32c(bytes(data[offset : offset + size + 1])))
        return True

    try:
        footer_at = len(data) - ci.FOOTER_BYTES
        if footer_at < 0:
            return index
        meta_offset, meta_size, pos = ci._handle(data, footer_at, footer_at + 40)
        fix(meta_offset, meta_size)
        index_offset, index_size, _ = ci._handle(data, pos, footer_at + 40)
        if fix(index_offset, index_size):
            for _, handle in ci._block(bytes(data), index_offset, index_size):
                offset, size, _ = ci._handle(handle, 0, len(handle))
                fix(offset, size)
    except (ci._Damaged, struct.error, IndexError):
        pass
    return bytes(data)


def mutate(data: bytes, max_size: int, seed: int) -> bytes:
    """libFuzzer's mutation, then (three times in four) the index's block checksums repaired."""
    import atheris

    mutated = atheris.Mutate(data, max_size)
    if seed % 4 == 0:
        return mutated
    index, shard = split(mutated)
    repaired = repair_checksums(index)
    return (struct.pack("<I", len(repaired)) + repaired + shard)[:max_size] if len(mutated) >= 4 else mutated


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
        "mixed": {
            "step": tf.Variable(7, dtype=tf.int64),
            "half": tf.Variable(np.ones(3, np.float16)),
            "flag": tf.Variable([True, False]),
            "scalar": tf.Variable(2.5, dtype=tf.float64),
        },
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
    name="checkpoint_index",
    reader="tfkit.files.checkpoint_index.check_checkpoint (TensorFlow checkpoint index)",
    modules=("tfkit.files.checkpoint_index",),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=16384,
    dictionary=(b"\x57\xfb\x80\x8b\x24\x75\x47\xdb", b"_CHECKPOINTABLE_OBJECT_GRAPH", b".ATTRIBUTES/VARIABLE_VALUE"),
    suite_runs=3000,
    mutator=mutate,
)
