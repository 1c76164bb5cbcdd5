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
    """Loads the Boston housing prices regression data set, as `keras.datasets.boston_housing`.

    506 samples of 13 attributes of houses at different locations around Boston in the
    late 1970s; the targets are the median values of the houses, in k$. The file is
    looked for in `$TFKIT_DATA_DIR`, then in the tfkit cache (`$TFKIT_CACHE_DIR`, default
    `~/.tfkit/datasets`), and otherwise downloaded from Keras's address and checked
    against Keras's sha256. Its arrays are read without pickles and checked (13 columns,
    float, finite); the rows are shuffled and split exactly as Keras's loader does.

    Args:
        path: The file name looked up in `$TFKIT_DATA_DIR`, then in the cache; an absolute
            path is used as it is. Defaults to `"boston_housing.npz"`.
        test_split: The fraction of the shuffled rows that goes to the test set (the last
            ones), in `[0, 1)`. Defaults to `0.2`.
        seed: The seed of the shuffle (`np.random.RandomState(seed)`). Defaults to `113`.

    Returns:
        Tuple of NumPy arrays `(x_train, y_train), (x_test, y_test)`: `x` of shape
        `(rows, 13)` and `y` of shape `(rows,)`, as the file stores them (float64 in
        Keras's file); 404 training and 102 test rows with the defaults.

    Raises:
        ValueError: If `test_split` is not in `[0, 1)`, the file is not valid, or a download
            did not match its hash.
        tfkit.datasets.DownloadError: If the file is not found locally and the download
            failed.

    Example:
        A table in the same layout (`x` and `y` arrays), given by absolute path:

        >>> import pathlib
        >>> np.savez("houses.npz", x=np.arange(130.0).reshape(10, 13), y=np.arange(10.0))
        >>> (x_train, y_train), (x_test, y_test) = tfkit.datasets.boston_housing.load_data(
        ...     path=str(pathlib.Path("houses.npz").absolute()))
        >>> x_train.shape, x_test.shape, y_test
        ((8, 13), (2, 13), array([2., 5.]))
        >>> tfkit.datasets.boston_housing.load_data(test_split=1.5)
        Traceback (most recent call last):
        ...
        ValueError: test_split must be in [0, 1), got 1.5
    """
    tabular.check_test_split(test_split)
    file = download.get_file(path, origin=URL, sha256=SHA256)
    x, y = tabular.read_xy(file, COLUMNS, "boston_housing.npz")
    return tabular.split(x, y, test_split, seed)
