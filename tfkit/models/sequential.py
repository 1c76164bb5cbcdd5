"""``Sequential``: a plain stack of layers, each feeding the next.

    model = tfkit.Sequential([tfkit.Input((784,)), tfkit.layers.Dense(10)])
    model.add(tfkit.layers.Softmax())
    model.pop()

Started with a ``tfkit.Input`` (or a first layer given ``input_shape=``), it
records its graph as layers are added, as a functional model does; otherwise
it builds on its first call and makes the graph when ``model.output`` is asked for.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine import masking, shape_inference, tracking
from tfkit.engine.config_serialization import deserialize_layer, layer_entry
from tfkit.engine.functional_graph import InputLayer, Node
from tfkit.engine.input_signature import graph_output_specs, named_specs
from tfkit.engine.input_spec import inputs_by_name
from tfkit.engine.layer import Layer
from tfkit.models.functional import checked_output_names
from tfkit.models.model import Model


@registry.builtin("layers")
@shape_inference.always_trace  # its outputs come from its graph, not a shape rule
class Sequential(Model):
    """A plain stack of layers, where each layer has one input and one output.

    `Sequential` groups a linear stack of layers into a `tfkit.Model`. Started
    with a `tfkit.Input` (or a first layer given `input_shape=`), it is built
    at once and records its graph as layers are added, as a functional model
    does: `summary`, `model.output` and shape checks work before any data.
    Without an input, it builds on its first call (or `build(input_shape)`),
    and makes its graph when `model.output` is asked for.

    Args:
        layers: Optional list of layers to add, in order; a `tfkit.Input`
            (or `InputLayer`) may come first. Defaults to `None`.
        name: Optional name of the model. Defaults to `None` (a unique name
            such as `"sequential"`).
        **kwargs: Base layer keyword arguments, such as `trainable` and
            `dtype`.

    Raises:
        ValueError: If an entry is not a layer, two layers share a name, an
            input comes after a layer, or a layer has several outputs.

    Example:
        >>> model = tfkit.Sequential([
        ...     tfkit.Input((4,)),
        ...     tfkit.layers.Dense(8, activation="relu"),
        ...     tfkit.layers.Dense(2),
        ... ])
        >>> model.output_shape
        (None, 2)
        >>> model(np.ones((3, 4))).shape
        TensorShape([3, 2])

        Without an input, the model builds on its first call:

        >>> model = tfkit.Sequential()
        >>> model.add(tfkit.layers.Dense(2))
        >>> model.built
        False
        >>> model(np.ones((1, 5))).shape
        TensorShape([1, 2])
        >>> len(model.weights)
        2
    """

    _tfkit_output_names: tuple[str, ...] | None = None  # names assigned to output_names, else None

    def __init__(self, layers: Sequence[Any] | None = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        self._layers: list[Layer] = []
        self._tfkit_layer_names: set[str] = set()
        self._tfkit_input: SymbolicTensor | None = None
        self._tfkit_symbolic_out: Any = None
        self._tfkit_call_dtype: tf.DType | None = None
        self._tfkit_nodes: list[Node] = []  # each layer's call in the symbolic graph, when there is one
        for layer in layers or []:
            self.add(layer)

    def _tracked_items(self):
        layers = list(self._layers)
        keys = tracking.structural_layer_keys(layers) if tracking.structural_mode() else [l.name for l in layers]
        yield from zip(keys, layers)

    def summary_layers(self) -> list[tuple[str, Layer]]:
        """The `(name, layer)` rows `summary` lists, in order."""
        return [(layer.name, layer) for layer in self._layers]

    @property
    def layers(self) -> list[Layer]:
        """The model's layers, in order (the `Input` excluded)."""
        return list(self._layers)

    def add(self, layer: Any) -> None:
        """Adds a layer instance on top of the layer stack.

        When the model has an input, the layer is called on the previous
        layer's symbolic output at once (so its weights and output shape are
        known).

        Args:
            layer: A layer instance, or (as the first entry only) a
                `tfkit.Input` tensor or `InputLayer`.

        Raises:
            ValueError: If `layer` is not a layer, its name is taken, it is
                an input after other layers, or it has several outputs.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((4,))])
            >>> model.add(tfkit.layers.Dense(3))
            >>> model.output_shape
            (None, 3)
        """
        if isinstance(layer, SymbolicTensor):
            layer = layer.node.layer
        if isinstance(layer, InputLayer):
            if self._layers or self._tfkit_input is not None:
                raise ValueError(f"Sequential '{self.name}': an Input can only be the first entry")
            self._tfkit_input = layer.output
            self._tfkit_symbolic_out = layer.output
            self._set_build_shapes(layer.batch_shape)
            self.built = True
            return
        if not isinstance(layer, Layer):
            raise ValueError(f"Sequential '{self.name}' can only hold tfkit layers, got {type(layer).__name__}")
        names = self._tfkit_layer_names
        if layer.name in names:
            raise ValueError(f"Sequential '{self.name}' already has a layer named '{layer.name}'")
        batch_shape = layer._declared_batch_shape
        if not self._layers and self._tfkit_input is None and batch_shape is not None:
            self.add(InputLayer(batch_shape=batch_shape))
        if self._tfkit_symbolic_out is not None:
            out = layer(self._tfkit_symbolic_out)
            if len(tf.nest.flatten(out)) != 1:
                raise ValueError(
                    f"Layers in a Sequential model must have one output; '{layer.name}' has {len(tf.nest.flatten(out))}"
                )
            self._tfkit_symbolic_out = out
            self._tfkit_nodes.append(out.node)
            self._set_output_shapes(out.shape)
        names.add(layer.name)
        layer._set_graph_owner(self)  # layer.output can ask us for the graph
        self._layers.append(layer)  # in place: re-assigning a new list re-tracks every layer (quadratic)
        self._reset_symbolic_cache()

    def pop(self) -> Layer:
        """Removes the last layer of the model and returns it.

        Returns:
            The removed layer.

        Raises:
            ValueError: If the model has no layers.

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(3), tfkit.layers.Dense(2)])
            >>> model.pop().units
            2
            >>> model.output_shape
            (None, 3)
        """
        if not self._layers:
            raise ValueError(f"Sequential '{self.name}' has no layers to pop")
        last = self._layers.pop()
        self._tfkit_layer_names.discard(last.name)
        if self._tfkit_input is not None:
            out = self._tfkit_input
            self._tfkit_nodes = []
            for layer in self._layers:
                out = layer._recorded_nodes[-1].outputs if layer._recorded_nodes else layer(out)
                self._tfkit_nodes.append(out.node)
            self._tfkit_symbolic_out = out
            self._set_output_shapes(out.shape)
        self._reset_symbolic_cache()
        return last

    def build(self, input_shape: Any = None) -> None:
        """Builds the model's weights for inputs of `input_shape`.

        Args:
            input_shape: A shape tuple, such as `(None, 4)`. May be `None`
                when the model starts with a `tfkit.Input`. Defaults to
                `None`.

        Raises:
            ValueError: If `input_shape` is `None` and the model has no
                input.
        """
        if input_shape is None:
            if self._tfkit_input is None:
                raise ValueError(
                    f"Sequential '{self.name}' needs an input shape: build(input_shape) or a tfkit.Input first"
                )
            return
        if self._tfkit_input is None:
            shape = tuple(input_shape)
            self._tfkit_input = None
            super().build(shape)

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        """Runs the layers in order on `inputs`; call the model itself instead (`model(inputs)`).

        A model started with an `Input` also takes, as Keras 3's does, a dict
        keyed by that `Input`'s name (`{"input_layer": x}`, as OpenVINO's
        converter calls it; other keys are left out) or a one-item list of
        the tensor.
        """
        inputs = self._standardize_inputs(inputs)
        x = inputs
        if self._tfkit_input is None and getattr(inputs, "dtype", None) is not None:
            self._tfkit_call_dtype = tf.as_dtype(inputs.dtype)  # the dtype _ensure_graph gives its Input
        if mask is not None:
            masking.set_mask(x, mask)
        nodes = self._tfkit_nodes if self._runs_as_defined(inputs) else ()
        for i, layer in enumerate(self._layers):
            x = layer(x)
            if i < len(nodes) and nodes[i].unchecked:
                nodes[i].check_outputs(x)  # outputs that compute_output_shape gave, checked on first use
        return x

    def _standardize_inputs(self, inputs: Any) -> Any:
        """Keras 3's inputs of a model with an ``Input``: a dict keyed by its name, or ``[x]``, give ``x``."""
        symbol = self._tfkit_input
        if symbol is None:
            return inputs  # no Input: the first layer takes whatever comes (a dict for a layer of dicts)
        if isinstance(inputs, dict):
            return inputs_by_name(inputs, [symbol.node.layer.name], f"Sequential '{self.name}'")[0]
        if isinstance(inputs, (list, tuple)) and len(inputs) == 1 and hasattr(inputs[0], "shape"):
            return inputs[0]
        return inputs

    def _runs_as_defined(self, inputs: Any) -> bool:
        """Whether ``inputs`` fit the ``Input`` the graph was defined on (else its shapes say nothing of this call)."""
        symbol = self._tfkit_input
        if symbol is None or len(self._tfkit_nodes) != len(self._layers) or not tf.is_tensor(inputs):
            return False
        shape = inputs.shape
        return (
            inputs.dtype == symbol.dtype
            and shape.rank == len(symbol.shape)
            and tf.TensorShape(shape.as_list()[1:]).is_compatible_with(symbol.shape[1:])
        )

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
        shape = self._build_shapes
        if (
            not self.built
            or not self._layers
            or not isinstance(shape, tuple)
            or not shape
            or not all(d is None or isinstance(d, int) for d in shape)
        ):
            return False
        dtype = self._tfkit_call_dtype or self._layers[0].compute_dtype
        symbol = InputLayer(batch_shape=(None, *shape[1:]), dtype=dtype).output
        recorded = [(layer, len(layer._recorded_nodes)) for layer in self._layers]
        out, nodes = symbol, []
        try:
            for layer in self._layers:
                out = layer(out)
                nodes.append(out.node)
        except Exception:  # a layer that only runs on data: no graph, as before
            for layer, count in recorded:
                del layer._recorded_nodes[count:]
            return False
        self._tfkit_input, self._tfkit_symbolic_out, self._tfkit_nodes = symbol, out, nodes
        self._reset_symbolic_cache()
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
        """The model's input tensor, as a one-item list (empty when the model has no input yet)."""
        return [self._tfkit_input] if self._ensure_graph() else []

    @property
    def outputs(self) -> list[SymbolicTensor]:
        """The model's output tensor, as a one-item list (empty when the model has no input yet)."""
        return [self._tfkit_symbolic_out] if self._ensure_graph() else []

    @property
    def input_shape(self) -> Any:
        """The input shape(s) the model was built on (batch dimension included)."""
        return self._build_shapes

    @property
    def output_shape(self) -> Any:
        """The output shape(s) of the model (batch dimension included)."""
        return self._output_shapes

    def default_input_signature(self) -> Any:
        """The named ``tf.TensorSpec`` of its ``Input`` (batch dimension None), for exports."""
        if self.inputs:
            symbol = self.inputs[0]
            return named_specs(tf.TensorSpec(tuple(symbol.shape), symbol.dtype), symbol.node.layer.name)
        return super().default_input_signature()

    def _graph_output_specs(self, specs: Any) -> Any:
        if type(self).call is not Sequential.call or self._tfkit_input is None or self._tfkit_symbolic_out is None:
            return None
        return graph_output_specs(specs, [self._tfkit_input], self._tfkit_symbolic_out)

    @property
    def output_names(self) -> list[str]:
        """The name of the model's output: its last layer's name, unless assigned (see `Functional.output_names`).

        Example:
            >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2, name="scores")])
            >>> model.output_names
            ['scores']
            >>> model.output_names = ["output"]
            >>> model.output_names
            ['output']
        """
        if self._tfkit_output_names is not None:
            return list(self._tfkit_output_names)
        return [self._layers[-1].name] if self._layers else ["output"]

    @output_names.setter
    def output_names(self, names: Any) -> None:
        self._tfkit_output_names = checked_output_names(self, names, 1)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The output shape for an input shape, from the layers' own shape rules."""
        shape = tuple(input_shape)
        for layer in self._layers:
            shape = layer.compute_output_shape(shape)
        return shape

    def get_config(self) -> dict[str, Any]:
        """The model's config: `name`, `trainable` and the list of its layers' configs (its `Input` first)."""
        layers = []
        if self._tfkit_input is not None:
            layers.append(layer_entry(self._tfkit_input.node.layer))
        layers += [layer_entry(layer) for layer in self._layers]
        config = {"name": self.name, "trainable": self.trainable, "layers": layers}
        if self._tfkit_input is None and self._build_shapes is not None:
            config["build_input_shape"] = list(self._build_shapes)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Mapping[str, Any] | None = None) -> "Sequential":
        """Creates a `Sequential` model from its config (the output of `get_config`), with fresh weights."""
        if not isinstance(config.get("layers"), list):
            raise ValueError("A Sequential config needs a list 'layers'")
        model = cls(name=config.get("name"))
        for entry in config["layers"]:
            model.add(deserialize_layer(entry, custom_objects))
        if config.get("build_input_shape") is not None:
            model.build(tuple(config["build_input_shape"]))
        if config.get("trainable") is False:
            model.trainable = False
        return model
