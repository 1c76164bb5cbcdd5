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
    """``((x_train, y_train), (x_test, y_test))``: uint8 images and uint8 labels of shape ``(n, 1)``.

    Images are ``(n, 32, 32, 3)`` when ``tfkit.backend.image_data_format()`` is ``"channels_last"``
    (the default) and ``(n, 3, 32, 32)`` otherwise, as Keras returns them.
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
