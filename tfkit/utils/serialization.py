"""Keras's serialization names in ``tfkit.utils``: custom objects and data-only (de)serialization.

    with tfkit.utils.custom_object_scope({"Linear": Linear}):
        layer = tfkit.utils.deserialize_keras_object(config)
    tfkit.utils.get_registered_name(Linear)        # "my_pkg>Linear" once registered

The same functions as ``tfkit.saving``'s: configs name classes by registered
name only, and deserializing never imports a module, unpickles, or runs code
from the config, whatever ``safe_mode`` says.
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.base import registry
from tfkit.base.registry import custom_object_scope, get_custom_objects, register_serializable  # noqa: F401  Keras's names, re-exported
from tfkit.engine import config_serialization

register_keras_serializable = register_serializable
CustomObjectScope = custom_object_scope  # Keras's class name: ``with CustomObjectScope({...}):``


def serialize_keras_object(obj: Any) -> Any:
    """Serializes a tfkit object or registered function to plain, JSON-able data.

    The same as `tfkit.saving.serialize`: objects become `{"module",
    "class_name", "config", "registered_name", "kind"}` dicts, functions
    their (registered) name.

    Args:
        obj: The object to serialize.

    Returns:
        A dict, or a string for functions.

    Raises:
        ValueError: If the object has no `get_config`.

    Example:
        >>> config = tfkit.saving.serialize_keras_object(tfkit.layers.Dense(2, name="d"))
        >>> config["class_name"], config["config"]["units"]
        ('Dense', 2)
    """
    return config_serialization.serialize(obj)


def deserialize_keras_object(
    config: Any, custom_objects: Mapping[str, Any] | None = None, safe_mode: bool = True, **kwargs: Any
) -> Any:
    """Rebuilds an object from the data `serialize_keras_object` returned, by registered names only.

    Names are resolved in `custom_objects`, active `custom_object_scope` blocks,
    the registered custom objects and tfkit's built-in objects. Nothing in
    the config is imported, unpickled or run, whatever `safe_mode` says.

    Args:
        config: The serialized data: a dict, or a name.
        custom_objects: Optional dict mapping names to classes or functions.
            Defaults to `None`.
        safe_mode: `True` or `False`, as in `load_model`: whether configs
            that load something from outside (a `TFSMLayer`) are refused.
            Defaults to `True`.
        **kwargs: Keras's older arguments `module_objects` and
            `printable_module_name`, accepted and unused; any other raises a
            `TypeError`.

    Returns:
        The object.

    Raises:
        ValueError: For an unknown name or malformed data.
        TypeError: For another keyword argument.

    Example:
        >>> layer = tfkit.saving.deserialize_keras_object(
        ...     {"class_name": "Dense", "config": {"units": 2, "name": "d"}})
        >>> layer.units, layer.name
        (2, 'd')
    """
    unknown = set(kwargs) - {"module_objects", "printable_module_name"}
    if unknown:
        raise TypeError(f"deserialize_keras_object got unexpected keyword argument(s) {sorted(unknown)}")
    return config_serialization.deserialize(config, custom_objects=custom_objects, safe_mode=safe_mode)


def get_registered_name(obj: Any) -> str:
    """Returns the name an object is serialized under: `"package>name"` when registered, else its own name.

    Args:
        obj: A class or function.

    Returns:
        A string.

    Example:
        >>> tfkit.saving.get_registered_name(tfkit.layers.Dense)
        'Dense'
    """
    registered = registry.registered_name(obj)
    return registered if registered is not None else getattr(obj, "__name__", type(obj).__name__)


def get_registered_object(
    name: str, custom_objects: Mapping[str, Any] | None = None, module_objects: Mapping[str, Any] | None = None
) -> Any:
    """Returns the object registered or made available under a name, or `None`.

    Looks in `custom_objects`, then the active `custom_object_scope` blocks
    (innermost first), the global custom objects (registered names
    included), and last `module_objects`.

    Args:
        name: The name, such as `"my_pkg>MyLayer"`.
        custom_objects: Optional dict to look in first. Defaults to `None`.
        module_objects: Optional dict to look in last. Defaults to `None`.

    Returns:
        The object, or `None` when no source has the name.

    Example:
        >>> tfkit.saving.get_registered_object("Missing") is None
        True
        >>> tfkit.saving.get_registered_object("f", custom_objects={"f": abs})
        <built-in function abs>
    """
    return registry.registered_object(name, custom_objects, module_objects)
