"""Target ``idx``: ``tfkit.datasets.fashion_mnist.read_idx``, the gzipped IDX reader of Fashion-MNIST.

Reference: the IDX layout decoded from ``gzip.decompress`` (a big-endian magic
``00 00 08 0n``, ``n`` big-endian sizes, then the bytes): wherever both accept a
file, the arrays are equal; tfkit also refuses trailing bytes and image sizes
other than 28x28, which the reference checks the same way.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path

import numpy as np

from fuzzing.target import Finding, Target, as_file, equal, read_guarded, write_seeds

NAME = "fuzz-images-idx3-ubyte.gz"


def reference(data: bytes) -> np.ndarray | None:
    try:
        raw = gzip.decompress(data)
    except (OSError, EOFError, zlib.error):
        return None
    if len(raw) < 4 or raw[:3] != b"\x00\x00\x08" or raw[3] not in (1, 3):
        return None
    ndim = raw[3]
    if len(raw) < 4 + 4 * ndim:
        return None
    shape = struct.unpack(f">{ndim}I", raw[4 : 4 + 4 * ndim])
    if ndim == 3 and shape[1:] != (28, 28):
        return None
    size = int(np.prod(shape, dtype=np.int64))
    if len(raw) != 4 + 4 * ndim + size:
        return None
    return np.frombuffer(raw[4 + 4 * ndim :], np.uint8).reshape(shape)


def check(data: bytes) -> None:
    from tfkit.datasets import fashion_mnist

    path = as_file(data, NAME)
    accepted, array = read_guarded(frozenset(), (), NAME, lambda: fashion_mnist.read_idx(path))
    expected = reference(data)
    if accepted and expected is None:
        raise Finding("read_idx accepted a file the IDX layout refuses")
    if accepted and not equal(array, expected):
        raise Finding(f"read_idx and the IDX layout disagree: {array.shape} vs {expected.shape}")
    if not accepted and expected is not None and expected.shape[0] <= fashion_mnist.MAX_ITEMS:
        raise Finding(f"read_idx refused a valid IDX file of shape {expected.shape}")


def seeds(folder: Path) -> int:
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (2, 28, 28)).astype(np.uint8)
    labels = np.array([9, 0, 3], np.uint8)
    images_raw = bytes([0, 0, 8, 3]) + struct.pack(">3I", *images.shape) + images.tobytes()
    labels_raw = bytes([0, 0, 8, 1]) + struct.pack(">I", len(labels)) + labels.tobytes()
    named = [
        ("images", gzip.compress(images_raw, 6)),
        ("labels", gzip.compress(labels_raw, 9)),
        ("labels-stored", gzip.compress(labels_raw, 0)),
        ("empty-labels", gzip.compress(bytes([0, 0, 8, 1, 0, 0, 0, 0]))),
    ]
    return write_seeds(folder, named)


def setup() -> None:
    import tfkit.datasets.fashion_mnist  # noqa: F401  (imported before the guard is armed)


TARGET = Target(
    name="idx",
    reader="tfkit.datasets.fashion_mnist.read_idx (gzipped IDX files)",
    modules=("tfkit.datasets.fashion_mnist",),
    guide_modules=("gzip",),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=16384,
    dictionary=(b"\x1f\x8b\x08", b"\x00\x00\x08\x03", b"\x00\x00\x08\x01", b"\x00\x00\x00\x1c"),
    suite_runs=2000,
)
