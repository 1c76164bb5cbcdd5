"""Any tfkit object to plain data and back: layers, models, initializers, losses, optimizers, ...

    config = tfkit.saving.serialize(tfkit.layers.Dense(4, activation="relu"))
    # {"class_name": "Dense", "config": {...}, "kind": "layers"}
    dense = tfkit.saving.deserialize(config)

Objects become ``{"module", "class_name", "config", "registered_name", "kind"}``
dicts as Keras 3 writes them (``class_name`` is the class's ``__name__``,
``registered_name`` its ``package>Name`` registration or that plain name;
``module`` is data, never imported), so saving never requires registration.
A layer whose ``get_config()`` leaves out its name gets a top-level ``"name"``
beside its config. Functions become their registered name (``"relu"``,
``"my_pkg>scaled_tanh"``). Going back,
names are looked up in the registry only (``custom_objects``, active
``custom_object_scope``s, ``register_serializable`` names, built-ins): no
module is imported, no code is evaluated. The compile arguments of a model
(``compile_config``) are serialized here too, for model files.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Mapping

from tfkit.base import registry
from tfkit.saving.config_safety import check_config

# Searched in this order when a config does not say its kind.
_SEARCH_ORDER = (
    "layers", "activations", "initializers", "regularizers", "constraints", "losses",
    "metrics", "optimizers", "schedules", "callbacks", "functions",
)
_COMPILE_KEYS = (
    "optimizer", "loss", "metrics", "loss_weights", "weighted_metrics",
    "run_eagerly", "steps_per_execution", "jit_compile",
)


def _base_classes() -> list[tuple[str, type]]:
    from tfkit import callbacks, constraints, initializers, losses, metrics, optimizers, regularizers
    from tfkit.engine.layer import Layer

    return [
        ("layers", Layer),
        ("initializers", initializers.Initializer),
        ("regularizers", regularizers.Regularizer),
        ("constraints", constraints.Constraint),
        ("losses", losses.Loss),
        ("metrics", metrics.Metric),
        ("optimizers", optimizers.Optimizer),
        ("schedules", optimizers.LearningRateSchedule),
        ("callbacks", callbacks.Callback),
    ]


def kind_of(obj: Any) -> str | None:
    """The registry kind of an object or class (``"layers"``, ``"losses"``, ...), if known."""
    cls = obj if isinstance(obj, type) else type(obj)
    for kind, base in _base_classes():
        if issubclass(cls, base):
            return kind
    return None


def _function_name(fn: Any) -> str:
    """The name a function is saved under: registered, built-in, or its own (loading then needs it by that name)."""
    registered = registry.registered_name(fn)
    if registered is not None:
        return registered
    for kind in ("activations", "functions"):
        if registry.is_builtin(kind, fn):
            return fn.__name__
    return registry.name_for("functions", fn)   # a lambda has no name: refused, with what to do


def serialize(obj: Any) -> Any:
    """Plain, JSON-able data for ``obj``.

    ``None``, numbers, strings and lists/dicts of them are returned as they
    are; functions become their registered name; objects (layers, models,
    initializers, regularizers, constraints, losses, metrics, optimizers,
    schedules, callbacks) become ``{"class_name", "config", "kind"}``.
    """
    if obj is None or isinstance(obj, (bool, numbers.Number, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize(item) for item in obj]
    if isinstance(obj, dict):
        return {str(key): serialize(value) for key, value in obj.items()}
    kind = kind_of(obj)
    if kind is None and (isinstance(obj, type) or callable(obj) and not hasattr(obj, "get_config")):
        return _function_name(obj)
    if isinstance(obj, type):
        return registry.name_for(kind, obj)
    if not hasattr(obj, "get_config"):
        raise ValueError(f"{type(obj).__name__} object has no get_config() and cannot be serialized")
    if kind == "layers":
        return {**layer_entry(obj), "kind": kind}
    entry = registry.serialized_class(kind or "functions", type(obj))
    config = serialize_config_values(obj.get_config())
    out = {"module": entry["module"], "class_name": entry["class_name"], "config": config,
           "registered_name": entry["registered_name"]}
    if kind is not None:
        out["kind"] = kind
    return out


def layer_entry(layer: Any) -> dict[str, Any]:
    """A layer as Keras 3 writes one: ``{"module", "class_name", "config", "registered_name"}``.

    The config is the layer's ``get_config()`` with any objects in it (layers,
    initializers, regularizers, constraints, functions) turned into data.
    """
    from tfkit.engine.config_capture import to_plain

    entry = registry.serialized_class("layers", type(layer))
    raw = layer.get_config()
    if not isinstance(raw, dict):
        raise TypeError(f"{type(layer).__name__}.get_config() of layer '{layer.name}' must return a dict, "
                        f"got {type(raw).__name__}")
    config = serialize_config_values(to_plain(raw))
    out = {"module": entry["module"], "class_name": entry["class_name"], "config": config,
           "registered_name": entry["registered_name"]}
    if "name" not in config:
        out["name"] = layer.name   # a get_config() returning only its own arguments: the name rides beside it
    return out


def serialize_config_values(value: Any) -> Any:
    """Objects inside a config (a custom ``get_config()`` may return them) as serialized dicts."""
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, numbers.Number) and hasattr(value, "item"):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [serialize_config_values(item) for item in value]
    if isinstance(value, dict):
        return {str(key): serialize_config_values(item) for key, item in value.items()}
    try:
        import tensorflow as tf

        if isinstance(value, tf.DType):
            return value.name
        if isinstance(value, tf.TensorShape):
            return value.as_list() if value.rank is not None else None
    except ImportError:  # pragma: no cover
        pass
    if kind_of(value) is None and not isinstance(value, type) and callable(value) and not hasattr(value, "get_config"):
        name = _function_name(value)
        return {"module": getattr(value, "__module__", None), "class_name": "function", "config": name,
                "registered_name": name}
    return serialize(value)


def revive_config_values(value: Any, custom_objects: Mapping[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize_config_values`: serialized objects in a config become objects again."""
    if isinstance(value, list):
        return [revive_config_values(item, custom_objects) for item in value]
    if not isinstance(value, dict):
        return value
    if _is_serialized_object(value):
        if value["class_name"] == "function":
            name = value.get("registered_name") or value.get("config")
            for kind in ("activations", "functions"):
                try:
                    return registry.lookup(kind, name, custom_objects)
                except ValueError:
                    continue
            return registry.lookup("functions", name, custom_objects)  # the detailed error
        return deserialize(value, custom_objects, kind=value.get("kind"))
    return {key: revive_config_values(item, custom_objects) for key, item in value.items()}


