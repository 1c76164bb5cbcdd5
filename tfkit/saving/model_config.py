"""Whole-model configs: a model to plain data and back, as JSON.

    config = serialize_model(model)                 # {"module", "class_name", "config", "registered_name"}
    twin = model_from_config(config)                # same architecture, fresh weights
    twin = model_from_json(model.to_json())

Classes are found by registered name only (``engine.config_serialization``);
nothing a config holds is run. ``tfkit.models`` gives these functions their
Keras names (``keras.models.model_from_config`` ...).
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Mapping

from tfkit.base import registry
from tfkit.engine.config_serialization import deserialize_layer, layer_entry
from tfkit.saving.model_kinds import is_graph_model
from tfkit.training.trainer import Trainer


def model_from_config(config: dict[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Any:
    """Instantiates a model from its serialized config (fresh weights).

    Class names are resolved as in `deserialize` (registered names only;
    nothing in the config is run).

    Args:
        config: A dict `{"class_name": ..., "config": ...}`, as
            `serialize_model` returns it.
        custom_objects: Optional dict mapping names to custom classes or
            functions. Defaults to `None`.

    Returns:
        A new `tfkit.Model`.

    Raises:
        ValueError: If `config` is not such a dict, or names an unknown
            class.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> twin = tfkit.models.model_from_config(tfkit.models.serialize_model(model))
        >>> type(twin).__name__, twin.output_shape
        ('Sequential', (None, 2))
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError("model_from_config expects {'class_name': ..., 'config': {...}}")
    return deserialize_layer(config, custom_objects, base_class=Trainer, what="model")


def serialize_model(model: Any, allow_missing: bool = False) -> dict[str, Any]:
    """Serializes a model to plain data: `{"module", "class_name", "config", "registered_name"}`.

    `model_from_config` reads it back.

    Args:
        model: The `tfkit.Model` to serialize.
        allow_missing: What `model.save` uses: a subclassed model whose config
            cannot be captured (constructor arguments that are not plain data
            and no `get_config()`) is written with a warning and a
            `config_missing` entry saying why, so the file keeps its weights
            and `load_model` then explains what to implement. Defaults to
            `False` (raise instead).

    Returns:
        A JSON-able dict.

    Raises:
        NotImplementedError: If the model's config cannot be captured (and
            not `allow_missing`).

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)], name="tiny")
        >>> config = tfkit.models.serialize_model(model)
        >>> config["class_name"], config["config"]["name"]
        ('Sequential', 'tiny')
    """
    try:
        return layer_entry(model)
    except NotImplementedError as error:
        if not allow_missing or is_graph_model(model):
            raise
        entry = registry.serialized_class("layers", type(model))
        warnings.warn(
            f"Model '{model.name}' ({type(model).__name__}) is saved without a config: {error} "
            f"Its weights are saved; load_model will ask for get_config(), and model.load_weights(path) "
            f"loads the weights into a model built in code.",
            stacklevel=3,
        )
        return {
            "module": entry["module"],
            "class_name": entry["class_name"],
            "config": None,
            "registered_name": entry["registered_name"],
            "name": model.name,
            "config_missing": str(error),
        }


def model_from_json(json_string: str, custom_objects: Mapping[str, Any] | None = None) -> Any:
    """Parses a JSON model configuration string (from `model.to_json()`) and returns a model.

    Args:
        json_string: The JSON string.
        custom_objects: Optional dict mapping names to custom classes or
            functions. Defaults to `None`.

    Returns:
        A new `tfkit.Model` (fresh weights).

    Raises:
        ValueError: If the string is not valid JSON or not a model config.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> tfkit.models.model_from_json(model.to_json()).output_shape
        (None, 2)
    """
    try:
        config = json.loads(json_string)
    except json.JSONDecodeError as error:
        raise ValueError(f"model_from_json: not valid JSON ({error})") from error
    return model_from_config(config, custom_objects)
