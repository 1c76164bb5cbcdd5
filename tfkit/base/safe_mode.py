"""Whether the load running on this thread is in safe mode: the caller's ``safe_mode`` argument, nothing else.

    with safe_mode.scope(False):          # tfkit.load_model(path, safe_mode=False) runs its load inside this
        model = rebuild(config)           # TFSMLayer.from_config may open the SavedModel its config names
    safe_mode.in_safe_mode()              # True outside any scope; False after tfkit.config.enable_unsafe_deserialization()

tfkit never turns a file into code; the one thing safe mode guards is a
config that points outside the file (``TFSMLayer``'s SavedModel folder).
A file can never change the value: only the loader's caller sets it.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator

from tfkit.base import settings

_local = threading.local()


@contextlib.contextmanager
def scope(safe: bool) -> Iterator[None]:
    """Inside this block ``in_safe_mode()`` is ``safe`` (on this thread)."""
    if not isinstance(safe, bool):
        raise ValueError(f"safe_mode must be True or False, got {safe!r}")
    previous = getattr(_local, "safe", None)
    _local.safe = safe
    try:
        yield
    finally:
        _local.safe = previous


def in_safe_mode() -> bool:
    """False once ``enable_unsafe_deserialization()`` was called (it wins, as in Keras), else the innermost
    scope's value, else True."""
    if settings.unsafe_deserialization():
        return False
    safe = getattr(_local, "safe", None)
    return True if safe is None else safe
