"""Optimizers by name, config or instance: Keras's ``optimizers.get``, ``serialize`` and ``deserialize``.

    optimizer = get("adam")                           # a default Adam
    config = serialize(optimizer)                     # {"class_name": "Adam", "config": {...}}
    same = deserialize(config)
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.base import registry
from tfkit.optimizers.base import Optimizer


def serialize(optimizer: Optimizer) -> dict[str, Any]:
    """``{"class_name": ..., "config": ...}`` for an optimizer."""
    return registry.to_config("optimizers", optimizer)


def deserialize(config: Mapping[str, Any] | str, custom_objects: Mapping[str, Any] | None = None) -> Optimizer:
    """Inverse of ``serialize``; a name gives a default instance."""
    return get(config, custom_objects)


def get(identifier: Any, custom_objects: Mapping[str, Any] | None = None) -> Optimizer:
    """An optimizer from a name (``"adam"``), a serialized dict or an instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, (str, dict)):
        optimizer = registry.resolve("optimizers", identifier, custom_objects)
        if isinstance(optimizer, Optimizer):
            return optimizer
        raise ValueError(f"{identifier!r} does not name an optimizer; it gave {optimizer!r}")
    raise ValueError(
        "Expected an optimizer: a name such as 'adam', a dict with 'class_name' and 'config', "
        f"or an Optimizer instance; got {type(identifier).__name__}: {identifier!r}"
    )
