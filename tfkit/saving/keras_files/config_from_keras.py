"""Keras 3 and tf-keras model configs rewritten as tfkit configs, with a report of what did not map.

    report = ImportReport("model.keras")
    config = translate_model_config(keras_config, report, custom_objects)
    model = tfkit.models.model_from_config(config, custom_objects)

The formats are close: tfkit writes Keras 3's ``module`` / ``class_name`` /
``config`` / ``registered_name`` objects. What differs is rewritten here, as
data, and never by running anything from the file:

- tensor references in functional graphs (Keras 3's ``__keras_tensor__``
  objects, tf-keras's ``[[name, node, index, kwargs]]`` lists);
- tf-keras names (``batch_input_shape``, ``Model``);
- operation nodes (``x + y``, ``x[:, 0]``, ``keras.ops.sum(x)`` in a Keras 3
  graph, module ``keras.src.ops...``), which become ``TFOpLambda`` layers
  calling ``tfkit.ops`` (``operation_nodes``);
- Keras's value objects (``__numpy__``, ``__tensor__``, ``__bytes__``,
  ``__slice__``, ``__tuple__``: ``config_values``), which become values;
- a ``Lambda``'s named function (``{"class_name": "function", "config":
  "double"}``), which becomes its name, found through ``custom_objects`` and
  the registry; an adapted ``Discretization``'s ``num_bins`` (Keras writes it
  beside the bins ``adapt`` found), left out;
- arguments tfkit's classes do not take: left out when they hold a default
  (``None``/``False``), reported otherwise.

Classes are resolved by name only (tfkit's built-ins, then ``custom_objects``
and the registry); ``module`` values are never imported. Code in a config
(Lambda bytecode, ``__lambda__`` objects) is refused, whatever ``safe_mode`` says.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Mapping

from tfkit.base import registry
from tfkit.engine.config_capture import BASE_KEYS
from tfkit.engine.naming import to_snake_case  # lookup paths, as weights_layout.keras3_layer_paths names them
from tfkit.saving.keras_files import operation_nodes
from tfkit.saving.keras_files.config_values import plain_values
from tfkit.saving.model_kinds import graph_model_kind

# Keras 3 modules of serialized objects -> tfkit registry kinds.
_KINDS = {
    "keras.layers": "layers",
    "keras.initializers": "initializers",
    "keras.regularizers": "regularizers",
    "keras.constraints": "constraints",
    "keras.optimizers": "optimizers",
    "keras.losses": "losses",
    "keras.metrics": "metrics",
    "keras.optimizers.schedules": "schedules",
}
_MODEL_CLASSES = {"Functional", "Model", "Sequential"}
# Keras 3's dtype policies: data that tfkit's dtype policies read (never looked up as classes).
_POLICIES = {
    "DTypePolicy",
    "FloatDTypePolicy",
    "Policy",
    "DTypePolicyMap",
    "QuantizedDTypePolicy",
    "QuantizedFloat8DTypePolicy",
    "Int4DTypePolicy",
    "GPTQDTypePolicy",
    "AWQDTypePolicy",
}


@dataclass
class ImportReport:
    """What an import of a Keras file left out or could not map, one line each."""

    source: str
    unmapped: list[str] = field(default_factory=list)

    def add(self, line: str) -> None:
        if line not in self.unmapped:
            self.unmapped.append(line)

    def __str__(self) -> str:
        if not self.unmapped:
            return f"{self.source}: everything mapped to tfkit"
        return f"{self.source}: {len(self.unmapped)} thing(s) did not map to tfkit:\n" + "\n".join(
            f"  - {line}" for line in self.unmapped
        )


def translate_model_config(config: Any, report: ImportReport, custom_objects: Mapping[str, Any] | None) -> Any:
    """The model config (``{"class_name", "config"}``) in tfkit's form."""
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise ValueError(f"{report.source}: the model config must be an object with a class_name")
    config = plain_values(config, f"{report.source}: model config")  # __numpy__, __bytes__, ...: values
    return translate_object(_tensor_references(config, report.source), report, custom_objects, "model", "layers")


