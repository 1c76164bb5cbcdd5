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


def load_data(
    version: str = "large", path: str = "california_housing.npz", test_split: float = 0.2, seed: int = 113
) -> Any:
    """Loads the California housing prices regression data set, as `keras.datasets.california_housing`.

    20,640 districts of the 1990 California census, 8 features each (median income,
    house age, average rooms and bedrooms, population, average occupancy, latitude,
    longitude); the target is the median house value of the district, in dollars.
    Looked up in `$TFKIT_DATA_DIR`, then in the tfkit cache (`$TFKIT_CACHE_DIR`, default
    `~/.tfkit/datasets`), and otherwise downloaded from Keras's address and checked
    against Keras's sha256. Its arrays are read without pickles and checked; the rows are
    shuffled and split exactly as Keras's loader does.

    Args:
        version: `"large"` for the whole table, or `"small"` for its first 600 rows.
            Defaults to `"large"`.
        path: The file name looked up in `$TFKIT_DATA_DIR`, then in the cache; an absolute
            path is used as it is. Defaults to `"california_housing.npz"`.
        test_split: The fraction of the shuffled rows that goes to the test set (the last
            ones), in `[0, 1)`. Defaults to `0.2`.
        seed: The seed of the shuffle (`np.random.RandomState(seed)`). Defaults to `113`.

    Returns:
        Tuple of NumPy arrays `(x_train, y_train), (x_test, y_test)`: `x` of shape
        `(rows, 8)` and `y` of shape `(rows,)`, as the file stores them; with the defaults,
        16,512 training and 4,128 test rows (480 and 120 for `"small"`).

    Raises:
        ValueError: If `test_split` is not in `[0, 1)`, `version` is neither `"large"` nor
            `"small"`, the file is not valid, or a download did not match its hash.
        tfkit.datasets.DownloadError: If the file is not found locally and the download
            failed.

    Example:
        A table in the same layout (`x` and `y` arrays), given by absolute path:

        >>> import pathlib
        >>> np.savez("districts.npz", x=np.ones((1000, 8)), y=np.ones(1000))
        >>> (x_train, y_train), (x_test, y_test) = tfkit.datasets.california_housing.load_data(
        ...     version="small", path=str(pathlib.Path("districts.npz").absolute()))
        >>> x_train.shape, x_test.shape
        ((480, 8), (120, 8))
        >>> tfkit.datasets.california_housing.load_data(version="medium")
        Traceback (most recent call last):
        ...
        ValueError: version must be 'large' or 'small', got 'medium'
    """
    tabular.check_test_split(test_split)
    if version not in ("large", "small"):
        raise ValueError(f"version must be 'large' or 'small', got {version!r}")
    file = download.get_file(path, origin=URL, sha256=SHA256)
    x, y = tabular.read_xy(file, COLUMNS, "california_housing.npz")
    if version == "small":
        x, y = x[:SMALL_ROWS], y[:SMALL_ROWS]
    return tabular.split(x, y, test_split, seed)
