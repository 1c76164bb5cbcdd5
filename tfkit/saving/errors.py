"""Loaders raise ``ValueError`` for anything a file can provoke, with the cause chained.

    @loader
    def load_model(filepath, ...): ...      # a KeyError deep in h5py becomes ValueError("m.h5 could not ...")

    with refusing("preset ./p"):            # the same, around any block that reads a file
        ...

A damaged or hostile file makes libraries fail in many ways (``KeyError``,
``OverflowError``, ``OpError``, ...). Callers of tfkit's loaders catch one
type; a missing file stays ``FileNotFoundError``, Ctrl-C stays
``KeyboardInterrupt``, and a lack of space or file handles stays ``OSError``
(the machine's, not the file's: a good file must not look damaged).
"""

from __future__ import annotations

import contextlib
import errno
import functools
from typing import Any, Callable, Iterator

_MACHINE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EMFILE, errno.ENFILE)
# ImportError: an optional package is missing (the machine's, never the file's: tfkit imports nothing a file names)
_PASS_THROUGH = (ValueError, FileNotFoundError, IsADirectoryError, PermissionError, KeyboardInterrupt, ImportError)


@contextlib.contextmanager
def refusing(what: Any) -> Iterator[None]:
    """Inside, whatever a file provokes leaves as a ``ValueError`` naming ``what`` (the file), its cause chained."""
    try:
        yield
    except _PASS_THROUGH:
        raise
    except OSError as error:
        if error.errno in _MACHINE_ERRNOS:
            raise  # no room for a temporary file, too many open files: the machine's, not the file's
        raise ValueError(f"{what} could not be loaded: {type(error).__name__}: {error}") from error
    except MemoryError as error:
        raise ValueError(f"{what}: loading it needs more memory than this process has") from error
    except Exception as error:  # noqa: BLE001
        raise ValueError(f"{what} could not be loaded: {type(error).__name__}: {error}") from error


def loader(function: Callable) -> Callable:
    """Decorate a function whose first argument is the file path."""

    @functools.wraps(function)
    def load(filepath: Any, *args: Any, **kwargs: Any) -> Any:
        with refusing(filepath):
            return function(filepath, *args, **kwargs)

    return load
