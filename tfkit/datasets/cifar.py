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

MAX_MEMBER_BYTES = 400 << 20  # the largest genuine member (cifar-100 train) is about 155 MB
MAX_MEMBERS_SCANNED = 256
IMAGE_SHAPE = (3, 32, 32)


def read_tar_members(file: str | os.PathLike, names: Iterable[str], dataset: str) -> dict[str, bytes]:
    """Reads the named members of a tar archive into memory, without extracting anything.

    The archive (any compression `tarfile` reads) is scanned for the wanted names, at most
    `MAX_MEMBERS_SCANNED` entries; each wanted member must be a regular file of at most
    `MAX_MEMBER_BYTES` bytes (its declared size is checked before a byte of it is
    decompressed). Nothing is written to disk.

    Args:
        file: The path of the tar archive.
        names: The member names to read.
        dataset: The data set's file name, used in error messages.

    Returns:
        A dict from member name to its bytes.

    Raises:
        ValueError: If the archive is unreadable, a wanted member is not a regular file,
            too large, truncated or missing; the message names `file` and `dataset`.

    Example:
        >>> import io, tarfile
        >>> with tarfile.open("archive.tar.gz", "w:gz") as tar:
        ...     info = tarfile.TarInfo("folder/batch")
        ...     info.size = 3
        ...     tar.addfile(info, io.BytesIO(b"abc"))
        >>> tfkit.datasets.cifar.read_tar_members("archive.tar.gz", ["folder/batch"], dataset="archive.tar.gz")
        {'folder/batch': b'abc'}
        >>> tfkit.datasets.cifar.read_tar_members("archive.tar.gz", ["nope"], dataset="archive.tar.gz")
        Traceback (most recent call last):
        ...
        ValueError: archive.tar.gz is not a valid archive.tar.gz: the members ['nope'] are missing. ...
    """
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
        raise ValueError(
            f"{file} is not a valid {dataset}: {type(exc).__name__}: {exc}. Delete it to download a fresh copy."
        ) from exc
    except ValueError as exc:
        raise ValueError(f"{file} is not a valid {dataset}: {exc}. Delete it to download a fresh copy.") from exc
    missing = [name for name in wanted if name not in found]
    if missing:
        raise ValueError(
            f"{file} is not a valid {dataset}: the members {missing} are missing. Delete it to download a fresh copy."
        )
    return found


def read_batch(data: bytes, label_key: str, source: str) -> tuple[np.ndarray, object]:
    """Reads the images and labels of one pickled CIFAR batch, without unpickling it.

    The pickle is read with `tfkit.datasets.pickle_data.loads`, which builds only plain data
    and numpy arrays and never imports or calls anything. It must hold a dict (keys as
    `bytes`, as Python 2 wrote them, or `str`) with a `"data"` entry, a `uint8` array of
    shape `(n, 3072)`, and a `label_key` entry of `n` integers.

    Args:
        data: The pickle's bytes.
        label_key: The key of the labels: `"labels"` for CIFAR-10, `"fine_labels"` or
            `"coarse_labels"` for CIFAR-100.
        source: Where the bytes come from, used in error messages.

    Returns:
        A tuple `(images, labels)`: the images as a `uint8` array of shape
        `(n, 3, 32, 32)` (channels first, as stored), and the labels as stored (a list of
        ints or an integer array).

    Raises:
        ValueError: If the pickle holds anything but plain data and arrays, or not a batch
            of the expected layout; the message names `source`.

    Example:
        >>> import pickle
        >>> data = pickle.dumps({b"data": np.zeros((2, 3072), np.uint8), b"labels": [3, 8]}, protocol=2)
        >>> images, labels = tfkit.datasets.cifar.read_batch(data, "labels", source="test_batch")
        >>> images.shape, labels
        ((2, 3, 32, 32), [3, 8])
        >>> tfkit.datasets.cifar.read_batch(pickle.dumps([1, 2]), "labels", source="batch")
        Traceback (most recent call last):
        ...
        ValueError: batch: expected a dict, got list
    """
    batch = pickle_data.loads(data, source=source)
    if not isinstance(batch, dict):
        raise ValueError(f"{source}: expected a dict, got {type(batch).__name__}")
    decoded = {}
    for key, value in batch.items():
        decoded[key.decode("utf8", "replace") if isinstance(key, bytes) else key] = value  # keys are ASCII
    for key in ("data", label_key):
        if key not in decoded:
            raise ValueError(f"{source}: expected the key {key!r}, found {sorted(map(str, decoded))}")
    images, labels = decoded["data"], decoded[label_key]
    if (
        not isinstance(images, np.ndarray)
        or images.dtype != np.uint8
        or images.ndim != 2
        or images.shape[1] != int(np.prod(IMAGE_SHAPE))
    ):
        got = f"{images.dtype} {images.shape}" if isinstance(images, np.ndarray) else type(images).__name__
        raise ValueError(f"{source}: expected data uint8 (n, 3072), got {got}")
    if isinstance(labels, np.ndarray):
        labels_ok = labels.ndim == 1 and labels.dtype.kind in "iu"
    else:
        labels_ok = isinstance(labels, list) and all(type(v) is int for v in labels)
    if not labels_ok or len(labels) != len(images):
        raise ValueError(
            f"{source}: expected {label_key} as {len(images)} integers, got {type(labels).__name__} "
            f"of length {len(labels) if hasattr(labels, '__len__') else '?'}"
        )
    return images.reshape((images.shape[0],) + IMAGE_SHAPE), labels


def check_labels(labels: np.ndarray, classes: int, source: str) -> None:
    """Checks that every label is in `0..classes - 1`.

    Args:
        labels: An integer array of labels (an empty one passes).
        classes: The number of classes.
        source: Where the labels come from, used in the error message.

    Raises:
        ValueError: If a label is negative or not below `classes`.

    Example:
        >>> tfkit.datasets.cifar.check_labels(np.array([0, 9]), 10, "test_batch")
        >>> tfkit.datasets.cifar.check_labels(np.array([0, 12]), 10, "test_batch")
        Traceback (most recent call last):
        ...
        ValueError: test_batch: labels must be in 0..9, got 0..12
    """
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= classes):
        raise ValueError(f"{source}: labels must be in 0..{classes - 1}, got {int(labels.min())}..{int(labels.max())}")


def to_data_format(x: np.ndarray) -> np.ndarray:
    """Puts CIFAR images in the layout of `tfkit.backend.image_data_format()`, as Keras does.

    Args:
        x: Images of shape `(n, 3, 32, 32)`, as stored.

    Returns:
        A transposed view of shape `(n, 32, 32, 3)` under `"channels_last"` (the default),
        `x` itself under `"channels_first"`.

    Example:
        >>> tfkit.datasets.cifar.to_data_format(np.zeros((2, 3, 32, 32), np.uint8)).shape
        (2, 32, 32, 3)
    """
    return x.transpose(0, 2, 3, 1) if settings.image_data_format() == "channels_last" else x
