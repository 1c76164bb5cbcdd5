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
from tfkit.base.registry import (  # noqa: F401  Keras's names, re-exported
    custom_object_scope,
    get_custom_objects,
    register_serializable,
)
from tfkit.engine import serialization

register_keras_serializable = register_serializable
CustomObjectScope = custom_object_scope   # Keras's class name: ``with CustomObjectScope({...}):``


def serialize_keras_object(obj: Any) -> Any:
    """Plain data (``{"class_name", "config", ...}``) for a tfkit object or a registered function."""
    return serialization.serialize(obj)


def deserialize_keras_object(config: Any, custom_objects: Mapping[str, Any] | None = None,
                             safe_mode: bool = True, **kwargs: Any) -> Any:
    """Rebuild an object from :func:`serialize_keras_object`'s data, by registered names only.

    ``module_objects`` and ``printable_module_name`` (Keras's older arguments) are accepted and unused.
    """
    unknown = set(kwargs) - {"module_objects", "printable_module_name"}
    if unknown:
        raise TypeError(f"deserialize_keras_object got unexpected keyword argument(s) {sorted(unknown)}")
    return serialization.deserialize(config, custom_objects=custom_objects, safe_mode=safe_mode)


def get_registered_name(obj: Any) -> str:
    """``"package>Name"`` for a registered object, else its own name (as Keras answers)."""
    registered = registry.registered_name(obj)
    return registered if registered is not None else getattr(obj, "__name__", type(obj).__name__)


def get_registered_object(name: str, custom_objects: Mapping[str, Any] | None = None,
                          module_objects: Mapping[str, Any] | None = None) -> Any:
    """The object registered (or in a custom-object scope, ``custom_objects`` or ``module_objects``) as ``name``,
    else None."""
    return registry.registered_object(name, custom_objects, module_objects)
