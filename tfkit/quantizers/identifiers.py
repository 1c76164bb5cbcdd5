"""Quantizers and quantization configs by name, config or instance: ``get``, ``serialize``, ``deserialize``.

quantizer = get("abs_max_quantizer", axis=-1)     # an AbsMaxQuantizer
config = serialize(quantizer)                     # {"class_name": "AbsMaxQuantizer", "config": {...}}
same = deserialize(config)
"""

from __future__ import annotations

from typing import Any

from tfkit.base import registry
from tfkit.quantizers.configs import QuantizationConfig

_KIND = "quantizers"


def serialize(initializer: Any) -> Any:
    """Returns the serializable config of a quantizer or quantization config.

    Args:
        initializer: The quantizer or `QuantizationConfig` to serialize (Keras names this
            argument `initializer`), or `None`.

    Returns:
        A dict `{"class_name": ..., "config": ...}` that `deserialize` turns back into an
        object, or `None` for `None`.

    Example:
        >>> tfkit.quantizers.serialize(tfkit.quantizers.Int4QuantizationConfig(block_size=64))
        {'class_name': 'Int4QuantizationConfig', 'config': {'weight_quantizer': None, 'activation_quantizer': None,
        'block_size': 64}}
    """
    return registry.to_config(_KIND, initializer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns a quantizer or quantization config from its serialized config.

    The inverse of `serialize`.

    Args:
        config: A dict `{"class_name": ..., "config": ...}`, as `serialize` returns it.
        custom_objects: Optional dict mapping names to custom quantizer classes. Defaults to
            `None`.

    Returns:
        The quantizer or `QuantizationConfig` object.

    Example:
        >>> config = tfkit.quantizers.serialize(tfkit.quantizers.AbsMaxQuantizer(axis=0))
        >>> tfkit.quantizers.deserialize(config).axis
        (0,)
    """
    return registry.resolve(_KIND, config, custom_objects)


def get(identifier: Any, **kwargs: Any) -> Any:
    """Retrieves a quantizer from an identifier.

    Args:
        identifier: `None`, a name (`"AbsMaxQuantizer"` or `"abs_max_quantizer"`), a serialized
            config dict, or a quantizer (any callable) or `QuantizationConfig` object, returned as
            it is.
        **kwargs: Keyword arguments the class named by a string identifier is built with.

    Returns:
        The quantizer or config, or `None` for `None`.

    Raises:
        ValueError: If the identifier cannot be interpreted.

    Example:
        >>> tfkit.quantizers.get("abs_max_quantizer", axis=0).axis
        (0,)
        >>> tfkit.quantizers.get(42)
        Traceback (most recent call last):
        ...
        ValueError: Could not interpret quantizer identifier: 42
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = registry.lookup(_KIND, identifier)
        if isinstance(obj, type):
            return obj(**kwargs)
    else:
        obj = identifier
    if callable(obj) or isinstance(obj, QuantizationConfig):
        return obj
    raise ValueError(f"Could not interpret quantizer identifier: {identifier}")
