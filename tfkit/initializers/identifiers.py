"""Initializers by name, config or instance: Keras's ``initializers.get``, ``serialize`` and ``deserialize``.

init = get("glorot_uniform")                     # a GlorotUniform
config = serialize(init)                         # {"class_name": "GlorotUniform", "config": {...}}
same = deserialize(config)
"""

from __future__ import annotations

from typing import Any

from tfkit.base import registry

_KIND = "initializers"


def get(identifier: Any) -> Any:
    """Retrieves an initializer object via an identifier.

    Args:
        identifier: The initializer to look up: a name (`"glorot_uniform"`, also the
            names of custom objects in scope) gives a default instance, a
            `{"class_name": ..., "config": ...}` dict is rebuilt with `from_config`, a class
            gives a default instance, an `Initializer` or any callable `f(shape, dtype)` is
            returned as it is, and `None` gives `None`.

    Returns:
        An initializer (a callable `f(shape, dtype=None)`), or `None`.

    Raises:
        ValueError: If `identifier` cannot be interpreted (an unknown name, a malformed
            dict, or an object that is not callable).

    Example:
        >>> tfkit.initializers.get("glorot_uniform")
        GlorotUniform(seed=None, input_axes=None, output_axes=None)
        >>> tfkit.initializers.get({"class_name": "Constant", "config": {"value": 2.0}})
        Constant(value=2.0)
        >>> tfkit.initializers.get(None) is None
        True
    """
    if identifier is None:
        return None
    return registry.resolve_callable(
        _KIND,
        identifier,
        "a name such as 'glorot_uniform', a {'class_name', 'config'} dict, an Initializer or a callable(shape, dtype)",
    )


def serialize(initializer: Any) -> Any:
    """Returns the serializable form of an initializer.

    Args:
        initializer: An `Initializer` object, saved as a
            `{"class_name": ..., "config": ...}` dict (with `"module"` and
            `"registered_name"` keys for a registered custom class); a class or a plain
            function, saved as its name; or `None`.

    Returns:
        A dict, a name, or `None` for `None`.

    Raises:
        ValueError: If `initializer` is a function with no name to be saved under (a
            lambda).

    Example:
        >>> tfkit.initializers.serialize(tfkit.initializers.RandomNormal(stddev=1.0))
        {'class_name': 'RandomNormal', 'config': {'mean': 0.0, 'stddev': 1.0, 'seed': None}}
    """
    return registry.to_config(_KIND, initializer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns an initializer from its serialized form (the inverse of `serialize`).

    Args:
        config: A `{"class_name": ..., "config": ...}` dict or a name, as written by
            `serialize`. A name of a class gives a default instance; any other object is
            returned unchanged.
        custom_objects: Optional `dict` mapping names to custom classes or functions,
            looked up before the built-in initializers. Defaults to `None`.

    Returns:
        The initializer.

    Raises:
        ValueError: If the name is unknown or the dict is malformed.

    Example:
        >>> config = {"class_name": "Constant", "config": {"value": 3.0}}
        >>> tfkit.initializers.deserialize(config)
        Constant(value=3.0)
        >>> tfkit.initializers.deserialize("ones")
        Ones()
    """
    return registry.resolve(_KIND, config, custom_objects)
