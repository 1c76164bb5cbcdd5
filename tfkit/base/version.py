"""tfkit's version, in one place: files record it, ``tfkit.__version__`` and ``tfkit.version()`` report it.

    from tfkit.base.version import VERSION     # "0.1.0"
"""

VERSION = "0.1.0"


def version() -> str:
    """The installed tfkit's version string, as ``keras.version()`` returns Keras's."""
    return VERSION
