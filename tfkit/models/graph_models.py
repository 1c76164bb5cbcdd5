"""Model kinds and whole-model configs: ``Model``, ``Functional``, ``Sequential``, cloning.

    model = tfkit.Sequential([tfkit.Input((784,)), tfkit.layers.Dense(10)])
    twin = tfkit.models.clone_model(model)                 # same architecture, new weights
    same = tfkit.models.model_from_json(model.to_json())
"""

from __future__ import annotations

import json
import weakref
from typing import Any, Mapping, Sequence

import tensorflow as tf

from tfkit.engine import masking, tracking
from tfkit.engine.config_capture import to_plain
from tfkit.engine.functional_graph import FunctionalGraph, InputLayer
from tfkit.engine.layer import Layer
from tfkit.models.model import Model
from tfkit.saving import load_model, save_model  # noqa: F401  (tfkit.models.load_model, save_model, as in Keras)
from tfkit.base import registry
from tfkit.base.symbolic import SymbolicTensor


def _serialize_layer(layer: Layer) -> dict[str, Any]:
    from tfkit.engine.serialization import layer_entry

    return layer_entry(layer)  # {"module", "class_name", "config", "registered_name"}, as Keras writes


def _deserialize_layer(config: Any, custom_objects: Mapping[str, Any] | None) -> Layer:
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"A layer config must be a dict with 'class_name' and 'config', got {str(config)[:200]}")
    cls = registry.lookup("layers", config["class_name"], custom_objects, config.get("registered_name"),
                          config.get("module"))
    if not (isinstance(cls, type) and issubclass(cls, Layer)):
        raise ValueError(f"{config['class_name']!r} is not a layer class")
    inner = config.get("config", {})
    if not isinstance(inner, dict):
        raise ValueError(f"The config of layer {config['class_name']!r} must be a dict")
    if isinstance(config.get("name"), str) and "name" not in inner:
        inner = {**inner, "name": config["name"]}  # a custom get_config() that left out the name
    with registry.custom_object_scope(custom_objects or {}):
        return _from_config(cls, inner, custom_objects)


def _numeric(dtype: tf.DType) -> bool:
    return dtype.is_floating or dtype.is_integer or dtype.is_bool or dtype.is_complex


def _adjust_input(tensor: tf.Tensor, symbol: SymbolicTensor) -> tf.Tensor:
    """Keras's input handling: cast to the ``Input``'s dtype, add or drop a trailing axis of size 1."""
    mask = masking.get_mask(tensor)
    changed = False
    if tensor.dtype != symbol.dtype and _numeric(tensor.dtype) and _numeric(symbol.dtype):
        tensor, changed = tf.cast(tensor, symbol.dtype), True
    rank = tensor.shape.rank
    if rank is not None and rank == len(symbol.shape) - 1 and symbol.shape[-1] == 1:
        tensor, changed = tf.expand_dims(tensor, -1), True      # (N, 28, 28) into Input((28, 28, 1))
    elif rank is not None and rank == len(symbol.shape) + 1 and rank > 1 and tensor.shape[-1] == 1:
        tensor, changed = tf.squeeze(tensor, -1), True          # (N, 1) into Input(()) (labels as columns)
    if changed and mask is not None:
        masking.set_mask(tensor, mask)
    return tensor