def _is_serialized_object(value: dict) -> bool:
    return isinstance(value.get("class_name"), str) and "config" in value \
        and bool({"module", "registered_name", "kind"} & set(value)) \
        and set(value) <= {"module", "class_name", "config", "registered_name", "kind", "name", "build_config"}


def _kinds_for(name: str, custom_objects: Mapping[str, Any] | None, registered_name: Any = None,
               module: Any = None) -> list[str]:
    found = []
    for kind in _SEARCH_ORDER:
        try:
            registry.lookup(kind, name, custom_objects, registered_name, module)
        except ValueError:
            continue
        found.append(kind)
    return found


def deserialize(
    config: Any,
    custom_objects: Mapping[str, Any] | None = None,
    safe_mode: bool = True,
    kind: str | None = None,
) -> Any:
    """Inverse of :func:`serialize`: rebuild an object from plain data.

    ``kind`` ("layers", "losses", ...) picks the registry table; without it,
    a dict's ``"kind"`` entry is used, else the one table that knows the name
    (an ambiguous name such as ``"mse"`` asks for ``kind=``).

    ``safe_mode`` is accepted for compatibility and must be a bool; tfkit has
    no unsafe path at all: a config holding code (marshalled bytecode,
    Keras's ``"__lambda__"`` objects) is refused even with
    ``safe_mode=False``, and names are never resolved by importing modules.
    """
    if not isinstance(safe_mode, bool):
        raise ValueError(f"safe_mode must be True or False, got {safe_mode!r}")
    if config is None:
        return None
    check_config(config, "config")
    if isinstance(config, (bool, numbers.Number)):
        return config
    if isinstance(config, list):
        return [deserialize(item, custom_objects, safe_mode, kind) for item in config]
    if isinstance(config, dict) and "class_name" not in config:
        return {key: deserialize(value, custom_objects, safe_mode, kind) for key, value in config.items()}
    registered_name = module = None
    if isinstance(config, dict):
        name = config["class_name"]
        registered_name, module = config.get("registered_name"), config.get("module")
        kind = kind or config.get("kind")
        config = {key: value for key, value in config.items() if key != "kind"}
    elif isinstance(config, str):
        name = config
    else:
        raise ValueError(f"Cannot deserialize {type(config).__name__}: expected a name or a config dict")
    if kind is None:
        kinds = _kinds_for(name, custom_objects, registered_name, module)
        if not kinds:
            registry.lookup("layers", name, custom_objects, registered_name, module)  # the detailed error
        objects = {id(registry.lookup(k, name, custom_objects, registered_name, module)) for k in kinds}
        if len(objects) > 1:
            raise ValueError(f"{name!r} names different objects in {kinds}; pass kind= to choose one")
        kind = kinds[0]
    if kind not in registry.KINDS:
        raise ValueError(f"Unknown kind {kind!r}; expected one of {', '.join(registry.KINDS)}")
    with registry.custom_object_scope(custom_objects or {}):
        if kind == "layers" and isinstance(config, dict):
            return _deserialize_layer(config, custom_objects)
        if kind == "optimizers" and isinstance(config, dict):
            from tfkit import optimizers

            return optimizers.deserialize(config, custom_objects)
        return registry.resolve(kind, config, custom_objects)


