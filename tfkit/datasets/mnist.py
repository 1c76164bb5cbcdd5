"""MNIST handwritten digits as numpy arrays.

    from tfkit.datasets import mnist
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    x_train = x_train.reshape(60000, 784).astype("float32") / 255

The file is looked for in ``$TFKIT_DATA_DIR/mnist.npz``, then in the tfkit
cache (``$TFKIT_CACHE_DIR``, default ``~/.tfkit/datasets``); when neither has
it, the canonical ``mnist.npz`` is downloaded once, verified by sha256 and
cached. A file found locally is not re-hashed (copies rebuilt from the same
arrays have different zip bytes); its arrays are checked instead.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from tfkit.datasets import download

MNIST_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
MNIST_SHA256 = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"
NUM_CLASSES = 10
EXPECTED_SHAPES = {
    "x_train": (60000, 28, 28),
    "y_train": (60000,),
    "x_test": (10000, 28, 28),
    "y_test": (10000,),
}

Split = tuple[np.ndarray, np.ndarray]


def load_data(
    path: str | os.PathLike = "mnist.npz",
    *,
    origin: str = MNIST_URL,
    sha256: str = MNIST_SHA256,
) -> tuple[Split, Split]:
    """Return ``((x_train, y_train), (x_test, y_test))``, all ``uint8``.

    Args:
      path: file name looked up in ``$TFKIT_DATA_DIR`` then the cache folder
        (an absolute path is used as it is).
      origin: where to download the file from when it is not found locally.
      sha256: expected hash of the downloaded bytes.

    Raises:
      ValueError: the local file is not a valid ``mnist.npz``, or a download
        did not match ``sha256``.
      tfkit.datasets.download.DownloadError: not found locally and the
        download failed; the message says where to place the file by hand.
    """
    file = download.get_file(path, origin=origin, sha256=sha256)
    arrays = read_npz(file)
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])


def read_npz(file: str | os.PathLike) -> dict[str, np.ndarray]:
    """Read and validate the four arrays of an ``mnist.npz`` file (no pickles allowed)."""
    file = Path(file)
    names, arrays = _read_arrays(file)
    missing = sorted(set(EXPECTED_SHAPES) - names)
    if missing:
        raise ValueError(
            f"{file} is not a valid mnist.npz: expected arrays {sorted(EXPECTED_SHAPES)}, "
            f"found {sorted(names)} (missing {missing}). Delete it to download a fresh copy."
        )
    for name, array in arrays.items():
        _check_array(file, name, array)
    return arrays


def _read_arrays(file: Path) -> tuple[set[str], dict[str, np.ndarray]]:
    """All array names in the archive and the expected arrays it holds."""
    try:
        loaded = np.load(file, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise ValueError("it holds a single array, not an .npz archive of arrays")
        with loaded as npz:
            names = set(npz.files)
            return names, {name: npz[name] for name in EXPECTED_SHAPES if name in names}
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        # np.load refuses pickled or unreadable content with a ValueError.
        raise ValueError(f"{file} is not a valid mnist.npz: {exc}") from exc


def _check_array(file: Path, name: str, array: np.ndarray) -> None:
    expected_shape = EXPECTED_SHAPES[name]
    if array.dtype != np.uint8 or array.shape != expected_shape:
        raise ValueError(
            f"{file} is not a valid mnist.npz: expected {name} uint8 {expected_shape}, "
            f"got {array.dtype} {array.shape}. Delete it to download a fresh copy."
        )
    if name.startswith("y_") and array.size and int(array.max()) >= NUM_CLASSES:
        raise ValueError(
            f"{file} is not a valid mnist.npz: {name} labels must be in 0..{NUM_CLASSES - 1}, "
            f"got a maximum of {int(array.max())}."
        )