@registry.builtin("layers")
class Functional(Model):
    """A model defined by connecting layers: ``tfkit.Model(inputs, outputs)``."""

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        if isinstance(inputs, dict):
            inputs = dict(inputs)
        graph = FunctionalGraph(inputs, outputs)
        self._tfkit_graph = graph
        self._layers = list(graph.layers)
        for layer in graph.layers:
            layer._tfkit_inbound_names = graph.inbound_names(layer)
        self.built = True
        self._st.build_shapes = tf.nest.map_structure(lambda t: t.shape, inputs)
        self._st.output_shapes = tf.nest.map_structure(lambda t: t.shape, outputs)
        self._tfkit_symbolic_losses: list[SymbolicTensor] = []

    def build(self, input_shape: Any = None) -> None:
        """Nothing to do: a functional model is built by connecting its layers (its Inputs fix the dtypes)."""

    def _tracked_items(self):
        layers = self._tfkit_graph.layers
        keys = tracking.structural_layer_keys(layers) if tracking.structural_mode() else [l.name for l in layers]
        yield from zip(keys, layers)

    def summary_layers(self) -> list[tuple[str, Layer]]:
        return [(layer.name, layer) for layer in self._tfkit_graph.layers]

    @property
    def layers(self) -> list[Layer]:
        return list(self._tfkit_graph.layers)

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        return super().get_layer(name=name, index=index)

    @property
    def input(self) -> Any:
        """The inputs as given to the constructor: a tensor, a list or a dict."""
        return self._tfkit_graph.inputs

    @property
    def output(self) -> Any:
        """The outputs as given to the constructor: a tensor, a list or a dict."""
        return self._tfkit_graph.outputs

    @property
    def inputs(self) -> list[SymbolicTensor]:
        return list(self._tfkit_graph.flat_inputs)

    @property
    def outputs(self) -> list[SymbolicTensor]:
        return list(self._tfkit_graph.flat_outputs)

    @property
    def input_names(self) -> list[str]:
        inputs = self._tfkit_graph.inputs
        if isinstance(inputs, dict):
            return list(inputs)
        return [t.node.layer.name for t in self._tfkit_graph.flat_inputs]

    @property
    def output_names(self) -> list[str]:
        outputs = self._tfkit_graph.outputs
        if isinstance(outputs, dict):
            return list(outputs)
        return [t.node.layer.name for t in self._tfkit_graph.flat_outputs]

    @property
    def input_shape(self) -> Any:
        shapes = [t.shape for t in self._tfkit_graph.flat_inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self) -> Any:
        shapes = [t.shape for t in self._tfkit_graph.flat_outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def add_loss(self, value: Any) -> None:
        if isinstance(value, SymbolicTensor):
            self._tfkit_symbolic_losses.append(value)
            self._tfkit_loss_graph = FunctionalGraph(self._tfkit_graph.inputs, self._tfkit_symbolic_losses)
            return
        super().add_loss(value)

    def _match_inputs(self, inputs: Any) -> list[Any]:
        graph = self._tfkit_graph
        expected = graph.flat_inputs
        if isinstance(graph.inputs, dict) and isinstance(inputs, dict):
            missing = [k for k in graph.inputs if k not in inputs]
            if missing:
                raise ValueError(f"Model '{self.name}' expects inputs {list(graph.inputs)}; missing {missing}")
            flat = tf.nest.flatten({k: inputs[k] for k in graph.inputs})  # the same (sorted) order as flat_inputs
        elif isinstance(inputs, dict):
            names = [t.node.layer.name for t in expected]
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"Model '{self.name}' expects inputs {names}; missing {missing}; got keys {sorted(inputs)}")
            flat = [inputs[n] for n in names]
        else:
            flat = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(flat) != len(expected):
            raise ValueError(
                f"Model '{self.name}' expects {len(expected)} input(s) "
                f"({', '.join(f'{t.name} {t.shape}' for t in expected)}), got {len(flat)}"
            )
        checked = []
        for symbol, value in zip(expected, flat):
            tensor = value if tf.is_tensor(value) else tf.convert_to_tensor(value)
            tensor = _adjust_input(tensor, symbol)
            shape = tensor.shape
            if shape.rank is not None and shape.rank != len(symbol.shape):
                raise ValueError(
                    f"Input '{symbol.name}' of model '{self.name}' expects rank {len(symbol.shape)} "
                    f"(shape {symbol.shape}), got rank {shape.rank} (shape {tuple(shape.as_list())})"
                )
            for axis, (want, got) in enumerate(zip(symbol.shape, shape.as_list())):
                if axis > 0 and want is not None and got is not None and want != got:
                    raise ValueError(
                        f"Input '{symbol.name}' of model '{self.name}' expects shape {symbol.shape}, "
                        f"got {tuple(shape.as_list())} (axis {axis} is {got}, expected {want})"
                    )
            checked.append(tensor)
        return checked

    def _convert_inputs(self, value: Any) -> Any:
        return value  # each input is converted to its own Input's dtype in _match_inputs

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        flat = self._match_inputs(inputs)
        if mask is not None:
            for tensor, m in zip(flat, tf.nest.flatten(mask)):
                if m is not None:
                    masking.set_mask(tensor, m)
        outputs = self._tfkit_graph.run(flat)
        if self._tfkit_symbolic_losses:
            for value in tf.nest.flatten(self._tfkit_loss_graph.run(flat)):
                super().add_loss(tf.reduce_mean(value))
        return outputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self.output_shape

    # ---------------------------------------------------------------- config

    def get_config(self) -> dict[str, Any]:
        graph = self._tfkit_graph

        def ref(tensor: SymbolicTensor) -> list:
            return [tensor.node.layer.name, graph.node_index(tensor.node), tensor.index]

        def encode(value: Any) -> Any:
            if isinstance(value, SymbolicTensor):
                return {"__tensor__": ref(value)}
            if isinstance(value, (list, tuple)):
                return [encode(v) for v in value]
            if isinstance(value, dict):
                return {k: encode(v) for k, v in value.items()}
            if value is None or isinstance(value, (bool, int, float, str)):
                return value
            raise ValueError(f"A layer call argument of type {type(value).__name__} cannot be saved in a model config")

        layers = []
        for layer in graph.layers:
            entry = _serialize_layer(layer)
            entry["name"] = layer.name
            entry["inbound_nodes"] = [
                {"args": encode(list(node.args)), "kwargs": encode(node.kwargs)}
                for node in graph.nodes if node.layer is layer
            ]
            layers.append(entry)

        def io(structure: Any) -> Any:
            if isinstance(structure, dict):
                return {k: ref(v) for k, v in structure.items()}
            if isinstance(structure, (list, tuple)):
                return [ref(t) for t in structure]
            return ref(structure)

        return {
            "name": self.name,
            "trainable": self.trainable,
            "layers": layers,
            "input_layers": io(graph.inputs),
            "output_layers": io(graph.outputs),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Mapping[str, Any] | None = None) -> "Functional":
        for key in ("layers", "input_layers", "output_layers"):
            if key not in config:
                raise ValueError(f"A functional model config needs {key!r}; got keys {sorted(config)}")
        created: dict[str, Layer] = {}
        pending: list[tuple[Layer, dict]] = []
        for entry in config["layers"]:
            layer = _deserialize_layer(entry, custom_objects)
            name = entry.get("name", layer.name)
            created[name] = layer
            for node in entry.get("inbound_nodes", []):
                pending.append((layer, node))
        outputs_of: dict[tuple[str, int], Any] = {}
        for name, layer in created.items():
            if isinstance(layer, InputLayer):
                outputs_of[(name, 0)] = [layer.output]
        counters: dict[str, int] = {}

        def decode(value: Any) -> Any:
            if isinstance(value, dict) and set(value) == {"__tensor__"}:
                lname, node_index, tensor_index = value["__tensor__"]
                return outputs_of[(lname, node_index)][tensor_index]
            if isinstance(value, list):
                return [decode(v) for v in value]
            if isinstance(value, dict):
                return {k: decode(v) for k, v in value.items()}
            return value

        def ready(value: Any) -> bool:
            if isinstance(value, dict) and set(value) == {"__tensor__"}:
                lname, node_index, _ = value["__tensor__"]
                return (lname, node_index) in outputs_of
            if isinstance(value, list):
                return all(ready(v) for v in value)
            if isinstance(value, dict):
                return all(ready(v) for v in value.values())
            return True

        while pending:
            progressed = False
            for item in list(pending):
                layer, node = item
                if ready(node["args"]) and ready(node["kwargs"]):
                    args = decode(node["args"])
                    kwargs = decode(node["kwargs"])
                    out = layer(*args, **kwargs)
                    index = counters.get(layer.name, 0)
                    counters[layer.name] = index + 1
                    outputs_of[(layer.name, index)] = tf.nest.flatten(out)
                    pending.remove(item)
                    progressed = True
            if not progressed:
                stuck = sorted({layer.name for layer, _ in pending})
                raise ValueError(f"Model config is inconsistent: cannot connect layers {stuck} (missing inbound tensors)")

        def resolve_io(spec: Any) -> Any:
            if isinstance(spec, dict):
                return {k: outputs_of[(v[0], v[1])][v[2]] for k, v in spec.items()}
            if spec and isinstance(spec[0], list):
                return [outputs_of[(v[0], v[1])][v[2]] for v in spec]
            return outputs_of[(spec[0], spec[1])][spec[2]]

        inputs = resolve_io(config["input_layers"])
        outputs = resolve_io(config["output_layers"])
        model = cls(inputs, outputs, name=config.get("name"))
        if config.get("trainable") is False:
            model.trainable = False
        return model


