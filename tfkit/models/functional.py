"""``Functional``: a model defined by connecting layers, ``tfkit.Model(inputs, outputs)``.

    x = tfkit.Input((784,))
    model = tfkit.Model(x, tfkit.layers.Dense(10)(x))     # a Functional
    same = tfkit.Model.from_config(model.get_config())    # rebuilt by connecting the same layers

Its layers and how they connect come from the ``FunctionalGraph`` recorded
while the symbolic tensors were built; its config lists each layer with the
calls (``inbound_nodes``) that connect it.
"""

from __future__ import annotations

import heapq
from typing import Any, Mapping

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine import config_capture, masking, shape_inference, tracking
from tfkit.engine.config_serialization import deserialize_layer, layer_entry, revive_config_values
from tfkit.engine.functional_graph import FunctionalGraph, InputLayer
from tfkit.engine.input_signature import graph_output_specs, named_specs
from tfkit.engine.input_spec import InputSpec, inputs_by_name
from tfkit.engine.layer import Layer
from tfkit.models.model import Model
from tfkit.saving.model_kinds import GRAPH_KEYS, functional_like_constructor, is_functional_config


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
        tensor, changed = tf.expand_dims(tensor, -1), True  # (N, 28, 28) into Input((28, 28, 1))
    elif rank is not None and rank == len(symbol.shape) + 1 and rank > 1 and tensor.shape[-1] == 1:
        tensor, changed = tf.squeeze(tensor, -1), True  # (N, 1) into Input(()) (labels as columns)
    if changed and mask is not None:
        masking.set_mask(tensor, mask)
    return tensor


def _input_spec_of(symbol: SymbolicTensor, name: str) -> InputSpec:
    """Keras 3's spec of a functional model's input: its shape, batch dimension free, a trailing 1 optional."""
    shape = list(symbol.shape)
    if shape:
        shape[0] = None
    layer = symbol.node.layer
    return InputSpec(
        shape=tuple(shape), allow_last_axis_squeeze=True, name=name, optional=bool(getattr(layer, "optional", False))
    )


