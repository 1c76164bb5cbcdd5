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
    if not 0 <= test_split < 1:
        raise ValueError(f"test_split must be in [0, 1), got {test_split!r}")


def read_xy(file: str | os.PathLike, columns: int, dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """The ``x`` and ``y`` arrays of ``file``, checked; a ValueError naming the file and the data set otherwise."""
    file = Path(file)
    expected = {"x": (_FLOATS, (None, columns)), "y": (_FLOATS, (None,))}
    try:
        names, arrays = npz_reader.read_expected(file, expected)
    except ValueError as exc:
        raise ValueError(f"{file} is not a valid {dataset}: {exc}. Delete it to download a fresh copy.") from exc
    missing = sorted(set(expected) - set(arrays))
    if missing:
        raise ValueError(f"{file} is not a valid {dataset}: expected arrays ['x', 'y'], found {sorted(names)} "
                         f"(missing {missing}). Delete it to download a fresh copy.")
    x, y = arrays["x"], arrays["y"]
    if len(x) != len(y) or not len(x):
        raise ValueError(f"{file} is not a valid {dataset}: x has {len(x)} rows and y {len(y)}; expected the same, "
                         f"more than 0")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError(f"{file} is not a valid {dataset}: it holds NaN or infinite values")
    return x, y


def split(x: np.ndarray, y: np.ndarray, test_split: float, seed: int) -> tuple[Split, Split]:
    """Keras's shuffle and split of the rows."""
    indices = np.arange(len(x))
    np.random.RandomState(seed).shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (x[:cut].copy(), y[:cut].copy()), (x[cut:].copy(), y[cut:].copy())