@registry.builtin("layers")
class Sequential(Model):
    """A plain stack of layers, each feeding the next.

        model = tfkit.Sequential([tfkit.Input((784,)), layers.Dense(64, activation="relu"), layers.Dense(10)])
        model.add(layers.Softmax())
    """

    def __init__(self, layers: Sequence[Any] | None = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        self._layers: list[Layer] = []
        self._tfkit_layer_names: set[str] = set()
        self._tfkit_input: SymbolicTensor | None = None
        self._tfkit_symbolic_out: Any = None
        for layer in layers or []:
            self.add(layer)

    def _tracked_items(self):
        layers = list(self._layers)
        keys = tracking.structural_layer_keys(layers) if tracking.structural_mode() else [l.name for l in layers]
        yield from zip(keys, layers)

    def summary_layers(self) -> list[tuple[str, Layer]]:
        return [(layer.name, layer) for layer in self._layers]

    @property
    def layers(self) -> list[Layer]:
        return list(self._layers)

    def add(self, layer: Any) -> None:
        """Append a layer (or, first, a ``tfkit.Input``/``InputLayer``)."""
        if isinstance(layer, SymbolicTensor):
            layer = layer.node.layer
        if isinstance(layer, InputLayer):
            if self._layers or self._tfkit_input is not None:
                raise ValueError(f"Sequential '{self.name}': an Input can only be the first entry")
            self._tfkit_input = layer.output
            self._tfkit_symbolic_out = layer.output
            self._st.build_shapes = layer.batch_shape
            self.built = True
            return
        if not isinstance(layer, Layer):
            raise ValueError(f"Sequential '{self.name}' can only hold tfkit layers, got {type(layer).__name__}")
        names = self._tfkit_layer_names
        if layer.name in names:
            raise ValueError(f"Sequential '{self.name}' already has a layer named '{layer.name}'")
        batch_shape = getattr(layer, "_tfkit_batch_input_shape", None)
        if not self._layers and self._tfkit_input is None and batch_shape is not None:
            self.add(InputLayer(batch_shape=batch_shape))
        if self._tfkit_symbolic_out is not None:
            out = layer(self._tfkit_symbolic_out)
            if len(tf.nest.flatten(out)) != 1:
                raise ValueError(f"Layers in a Sequential model must have one output; '{layer.name}' has {len(tf.nest.flatten(out))}")
            self._tfkit_symbolic_out = out
            self._st.output_shapes = out.shape
        names.add(layer.name)
        layer._tfkit_sequential_owner = weakref.ref(self)   # layer.output can ask us for the graph
        self._layers.append(layer)  # in place: re-assigning a new list re-tracks every layer (quadratic)
        self._tfkit_symbolic_cache.clear()

    def pop(self) -> Layer:
        """Remove and return the last layer."""
        if not self._layers:
            raise ValueError(f"Sequential '{self.name}' has no layers to pop")
        last = self._layers.pop()
        self._tfkit_layer_names.discard(last.name)
        if self._tfkit_input is not None:
            out = self._tfkit_input
            for layer in self._layers:
                out = layer._tfkit_nodes[-1].outputs if getattr(layer, "_tfkit_nodes", None) else layer(out)
            self._tfkit_symbolic_out = out
            self._st.output_shapes = out.shape
        self._tfkit_symbolic_cache.clear()
        return last

    def build(self, input_shape: Any = None) -> None:
        if input_shape is None:
            if self._tfkit_input is None:
                raise ValueError(f"Sequential '{self.name}' needs an input shape: build(input_shape) or a tfkit.Input first")
            return
        if self._tfkit_input is None:
            shape = tuple(input_shape)
            self._tfkit_input = None
            super().build(shape)

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        x = inputs
        if self._tfkit_input is None and getattr(inputs, "dtype", None) is not None:
            self._tfkit_call_dtype = tf.as_dtype(inputs.dtype)   # the dtype _ensure_graph gives its Input
        if mask is not None:
            masking.set_mask(x, mask)
        for layer in self._layers:
            x = layer(x)
        return x

    def _ensure_graph(self) -> bool:
        """Give a Sequential built on data (no ``Input``) its graph, as Keras does when it builds one.

        The graph starts from an ``Input`` of the built shape (batch left free) and
        the dtype the model was called with; then ``model.inputs``, ``model.output``
        and ``layer.output`` work as for a model started with ``tfkit.Input``. False
        when the model is not built, or a layer cannot run on symbolic inputs (its
        recorded calls are taken back).
        """
        if self._tfkit_input is not None:
            return True
        shape = self._st.build_shapes
        if not self.built or not self._layers or not isinstance(shape, tuple) or not shape \
                or not all(d is None or isinstance(d, int) for d in shape):
            return False
        dtype = getattr(self, "_tfkit_call_dtype", None) or self._layers[0].compute_dtype
        symbol = InputLayer(batch_shape=(None, *shape[1:]), dtype=dtype).output
        recorded = [(layer, len(getattr(layer, "_tfkit_nodes", None) or [])) for layer in self._layers]
        out = symbol
        try:
            for layer in self._layers:
                out = layer(out)
        except Exception:   # a layer that only runs on data: no graph, as before
            for layer, count in recorded:
                nodes = getattr(layer, "_tfkit_nodes", None)
                if nodes is not None:
                    del nodes[count:]
            return False
        self._tfkit_input, self._tfkit_symbolic_out = symbol, out
        self._tfkit_symbolic_cache.clear()
        return True

    @property
    def input(self) -> SymbolicTensor:
        """The ``tfkit.Input`` this model starts from (``AttributeError`` if it has none)."""
        return self._symbolic_end("input", lambda: self._tfkit_input)

    @property
    def output(self) -> SymbolicTensor:
        """The symbolic output of the last layer (``AttributeError`` without an ``Input``)."""
        return self._symbolic_end("output", lambda: self._tfkit_symbolic_out)

    def _symbolic_end(self, what: str, value: Any) -> SymbolicTensor:
        if not self._ensure_graph():
            raise AttributeError(
                f"Sequential '{self.name}' has no symbolic {what} yet: start it with tfkit.Input(shape) "
                f"(or give its first layer input_shape=), or call it on data once"
            )
        return value()

    @property
    def inputs(self) -> list[SymbolicTensor]:
        return [self._tfkit_input] if self._ensure_graph() else []

    @property
    def outputs(self) -> list[SymbolicTensor]:
        return [self._tfkit_symbolic_out] if self._ensure_graph() else []

    @property
    def input_shape(self) -> Any:
        return self._st.build_shapes

    @property
    def output_shape(self) -> Any:
        return self._st.output_shapes

    @property
    def output_names(self) -> list[str]:
        return [self._layers[-1].name] if self._layers else ["output"]

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = tuple(input_shape)
        for layer in self._layers:
            shape = layer.compute_output_shape(shape)
        return shape

    def get_config(self) -> dict[str, Any]:
        layers = []
        if self._tfkit_input is not None:
            layers.append(_serialize_layer(self._tfkit_input.node.layer))
        layers += [_serialize_layer(layer) for layer in self._layers]
        config = {"name": self.name, "trainable": self.trainable, "layers": layers}
        if self._tfkit_input is None and self._st.build_shapes is not None:
            config["build_input_shape"] = list(self._st.build_shapes)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Mapping[str, Any] | None = None) -> "Sequential":
        if not isinstance(config.get("layers"), list):
            raise ValueError("A Sequential config needs a list 'layers'")
        model = cls(name=config.get("name"))
        for entry in config["layers"]:
            model.add(_deserialize_layer(entry, custom_objects))
        if config.get("build_input_shape") is not None:
            model.build(tuple(config["build_input_shape"]))
        if config.get("trainable") is False:
            model.trainable = False
        return model