def _tensor_references(value: Any, source: str) -> Any:
    """Keras 3 ``__keras_tensor__`` objects -> ``{"__tensor__": [layer, node, index]}``."""
    if isinstance(value, list):
        return [_tensor_references(item, source) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get("class_name") == "__keras_tensor__":
        inner = value.get("config")
        history = inner.get("keras_history") if isinstance(inner, dict) else None
        if not (isinstance(history, list) and len(history) == 3):
            raise ValueError(f"{source}: a Keras tensor reference without a valid keras_history: {str(value)[:200]}")
        return {"__tensor__": history}
    return {key: _tensor_references(item, source) for key, item in value.items()}


def entry_kind(entry: dict, default: str) -> str:
    module = entry.get("module")
    if isinstance(module, str):
        if module in _KINDS:
            return _KINDS[module]
        if module.startswith("keras.src.ops") or module.startswith("keras.ops"):
            return "operation"
    return default


def translate_object(
    entry: dict, report: ImportReport, custom_objects: Mapping[str, Any] | None, where: str, kind: str
) -> dict:
    class_name = entry.get("class_name")
    if not isinstance(class_name, str):
        raise ValueError(
            f"{report.source}: {where} has class_name {str(class_name)[:80]!r} "
            f"({type(class_name).__name__}); expected the name of a class, a string"
        )
    if class_name == "Model":
        class_name = "Functional"  # tf-keras's name for a functional model
    if kind == "optimizers" and class_name.startswith("Custom>") and "module" not in entry:
        class_name = class_name[len("Custom>") :]  # tf-keras 2.11+ optimizers: "Custom>Adam"
    inner = entry.get("config")
    out = {key: value for key, value in entry.items() if key not in ("config", "build_config", "compile_config")}
    out["class_name"] = class_name
    module = entry.get("module")
    if isinstance(module, str) and (module == "keras" or module.startswith("keras.")):
        out["module"] = "tfkit" + module[len("keras") :]  # Keras's own classes map to tfkit's by name
    if class_name in _MODEL_CLASSES and isinstance(inner, dict):
        out["config"] = _model_config(class_name, inner, report, custom_objects, where)
        return out
    if class_name in _POLICIES or not isinstance(inner, dict):
        out["config"] = inner
        return out
    cls = _resolve(kind, class_name, out, custom_objects)
    graph = graph_model_kind(cls, inner)
    if graph is not None:  # a subclass of Model saved as its graph (``MaskedLanguageModel(inputs, outputs)``)
        out["config"] = _model_config(graph, inner, report, custom_objects, where)
        return out
    out["config"] = _arguments(cls, class_name, inner, report, custom_objects, where)
    return out


def _resolve(kind: str, class_name: str, entry: dict, custom_objects: Mapping[str, Any] | None) -> Any:
    try:
        return registry.lookup(kind, class_name, custom_objects, entry.get("registered_name"), entry.get("module"))
    except ValueError:
        return None  # model_from_config gives the clear error later


def _model_config(
    class_name: str, config: dict, report: ImportReport, custom_objects: Mapping[str, Any] | None, where: str
) -> dict:
    out = {key: value for key, value in config.items() if key not in ("layers", "build_input_shape")}
    for key in ("input_layers", "output_layers"):
        if key in out:
            out[key] = _node_list(out[key])
    layers = []
    entries = config.get("layers") or []
    if not isinstance(entries, list):
        raise ValueError(f"{report.source}: {where} has layers of type {type(entries).__name__}, not a list")
    for index, layer in enumerate(entries):
        if not isinstance(layer, dict) or not isinstance(layer.get("class_name"), str):
            raise ValueError(f"{report.source}: {where} layer {index} is not an object with a class_name")
        name = (layer.get("config") or {}).get("name") if isinstance(layer.get("config"), dict) else None
        label = f"{where}/{name or index}"
        if entry_kind(layer, "layers") == "operation":
            layers.append(operation_nodes.tfkit_entry_from_keras(layer, report.source, label))
            continue
        translated = translate_object(layer, report, custom_objects, label, "layers")
        if "inbound_nodes" in layer:
            if not isinstance(layer["inbound_nodes"], list):
                raise ValueError(f"{report.source}: {label} has inbound_nodes that are not a list")
            translated["inbound_nodes"] = [_node(node, report, label) for node in layer["inbound_nodes"]]
        layers.append(translated)
    out["layers"] = layers
    if class_name == "Sequential" and layers and layers[0]["class_name"] != "InputLayer":
        shape = config.get("build_input_shape")
        first = layers[0].get("config")
        if isinstance(shape, list) and isinstance(first, dict) and "batch_shape" not in first:
            layers[0]["config"].setdefault("batch_input_shape", shape)
            layers[0]["config"] = _input_shape_argument(layers[0]["config"])
    return out


def _node_list(value: Any) -> Any:
    """``[[name, 0, 0]]`` (tf-keras, one input) -> ``[name, 0, 0]``; several stay a list of lists."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        return value[0]
    return value


def _node(node: Any, report: ImportReport, where: str) -> Any:
    """One inbound node in tfkit's ``{"args": [...], "kwargs": {...}}`` form."""
    if isinstance(node, dict):  # Keras 3: already args/kwargs (references rewritten)
        kwargs = node.get("kwargs")
        if isinstance(kwargs, dict) and "training" in kwargs:
            # Keras records each layer's training default (Dropout False, RandomFlip True) and overrides it with
            # the model's training when that is set (fit, predict): the layer takes the model's, as in Keras
            node = {**node, "kwargs": {key: value for key, value in kwargs.items() if key != "training"}}
        return node
    if not isinstance(node, list) or not all(isinstance(ref, list) and len(ref) >= 3 for ref in node):
        raise ValueError(f"{report.source}: {where} has an inbound node tfkit cannot read: {str(node)[:200]}")
    tensors = [{"__tensor__": ref[:3]} for ref in node]  # tf-keras: [[name, node, index, kwargs], ...]
    kwargs = node[0][3] if len(node[0]) > 3 and isinstance(node[0][3], dict) else {}
    if kwargs:
        report.add(f"{where}: call arguments {sorted(kwargs)} of a tf-keras node are not rebuilt")
    return {"args": [tensors[0] if len(tensors) == 1 else tensors], "kwargs": {}}


def _input_shape_argument(config: dict) -> dict:
    config = dict(config)
    batch = config.pop("batch_input_shape", None)
    if isinstance(batch, list) and batch:
        config.setdefault("input_shape", batch[1:])
    return config


def _accepted(cls: Any) -> set[str] | None:
    """Constructor arguments of ``cls`` (through ``**kwargs`` to its bases); None when anything goes."""
    names: set[str] = set()
    for klass in getattr(cls, "__mro__", ()):
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            parameters = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            return None
        names.update(p.name for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            return names
    return None


# Keras arguments that only matter when another one is set (BatchNormalization's renorm_* without renorm).
_ONLY_WITH = {"renorm_clipping": "renorm", "renorm_momentum": "renorm"}


# Keras arguments that hold what tfkit does anyway: Keras 3's lookups write their (derived) vocabulary size,
# their default out-of-vocabulary hashing and their key dtype.
_KERAS_DEFAULTS = {"oov_method": ("floormod",), "vocabulary_dtype": ("int64", "string")}
_DERIVED = {"vocabulary_size"}


def _default_like(value: Any, key: str = "") -> bool:
    return (
        value is None
        or value is False
        or value == []
        or value == {}
        or key in _DERIVED
        or value in _KERAS_DEFAULTS.get(key, ())
    )


def _arguments(
    cls: Any, class_name: str, config: dict, report: ImportReport, custom_objects: Mapping[str, Any] | None, where: str
) -> dict:
    config = (
        _input_shape_argument(config) if "batch_input_shape" in config and class_name != "InputLayer" else dict(config)
    )
    if class_name == "InputLayer" and "batch_input_shape" in config:
        config["batch_shape"] = config.pop("batch_input_shape")
    config.pop("shared_object_id", None)
    if class_name == "BatchNormalization" and isinstance(config.get("axis"), list) and len(config["axis"]) == 1:
        config["axis"] = config["axis"][0]  # tf-keras writes the resolved axis as a list
    if class_name == "Lambda":
        _lambda_functions(config, f"{report.source}: {where}")
    elif class_name == "Discretization" and config.get("bin_boundaries") is not None:
        config.pop("num_bins", None)  # adapted: Keras writes both; its from_config keeps the bins
    for key, value in list(config.items()):  # nested objects: initializers, regularizers, layers ...
        if isinstance(value, dict) and isinstance(value.get("class_name"), str):
            if value["class_name"] in _POLICIES:
                config[key] = {k: v for k, v in value.items() if k != "shared_object_id"}
            else:
                config[key] = translate_object(
                    value, report, custom_objects, f"{where}.{key}", entry_kind(value, _guess_kind(key))
                )
        elif (
            isinstance(value, list)
            and value
            and all(isinstance(item, dict) and isinstance(item.get("class_name"), str) for item in value)
        ):
            config[key] = [
                translate_object(item, report, custom_objects, f"{where}.{key}[{i}]", entry_kind(item, "layers"))
                for i, item in enumerate(value)
            ]
    accepted = _accepted(cls) if cls is not None else None
    if accepted is None:
        return config
    for key in [key for key in config if key not in accepted and key not in BASE_KEYS]:  # Layer.from_config sets these
        value = config.pop(key)
        if not _default_like(value, key) and not (key in _ONLY_WITH and not config.get(_ONLY_WITH[key])):
            report.add(f"{where} ({class_name}): argument {key}={str(value)[:80]} has no tfkit equivalent; left out")
    return config


def _lambda_functions(config: dict, where: str) -> None:
    """A ``Lambda``'s function (and output_shape / mask functions) by name, as tfkit's ``Lambda`` reads them.

    Keras 3 writes a named function as ``{"class_name": "function", "config": "my_pkg>double"}``; tf-keras as
    ``"function": "double"`` with ``"function_type": "function"``. Bytecode (a saved ``lambda``) is refused."""
    for key in ("function", "output_shape", "mask"):
        kind = config.pop(f"{key}_type" if key != "function" else "function_type", None)
        config.pop(f"{key}_module" if key != "function" else "module", None)
        value = config.get(key)
        if kind == "lambda":
            raise ValueError(
                f"{where}.{key}: a function saved as code (tf-keras writes every function of a Lambda "
                f"as Python bytecode), and tfkit never loads code from a file, not even with "
                f"safe_mode=False. Build the model in code, with tfkit.layers.Lambda(your_function), and "
                f"load this file's weights into it with model.load_weights(path)."
            )
        if isinstance(value, dict) and value.get("class_name") == "function" and isinstance(value.get("config"), str):
            config[key] = value["config"]


def _guess_kind(key: str) -> str:
    for suffix, kind in (
        ("initializer", "initializers"),
        ("regularizer", "regularizers"),
        ("constraint", "constraints"),
        ("layer", "layers"),
        ("cell", "layers"),
    ):
        if key.endswith(suffix) or key == suffix:
            return kind
    return "layers"


_LOOKUPS = ("StringLookup", "IntegerLookup", "TextVectorization")
_MODELS = ("Functional", "Model", "Sequential")


def lookup_layer_configs(config: Any, prefix: str = "") -> list[tuple[str, dict]]:
    """``(path, layer config)`` of every lookup layer (StringLookup, IntegerLookup, TextVectorization) in a Keras 3
    model config, by the path Keras 3 saves it under (``string_lookup``, ``functional/layers/text_vectorization_1``:
    the ``<path>`` of ``assets/layers/<path>/vocabulary.txt`` and ``layers/<path>/vars/idf_weights``). A model's
    layers are keyed by class in layer order; a Sequential's input layer is not one of its layers."""
    found: list[tuple[str, dict]] = []
    if not isinstance(config, dict):
        return found
    sequential = config.get("class_name") == "Sequential"
    layers = (config.get("config") or {}).get("layers") if isinstance(config.get("config"), dict) else None
    counts: dict[str, int] = {}
    for layer in layers if isinstance(layers, list) else []:
        if not isinstance(layer, dict) or not isinstance(layer.get("class_name"), str):
            continue
        name = layer["class_name"]
        if sequential and name == "InputLayer":
            continue
        base = to_snake_case(name)
        key = base if counts.get(base, 0) == 0 else f"{base}_{counts[base]}"
        counts[base] = counts.get(base, 0) + 1
        if name in _LOOKUPS and isinstance(layer.get("config"), dict):
            found.append((prefix + key, layer["config"]))
        elif (
            name in _MODELS or isinstance(layer.get("config"), dict) and isinstance(layer["config"].get("layers"), list)
        ):
            found += lookup_layer_configs(layer, f"{prefix}{key}/layers/")
    return found
