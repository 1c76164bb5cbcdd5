"""``tfkit.saving.serialize`` / ``deserialize``: any tfkit object to plain data and back, by registered name only.

    config = tfkit.saving.serialize(tfkit.initializers.Ones())   # {"class_name": "Ones", ..., "kind": "initializers"}
    tfkit.saving.deserialize(config)                             # Ones()

The work is ``tfkit.engine.config_serialization``'s; these are its public names.
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.engine import config_serialization


def serialize(obj: Any) -> Any:
    """Serializes a tfkit object or registered function to plain, JSON-able data.

    Objects (layers, losses, metrics, initializers, optimizers, ...) become
    `{"module", "class_name", "config", "registered_name", "kind"}` dicts;
    functions become their (registered) name. `deserialize` reads it back.

    Args:
        obj: The object to serialize.

    Returns:
        A dict, or a string for functions.

    Raises:
        ValueError: If the object has no `get_config` and cannot be
            serialized.

    Example:
        >>> config = tfkit.saving.serialize(tfkit.initializers.Ones())
        >>> config["class_name"], config["kind"]
        ('Ones', 'initializers')
    """
    return config_serialization.serialize(obj)


def deserialize(
    config: Any, custom_objects: Mapping[str, Any] | None = None, safe_mode: bool = True, kind: str | None = None
) -> Any:
    """Rebuilds an object from the data `serialize` returned: registered names only, never code.

    Names are resolved in `custom_objects`, then active
    `custom_object_scope` blocks, the registered custom objects, and tfkit's
    built-in objects. No module is imported and nothing in the data is run,
    whatever `safe_mode` says.

    Args:
        config: The serialized data: a dict, or a name.
        custom_objects: Optional dict mapping names to classes or functions.
            Defaults to `None`.
        safe_mode: `True` or `False`, as in `load_model`: whether configs
            that load something from outside (a `TFSMLayer`) are refused.
            Defaults to `True`.
        kind: Which table to look the name up in (`"layers"`, `"losses"`,
            `"activations"`, ...). Defaults to `None`: the dict's `"kind"`
            entry, else the one table that knows the name (an ambiguous name
            such as `"mse"` needs `kind`).

    Returns:
        The object.

    Raises:
        ValueError: For an unknown or ambiguous name, or malformed data.

    Example:
        >>> tfkit.saving.deserialize({"class_name": "Ones", "config": {}})
        Ones()
        >>> tfkit.saving.deserialize("relu", kind="activations").__name__
        'relu'
    """
    return config_serialization.deserialize(config, custom_objects=custom_objects, safe_mode=safe_mode, kind=kind)
