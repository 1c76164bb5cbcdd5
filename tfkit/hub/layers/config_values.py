"""Constructor arguments as plain data for a layer's config.

    config.update(start_value=config_value(self._start_value))   # [1, 2], not a tf.Module ListWrapper

``tf.Module`` wraps the lists and tuples assigned to a layer's attributes (to
track what they hold); a config gets plain ``list`` and ``tuple`` back.
"""

from __future__ import annotations

from typing import Any


def config_value(value: Any) -> Any:
    """``value`` with its (wrapped) lists and tuples as plain ``list`` and ``tuple``, recursively."""
    if isinstance(value, list):
        return [config_value(item) for item in value]
    if isinstance(value, tuple):
        return tuple(config_value(item) for item in value)
    return value
