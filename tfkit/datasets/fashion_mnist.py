"""The Fashion-MNIST clothing images data set, as ``keras.datasets.fashion_mnist``.

    from tfkit.datasets import fashion_mnist
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data()
    x_train.shape, y_train.shape   # (60000, 28, 28), (60000,); uint8

The four gzipped IDX files are looked for in ``$TFKIT_DATA_DIR/fashion-mnist/``, then the tfkit
cache's ``fashion-mnist/`` folder, and otherwise downloaded from Keras's origin. Keras checks no
hash for them; tfkit checks the md5s the Fashion-MNIST project publishes. Each file's header
(magic number, dimensions) is checked, and exactly the bytes it declares are decompressed.
Classes: T-shirt/top, Trouser, Pullover, Dress, Coat, Sandal, Shirt, Sneaker, Bag, Ankle boot.
"""

from __future__ import annotations

import gzip
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from tfkit.datasets import download

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
SUBDIR = "fashion-mnist"
MD5 = {
    "train-labels-idx1-ubyte.gz": "25c81989df183df01b3e8a0aad5dffbe",
    "train-images-idx3-ubyte.gz": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
    "t10k-labels-idx1-ubyte.gz": "bb300cfdad3c16e7a12a480ee83cd310",
    "t10k-images-idx3-ubyte.gz": "bef4ecab320f06d8554ea6380940ec79",
}
IMAGE_SHAPE = (28, 28)
MAX_ITEMS = 1_000_000
NUM_CLASSES = 10
_UBYTE = 0x08


def load_data() -> Any:
    """Loads the Fashion-MNIST data set, as `keras.datasets.fashion_mnist.load_data`.

    60,000 training and 10,000 test 28x28 grayscale images of 10 fashion categories:
    T-shirt/top (0), Trouser (1), Pullover (2), Dress (3), Coat (4), Sandal (5), Shirt (6),
    Sneaker (7), Bag (8), Ankle boot (9). The four gzipped IDX files are looked for in
    `$TFKIT_DATA_DIR/fashion-mnist/`, then in the tfkit cache's `fashion-mnist/` folder
    (`$TFKIT_CACHE_DIR`, default `~/.tfkit/datasets`), and otherwise downloaded from
    Keras's address. Keras checks no hash for them; tfkit checks the md5s the
    Fashion-MNIST project publishes. Each file's header (magic number, dimensions) is
    checked and exactly the bytes it declares are decompressed; labels must be in `0..9`.

    Returns:
        Tuple of NumPy arrays `(x_train, y_train), (x_test, y_test)`, all `uint8`:
        `x_train` of shape `(60000, 28, 28)` with pixel values 0 to 255, `y_train` of shape
        `(60000,)` with labels 0 to 9, and `x_test` / `y_test` of shapes `(10000, 28, 28)` /
        `(10000,)`.

    Raises:
        ValueError: If a file is not a valid gzipped IDX file or the files do not match,
            or a download did not match its md5.
        tfkit.datasets.DownloadError: If a file is not found locally and the download
            failed.

    Example:
        Files in the same layout (two images per split), found through `$TFKIT_DATA_DIR`:

        >>> import gzip, os, struct
        >>> from unittest import mock
        >>> os.mkdir("fashion-mnist")
        >>> for split in ("train", "t10k"):
        ...     with gzip.open(f"fashion-mnist/{split}-images-idx3-ubyte.gz", "wb") as f:
        ...         _ = f.write(bytes([0, 0, 8, 3]) + struct.pack(">3I", 2, 28, 28) + bytes(2 * 784))
        ...     with gzip.open(f"fashion-mnist/{split}-labels-idx1-ubyte.gz", "wb") as f:
        ...         _ = f.write(bytes([0, 0, 8, 1]) + struct.pack(">I", 2) + bytes([9, 0]))
        >>> with mock.patch.dict(os.environ, TFKIT_DATA_DIR=os.getcwd()):
        ...     (x_train, y_train), (x_test, y_test) = tfkit.datasets.fashion_mnist.load_data()
        >>> x_train.shape, y_train
        ((2, 28, 28), array([9, 0], dtype=uint8))
    """
    arrays = {}
    for fname, md5 in MD5.items():
        file = download.get_file(f"{SUBDIR}/{fname}", origin=ORIGIN_FOLDER + fname, md5=md5)
        arrays[fname.split("-")[0] + ("_x" if "images" in fname else "_y")] = read_idx(file)
    for split in ("train", "t10k"):
        x, y = arrays[f"{split}_x"], arrays[f"{split}_y"]
        if x.ndim != 3 or x.shape[1:] != IMAGE_SHAPE or y.ndim != 1 or len(x) != len(y):
            raise ValueError(
                f"Fashion-MNIST {split} files hold images {x.shape} and labels {y.shape}; expected "
                f"(n, 28, 28) and (n,). Delete them to download fresh copies."
            )
        if y.size and int(y.max()) >= NUM_CLASSES:
            raise ValueError(f"Fashion-MNIST {split} labels must be in 0..9, got a maximum of {int(y.max())}")
    return (arrays["train_x"], arrays["train_y"]), (arrays["t10k_x"], arrays["t10k_y"])


def read_idx(file: str | os.PathLike) -> np.ndarray:
    """Reads the `uint8` array of a gzipped IDX file (`idx1` labels or `idx3` images).

    The header is checked first: the magic number (`0x00000801` or `0x00000803`, unsigned
    bytes), at most `MAX_ITEMS` items and, for images, 28x28 each; then exactly the bytes
    it declares are decompressed, and a file holding more is refused.

    Args:
        file: The path of the `.gz` file.

    Returns:
        A `uint8` array of shape `(n,)` for labels or `(n, 28, 28)` for images.

    Raises:
        ValueError: If the file is not a valid gzipped IDX file of that kind.

    Example:
        >>> import gzip, struct
        >>> with gzip.open("labels.gz", "wb") as f:
        ...     _ = f.write(bytes([0, 0, 8, 1]) + struct.pack(">I", 3) + bytes([7, 0, 9]))
        >>> tfkit.datasets.fashion_mnist.read_idx("labels.gz")
        array([7, 0, 9], dtype=uint8)
    """
    file = Path(file)
    try:
        with gzip.open(file, "rb") as stream:
            head = stream.read(4)
            if len(head) != 4 or head[:2] != b"\x00\x00" or head[2] != _UBYTE or head[3] not in (1, 3):
                raise ValueError(f"the IDX magic number is {head.hex()}, expected 00000801 or 00000803")
            ndim = head[3]
            raw = stream.read(4 * ndim)
            if len(raw) != 4 * ndim:
                raise ValueError("the header stops early")
            shape = struct.unpack(f">{ndim}I", raw)
            if shape[0] > MAX_ITEMS or (ndim == 3 and shape[1:] != IMAGE_SHAPE):
                raise ValueError(
                    f"the header declares shape {shape}; expected at most {MAX_ITEMS:,} items"
                    + (" of 28x28" if ndim == 3 else "")
                )
            size = int(np.prod(shape, dtype=np.int64))
            data = stream.read(size)
            if len(data) != size:
                raise ValueError(f"the data stops after {len(data)} of {size} bytes")
            if stream.read(1):
                raise ValueError("the file holds more bytes than its header declares")
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(
            f"{file} is not a valid gzipped IDX file ({type(exc).__name__}: {exc}). Delete it to download a fresh copy."
        ) from exc
    except ValueError as exc:
        raise ValueError(f"{file} is not a valid gzipped IDX file: {exc}. Delete it to download a fresh copy.") from exc
    return np.frombuffer(data, dtype=np.uint8).reshape(shape).copy()
