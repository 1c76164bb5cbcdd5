"""What CIFAR-10 and CIFAR-100 share: read pickled batches straight out of the ``.tar.gz``.

    members = read_tar_members(path, ["cifar-10-batches-py/test_batch"], dataset="cifar-10-python.tar.gz")
    images, labels = read_batch(members["cifar-10-batches-py/test_batch"], "labels", source="test_batch")
    images.shape   # (10000, 3, 32, 32), uint8

The archive is read with ``tarfile`` in memory: only the expected member names, only regular
files, each at most ``MAX_MEMBER_BYTES`` (its header's size is checked before a byte of it is
decompressed); nothing is ever extracted to disk. A batch is a pickle written by Python 2: it is
read with ``pickle_data`` (never unpickled) into ``{b"data": uint8 (n, 3072), b"labels": [...]}``.
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path
from typing import Iterable

import numpy as np

from tfkit.base import settings
from tfkit.datasets import pickle_data

MAX_MEMBER_BYTES = 400 << 20      # the largest genuine member (cifar-100 train) is about 155 MB
MAX_MEMBERS_SCANNED = 256
IMAGE_SHAPE = (3, 32, 32)


def read_tar_members(file: str | os.PathLike, names: Iterable[str], dataset: str) -> dict[str, bytes]:
    """``{name: bytes}`` of the named regular-file members of a tar archive; ValueError if one is missing."""
    file, wanted = Path(file), list(names)
    found: dict[str, bytes] = {}
    try:
        with tarfile.open(file, mode="r:*") as archive:
            for scanned, member in enumerate(archive):
                if scanned >= MAX_MEMBERS_SCANNED:
                    raise ValueError(f"it holds more than {MAX_MEMBERS_SCANNED} entries")
                if member.name not in wanted:
                    continue
                if not member.isreg():
                    raise ValueError(f"{member.name} is not a regular file")
                if member.size > MAX_MEMBER_BYTES:
                    raise ValueError(f"{member.name} declares {member.size:,} bytes, more than {MAX_MEMBER_BYTES:,}")
                stream = archive.extractfile(member)
                data = stream.read(member.size) if stream is not None else b""
                if len(data) != member.size:
                    raise ValueError(f"{member.name} stops after {len(data)} of {member.size} bytes")
                found[member.name] = data
                if len(found) == len(wanted):
                    break
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ValueError(f"{file} is not a valid {dataset}: {type(exc).__name__}: {exc}. "
                         "Delete it to download a fresh copy.") from exc
    except ValueError as exc:
        raise ValueError(f"{file} is not a valid {dataset}: {exc}. Delete it to download a fresh copy.") from exc
    missing = [name for name in wanted if name not in found]
    if missing:
        raise ValueError(f"{file} is not a valid {dataset}: the members {missing} are missing. "
                         "Delete it to download a fresh copy.")
    return found


def read_batch(data: bytes, label_key: str, source: str) -> tuple[np.ndarray, object]:
    """``(images uint8 (n, 3, 32, 32), labels as stored)`` from one pickled CIFAR batch."""
    batch = pickle_data.loads(data, source=source)
    if not isinstance(batch, dict):
        raise ValueError(f"{source}: expected a dict, got {type(batch).__name__}")
    decoded = {}
    for key, value in batch.items():
        decoded[key.decode("utf8") if isinstance(key, bytes) else key] = value
    for key in ("data", label_key):
        if key not in decoded:
            raise ValueError(f"{source}: expected the key {key!r}, found {sorted(map(str, decoded))}")
    images, labels = decoded["data"], decoded[label_key]
    if not isinstance(images, np.ndarray) or images.dtype != np.uint8 or images.ndim != 2 \
            or images.shape[1] != int(np.prod(IMAGE_SHAPE)):
        got = f"{images.dtype} {images.shape}" if isinstance(images, np.ndarray) else type(images).__name__
        raise ValueError(f"{source}: expected data uint8 (n, 3072), got {got}")
    if isinstance(labels, np.ndarray):
        labels_ok = labels.ndim == 1 and labels.dtype.kind in "iu"
    else:
        labels_ok = isinstance(labels, list) and all(type(v) is int for v in labels)
    if not labels_ok or len(labels) != len(images):
        raise ValueError(f"{source}: expected {label_key} as {len(images)} integers, got {type(labels).__name__} "
                         f"of length {len(labels) if hasattr(labels, '__len__') else '?'}")
    return images.reshape((images.shape[0],) + IMAGE_SHAPE), labels


def check_labels(labels: np.ndarray, classes: int, source: str) -> None:
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= classes):
        raise ValueError(f"{source}: labels must be in 0..{classes - 1}, got {int(labels.min())}..{int(labels.max())}")


def to_data_format(x: np.ndarray) -> np.ndarray:
    """Keras's layout: ``(n, 32, 32, 3)`` under ``channels_last`` (a transposed view), as stored otherwise."""
    return x.transpose(0, 2, 3, 1) if settings.image_data_format() == "channels_last" else x
