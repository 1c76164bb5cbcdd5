"""``tfkit.layers.serialize`` / ``deserialize``: a layer as plain data and back (Keras's names).

config = tfkit.layers.serialize(tfkit.layers.Dense(4))   # {"module", "class_name", "config", ...}
dense = tfkit.layers.deserialize(config)
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.engine import config_serialization
from tfkit.engine.config_serialization import layer_entry

__all__ = ["serialize", "deserialize"]


def serialize(layer: Any) -> dict[str, Any]:
    """Returns the serialized form of a layer (or model), as plain data.

    The result is the dict Keras 3 writes: `{"module", "class_name",
    "config", "registered_name"}`, where `"config"` is the layer's
    `get_config()` with any objects in it (initializers, regularizers,
    nested layers, functions) turned into data. `deserialize` turns it back
    into a layer.

    Args:
        layer: A `tfkit.layers.Layer` (or `tfkit.Model`) instance.

    Returns:
        A JSON-compatible dict describing the layer.

    Raises:
        TypeError: If the layer's `get_config()` does not return a dict.
        ValueError: If the config holds something that cannot be saved, such
            as a `Lambda` layer's unnamed function.

    Example:
        >>> config = tfkit.layers.serialize(tfkit.layers.Dense(4, name="dense"))
        >>> sorted(config)
        ['class_name', 'config', 'module', 'registered_name']
        >>> config["class_name"], config["config"]["units"]
        ('Dense', 4)
    """
    return layer_entry(layer)


def deserialize(config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Any:
    """Returns a layer instance from its serialized form.

    Classes are found by name only (built-in layers, registered classes and
    `custom_objects`), never by importing the module the config names.

    Args:
        config: A dict with at least `"class_name"` and `"config"` entries, as
            `serialize` returns.
        custom_objects: Optional dict mapping class names to the custom
            classes (or functions) the config refers to. Defaults to `None`.

    Returns:
        A new layer (or model) built with `from_config`.

    Raises:
        ValueError: If the class name is unknown, or the config is malformed.

    Example:
        >>> config = tfkit.layers.serialize(tfkit.layers.Dense(4, name="dense"))
        >>> layer = tfkit.layers.deserialize(config)
        >>> type(layer).__name__, layer.units, layer.name
        ('Dense', 4, 'dense')
    """
    return config_serialization.deserialize(dict(config), custom_objects=custom_objects, kind="layers")
