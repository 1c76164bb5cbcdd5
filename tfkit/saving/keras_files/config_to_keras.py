"""A tfkit model's ``config.json`` in Keras 3's schema, so ``keras.saving.load_model`` rebuilds it.

    config, vocabularies = keras_model_config(model)   # config.json as data; assets/ for the lookup layers

The model's own config (``serialize_model``) is rewritten as Keras 3 writes
its: every built-in object names the Keras module that has it
(``object_to_keras``), a layer's ``dtype`` is a ``DTypePolicy`` object, each
built layer carries the ``build_config`` it was built with, a functional
model's tensor references are ``__keras_tensor__`` objects with their shape,
dtype and ``keras_history``, operation nodes (``x + y``, ``tfkit.ops.sum``)
are Keras operations (``operation_nodes``), and the ``compile_config`` is
Keras's (``steps_per_execution`` an int). Adapted lookup layers keep their
vocabulary in ``assets/layers/<path>/vocabulary.txt``, as Keras's do, and
their config says only its size. Whatever Keras's schema cannot hold (a
TensorFlow function called on symbolic tensors, a tfkit-only layer or
argument, a model without a config) raises :class:`NotExpressible` naming
the layer by path, before anything is written.
"""

from __future__ import annotations

import inspect
from typing import Any

from tfkit.base import registry
from tfkit.saving import weights_io
from tfkit.saving.keras_files.object_to_keras import (
    ADVICE,
    NotExpressible,
    dtype_policy,
    keras_object,
    keras_value,
    ordered,
)
from tfkit.saving.keras_files.operation_nodes import keras_entry_from_tfkit
from tfkit.saving.keras_files.weights_layout import keras3_paths
from tfkit.saving.model_config import serialize_model
from tfkit.saving.model_kinds import functional_like_constructor, is_functional, is_sequential

_OPERATIONS = ("TFOpLambda", "SlicingOpLambda")
LOOKUPS = ("StringLookup", "IntegerLookup", "TextVectorization")
_MODELS = {"Functional": ("keras.src.models.functional", "Functional"), "Sequential": ("keras", None)}


def keras_model_config(model: Any) -> tuple[dict[str, Any], dict[str, bytes]]:
    """``(config.json, {"assets/layers/<path>/vocabulary.txt": bytes})`` for ``model``; ``NotExpressible``
    for anything Keras 3 could not rebuild."""
    entry = _layer(model, None, model.name)
    build = weights_io.build_config(model)
    entry["build_config"] = build if build is not None else {"input_shape": None}
    compiled = model.get_compile_config()
    entry["compile_config"] = keras_compile_config(compiled) if compiled is not None else None
    return ordered(entry), vocabulary_assets(model)


def _is_builtin(layer: Any) -> bool:
    return registry.is_builtin("layers", registry.public_class(type(layer)))


def _class_entry(layer: Any, tfkit_entry: dict | None, where: str) -> dict:
    """``module`` / ``class_name`` / ``registered_name`` of a model class, as Keras names it."""
    name = type(layer).__name__
    if _is_builtin(layer) and name in _MODELS:
        module, registered = _MODELS[name]
        return {"module": module, "class_name": name, "registered_name": registered}
    entry = keras_object({**(tfkit_entry or _entry(layer, where)), "config": None}, "layers", where)
    return {key: entry[key] for key in ("module", "class_name", "registered_name")}


def _entry(model: Any, where: str) -> dict:
    """tfkit's own entry for ``model``; a model whose config cannot be captured is refused here."""
    try:
        return serialize_model(model)
    except NotImplementedError as error:
        raise NotExpressible(
            f"'{where}' ({type(model).__name__}) has no config, so no .keras file can rebuild it: "
            f"{error} Then save again, {ADVICE}"
        ) from None


def _layer(layer: Any, tfkit_entry: dict | None, where: str) -> dict:
    """One layer (or model) as Keras 3's entry, with its ``build_config``; ``tfkit_entry`` is its entry in its
    model's tfkit config (``None``: made here)."""
    if is_functional(layer) and functional_like_constructor(type(layer)):
        entry = {**_class_entry(layer, tfkit_entry, where), "config": _functional_config(layer, where)}
    elif is_sequential(layer):
        entry = {**_class_entry(layer, tfkit_entry, where), "config": _sequential_config(layer, where)}
    else:
        entry = keras_object(tfkit_entry if tfkit_entry is not None else _entry(layer, where), "layers", where)
        config = entry.get("config")
        if isinstance(config, dict):
            if "dtype" in config and entry["class_name"] != "InputLayer":
                config["dtype"] = dtype_policy(config["dtype"])
            if entry["class_name"] in LOOKUPS and entry.get("registered_name") is None:
                _vocabulary_to_assets(layer, config)
    if type(layer).__name__ != "InputLayer":
        build = _build_config(layer)
        if build is not None:
            entry["build_config"] = build
    return ordered(entry)


