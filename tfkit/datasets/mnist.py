"""MNIST handwritten digits as numpy arrays.

    from tfkit.datasets import mnist
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    x_train = x_train.reshape(60000, 784).astype("float32") / 255

The file is looked for in ``$TFKIT_DATA_DIR/mnist.npz``, then in the tfkit
cache (``$TFKIT_CACHE_DIR``, default ``~/.tfkit/datasets``); when neither has
it, the canonical ``mnist.npz`` is downloaded once, verified by sha256 and
cached. A file found locally is not re-hashed (copies rebuilt from the same
arrays have different zip bytes); its arrays are checked instead: dtypes and
shapes before anything is decompressed, then (``verify=True``, the default)
each array's sha256 against the genuine MNIST arrays, so a tampered copy is
refused.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from tfkit.datasets import download, npz_reader

MNIST_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
MNIST_SHA256 = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"
NUM_CLASSES = 10
EXPECTED_SHAPES = {"x_train": (60000, 28, 28), "y_train": (60000,), "x_test": (10000, 28, 28), "y_test": (10000,)}

# sha256 of each genuine array's C-order bytes: what verify=True compares against.
ARRAY_SHA256 = {
    "x_train": "741c988805d008ac6e4c904b69001ba184c24b2c540a4ef403f4c71b676cf757",
    "y_train": "1feba77c54802fa5339a11837ea4b2866434b83314ec45192930f1df69120c13",
    "x_test": "6d87418db22cc8025d05968bec9bd5c3932904b23485740db143a061a2c9d161",
    "y_test": "ddeff807876a9661a1110d45c266c86239a3a1b7d37da0c3716a7a683c852ff5",
}

Split = tuple[np.ndarray, np.ndarray]


def load_data(
    path: str | os.PathLike = "mnist.npz", *, origin: str = MNIST_URL, sha256: str = MNIST_SHA256, verify: bool = True
) -> tuple[Split, Split]:
    """Loads the MNIST data set of handwritten digits, as `keras.datasets.mnist.load_data`.

    60,000 training and 10,000 test grayscale images of the digits 0 to 9, 28x28 pixels.
    The file is looked for in `$TFKIT_DATA_DIR`, then in the tfkit cache
    (`$TFKIT_CACHE_DIR`, default `~/.tfkit/datasets`); when neither has it, the canonical
    `mnist.npz` is downloaded once from `origin`, checked against `sha256` and cached.
    A file found locally is not re-hashed (copies rebuilt from the same arrays have
    different zip bytes); its arrays are checked instead: dtypes and shapes before
    anything is decompressed (no pickles, bounded decompression), labels in `0..9`, then,
    with `verify=True`, each array's sha256 against the genuine MNIST arrays, so a
    tampered copy is refused.

    Args:
        path: The file name looked up in `$TFKIT_DATA_DIR`, then in the cache; an absolute
            path is used as it is. Defaults to `"mnist.npz"`.
        origin: Where to download the file from when it is not found locally;
            keyword-only. Defaults to Keras's `mnist.npz` address.
        sha256: The expected sha256 of the downloaded file's bytes; keyword-only.
            Defaults to the canonical file's digest.
        verify: Whether to check every array against the genuine MNIST arrays' sha256;
            keyword-only. Pass `False` to load a deliberately modified copy. Defaults to
            `True`.

    Returns:
        Tuple of NumPy arrays `(x_train, y_train), (x_test, y_test)`, all `uint8`:
        `x_train` of shape `(60000, 28, 28)` with pixel values 0 to 255, `y_train` of shape
        `(60000,)` with the digit labels 0 to 9, and `x_test` / `y_test` of shapes
        `(10000, 28, 28)` / `(10000,)`.

    Raises:
        ValueError: If the local file is not a valid `mnist.npz` (or, with `verify=True`,
            differs from the genuine data), or a download did not match `sha256`.
        tfkit.datasets.DownloadError: If the file is not found locally and the download
            failed; the message says where to place the file by hand.

    Example:
        >>> (x_train, y_train), (x_test, y_test) = tfkit.datasets.mnist.load_data()
        >>> x_train.shape, x_train.dtype, x_test.shape
        ((60000, 28, 28), dtype('uint8'), (10000, 28, 28))
        >>> y_train[:10]
        array([5, 0, 4, 1, 9, 2, 1, 3, 1, 4], dtype=uint8)
    """
    file = download.get_file(path, origin=origin, sha256=sha256)
    arrays = read_npz(file, verify=verify)
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])


def read_npz(file: str | os.PathLike, verify: bool = False) -> dict[str, np.ndarray]:
    """Reads and validates the four arrays of an `mnist.npz` file.

    Each array's dtype and shape are checked from its header before anything is
    decompressed (`npz_reader.read_expected`: no pickles, bounded decompression); labels
    must be in `0..9`.

    Args:
        file: The path of the `.npz` file.
        verify: Whether to also check each array's sha256 against the genuine MNIST
            arrays. Defaults to `False`.

    Returns:
        A dict holding the `uint8` arrays `"x_train"` `(60000, 28, 28)`, `"y_train"`
        `(60000,)`, `"x_test"` `(10000, 28, 28)` and `"y_test"` `(10000,)`.

    Raises:
        ValueError: If the file is not a valid `mnist.npz`: unreadable, an array missing
            or of another dtype or shape, labels out of range, or (with `verify=True`)
            an array differing from the genuine data.

    Example:
        >>> np.savez("fake.npz", x_train=np.zeros((2, 28, 28), np.uint8))
        >>> tfkit.datasets.mnist.read_npz("fake.npz")
        Traceback (most recent call last):
        ...
        ValueError: fake.npz is not a valid mnist.npz: expected x_train uint8 (60000, 28, 28), got uint8 (2, 28, 28)....
    """
    file = Path(file)
    expected = {name: ("uint8", shape) for name, shape in EXPECTED_SHAPES.items()}
    try:
        names, arrays = npz_reader.read_expected(file, expected)
    except ValueError as exc:
        raise ValueError(f"{file} is not a valid mnist.npz: {exc}. Delete it to download a fresh copy.") from exc
    missing = sorted(set(EXPECTED_SHAPES) - names)
    if missing:
        raise ValueError(
            f"{file} is not a valid mnist.npz: expected arrays {sorted(EXPECTED_SHAPES)}, "
            f"found {sorted(names)} (missing {missing}). Delete it to download a fresh copy."
        )
    for name, array in arrays.items():
        _check_array(file, name, array)
    if verify:
        for name, array in arrays.items():
            if hashlib.sha256(array.tobytes()).hexdigest() != ARRAY_SHA256[name]:
                raise ValueError(
                    f"{file}: the {name} array differs from the genuine MNIST data (sha256 mismatch). "
                    f"Delete the file to download a fresh copy, or pass verify=False to use a modified copy."
                )
    return arrays


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
