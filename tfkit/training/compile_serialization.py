"""A model's ``compile`` arguments as plain data, and back: what a model file keeps of ``compile``.

    config = compile_config(model)                   # {"optimizer": {...}, "loss": "mse", ...} or None
    model.compile(**compile_arguments(config))       # the same compile, rebuilt by name only

Losses, metrics and the optimizer are written with ``engine.config_serialization``;
a user's function is written by its name and found again through the
registry (``custom_objects``), never by importing a module.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Mapping

from tfkit.base import registry
from tfkit.engine.config_safety import check_config
from tfkit.engine.config_serialization import deserialize, serialize

COMPILE_KEYS = (
    "optimizer",
    "loss",
    "metrics",
    "loss_weights",
    "weighted_metrics",
    "run_eagerly",
    "steps_per_execution",
    "jit_compile",
)


def _serialize_compile_entry(value: Any, kind: str) -> Any:
    if value is None or isinstance(value, (str, bool, numbers.Number)):
        return value
    if isinstance(value, (list, tuple)):
        return [_serialize_compile_entry(item, kind) for item in value]
    if isinstance(value, dict):
        return {str(key): _serialize_compile_entry(item, kind) for key, item in value.items()}
    return serialize(value)  # a Loss/Metric object or a registered function


def _deserialize_compile_entry(value: Any, kind: str, custom_objects: Mapping[str, Any] | None) -> Any:
    if isinstance(value, str) and not _is_builtin_name(kind, value):
        try:
            return registry.lookup("functions", value, custom_objects)  # a user's function, saved by name
        except ValueError:
            if kind == "losses":
                raise
            return value  # a metric alias compile() knows ("acc")
    if value is None or isinstance(value, (str, bool, numbers.Number)):
        return value
    if isinstance(value, list):
        return [_deserialize_compile_entry(item, kind, custom_objects) for item in value]
    if isinstance(value, dict) and "class_name" in value:
        return deserialize(value, custom_objects, kind=value.get("kind", kind))
    if isinstance(value, dict):
        return {key: _deserialize_compile_entry(item, kind, custom_objects) for key, item in value.items()}
    raise ValueError(f"Unexpected {kind[:-1]} entry in compile_config: {value!r}")


def _is_builtin_name(kind: str, name: str) -> bool:
    """Whether ``compile()`` understands ``name`` by itself (``"mse"``, ``"accuracy"``)."""
    return any(name in registry.builtin_names(table) for table in (kind, "functions", "losses", "metrics"))


def compile_config(trainer: Any, model_name: str) -> dict[str, Any] | None:
    """The arguments of ``model.compile`` as plain data; ``None`` when not compiled.

    When a loss or metric cannot be saved (an unregistered function), this
    warns and returns ``None``: the model is saved uncompiled.
    """
    if trainer is None or trainer.implicit:
        return None
    config = trainer.config
    try:
        out = {
            "optimizer": serialize(trainer.optimizer) if trainer.optimizer is not None else None,
            "loss": _serialize_compile_entry(config["loss"], "losses"),
            "metrics": _serialize_compile_entry(config["metrics"], "metrics"),
            "loss_weights": config["loss_weights"],
            "weighted_metrics": _serialize_compile_entry(config["weighted_metrics"], "metrics"),
            "run_eagerly": config["run_eagerly"],
            "steps_per_execution": config["steps_per_execution"],
            "jit_compile": config["jit_compile"],
        }
    except (ValueError, NotImplementedError) as error:
        warnings.warn(
            f"Model '{model_name}' is saved without its compile configuration (optimizer state included): {error}",
            stacklevel=3,
        )
        return None
    return out


def compile_arguments(config: Any, custom_objects: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Keyword arguments for ``model.compile`` rebuilt from :func:`compile_config`'s data."""
    if not isinstance(config, dict):
        raise ValueError(f"compile_config must be a dict, got {type(config).__name__}")
    check_config(config, "compile_config")
    unknown = sorted(set(config) - set(COMPILE_KEYS))
    if unknown:
        raise ValueError(f"compile_config has unknown entries {unknown}; expected {list(COMPILE_KEYS)}")
    out: dict[str, Any] = {}
    with registry.custom_object_scope(custom_objects or {}):
        optimizer = config.get("optimizer")
        if isinstance(optimizer, dict):
            out["optimizer"] = deserialize(optimizer, custom_objects, kind="optimizers")
        elif optimizer is None or isinstance(optimizer, str):
            out["optimizer"] = optimizer
        else:
            raise ValueError(f"compile_config.optimizer must be a name or a config dict, got {optimizer!r}")
        out["loss"] = _deserialize_compile_entry(config.get("loss"), "losses", custom_objects)
        out["metrics"] = _deserialize_compile_entry(config.get("metrics"), "metrics", custom_objects)
        out["weighted_metrics"] = _deserialize_compile_entry(config.get("weighted_metrics"), "metrics", custom_objects)
    loss_weights = config.get("loss_weights")
    if loss_weights is not None and not isinstance(loss_weights, (list, dict, numbers.Number)):
        raise ValueError(f"compile_config.loss_weights must be numbers, got {loss_weights!r}")
    out["loss_weights"] = loss_weights
    for key, allowed in (("run_eagerly", (bool,)), ("steps_per_execution", (int, str)), ("jit_compile", (bool, str))):
        if key in config:
            if not isinstance(config[key], allowed):
                raise ValueError(f"compile_config.{key} has an invalid value {config[key]!r}")
            out[key] = config[key]
    return out
