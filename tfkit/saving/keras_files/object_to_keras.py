"""tfkit's serialized objects in Keras 3's terms: the module and class a ``.keras`` config names, the arguments it holds.

    entry = keras_object(layer_entry(dense), "layers", "model/dense")   # {"module": "keras.layers", ...}
    value = keras_value(config_value, "kernel_initializer", "model/dense.kernel_initializer")

tfkit writes configs in Keras 3's shape already (``module`` / ``class_name`` /
``config`` / ``registered_name``); for Keras to rebuild one, a built-in must
name the Keras module that has the class (``keras.layers``,
``keras.src.applications.convnext``), every nested object must carry its
module too, and the config may hold only arguments Keras's constructor takes.
Both come from ``keras_classes_table`` (generated from Keras itself). A
tfkit-only argument left at its default (``None``, ``False``, empty) is left
out, as Keras would not pass it either; any other is refused, as is a tfkit
built-in Keras does not have, with the path of the object and what to do.
(tfkit's own default counts as a default: ``trainable=True`` on a layer whose
Keras class does not take the argument.)
Custom classes keep their own module and registered name (``package>Name``):
Keras finds them in its registry, or in ``custom_objects``.
"""

from __future__ import annotations

import inspect
from typing import Any

from tfkit import config as config_module
from tfkit.base import registry
from tfkit.saving.keras_files.keras_classes_table import CLASSES, KERAS_VERSION

# A nested object's family, from the config key that holds it (``kernel_initializer`` -> initializers).
_KEY_KINDS = (
    ("initializer", "initializers"),
    ("regularizer", "regularizers"),
    ("constraint", "constraints"),
    ("optimizer", "optimizers"),
    ("loss", "losses"),
    ("metric", "metrics"),
    ("metrics", "metrics"),
    ("learning_rate", "schedules"),
    ("layer", "layers"),
    ("layers", "layers"),
    ("cell", "layers"),
    ("cells", "layers"),
    ("quantization_config", "quantizers"),
    ("quantizer", "quantizers"),
)
_SEARCH = (
    "layers",
    "initializers",
    "regularizers",
    "constraints",
    "optimizers",
    "schedules",
    "losses",
    "metrics",
    "quantizers",
)
_POLICIES = {
    "DTypePolicy": "keras",
    "FloatDTypePolicy": "keras.dtype_policies",
    "QuantizedDTypePolicy": "keras.dtype_policies",
    "QuantizedFloat8DTypePolicy": "keras.dtype_policies",
    "DTypePolicyMap": "keras.dtype_policies",
    "Int4DTypePolicy": "keras.dtype_policies",
}
ADVICE = "or save the model as .h5 (tfkit's own format, which keeps everything)"


_ORDER = (
    "module",
    "class_name",
    "config",
    "registered_name",
    "build_config",
    "compile_config",
    "name",
    "inbound_nodes",
)


def ordered(entry: dict) -> dict:
    """An entry's keys in the order Keras 3 writes them (``module``, ``class_name``, ``config``, ...)."""
    return {
        **{key: entry[key] for key in _ORDER if key in entry},
        **{key: value for key, value in entry.items() if key not in _ORDER},
    }


class NotExpressible(ValueError):
    """Something tfkit holds that a Keras 3 ``.keras`` file cannot say; raised before anything is written."""


def default_like(value: Any) -> bool:
    """Whether an argument Keras's class lacks can be left out: it holds the 'nothing' a default holds."""
    return value is None or value is False or value == [] or value == {} or value == ""


def dtype_policy(value: Any) -> Any:
    """A layer's ``dtype`` as Keras 3 writes it: a ``DTypePolicy`` object (names and ``None`` as they come)."""
    if isinstance(value, str) and "_from_" in value:  # a quantized layer's policy: "int8_from_float32"
        mode, _, source = value.partition("_from_")
        return {
            "module": "keras.dtype_policies",
            "class_name": "Int4DTypePolicy" if mode.startswith("int4/") else "QuantizedDTypePolicy",
            "config": {"mode": mode, "source_name": source},
            "registered_name": None,
        }
    if isinstance(value, str):
        return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": value}, "registered_name": None}
    if isinstance(value, dict) and value.get("class_name") in _POLICIES:
        return {
            "module": _POLICIES[value["class_name"]],
            "class_name": value["class_name"],
            "config": keras_value(value.get("config"), "config", "dtype"),
            "registered_name": None,
        }
    return value


def _is_object(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("class_name"), str) and "config" in value


def _kind(entry: dict, key: str) -> str | None:
    if isinstance(entry.get("kind"), str):
        return entry["kind"]
    for suffix, kind in _KEY_KINDS:
        if key == suffix or key.endswith("_" + suffix):
            return kind
    return None


def _resolve(entry: dict, kind: str | None) -> tuple[str, Any]:
    """``(kind, tfkit object)`` the entry names; ``ValueError`` if tfkit does not know it."""
    kinds = ([kind] if kind else []) + [k for k in _SEARCH if k != kind]  # the key's family first
    for candidate in kinds:
        try:
            return candidate, registry.lookup(
                candidate, entry["class_name"], None, entry.get("registered_name"), entry.get("module")
            )
        except ValueError:
            continue
    raise ValueError(f"{entry['class_name']!r} names no tfkit {kind or 'object'}")


_ALIASES: dict[str, dict[int, list[str]]] = {}


