"""The Boston housing prices regression data set, as ``keras.datasets.boston_housing``.

    from tfkit.datasets import boston_housing
    (x_train, y_train), (x_test, y_test) = boston_housing.load_data()   # 13 features, prices in k$

The file is looked for in ``$TFKIT_DATA_DIR``, then the tfkit cache, and otherwise downloaded
from Keras's address and checked against Keras's sha256. Its arrays are read without pickles
and checked (``tabular``); the rows are shuffled and split exactly as Keras's loader does.
"""

from __future__ import annotations

from typing import Any

from tfkit.datasets import download, tabular

URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/boston_housing.npz"
SHA256 = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"
COLUMNS = 13


def load_data(path: str = "boston_housing.npz", test_split: float = 0.2, seed: int = 113) -> Any:
    """``((x_train, y_train), (x_test, y_test))``; ``test_split`` of the shuffled rows go to the test set."""
    tabular.check_test_split(test_split)
    file = download.get_file(path, origin=URL, sha256=SHA256)
    x, y = tabular.read_xy(file, COLUMNS, "boston_housing.npz")
    return tabular.split(x, y, test_split, seed)