def _tensor_refs(value: Any, out: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The ``(layer name, node index)`` of every ``{"__tensor__": ...}`` in a call's arguments."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict) and set(item) == {"__tensor__"}:
            ref = item["__tensor__"]
            if not isinstance(ref, list) or len(ref) != 3:
                raise ValueError(
                    f"Model config: a tensor reference must be [layer name, node index, tensor index], got {ref!r}"
                )
            out.append((ref[0], ref[1]))
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return out


def _decode(value: Any, outputs_of: dict[tuple[str, int], Any]) -> Any:
    if isinstance(value, dict) and set(value) == {"__tensor__"}:
        lname, node_index, tensor_index = value["__tensor__"]
        return outputs_of[(lname, node_index)][tensor_index]
    if isinstance(value, list):
        return [_decode(v, outputs_of) for v in value]
    if isinstance(value, dict):
        return {k: _decode(v, outputs_of) for k, v in value.items()}
    return value


def _connect(calls: list[tuple[Layer, dict]], outputs_of: dict[tuple[str, int], Any]) -> None:
    """Make every call of a config once its inbound tensors exist, in time linear in the calls.

    A layer's calls run in their listed order (its k-th call makes node k); among
    the calls that are ready, the one listed first runs first.
    """
    waiting: dict[tuple[str, int], list[int]] = {}  # a tensor's producer -> calls waiting for it
    missing = [0] * len(calls)
    produces: list[tuple[str, int]] = []
    counts: dict[str, int] = {}
    for i, (layer, node) in enumerate(calls):
        key = (layer.name, counts.get(layer.name, 0))
        counts[layer.name] = key[1] + 1
        produces.append(key)
        needs = set(_tensor_refs([node.get("args", []), node.get("kwargs", {})], []))
        if key[1] > 0:
            needs.add((layer.name, key[1] - 1))  # a layer's calls keep their order
        needs = {n for n in needs if n not in outputs_of}
        missing[i] = len(needs)
        for need in needs:
            waiting.setdefault(need, []).append(i)
    ready = [i for i, m in enumerate(missing) if m == 0]
    heapq.heapify(ready)
    done = 0
    while ready:
        i = heapq.heappop(ready)
        layer, node = calls[i]
        out = layer(*_decode(node.get("args", []), outputs_of), **_decode(node.get("kwargs", {}), outputs_of))
        outputs_of[produces[i]] = tf.nest.flatten(out)
        done += 1
        for j in waiting.pop(produces[i], ()):
            missing[j] -= 1
            if missing[j] == 0:
                heapq.heappush(ready, j)
    if done != len(calls):
        stuck = sorted({calls[i][0].name for i, m in enumerate(missing) if m > 0})
        raise ValueError(f"Model config is inconsistent: cannot connect layers {stuck} (missing inbound tensors)")


def checked_output_names(model: Layer, names: Any, count: int) -> tuple[str, ...] | None:
    """``names`` assigned to ``model.output_names``, checked: ``count`` strings (or ``None``, the default names).

    Args:
        model: The model whose ``output_names`` is assigned (named in errors).
        names: A list or tuple of ``count`` non-empty strings, or ``None``.
        count: How many outputs the model has.

    Returns:
        The names as a tuple, or ``None``.

    Raises:
        TypeError: If ``names`` is not a list or tuple of strings.
        ValueError: If it does not hold one name per output.
    """
    if names is None:
        return None
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) and n for n in names):
        raise TypeError(
            f"Model '{model.name}': output_names must be a list of non-empty strings, one per output; got {names!r}"
        )
    if len(names) != count:
        raise ValueError(
            f"Model '{model.name}' has {count} output(s); output_names got {len(names)} name(s): {list(names)}"
        )
    return tuple(names)


