"""tfkit's version, in one place: files record it, ``tfkit.__version__`` and ``tfkit.version()`` report it.

from tfkit.base.version import VERSION     # "0.1.0"
"""

VERSION = "0.1.0"


def version() -> str:
    """Returns the installed tfkit's version string, as `keras.version()` returns Keras's.

    Model files record it. It is also `tfkit.__version__`.

    Returns:
        A version string such as `"0.1.0"`.

    Example:
        >>> tfkit.version() == tfkit.__version__
        True
    """
    return VERSION