def _build_config(layer: Any) -> dict | None:
    """``{"input_shape": ...}`` as Keras's ``get_build_config`` writes it. A layer whose ``build`` takes several
    shapes (``MultiHeadAttention``'s query, value, key) gets none: Keras records each by name, tfkit the first;
    Keras builds such a layer when it calls it in the graph, as it builds every graph layer."""
    try:
        parameters = list(inspect.signature(type(layer).build).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    required = [
        p for p in parameters if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return weights_io.build_config(layer) if len(required) <= 1 else None


def _vocabulary_to_assets(layer: Any, config: dict) -> None:
    """An adapted lookup layer's config as Keras writes it: the vocabulary goes to ``assets/``, its size stays."""
    if config.get("vocabulary") is None:
        return
    config["vocabulary"] = None
    config["idf_weights"] = None
    config["vocabulary_size"] = int(layer.vocabulary_size())


def _functional_config(model: Any, where: str) -> dict:
    graph = model.functional_graph
    config = model.get_config()
    layers = []
    for layer, tfkit_entry in zip(graph.layers, config["layers"]):
        here = f"{where}/{layer.name}"
        if tfkit_entry.get("class_name") in _OPERATIONS and _is_builtin(layer):
            try:
                layers.append(keras_entry_from_tfkit(tfkit_entry, here))
            except ValueError as error:
                raise NotExpressible(str(error) if ".h5" in str(error) else f"{error} ({ADVICE})") from None
            continue
        entry = _layer(layer, tfkit_entry, here)
        entry["name"] = layer.name
        entry["inbound_nodes"] = keras_value(tfkit_entry.get("inbound_nodes", []), "inbound_nodes", here)
        layers.append(ordered(entry))
    out = {
        "name": config["name"],
        "trainable": config.get("trainable", True),
        "layers": layers,
        "input_layers": config["input_layers"],
        "output_layers": config["output_layers"],
    }
    out = keras_tensors(out, tensor_specs(graph), where)
    for key, value in config.items():  # a subclass's own arguments (its get_config's), as Keras writes them
        if key not in out:
            out[key] = keras_value(value, key, f"{where}.{key}")
    return out


def _sequential_config(model: Any, where: str) -> dict:
    config = model.get_config()
    entries = config["layers"]
    layers = []
    if len(entries) == len(model.layers) + 1:  # its Input first
        layers.append(keras_object(entries[0], "layers", f"{where}/{entries[0].get('config', {}).get('name')}"))
        entries = entries[1:]
    for layer, tfkit_entry in zip(model.layers, entries):
        layers.append(_layer(layer, tfkit_entry, f"{where}/{layer.name}"))
    policy = getattr(getattr(model, "dtype_policy", None), "name", None)
    out = {
        "name": config["name"],
        "trainable": config.get("trainable", True),
        "dtype": dtype_policy(policy if isinstance(policy, str) else "float32"),
        "layers": layers,
    }
    build = weights_io.build_config(model)
    if build is not None:
        out["build_input_shape"] = build["input_shape"]
    return out


def tensor_specs(graph: Any) -> dict[tuple[str, int, int], dict[str, Any]]:
    """``(layer name, node index, tensor index)`` -> the tensor's ``shape`` and ``dtype``, for every tensor of
    the graph."""
    specs = {}
    tensors = [(t, 0) for t in graph.flat_inputs]
    tensors += [(t, graph.node_index(node)) for node in graph.nodes for t in node.flat_outputs]
    for tensor, node_index in tensors:
        specs[(tensor.node.layer.name, node_index, tensor.index)] = {
            "shape": [None if d is None else int(d) for d in tensor.shape],
            "dtype": tensor.dtype.name,
        }
    return specs


def keras_tensors(value: Any, specs: dict[tuple[str, int, int], dict[str, Any]], where: str) -> Any:
    """Every ``{"__tensor__": [layer, node, index]}`` in ``value`` as Keras's ``__keras_tensor__`` object."""
    if isinstance(value, list):
        return [keras_tensors(item, specs, where) for item in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"__tensor__"}:
        layer, node, index = value["__tensor__"]
        spec = specs.get((layer, node, index))
        if spec is None:
            raise ValueError(
                f"'{where}': a call refers to output {index} of call {node} of layer '{layer}', "
                f"which is not in the model's graph"
            )
        return {"class_name": "__keras_tensor__", "config": {**spec, "keras_history": [layer, node, index]}}
    return {key: keras_tensors(item, specs, where) for key, item in value.items()}


def keras_compile_config(compiled: dict[str, Any]) -> dict[str, Any]:
    """tfkit's ``get_compile_config()`` as Keras 3 writes it (an int ``steps_per_execution``)."""
    optimizer = compiled.get("optimizer")
    if isinstance(optimizer, dict):
        optimizer = keras_object(optimizer, "optimizers", "compile_config.optimizer")
    steps = compiled.get("steps_per_execution")
    jit = compiled.get("jit_compile")
    return {
        "optimizer": optimizer,
        "loss": keras_value(compiled.get("loss"), "loss", "compile_config.loss"),
        "loss_weights": compiled.get("loss_weights"),
        "metrics": keras_value(compiled.get("metrics"), "metrics", "compile_config.metrics"),
        "weighted_metrics": keras_value(compiled.get("weighted_metrics"), "metrics", "compile_config.weighted_metrics"),
        "run_eagerly": bool(compiled.get("run_eagerly")),
        "steps_per_execution": steps if isinstance(steps, int) and not isinstance(steps, bool) else 1,
        "jit_compile": jit if isinstance(jit, bool) or jit == "auto" else "auto",
    }


def vocabulary_assets(model: Any) -> dict[str, bytes]:
    """``assets/layers/<path>/vocabulary.txt`` of every adapted lookup layer (one token a line, special tokens
    first, as Keras 3's ``IndexLookup.save_assets``); a TextVectorization's also under its ``_lookup_layer``."""
    assets: dict[str, bytes] = {}
    done: list[str] = []
    for path, layer in keras3_paths(model):
        name = type(layer).__name__
        if not path or name not in LOOKUPS or not _is_builtin(layer) or any(path.startswith(d + "/") for d in done):
            continue
        done.append(path)
        data = "\n".join(str(token) for token in layer.get_vocabulary(include_special_tokens=True)).encode("utf-8")
        assets[f"assets/{path}/vocabulary.txt"] = data
        if name == "TextVectorization":
            assets[f"assets/{path}/_lookup_layer/vocabulary.txt"] = data
    return assets
