"""Whole-model configs: a model to plain data and back, as JSON, and cloning.

    config = serialize_model(model)                 # {"module", "class_name", "config", "registered_name"}
    twin = model_from_config(config)                # same architecture, fresh weights
    clone = clone_through_config(model)             # the same, with the model's own custom classes
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Mapping

from tfkit.base import registry
from tfkit.engine import tracking
from tfkit.engine.serialization import deserialize_layer, layer_entry
from tfkit.models.functional import Functional
from tfkit.models.model import Model
from tfkit.models.sequential import Sequential


def model_from_config(config: dict[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Model:
    """Rebuild a model (fresh weights) from ``{"class_name": ..., "config": ...}``."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError("model_from_config expects {'class_name': ..., 'config': {...}}")
    return deserialize_layer(config, custom_objects, base_class=Model, what="model")


def serialize_model(model: Model, allow_missing: bool = False) -> dict[str, Any]:
    """The model as ``{"module", "class_name", "config", "registered_name"}``.

    With ``allow_missing`` (what ``model.save`` uses), a subclassed model
    whose config cannot be captured (constructor arguments that are not
    plain data and no ``get_config()``) is written with a warning and a
    ``config_missing`` entry saying why: the file keeps its weights, and
    ``load_model`` then explains what to implement.
    """
    try:
        return layer_entry(model)
    except NotImplementedError as error:
        if not allow_missing or isinstance(model, (Functional, Sequential)):
            raise
        entry = registry.serialized_class("layers", type(model))
        warnings.warn(
            f"Model '{model.name}' ({type(model).__name__}) is saved without a config: {error} "
            f"Its weights are saved; load_model will ask for get_config(), and model.load_weights(path) "
            f"loads the weights into a model built in code.", stacklevel=3,
        )
        return {"module": entry["module"], "class_name": entry["class_name"], "config": None,
                "registered_name": entry["registered_name"], "name": model.name, "config_missing": str(error)}


def model_from_json(json_string: str, custom_objects: Mapping[str, Any] | None = None) -> Model:
    """Inverse of ``model.to_json()``."""
    try:
        config = json.loads(json_string)
    except json.JSONDecodeError as error:
        raise ValueError(f"model_from_json: not valid JSON ({error})") from error
    return model_from_config(config, custom_objects)


def clone_through_config(model: Model, custom_objects: Mapping[str, Any] | None = None) -> Model:
    """A new model with the same architecture and freshly initialized weights.

    The model's own layer classes resolve their names, so unregistered
    custom layers clone without ``custom_objects``.
    """
    own: dict[str, Any] = {}
    for layer in tracking.flatten_layers(model):
        cls = registry.public_class(type(layer))
        for key in (cls.__name__, registry.registered_name(cls)):
            if key and not registry.is_builtin("layers", cls) and key not in registry.builtin_names("layers"):
                own.setdefault(key, cls)
    clone = model_from_config(serialize_model(model), {**own, **(custom_objects or {})})
    shapes = model._build_shapes
    if not clone.built and shapes is not None:
        clone.build(shapes)
    return clone
