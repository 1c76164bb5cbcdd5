"""The CIFAR-100 small images data set, as ``keras.datasets.cifar100``.

    from tfkit.datasets import cifar100
    (x_train, y_train), (x_test, y_test) = cifar100.load_data(label_mode="coarse")
    x_train.shape, y_train.shape   # (50000, 32, 32, 3) uint8 under channels_last, (50000, 1) int64

``cifar-100-python.tar.gz`` is looked for in ``$TFKIT_DATA_DIR``, then the tfkit cache, and
otherwise downloaded from Keras's origin and checked against Keras's sha256. Its pickled
``train`` and ``test`` batches are read from the archive in memory, never unpickled.
Labels are the 100 fine classes (``label_mode="fine"``) or the 20 superclasses (``"coarse"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.datasets import cifar, download

URL = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
SHA256 = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"
FNAME = "cifar-100-python.tar.gz"
FOLDER = "cifar-100-python"
NUM_CLASSES = {"fine": 100, "coarse": 20}


def load_data(label_mode: str = "fine") -> Any:
    """Loads the CIFAR-100 small images data set, as `keras.datasets.cifar100.load_data`.

    50,000 training and 10,000 test 32x32 color images labeled with one of 100 fine
    classes, grouped into 20 coarse superclasses. `cifar-100-python.tar.gz` is looked for
    in `$TFKIT_DATA_DIR`, then in the tfkit cache (`$TFKIT_CACHE_DIR`, default
    `~/.tfkit/datasets`), and otherwise downloaded from the CIFAR site and checked against
    Keras's sha256. Its pickled `train` and `test` batches are read from the archive in
    memory (nothing is extracted) and never unpickled: the pickles are read by
    `tfkit.datasets.pickle_data`, which builds only plain data and numpy arrays.

    Args:
        label_mode: `"fine"` for the 100 classes or `"coarse"` for the 20 superclasses.
            Defaults to `"fine"`.

    Returns:
        Tuple of NumPy arrays `(x_train, y_train), (x_test, y_test)`: `x_train` `uint8` of
        shape `(50000, 32, 32, 3)` under `"channels_last"` (the default image data format)
        and `(50000, 3, 32, 32)` otherwise, `y_train` `int64` of shape `(50000, 1)` with
        labels 0 to 99 (0 to 19 for `"coarse"`); `x_test` and `y_test` likewise with 10,000
        rows.

    Raises:
        ValueError: If `label_mode` is neither `"fine"` nor `"coarse"`, the archive is not a
            valid `cifar-100-python.tar.gz`, or a download did not match its hash.
        tfkit.datasets.DownloadError: If the file is not found locally and the download
            failed.

    Example:
        >>> tfkit.datasets.cifar100.load_data(label_mode="medium")
        Traceback (most recent call last):
        ...
        ValueError: label_mode must be one of "fine", "coarse", got 'medium'
    """
    if label_mode not in NUM_CLASSES:
        raise ValueError(f'label_mode must be one of "fine", "coarse", got {label_mode!r}')
    file = download.get_file(FNAME, origin=URL, sha256=SHA256)
    names = [f"{FOLDER}/train", f"{FOLDER}/test"]
    members = cifar.read_tar_members(file, names, dataset=FNAME)
    splits = []
    for name in names:
        x, y = cifar.read_batch(members[name], f"{label_mode}_labels", source=f"{file}:{name}")
        # Keras reshapes the stored label list: a platform int array (int64 here)
        y = np.reshape(y, (len(y), 1))
        cifar.check_labels(y, NUM_CLASSES[label_mode], f"{file}:{name} ({label_mode} labels)")
        splits.append((cifar.to_data_format(x), y))
    return splits[0], splits[1]
