"""``tfkit.layers.serialize`` / ``deserialize``: a layer as plain data and back (Keras's names).

    config = tfkit.layers.serialize(tfkit.layers.Dense(4))   # {"module", "class_name", "config", ...}
    dense = tfkit.layers.deserialize(config)
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.engine import serialization
from tfkit.engine.serialization import layer_entry

__all__ = ["serialize", "deserialize"]


def serialize(layer: Any) -> dict[str, Any]:
    """A layer (or model) as ``{"module", "class_name", "config", "registered_name"}``."""
    return layer_entry(layer)


def deserialize(config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Any:
    """The layer :func:`serialize` described; classes by name only, never by importing a module."""
    return serialization.deserialize(dict(config), custom_objects=custom_objects, kind="layers")
