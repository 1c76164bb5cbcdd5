"""The CIFAR-10 small images data set, as ``keras.datasets.cifar10``.

    from tfkit.datasets import cifar10
    (x_train, y_train), (x_test, y_test) = cifar10.load_data()
    x_train.shape, y_train.shape   # (50000, 32, 32, 3) under channels_last, (50000, 1); all uint8

``cifar-10-python.tar.gz`` is looked for in ``$TFKIT_DATA_DIR``, then the tfkit cache, and
otherwise downloaded from Keras's origin and checked against Keras's sha256. Its six pickled
batches are read from the archive in memory, never unpickled (``cifar``, ``pickle_data``).
Classes: airplane, automobile, bird, cat, deer, dog, frog, horse, ship, truck.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.datasets import cifar, download

URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
SHA256 = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"
FNAME = "cifar-10-python.tar.gz"
FOLDER = "cifar-10-batches-py"
TRAIN_MEMBERS = [f"{FOLDER}/data_batch_{i}" for i in range(1, 6)]
TEST_MEMBER = f"{FOLDER}/test_batch"
NUM_CLASSES = 10


def load_data() -> Any:
    """Loads the CIFAR-10 small images data set, as `keras.datasets.cifar10.load_data`.

    50,000 training and 10,000 test 32x32 color images in 10 classes: airplane (0),
    automobile (1), bird (2), cat (3), deer (4), dog (5), frog (6), horse (7), ship (8),
    truck (9). `cifar-10-python.tar.gz` is looked for in `$TFKIT_DATA_DIR`, then in the
    tfkit cache (`$TFKIT_CACHE_DIR`, default `~/.tfkit/datasets`), and otherwise downloaded
    from the CIFAR site and checked against Keras's sha256. Its six pickled batches are read
    from the archive in memory (nothing is extracted) and never unpickled: the pickles
    are read by `tfkit.datasets.pickle_data`, which builds only plain data and numpy
    arrays; labels are checked to be in `0..9`.

    Returns:
        Tuple of NumPy arrays `(x_train, y_train), (x_test, y_test)`: `x_train` `uint8` of
        shape `(50000, 32, 32, 3)` when `tfkit.backend.image_data_format()` is
        `"channels_last"` (the default) and `(50000, 3, 32, 32)` otherwise, `y_train`
        `uint8` of shape `(50000, 1)` with labels 0 to 9; `x_test` and `y_test` likewise
        with 10,000 rows.

    Raises:
        ValueError: If the archive is not a valid `cifar-10-python.tar.gz`, or a download
            did not match its hash.
        tfkit.datasets.DownloadError: If the file is not found locally and the download
            failed.

    Example:
        An archive in the same layout (six batches of two black images each), found
        through `$TFKIT_DATA_DIR`:

        >>> import io, os, pickle, tarfile
        >>> from unittest import mock
        >>> names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
        >>> with tarfile.open("cifar-10-python.tar.gz", "w:gz") as tar:
        ...     for name in names:
        ...         batch = {b"data": np.zeros((2, 3072), np.uint8), b"labels": [3, 8]}
        ...         data = pickle.dumps(batch, protocol=2)
        ...         info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
        ...         info.size = len(data)
        ...         tar.addfile(info, io.BytesIO(data))
        >>> with mock.patch.dict(os.environ, TFKIT_DATA_DIR=os.getcwd()):
        ...     (x_train, y_train), (x_test, y_test) = tfkit.datasets.cifar10.load_data()
        >>> x_train.shape, x_train.dtype, y_train.shape
        ((10, 32, 32, 3), dtype('uint8'), (10, 1))
        >>> y_test
        array([[3],
               [8]], dtype=uint8)
    """
    file = download.get_file(FNAME, origin=URL, sha256=SHA256)
    members = cifar.read_tar_members(file, TRAIN_MEMBERS + [TEST_MEMBER], dataset=FNAME)
    images, labels = [], []
    for name in TRAIN_MEMBERS:
        x, y = cifar.read_batch(members[name], "labels", source=f"{file}:{name}")
        images.append(x)
        labels.append(np.asarray(y))
    x_train = np.concatenate(images).astype(np.uint8, copy=False)
    y_train = np.concatenate(labels)
    x_test, y_test = cifar.read_batch(members[TEST_MEMBER], "labels", source=f"{file}:{TEST_MEMBER}")
    y_test = np.asarray(y_test)
    for name, y in (("train", y_train), ("test", y_test)):
        cifar.check_labels(y, NUM_CLASSES, f"{file} ({name} labels)")
    y_train = y_train.astype(np.uint8).reshape(len(y_train), 1)
    y_test = y_test.astype(np.uint8).reshape(len(y_test), 1)
    return (cifar.to_data_format(x_train), y_train), (cifar.to_data_format(x_test), y_test)
