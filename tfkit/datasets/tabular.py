"""Regression tables stored as ``x`` / ``y`` arrays in an ``.npz``, split as Keras's loaders split them.

    (x_train, y_train), (x_test, y_test) = tabular.load_split(file, columns=13, test_split=0.2, seed=113)

The arrays are read without pickles and with their header checked before any byte is
decompressed (``npz_reader``): ``x`` is ``(rows, columns)`` and ``y`` ``(rows,)``, float32 or
float64, as many rows in both. Keras's split: the rows shuffled by
``np.random.RandomState(seed)``, then the first ``int(rows * (1 - test_split))`` for training.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tfkit.datasets import npz_reader

Split = tuple[np.ndarray, np.ndarray]
_FLOATS = ("float32", "float64")


def check_test_split(test_split: float) -> None:
    """Checks that `test_split` is a fraction in `[0, 1)`.

    Args:
        test_split: The fraction of rows for the test set.

    Raises:
        ValueError: If `test_split` is not in `[0, 1)`.

    Example:
        >>> from tfkit.datasets import tabular
        >>> tabular.check_test_split(0.2)
        >>> tabular.check_test_split(1.0)
        Traceback (most recent call last):
        ...
        ValueError: test_split must be in [0, 1), got 1.0
    """
    if not 0 <= test_split < 1:
        raise ValueError(f"test_split must be in [0, 1), got {test_split!r}")


def read_xy(file: str | os.PathLike, columns: int, dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """Reads and checks the `x` and `y` arrays of a regression table stored as an `.npz`.

    The arrays are read with `npz_reader.read_expected` (no pickles, headers checked before
    decompressing): `x` must be `(rows, columns)` and `y` `(rows,)`, float32 or float64,
    with as many rows (more than 0) and only finite values.

    Args:
        file: The path of the `.npz` file.
        columns: The number of feature columns `x` must have.
        dataset: The data set's file name, used in error messages.

    Returns:
        A tuple `(x, y)` of NumPy arrays.

    Raises:
        ValueError: If the file is not valid; the message names the file and `dataset`.

    Example:
        >>> from tfkit.datasets import tabular
        >>> np.savez("table.npz", x=np.ones((4, 3)), y=np.arange(4.0))
        >>> x, y = tabular.read_xy("table.npz", 3, "table.npz")
        >>> x.shape, y
        ((4, 3), array([0., 1., 2., 3.]))
        >>> tabular.read_xy("table.npz", 5, "table.npz")
        Traceback (most recent call last):
        ...
        ValueError: table.npz is not a valid table.npz: expected x float32 or float64 (None, 5), got float64 (4, 3). ...
    """
    file = Path(file)
    expected = {"x": (_FLOATS, (None, columns)), "y": (_FLOATS, (None,))}
    try:
        names, arrays = npz_reader.read_expected(file, expected)
    except ValueError as exc:
        raise ValueError(f"{file} is not a valid {dataset}: {exc}. Delete it to download a fresh copy.") from exc
    missing = sorted(set(expected) - set(arrays))
    if missing:
        raise ValueError(
            f"{file} is not a valid {dataset}: expected arrays ['x', 'y'], found {sorted(names)} "
            f"(missing {missing}). Delete it to download a fresh copy."
        )
    x, y = arrays["x"], arrays["y"]
    if len(x) != len(y) or not len(x):
        raise ValueError(
            f"{file} is not a valid {dataset}: x has {len(x)} rows and y {len(y)}; expected the same, more than 0"
        )
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError(f"{file} is not a valid {dataset}: it holds NaN or infinite values")
    return x, y


def split(x: np.ndarray, y: np.ndarray, test_split: float, seed: int) -> tuple[Split, Split]:
    """Shuffles the rows and splits them into train and test sets, as Keras's loaders do.

    The row indices are shuffled by `np.random.RandomState(seed)`; the first
    `int(rows * (1 - test_split))` rows go to the training set, the rest to the test set.

    Args:
        x: The features, one row per sample.
        y: The targets, as many rows as `x`.
        test_split: The fraction of rows for the test set.
        seed: The shuffling seed.

    Returns:
        Tuple of NumPy arrays `(x_train, y_train), (x_test, y_test)` (copies).

    Example:
        >>> from tfkit.datasets import tabular
        >>> (x_train, y_train), (x_test, y_test) = tabular.split(
        ...     np.arange(10.0).reshape(5, 2), np.arange(5.0), test_split=0.2, seed=113)
        >>> y_train, y_test
        (array([1., 0., 3., 2.]), array([4.]))
    """
    indices = np.arange(len(x))
    np.random.RandomState(seed).shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (x[:cut].copy(), y[:cut].copy()), (x[cut:].copy(), y[cut:].copy())