@registry.builtin("layers")
@shape_inference.always_trace  # its outputs come from its graph, not a shape rule
class Functional(Model):
    """A model defined by a graph of layers, from its inputs to its outputs.

    `tfkit.Model(inputs, outputs)` returns a `Functional` model. Its layers
    and their connections are those recorded while the symbolic tensors
    (from `tfkit.Input` and layer calls) were computed; the model runs the
    same calls on real data. It is built at once, has known `input_shape`
    and `output_shape`, and its config lists each layer with the calls that
    connect it, so it saves and clones without custom code. Called with a
    dict, a model with several inputs matches the keys to the inputs'
    names. As in Keras, inputs are cast to each `Input`'s dtype, and a
    trailing axis of size 1 is added or dropped where the `Input` expects it.

    Args:
        inputs: The model's inputs: a tensor from `tfkit.Input`, or a list
            or dict of them. Intermediate tensors become new inputs, as in
            Keras.
        outputs: The model's outputs: a tensor computed from `inputs` by
            layer calls, or a list or dict of them.
        name: Optional name of the model. Defaults to `None` (a unique name
            such as `"functional"`).
        **kwargs: Base layer keyword arguments, such as `trainable` and
            `dtype`.

    Raises:
        ValueError: If `inputs` or `outputs` are not symbolic tensors, the
            outputs are not connected to the inputs, or two layers share a
            name.

    Example:
        >>> a = tfkit.Input((2,), name="a")
        >>> b = tfkit.Input((3,), name="b")
        >>> merged = tfkit.layers.Concatenate()([a, b])
        >>> model = tfkit.Model([a, b], tfkit.layers.Dense(1)(merged))
        >>> model.input_names
        ['a', 'b']
        >>> model({"a": np.ones((4, 2)), "b": np.ones((4, 3))}).shape
        TensorShape([4, 1])
    """

    _tfkit_output_names: tuple[str, ...] | None = None  # names assigned to output_names, else None

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        if isinstance(inputs, dict):
            inputs = dict(inputs)
        graph = FunctionalGraph(inputs, outputs)
        self._tfkit_graph = graph
        self._layers = list(graph.layers)
        inbound = graph.all_inbound_names()
        for layer in graph.layers:
            layer._set_inbound_names(inbound.get(id(layer), []))
        self.built = True
        self._set_build_shapes(tf.nest.map_structure(lambda t: t.shape, inputs))
        self._set_output_shapes(tf.nest.map_structure(lambda t: t.shape, outputs))
        self._tfkit_symbolic_losses: list[SymbolicTensor] = []

    def build(self, input_shape: Any = None) -> None:
        """Nothing to do: a functional model is built by connecting its layers (its Inputs fix the dtypes)."""

    def _tracked_items(self):
        layers = self._tfkit_graph.layers
        keys = tracking.structural_layer_keys(layers) if tracking.structural_mode() else [l.name for l in layers]
        yield from zip(keys, layers)

    def summary_layers(self) -> list[tuple[str, Layer]]:
        """The `(name, layer)` rows `summary` lists, in order."""
        return [(layer.name, layer) for layer in self._tfkit_graph.layers]

    @property
    def layers(self) -> list[Layer]:
        """The model's layers in the order of its graph, its `InputLayer` objects included."""
        return list(self._tfkit_graph.layers)

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """Retrieves a layer by its name or by its index in `model.layers` (see `Model.get_layer`)."""
        return super().get_layer(name=name, index=index)

    @property
    def functional_graph(self) -> FunctionalGraph:
        """The recorded graph this model runs: its nodes in order, its inputs and outputs."""
        return self._tfkit_graph

    def default_input_signature(self) -> Any:
        """Named `tf.TensorSpec` objects for the model's `Input` tensors (batch dimension `None`), for exports."""
        inputs = self._tfkit_graph.inputs
        names = (
            {key: key for key in inputs}
            if isinstance(inputs, dict)
            else tf.nest.map_structure(lambda t: t.node.layer.name, inputs)
        )
        return named_specs(tf.nest.map_structure(lambda t: tf.TensorSpec(tuple(t.shape), t.dtype), inputs), names)

    def _own_graph_outputs(self, args: tuple, kwargs: dict) -> Any:
        """For a symbolic call on tensors just like the model's inputs (a task wrapping its backbone): the
        recorded outputs' ``(shapes, dtypes, mask specs)``, so the call is not traced again; else None."""
        if type(self).call is not Functional.call or kwargs or len(args) != 1:
            return None
        return self._tfkit_graph.outputs_for_own_inputs(args[0])

    def _graph_output_specs(self, specs: Any) -> Any:
        if type(self).call is not Functional.call:
            return None  # a subclass's own call may compute something else
        return graph_output_specs(specs, self._tfkit_graph.flat_inputs, self._tfkit_graph.outputs)

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
        """The model's input tensors (`tfkit.Input` symbolic tensors), as a list."""
        return list(self._tfkit_graph.flat_inputs)

    @property
    def outputs(self) -> list[SymbolicTensor]:
        """The model's output symbolic tensors, as a list."""
        return list(self._tfkit_graph.flat_outputs)

    @property
    def input_spec(self) -> Any:
        """What the model's inputs must be, as Keras 3 gives it: a list of `tfkit.InputSpec`, one per input.

        Each spec has the input's shape with the batch dimension `None`,
        `allow_last_axis_squeeze=True` (the model adds or drops a trailing
        axis of size 1), the name a dict of inputs uses for it (its `Input`
        layer's name; a key for a model built on a dict of inputs, in sorted
        order) and whether it is optional. A spec assigned to `input_spec`
        replaces it, and is then checked on every call.

        Example:
            >>> image = tfkit.Input((28, 28, 1), name="image")
            >>> model = tfkit.Model(image, tfkit.layers.Flatten()(image))
            >>> model.input_spec
            [InputSpec(shape=(None, 28, 28, 1), ndim=4)]
            >>> model.input_spec[0].name
            'image'
            >>> model({"image": np.ones((2, 28, 28))}).shape
            TensorShape([2, 784])
        """
        assigned = Layer.input_spec.fget(self)
        if assigned is not None:
            return assigned
        inputs = self._tfkit_graph.inputs
        if isinstance(inputs, dict):
            if not all(isinstance(t, SymbolicTensor) for t in inputs.values()):
                return None  # nested inputs: no list of specs (Keras skips them too)
            return [_input_spec_of(inputs[key], key) for key in sorted(inputs)]
        return [_input_spec_of(t, t.node.layer.name) for t in self._tfkit_graph.flat_inputs]

    @input_spec.setter
    def input_spec(self, value: Any) -> None:
        Layer.input_spec.fset(self, value)

    @property
    def input_names(self) -> list[str]:
        """The names of the model's inputs (the keys a dict of inputs uses)."""
        inputs = self._tfkit_graph.inputs
        if isinstance(inputs, dict):
            return list(inputs)
        return [t.node.layer.name for t in self._tfkit_graph.flat_inputs]

    @property
    def output_names(self) -> list[str]:
        """The names of the model's outputs (the keys of dict losses and metrics in `compile`).

        They are the output layers' names (a dict of outputs: its keys) unless
        assigned: as in Keras 3, `model.output_names = [...]` renames the outputs
        for a later `compile`, exports and converters such as tf2onnx's
        `from_keras`; assigning `None` restores the default names.

        Example:
            >>> x = tfkit.Input((3,))
            >>> model = tfkit.Model(x, tfkit.layers.Dense(2, name="scores")(x))
            >>> model.output_names
            ['scores']
            >>> model.output_names = ["output"]
            >>> model.output_names
            ['output']
        """
        if self._tfkit_output_names is not None:
            return list(self._tfkit_output_names)
        outputs = self._tfkit_graph.outputs
        if isinstance(outputs, dict):
            return list(outputs)
        return [t.node.layer.name for t in self._tfkit_graph.flat_outputs]

    @output_names.setter
    def output_names(self, names: Any) -> None:
        self._tfkit_output_names = checked_output_names(self, names, len(self._tfkit_graph.flat_outputs))

    def output_names_for_compile(self) -> list[str]:
        """The keys `compile` matches dict losses and metrics with: a dict of outputs keeps its own keys."""
        if isinstance(self._tfkit_graph.outputs, dict):
            return list(self._tfkit_graph.outputs)
        return super().output_names_for_compile()

    @property
    def input_shape(self) -> Any:
        """The input shape(s) the model was built on (batch dimension included)."""
        shapes = [t.shape for t in self._tfkit_graph.flat_inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self) -> Any:
        """The output shape(s) of the model (batch dimension included)."""
        shapes = [t.shape for t in self._tfkit_graph.flat_outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def add_loss(self, value: Any) -> None:
        """Adds a loss; a symbolic loss (computed from the model's inputs) is recomputed on every call."""
        if isinstance(value, SymbolicTensor):
            self._tfkit_symbolic_losses.append(value)
            self._tfkit_loss_graph = FunctionalGraph(self._tfkit_graph.inputs, self._tfkit_symbolic_losses)
            return
        super().add_loss(value)

    def _match_inputs(self, inputs: Any) -> list[Any]:
        graph = self._tfkit_graph
        expected = graph.flat_inputs
        who = f"Model '{self.name}'"
        if isinstance(graph.inputs, dict) and isinstance(inputs, dict):
            keys = list(graph.inputs)
            flat = tf.nest.flatten(dict(zip(keys, inputs_by_name(inputs, keys, who))))  # sorted, as flat_inputs
        elif isinstance(inputs, dict):  # keyed by the Input layers' names, as Keras 3 takes them
            flat = inputs_by_name(inputs, [t.node.layer.name for t in expected], who)
        else:
            flat = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(flat) != len(expected):
            raise ValueError(
                f"Model '{self.name}' expects {len(expected)} input(s) "
                f"({', '.join(f'{t.name} {t.shape}' for t in expected)}), got {len(flat)}"
            )
        checked = []
        for symbol, value in zip(expected, flat):
            if value is None:
                if not getattr(symbol.node.layer, "optional", False):
                    raise ValueError(
                        f"Input '{symbol.name}' of model '{self.name}' is None but it is not optional; "
                        f"declare it with tfkit.Input(..., optional=True) to allow None"
                    )
                checked.append(None)
                continue
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
        """Runs the model's layers on `inputs`; call the model itself instead (`model(inputs)`)."""
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
        """The output shape for an input shape, from the layers' own shape rules."""
        return self.output_shape

    # ---------------------------------------------------------------- config

    def get_config(self) -> dict[str, Any]:
        """The model's config: its layers with the calls connecting them, and its input and output layers.

        A subclass whose constructor does not take `inputs` and `outputs` (it builds its own graph, as
        `MyModel(units=3)`) gets the config of any layer instead: the base keys, plus its constructor's
        arguments unless it writes its own `get_config`, as in Keras 3."""
        if not functional_like_constructor(type(self)):
            config = Layer.get_config(self)
            if type(self).get_config is Functional.get_config:
                config.update(config_capture.plain_config(self.name, type(self), self._st.init_args))
            return config
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
            entry = layer_entry(layer)
            entry["name"] = layer.name
            entry["inbound_nodes"] = [
                {"args": encode(list(node.args)), "kwargs": encode(node.kwargs)} for node in graph.nodes_of(layer)
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
        """Creates a functional model from its config (the output of `get_config`), with fresh weights.

        As in Keras 3 (`functional_from_config`), a subclass is rebuilt as itself, its graph connected from the
        config and passed to its constructor with the config's other keys (`alpha=...` of
        `__init__(self, inputs, outputs, alpha, **kwargs)`); a subclass that builds its own graph
        (`functional_like_constructor` is false) or whose config holds no graph is `cls(**config)`."""
        if cls is not Functional and not (is_functional_config(config) and functional_like_constructor(cls)):
            return Layer.from_config.__func__(cls, config)
        for key in GRAPH_KEYS:
            if key not in config:
                raise ValueError(f"A functional model config needs {key!r}; got keys {sorted(config)}")
        created: dict[str, Layer] = {}
        calls: list[tuple[Layer, dict]] = []  # every layer call, in the config's order
        for entry in config["layers"]:
            layer = deserialize_layer(entry, custom_objects)
            name = entry.get("name", layer.name)
            created[name] = layer
            for node in entry.get("inbound_nodes", []):
                calls.append((layer, node))
        outputs_of: dict[tuple[str, int], Any] = {}
        for name, layer in created.items():
            if isinstance(layer, InputLayer):
                outputs_of[(name, 0)] = [layer.output]
        _connect(calls, outputs_of)

        def resolve_io(spec: Any) -> Any:
            if isinstance(spec, dict):
                return {k: outputs_of[(v[0], v[1])][v[2]] for k, v in spec.items()}
            if spec and isinstance(spec[0], list):
                return [outputs_of[(v[0], v[1])][v[2]] for v in spec]
            return outputs_of[(spec[0], spec[1])][spec[2]]

        inputs = resolve_io(config["input_layers"])
        outputs = resolve_io(config["output_layers"])
        extra = {key: value for key, value in config.items() if key not in (*GRAPH_KEYS, "name", "trainable")}
        if cls is Functional or registry.is_builtin("layers", cls):
            extra = {}  # tfkit's own models take nothing more (a tf-keras config's extra keys are left out)
        model = cls(inputs, outputs, name=config.get("name"), **revive_config_values(extra, custom_objects))
        if config.get("trainable") is False:
            model.trainable = False
        return model


Model._functional_class = Functional  # Model(inputs, outputs) makes one of these