def model_from_config(config: dict[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Model:
    """Rebuild a model (fresh weights) from ``{"class_name": ..., "config": ...}``."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError("model_from_config expects {'class_name': ..., 'config': {...}}")
    missing = config.get("config_missing")
    if missing is not None:   # model.save wrote the weights only: say so before asking for the class
        raise ValueError(_missing_config_message(config["class_name"], missing))
    cls = registry.lookup("layers", config["class_name"], custom_objects, config.get("registered_name"),
                          config.get("module"))
    if not (isinstance(cls, type) and issubclass(cls, Model)):
        raise ValueError(f"{config['class_name']!r} is not a model class")
    inner = config.get("config", {})
    if not isinstance(inner, dict):
        raise ValueError(f"The config of model {config['class_name']!r} must be a dict")
    if isinstance(config.get("name"), str) and "name" not in inner:
        inner = {**inner, "name": config["name"]}  # a custom get_config() that left out the name
    with registry.custom_object_scope(custom_objects or {}):
        return _from_config(cls, inner, custom_objects)


def _missing_config_message(class_name: Any, missing: Any) -> str:
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


def _from_config(cls: type, config: dict[str, Any], custom_objects: Mapping[str, Any] | None) -> Any:
    """``cls.from_config(config)``, passing ``custom_objects`` when its signature takes it."""
    import inspect

    try:
        takes_objects = "custom_objects" in inspect.signature(cls.from_config).parameters
    except (TypeError, ValueError):
        takes_objects = False
    return cls.from_config(config, custom_objects=custom_objects) if takes_objects else cls.from_config(config)


def serialize_model(model: Model, allow_missing: bool = False) -> dict[str, Any]:
    """The model as ``{"module", "class_name", "config", "registered_name"}``.

    With ``allow_missing`` (what ``model.save`` uses), a subclassed model
    whose config cannot be captured (constructor arguments that are not
    plain data and no ``get_config()``) is written with a warning and a
    ``config_missing`` entry saying why: the file keeps its weights, and
    ``load_model`` then explains what to implement.
    """
    try:
        return _serialize_layer(model)
    except NotImplementedError as error:
        if not allow_missing or isinstance(model, (Functional, Sequential)):
            raise
        import warnings

        entry = registry.serialized_class("layers", type(model))
        warnings.warn(
            f"Model '{model.name}' ({type(model).__name__}) is saved without a config: {error} "
            f"Its weights are saved; load_model will ask for get_config(), and model.load_weights(path) "
            f"loads the weights into a model built in code.", stacklevel=3,
        )
        return {"module": entry["module"], "class_name": entry["class_name"], "config": None,
                "registered_name": entry["registered_name"], "name": model.name, "config_missing": str(error)}


def model_from_json(text: str, custom_objects: Mapping[str, Any] | None = None) -> Model:
    """Inverse of ``model.to_json()``."""
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"model_from_json: not valid JSON ({error})") from error
    return model_from_config(config, custom_objects)


def clone_model(model: Model, custom_objects: Mapping[str, Any] | None = None) -> Model:
    """A new model with the same architecture and freshly initialized weights.

    The model's own layer classes resolve their names, so unregistered
    custom layers clone without ``custom_objects``.
    """
    own: dict[str, Any] = {}
    for layer in tracking.flatten_layers(model):
        cls = registry._public_class(type(layer))
        for key in (cls.__name__, registry.registered_name(cls)):
            if key and not registry.is_builtin("layers", cls) and key not in registry.builtin_names("layers"):
                own.setdefault(key, cls)
    clone = model_from_config(serialize_model(model), {**own, **(custom_objects or {})})
    shapes = model._st.build_shapes
    if not clone.built and shapes is not None:
        clone.build(shapes)
    return clone
