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
module is imported, no code is evaluated. Which kind an object is comes from
the base class its family registered (``registry.base``): this module imports
no family. A model's compile arguments are serialized by
``tfkit.training.compile_serialization``.
"""

from __future__ import annotations

import inspect
import numbers
from typing import Any, Mapping

import tensorflow as tf

from tfkit.base import dtype_policy, registry
from tfkit.base import dtype_policy_quantized as quantized_policies
from tfkit.base import safe_mode as safe_mode_state
from tfkit.engine.config_capture import to_plain
from tfkit.engine.config_safety import check_config

# Searched in this order when a config does not say its kind.
_SEARCH_ORDER = (
    "layers",
    "activations",
    "initializers",
    "regularizers",
    "constraints",
    "losses",
    "metrics",
    "optimizers",
    "schedules",
    "callbacks",
    "functions",
)


def kind_of(obj: Any) -> str | None:
    """The registry kind of an object or class (``"layers"``, ``"losses"``, ...), if known."""
    return registry.kind_of(obj)


def _function_name(fn: Any) -> str:
    """The name a function is saved under: registered, built-in, or its own (loading then needs it by that name)."""
    registered = registry.registered_name(fn)
    if registered is not None:
        return registered
    for kind in ("activations", "functions"):
        if registry.is_builtin(kind, fn):
            return fn.__name__
    return registry.name_for("functions", fn)  # a lambda has no name: refused, with what to do


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
    out = {
        "module": entry["module"],
        "class_name": entry["class_name"],
        "config": config,
        "registered_name": entry["registered_name"],
    }
    if kind is not None:
        out["kind"] = kind
    return out


def layer_entry(layer: Any) -> dict[str, Any]:
    """A layer as Keras 3 writes one: ``{"module", "class_name", "config", "registered_name"}``.

    The config is the layer's ``get_config()`` with any objects in it (layers,
    initializers, regularizers, constraints, functions) turned into data.
    """
    entry = registry.serialized_class("layers", type(layer))
    raw = layer.get_config()
    if not isinstance(raw, dict):
        raise TypeError(
            f"{type(layer).__name__}.get_config() of layer '{layer.name}' must return a dict, got {type(raw).__name__}"
        )
    config = serialize_config_values(to_plain(raw))
    out = {
        "module": entry["module"],
        "class_name": entry["class_name"],
        "config": config,
        "registered_name": entry["registered_name"],
    }
    if "name" not in config:
        out["name"] = layer.name  # a get_config() returning only its own arguments: the name rides beside it
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
    if isinstance(value, tf.DType):
        return value.name
    if isinstance(value, tf.TensorShape):
        return value.as_list() if value.rank is not None else None
    if kind_of(value) is None and not isinstance(value, type) and callable(value) and not hasattr(value, "get_config"):
        name = _function_name(value)
        return {
            "module": getattr(value, "__module__", None),
            "class_name": "function",
            "config": name,
            "registered_name": name,
        }
    return serialize(value)


def revive_config_values(value: Any, custom_objects: Mapping[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize_config_values`: serialized objects in a config become objects again."""
    if isinstance(value, list):
        return [revive_config_values(item, custom_objects) for item in value]
    if not isinstance(value, dict):
        return value
    if _is_serialized_object(value):
        if value["class_name"] in _POLICY_CLASSES and _from_keras_or_tfkit(value.get("module")):
            policy = dtype_policy.get(value)  # as Keras 3's from_config: a float policy by its name
            return policy.name if type(policy) is dtype_policy.DTypePolicy else policy
        if value["class_name"] == "function":
            # Keras 3 names the function in "config" (its "registered_name" is "function" for a plain def)
            name = value["config"] if isinstance(value.get("config"), str) else value.get("registered_name")
            for kind in ("activations", "functions"):
                try:
                    return registry.lookup(kind, name, custom_objects)
                except ValueError:
                    continue
            return registry.lookup("functions", name, custom_objects)  # the detailed error
        return deserialize(value, custom_objects, kind=value.get("kind"))
    return {key: revive_config_values(item, custom_objects) for key, item in value.items()}


# Keras 3's (and tfkit's) serialized dtype policies: revived by tfkit.base.dtype_policy, never looked up as classes.
_POLICY_CLASSES = frozenset(
    {"DTypePolicy", "FloatDTypePolicy", "Policy", "DTypePolicyMap", *quantized_policies.CLASSES}
)


def _from_keras_or_tfkit(module: Any) -> bool:
    return module is None or isinstance(module, str) and module.split(".", 1)[0] in ("keras", "tfkit")


def _is_serialized_object(value: dict) -> bool:
    return (
        isinstance(value.get("class_name"), str)
        and "config" in value
        and bool({"module", "registered_name", "kind"} & set(value))
        and set(value) <= {"module", "class_name", "config", "registered_name", "kind", "name", "build_config"}
    )