def _deserialize_layer(config: dict, custom_objects: Mapping[str, Any] | None) -> Any:
    from tfkit.engine.layer import Layer
    from tfkit.models.model import Model
    from tfkit.models import model_from_config

    cls = registry.lookup("layers", config["class_name"], custom_objects, config.get("registered_name"),
                          config.get("module"))
    if isinstance(cls, type) and issubclass(cls, Model):
        return model_from_config(config, custom_objects)
    if not (isinstance(cls, type) and issubclass(cls, Layer)):
        raise ValueError(f"{config['class_name']!r} is not a layer class")
    inner = config.get("config") or {}
    if not isinstance(inner, dict):
        raise ValueError(f"The config of layer {config['class_name']!r} must be a dict, got {type(inner).__name__}")
    if isinstance(config.get("name"), str) and "name" not in inner:
        inner = {**inner, "name": config["name"]}
    return cls.from_config(inner)


# ----------------------------------------------------------- compile config

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
            return registry.lookup("functions", value, custom_objects)   # a user's function, saved by name
        except ValueError:
            if kind == "losses":
                raise
            return value   # a metric alias compile() knows ("acc")
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


def compile_config(model: Any) -> dict[str, Any] | None:
    """The arguments of ``model.compile`` as plain data; ``None`` when not compiled.

    When a loss or metric cannot be saved (an unregistered function), this
    warns and returns ``None``: the model is saved uncompiled.
    """
    trainer = getattr(model, "_tfkit_trainer", None)
    if trainer is None or getattr(trainer, "_implicit", False):
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
            f"Model '{model.name}' is saved without its compile configuration (optimizer state "
            f"included): {error}", stacklevel=3,
        )
        return None
    return out


def compile_arguments(config: Any, custom_objects: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Keyword arguments for ``model.compile`` rebuilt from :func:`compile_config`'s data."""
    if not isinstance(config, dict):
        raise ValueError(f"compile_config must be a dict, got {type(config).__name__}")
    check_config(config, "compile_config")
    unknown = sorted(set(config) - set(_COMPILE_KEYS))
    if unknown:
        raise ValueError(f"compile_config has unknown entries {unknown}; expected {list(_COMPILE_KEYS)}")
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
