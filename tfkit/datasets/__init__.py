"""Small standard data sets as numpy arrays: local folders first, verified download otherwise.

    from tfkit.datasets import mnist
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    # looks in $TFKIT_DATA_DIR, then $TFKIT_CACHE_DIR (default ~/.tfkit/datasets)

Imports numpy, the standard library and ``tfkit.base.settings`` only (never TensorFlow).
"""

from tfkit.datasets import (  # noqa: F401
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    download,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)
from tfkit.datasets.download import DownloadError, get_file  # noqa: F401

__all__ = [
    "DownloadError",
    "boston_housing",
    "california_housing",
    "cifar10",
    "cifar100",
    "download",
    "fashion_mnist",
    "get_file",
    "imdb",
    "mnist",
    "reuters",
]
