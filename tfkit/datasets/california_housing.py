"""The California housing prices regression data set, as ``keras.datasets.california_housing``.

    from tfkit.datasets import california_housing
    (x_train, y_train), (x_test, y_test) = california_housing.load_data(version="small")   # 600 rows

``version="large"`` is the whole table (8 features per district, the median house value as
target); ``"small"`` its first 600 rows, as Keras. Looked up, downloaded and checked as
``boston_housing`` is; the rows are shuffled and split exactly as Keras's loader does.
"""

from __future__ import annotations

from typing import Any

from tfkit.datasets import download, tabular

URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/california_housing.npz"
SHA256 = "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f"
COLUMNS = 8
SMALL_ROWS = 600


def load_data(version: str = "large", path: str = "california_housing.npz", test_split: float = 0.2,
              seed: int = 113) -> Any:
    """``((x_train, y_train), (x_test, y_test))`` of the ``"large"`` table or its ``"small"`` first 600 rows."""
    tabular.check_test_split(test_split)
    if version not in ("large", "small"):
        raise ValueError(f"version must be 'large' or 'small', got {version!r}")
    file = download.get_file(path, origin=URL, sha256=SHA256)
    x, y = tabular.read_xy(file, COLUMNS, "california_housing.npz")
    if version == "small":
        x, y = x[:SMALL_ROWS], y[:SMALL_ROWS]
    return tabular.split(x, y, test_split, seed)
