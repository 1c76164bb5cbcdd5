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
    """Returns the serialized form of an optimizer.

    Args:
        optimizer: An `Optimizer` instance.

    Returns:
        A `{"class_name": ..., "config": ...}` dict (with `"module"` and
        `"registered_name"` keys for a registered custom class), where `config` is
        `optimizer.get_config()`.

    Example:
        >>> config = tfkit.optimizers.serialize(tfkit.optimizers.SGD(learning_rate=0.5))
        >>> config["class_name"], config["config"]["learning_rate"], config["config"]["momentum"]
        ('SGD', 0.5, 0.0)
    """
    return registry.to_config("optimizers", optimizer)


def deserialize(config: Mapping[str, Any] | str, custom_objects: Mapping[str, Any] | None = None) -> Optimizer:
    """Returns an optimizer from its serialized form (the inverse of `serialize`).

    Args:
        config: A `{"class_name": ..., "config": ...}` dict, as written by `serialize`, or
            a name (which gives a default instance).
        custom_objects: Optional `dict` mapping names to custom optimizer classes, looked
            up before the built-in ones. Defaults to `None`.

    Returns:
        An `Optimizer` instance.

    Raises:
        ValueError: If `config` names an unknown class or does not give an optimizer.

    Example:
        >>> config = tfkit.optimizers.serialize(tfkit.optimizers.Adam(learning_rate=0.01))
        >>> optimizer = tfkit.optimizers.deserialize(config)
        >>> type(optimizer).__name__, round(float(optimizer.learning_rate), 4)
        ('Adam', 0.01)
    """
    return get(config, custom_objects)


def get(identifier: Any, custom_objects: Mapping[str, Any] | None = None) -> Optimizer:
    """Retrieves an optimizer instance from an identifier.

    Args:
        identifier: The optimizer: an `Optimizer` instance (returned as it is), a name
            (`"adam"`, case as registered: `"sgd"`, `"rmsprop"`, ... or the class name),
            which gives a default instance, or a `{"class_name": ..., "config": ...}` dict
            as written by `serialize`.
        custom_objects: Optional `dict` mapping names to custom optimizer classes, looked
            up before the built-in ones. Defaults to `None`.

    Returns:
        An `Optimizer` instance.

    Raises:
        ValueError: If `identifier` is of another kind, names an unknown class, or does
            not give an optimizer.

    Example:
        >>> optimizer = tfkit.optimizers.get("adam")
        >>> type(optimizer).__name__, round(float(optimizer.learning_rate), 4)
        ('Adam', 0.001)
        >>> config = {"class_name": "SGD", "config": {"learning_rate": 0.5}}
        >>> float(tfkit.optimizers.get(config).learning_rate)
        0.5
    """
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