def _builtin_names(kind: str, obj: Any) -> list[str]:
    """Every name tfkit's built-in table has ``obj`` under (``GroupedQueryAttention``, ``GroupQueryAttention``)."""
    if kind not in _ALIASES:
        table: dict[int, list[str]] = {}
        for name in registry.builtin_names(kind):
            table.setdefault(id(registry.lookup(kind, name)), []).append(name)
        _ALIASES[kind] = table
    return _ALIASES[kind].get(id(obj), [])


def keras_name(kind: str, obj: Any, tfkit_name: str) -> tuple[str, str] | None:
    """``(module, class name)`` of Keras 3's counterpart of tfkit's built-in ``obj``, or None if it has none."""
    known = CLASSES.get(kind, {})
    for name in [tfkit_name, *_builtin_names(kind, obj)]:
        if name in known:
            return known[name][0], name
    return None


def keras_object(entry: dict, kind: str | None, where: str) -> dict:
    """One serialized object (a layer entry, an initializer, an optimizer, ...) in Keras 3's form."""
    class_name = entry["class_name"]
    if entry.get("config_missing") is not None:
        raise NotExpressible(
            f"'{where}' ({class_name}) has no config (its get_config() cannot be captured), so "
            f"no .keras file can rebuild it: implement get_config(), {ADVICE}"
        )
    if class_name in _POLICIES:
        return dtype_policy(entry)
    if class_name == "function":  # a custom function, by its registered name
        return {key: entry.get(key) for key in ("module", "class_name", "config", "registered_name")}
    try:
        kind, obj = _resolve(entry, kind)
    except ValueError:  # not registered: a custom class Keras finds through custom_objects, as tfkit
        kind, obj = kind or "layers", None
    out = {key: value for key, value in entry.items() if key not in ("kind", "config", "build_config")}
    config = entry.get("config")
    if isinstance(config, dict):
        config = {key: keras_value(value, key, f"{where}.{key}") for key, value in config.items()}
    if obj is None or not registry.is_builtin(kind, obj):
        out.update(
            module=entry.get("module") or getattr(obj, "__module__", None),
            class_name=class_name,
            registered_name=entry.get("registered_name") or class_name,
            config=config,
        )
        return ordered(out)
    found = keras_name(kind, obj, class_name)
    if found is None:
        raise NotExpressible(
            f"'{where}' is tfkit's {class_name}, which Keras {KERAS_VERSION} does not have, so "
            f"Keras could not load the file: replace it with Keras's equivalent, {ADVICE}"
        )
    module, name = found
    if isinstance(config, dict):
        config = check_arguments(kind, name, config, where, obj)
    out.update(module=module, class_name=name, registered_name=None, config=config)
    return ordered(out)


_NO_DEFAULT = object()


def tfkit_default(cls: Any, key: str) -> Any:
    """The default of argument ``key`` of ``cls``'s constructor (or of the base its ``**kwargs`` reach)."""
    for klass in getattr(cls, "__mro__", ()):
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            parameter = inspect.signature(init).parameters.get(key)
        except (TypeError, ValueError):
            return _NO_DEFAULT
        if parameter is not None:
            return parameter.default if parameter.default is not parameter.empty else _NO_DEFAULT
    return _NO_DEFAULT


def check_arguments(kind: str, keras_class: str, config: dict, where: str, cls: Any = None) -> dict:
    """``config`` with only the arguments Keras's ``keras_class`` takes: others left out if they hold a default
    (nothing, or ``cls``'s own default: ``trainable=True``), else :class:`NotExpressible`."""
    accepted = set(CLASSES[kind][keras_class][1])
    out = {}
    for key, value in config.items():
        if key in accepted:
            out[key] = value
        elif key == "dtype" and value == config_module.dtype_policy().name:
            continue  # the policy a layer Keras builds without a dtype takes (a Pipeline's, say): nothing lost
        elif not default_like(value) and not _equal(value, tfkit_default(cls, key)):
            raise NotExpressible(
                f"'{where}' ({keras_class}) has {key}={str(value)[:80]}, an argument Keras's "
                f"{keras_class} does not take, so Keras could not rebuild it: leave it at its "
                f"default, {ADVICE}"
            )
    return out


def _equal(value: Any, default: Any) -> bool:
    try:
        return default is not _NO_DEFAULT and type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):
        return False


def registered_function(value: Any) -> dict | None:
    """A custom function tfkit stores by its registered name (``"zoo>double"``) as Keras 3 writes one, else None.

    Keras resolves ``activations.get("zoo>double")`` only from such an object, never from the bare name.
    """
    if not isinstance(value, str) or ">" not in value:
        return None
    if not inspect.isfunction(registry.registered_object(value)):
        return None
    return {"module": "builtins", "class_name": "function", "config": value, "registered_name": "function"}


def keras_value(value: Any, key: str, where: str) -> Any:
    """A config value with every serialized object in it converted by :func:`keras_object`."""
    if isinstance(value, list):
        return [keras_value(item, key, f"{where}[{i}]") for i, item in enumerate(value)]
    function = registered_function(value)
    if function is not None:
        return function
    if not isinstance(value, dict):
        return value
    if _is_object(value):
        return keras_object(value, _kind(value, key), where)
    return {k: keras_value(item, k, f"{where}.{k}") for k, item in value.items()}