def _kinds_for(
    name: str, custom_objects: Mapping[str, Any] | None, registered_name: Any = None, module: Any = None
) -> list[str]:
    found = []
    for kind in _SEARCH_ORDER:
        try:
            registry.lookup(kind, name, custom_objects, registered_name, module)
        except ValueError:
            continue
        found.append(kind)
    return found


def deserialize(
    config: Any, custom_objects: Mapping[str, Any] | None = None, safe_mode: bool = True, kind: str | None = None
) -> Any:
    """Inverse of :func:`serialize`: rebuild an object from plain data.

    ``kind`` ("layers", "losses", ...) picks the registry table; without it,
    a dict's ``"kind"`` entry is used, else the one table that knows the name
    (an ambiguous name such as ``"mse"`` asks for ``kind=``).

    ``safe_mode`` must be a bool; tfkit has no code path at all: a config
    holding code (marshalled bytecode, Keras's ``"__lambda__"`` objects) is
    refused even with ``safe_mode=False``, and names are never resolved by
    importing modules. ``safe_mode=False`` lets a ``TFSMLayer`` load the
    SavedModel folder its config names.
    """
    if not isinstance(safe_mode, bool):
        raise ValueError(f"safe_mode must be True or False, got {safe_mode!r}")
    if not safe_mode and safe_mode_state.in_safe_mode():  # only an explicit False changes it (TFSMLayer reads it)
        with safe_mode_state.scope(False):
            return deserialize(config, custom_objects, safe_mode, kind)
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
            return deserialize_layer(config, custom_objects)
        obj = registry.resolve(kind, config, custom_objects)
    base_class = registry.base_class(kind)
    if isinstance(config, dict) and base_class is not None and not isinstance(obj, base_class):
        raise ValueError(f"{config['class_name']!r} does not name {_A_KIND.get(kind, kind)}; it gave {obj!r}")
    return obj


_A_KIND = {
    "optimizers": "an optimizer",
    "schedules": "a learning-rate schedule",
    "losses": "a loss",
    "metrics": "a metric",
    "callbacks": "a callback",
    "initializers": "an initializer",
    "regularizers": "a regularizer",
    "constraints": "a constraint",
}


def deserialize_layer(
    config: Any, custom_objects: Mapping[str, Any] | None = None, base_class: type | None = None, what: str = "layer"
) -> Any:
    """A layer (or model, with ``base_class=Model``) rebuilt from ``{"class_name", "config", ...}``.

        dense = deserialize_layer({"class_name": "Dense", "config": {"units": 4}})

    The class is found by name in the registry only; a config whose
    ``get_config()`` left out the name gets the entry's ``"name"``; a model
    written without a config says what to implement.
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"A {what} config must be a dict with 'class_name' and 'config', got {str(config)[:200]}")
    missing = config.get("config_missing")
    if missing is not None:  # model.save wrote the weights only: say so before asking for the class
        raise ValueError(missing_config_message(config["class_name"], missing))
    cls = registry.lookup(
        "layers", config["class_name"], custom_objects, config.get("registered_name"), config.get("module")
    )
    base_class = base_class or registry.base_class("layers")
    if not (isinstance(cls, type) and issubclass(cls, base_class)):
        raise ValueError(f"{config['class_name']!r} is not a {what} class")
    inner = config.get("config", {})
    if not isinstance(inner, dict):
        raise ValueError(f"The config of {what} {config['class_name']!r} must be a dict, got {type(inner).__name__}")
    if isinstance(config.get("name"), str) and "name" not in inner:
        inner = {**inner, "name": config["name"]}  # a custom get_config() that left out the name
    with registry.custom_object_scope(custom_objects or {}):
        return _from_config(cls, inner, custom_objects)


def _from_config(cls: type, config: dict[str, Any], custom_objects: Mapping[str, Any] | None) -> Any:
    """``cls.from_config(config)``, passing ``custom_objects`` when its signature takes it."""
    try:
        takes_objects = "custom_objects" in inspect.signature(cls.from_config).parameters
    except (TypeError, ValueError):
        takes_objects = False
    return cls.from_config(config, custom_objects=custom_objects) if takes_objects else cls.from_config(config)


def missing_config_message(class_name: Any, missing: Any) -> str:
    """What to do about a model that ``model.save`` wrote without a config (``missing`` says why)."""
    name = str(class_name)[:100]
    # The reason is text from the file: shown only as printable characters, and short.
    reason = "".join(c for c in missing[:500] if c.isprintable()) if isinstance(missing, str) else "unknown"
    return (
        f"Model class {name!r} was saved without a config, so it cannot be rebuilt: implement get_config() in "
        f"{name} (returning its constructor arguments; from_config() too if {name}(**config) cannot rebuild it) "
        f"and save the model again. To use this file as it is, build the model in code "
        f"(model = {name}(...); call it on a batch) and load the weights it holds with "
        f"model.load_weights(path).\nWhy the config is missing: {reason}"
    )
