"""The functional API's graph: ``Input``, nodes recorded by layer calls, and running them.

    x = tfkit.Input(shape=(784,))
    y = tfkit.layers.Dense(10)(tfkit.layers.Dense(64, activation="relu")(x))
    graph = FunctionalGraph(x, y)        # what tfkit.Model(x, y) runs

Calling a layer on symbolic tensors builds its weights and finds its output
shapes, dtypes and masks: from ``compute_output_shape`` where that is certain
(``shape_inference``; checked on the node's first real run), else by tracing
``call`` once in a scratch graph (no data runs). Each call is recorded as a
``Node``; a model is the list of nodes between its inputs and outputs in
topological order.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import tensorflow as tf
from tensorflow.python.framework.func_graph import FuncGraph

from tfkit.base import registry
from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine import layer as layer_module
from tfkit.engine import masking, shape_inference
from tfkit.engine.layer import Layer


class Node:
    """One call of ``layer`` on symbolic arguments, and the symbolic outputs it made."""

    def __init__(self, layer: Layer, args: tuple, kwargs: dict) -> None:
        self.layer = layer
        self.args = args
        self.kwargs = kwargs
        self.outputs: Any = None
        # True while the outputs come from compute_output_shape and no real call has confirmed them yet.
        self.unchecked = False

    @property
    def input_tensors(self) -> list[SymbolicTensor]:
        return [t for t in tf.nest.flatten((self.args, self.kwargs)) if isinstance(t, SymbolicTensor)]

    @property
    def flat_outputs(self) -> list[SymbolicTensor]:
        return tf.nest.flatten(self.outputs)

    def check_outputs(self, result: Any) -> None:
        """Compare a real call's result with outputs that ``compute_output_shape`` gave (once, on first use).

        The batch axis is not compared: a model defined for one batch size may run on another.
        """
        flat = tf.nest.flatten(result)
        symbols = self.flat_outputs
        problem = None
        if len(flat) != len(symbols):
            problem = f"{len(symbols)} output(s), but its call returned {len(flat)}"
        for symbol, tensor in zip(symbols, flat) if problem is None else ():
            shape = tf.TensorShape(getattr(tensor, "shape", None))
            dtype = getattr(tensor, "dtype", None)
            fits = shape.rank is None or (
                shape.rank == len(symbol.shape)
                and tf.TensorShape(shape.as_list()[1:]).is_compatible_with(symbol.shape[1:])
            )
            if not fits or dtype != symbol.dtype:
                got = tuple(shape.as_list()) if shape.rank is not None else "unknown"
                problem = (
                    f"an output of shape {symbol.shape} and dtype {symbol.dtype.name}, but its call returned "
                    f"shape {got} and dtype {getattr(dtype, 'name', dtype)}"
                )
                break
        if problem is not None:
            layer = self.layer
            raise ValueError(
                f"Layer '{layer.name}' ({type(layer).__name__}): compute_output_shape promised {problem}. "
                f"The model was defined from compute_output_shape without running call; make the two agree."
            )
        self.unchecked = False


@registry.builtin("layers")
class InputLayer(Layer):
    """The layer behind `tfkit.Input`: it holds the input's shape and dtype.

    A functional model has one `InputLayer` per input; `tfkit.Input` creates
    it and returns its symbolic output. Use `tfkit.Input` directly, except to
    start a `Sequential` model's layer list with a layer. The input's dtype
    never follows the global dtype policy: it is `"float32"` unless given.
    The older Keras arguments `input_shape` (deprecated, with a warning) and
    `batch_input_shape` are accepted in `**kwargs`.

    Args:
        shape: Shape tuple (or an integer for rank 1) of one sample, without
            the batch dimension; `None` entries are unknown dimensions.
            Defaults to `None` (then `batch_shape` is required).
        batch_size: Optional fixed batch size. Defaults to `None`.
        dtype: The dtype of the input tensors. Defaults to `"float32"`.
        sparse: Must be `False`: tfkit inputs are dense tensors. Defaults to
            `False`.
        ragged: Must be `False`: tfkit inputs are dense tensors. Defaults to
            `False`.
        batch_shape: Shape tuple including the batch dimension, instead of
            `shape` and `batch_size`. Defaults to `None`.
        input_tensor: Optional symbolic tensor (`tfkit.KerasTensor`) to
            become this layer's output (its shape must match). Defaults to
            `None`.
        optional: Whether the model may be called with `None` for this
            input (the layers it feeds then receive `None`). Defaults to
            `False`.
        name: Optional name of the layer. Defaults to `None` (a unique name
            such as `"input_layer"`).
        **kwargs: Base layer keyword arguments, and the older `input_shape`
            and `batch_input_shape` names.

    Raises:
        ValueError: If neither `shape` nor `batch_shape` is given, a
            dimension is negative, `sparse` or `ragged` is `True`, or
            `input_tensor` is not a matching symbolic tensor.

    Example:
        >>> layer = tfkit.layers.InputLayer(shape=(3,))
        >>> layer.batch_shape
        (None, 3)
        >>> model = tfkit.Sequential([layer, tfkit.layers.Dense(2)])
        >>> model.output_shape
        (None, 2)
    """

    def __init__(
        self,
        shape: Sequence[int | None] | None = None,
        batch_size: int | None = None,
        dtype: Any = "float32",
        sparse: bool = False,
        ragged: bool = False,
        batch_shape: Sequence[int | None] | None = None,
        input_tensor: Any = None,
        optional: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        input_shape = kwargs.pop("input_shape", None)  # Keras's older names, still accepted there
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if input_shape is not None:
            if shape is None:
                warnings.warn(
                    "InputLayer: the argument input_shape is deprecated (as in Keras); use shape=", stacklevel=3
                )
                shape = input_shape
        if batch_input_shape is not None and batch_shape is None:
            batch_shape = batch_input_shape
        if isinstance(dtype, str):  # a dtype, never a policy name: "int8" is not the int8 quantization policy
            dtype = tf.as_dtype(dtype)
        super().__init__(name=name, dtype=dtype or "float32", **kwargs)  # inputs never take the global policy
        if sparse or ragged:
            raise ValueError("tfkit.Input supports dense tensors only: sparse=True and ragged=True are not implemented")
        if input_tensor is not None:
            if not isinstance(input_tensor, SymbolicTensor):
                raise ValueError(
                    f"Argument `input_tensor` must be a symbolic tensor (tfkit.KerasTensor). "
                    f"Received invalid type: input_tensor={input_tensor!r} of type {type(input_tensor)}"
                )
            if batch_shape is None and shape is None:
                batch_shape = input_tensor.shape
            elif tuple(batch_shape or (batch_size, *((shape,) if isinstance(shape, int) else shape))) != tuple(
                input_tensor.shape
            ):
                raise ValueError(
                    f"When providing the `input_tensor` argument, its shape {input_tensor.shape} must "
                    f"match the shape given ({batch_shape or shape})"
                )
        if batch_shape is None:
            if shape is None:
                raise ValueError("tfkit.Input needs shape= (without the batch dimension) or batch_shape=")
            if isinstance(shape, int):
                shape = (shape,)
            batch_shape = (batch_size, *shape)
        self.batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        for d in self.batch_shape:
            if d is not None and d < 0:
                raise ValueError(f"Input shape dimensions must be >= 0 or None, got {self.batch_shape}")
        self.sparse = False
        self.ragged = False
        self.optional = bool(optional)  # a model call may pass None for this input
        self.built = True
        node = Node(self, (), {})
        if input_tensor is not None:  # as Keras: the given tensor becomes this input (its history is replaced)
            input_tensor.node, input_tensor.index = node, 0
            node.outputs = input_tensor
        else:
            node.outputs = SymbolicTensor(self.batch_shape, dtype or "float32", name=self.name, node=node, index=0)
        self._recorded_nodes.append(node)
        self._set_output_shapes(self.batch_shape)

    @property
    def output(self) -> SymbolicTensor:
        """The symbolic tensor this input layer provides (what `tfkit.Input` returns)."""
        return self._recorded_nodes[0].outputs

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "batch_shape": list(self.batch_shape),
            "dtype": self.dtype,
            "sparse": False,
            "ragged": False,
            "optional": self.optional,
        }


def Input(
    shape: Sequence[int | None] | None = None,
    batch_size: int | None = None,
    dtype: Any = "float32",
    name: str | None = None,
    sparse: bool = False,
    ragged: bool = False,
    batch_shape: Sequence[int | None] | None = None,
    tensor: Any = None,
    optional: bool = False,
) -> SymbolicTensor:
    """Used to instantiate a symbolic tensor (`tfkit.KerasTensor`), the start of a functional model.

    A symbolic tensor has a shape and dtype but no values. Calling layers on
    it records the calls, and `tfkit.Model(inputs, outputs)` turns the
    recorded graph into a model. `tfkit.Input(shape=(784,))` has shape
    `(None, 784)`: the batch dimension comes first and is unknown. The dtype
    never follows the global dtype policy: it is `"float32"` unless given.

    Args:
        shape: Shape tuple (or an integer for rank 1) of one sample, without
            the batch dimension; `None` entries are unknown dimensions.
            Defaults to `None` (then `batch_shape` is required).
        batch_size: Optional fixed batch size. Defaults to `None`.
        dtype: The dtype of the input tensors. Defaults to `"float32"`.
        name: Optional name of the input (and of its `InputLayer`); models
            with several inputs accept dicts keyed by these names. Defaults
            to `None` (a unique name).
        sparse: Must be `False`: tfkit inputs are dense tensors. Defaults to
            `False`.
        ragged: Must be `False`: tfkit inputs are dense tensors. Defaults to
            `False`.
        batch_shape: Shape tuple including the batch dimension, instead of
            `shape` and `batch_size`. Defaults to `None`.
        tensor: Optional existing symbolic tensor to make this input (its
            shape must match). Defaults to `None`.
        optional: Whether the model may be called with `None` for this
            input (the layers it feeds then receive `None`). Defaults to
            `False`.

    Returns:
        A `tfkit.KerasTensor`.

    Raises:
        ValueError: If neither `shape` nor `batch_shape` is given, a
            dimension is negative, `sparse` or `ragged` is `True`, or
            `tensor` is not a matching symbolic tensor.

    Example:
        >>> x = tfkit.Input(shape=(32,))
        >>> x.shape
        (None, 32)
        >>> y = tfkit.layers.Dense(16, activation="softmax")(x)
        >>> y.shape
        (None, 16)
        >>> model = tfkit.Model(x, y)
        >>> model(np.ones((2, 32))).shape
        TensorShape([2, 16])
    """
    return InputLayer(
        shape=shape,
        batch_size=batch_size,
        dtype=dtype,
        name=name,
        sparse=sparse,
        ragged=ragged,
        batch_shape=batch_shape,
        input_tensor=tensor,
        optional=optional,
    ).output


def _traced_outputs(layer: Layer, node: Node, symbols: list[SymbolicTensor], structure: Any) -> Any:
    """Trace ``layer``'s call in a scratch graph on placeholders; keep only its outputs' shapes, dtypes, masks."""
    masked = [t for t in symbols if t.mask_spec is not None]
    specs = [tf.TensorSpec(t.shape, t.dtype) for t in symbols]
    mask_specs = [t.mask_spec for t in masked]

    def trace(*placeholders: tf.Tensor) -> Any:
        tensors, masks = placeholders[: len(symbols)], placeholders[len(symbols) :]
        by_id = {id(t): p for t, p in zip(symbols, tensors)}
        for t, m in zip(masked, masks):
            masking.set_mask(by_id[id(t)], m)
        call_args, call_kwargs = tf.nest.map_structure(
            lambda v: by_id[id(v)] if isinstance(v, SymbolicTensor) else v, structure
        )
        outputs = layer(*call_args, **call_kwargs)
        out_masks = [masking.get_mask(o) for o in tf.nest.flatten(outputs)]
        return outputs, out_masks

    try:
        # A scratch graph, thrown away after the call: only the outputs' shapes, dtypes and masks are kept.
        # (A tf.function's concrete function costs twice as much per call for the same trace.)
        with FuncGraph("tfkit_symbolic_call").as_default(), shape_inference.symbolic_trace():
            placeholders = [tf.compat.v1.placeholder(s.dtype, s.shape) for s in (*specs, *mask_specs)]
            out_structure, out_masks = trace(*placeholders)
    finally:
        layer._clear_losses()
    flat = tf.nest.flatten(out_structure)
    shapes = tf.nest.pack_sequence_as(out_structure, [t.shape for t in flat])
    masks = [tf.TensorSpec(m.shape, m.dtype) if m is not None else None for m in out_masks]
    return _symbolic_outputs(layer, node, shapes, [t.dtype for t in flat], masks)


def _symbolic_outputs(layer: Layer, node: Node, structure: Any, dtypes: list[Any], masks: list[Any]) -> Any:
    flat = tf.nest.flatten(structure)
    out = []
    for i, (shape, dtype, mask) in enumerate(zip(flat, dtypes, masks)):
        name = f"{layer.name}_{i}" if len(flat) > 1 else layer.name
        out.append(SymbolicTensor(shape, dtype, name=name, node=node, index=i, mask_spec=mask))
    return tf.nest.pack_sequence_as(structure, out)


def record_call(layer: Layer, args: tuple, kwargs: dict) -> Any:
    """Apply ``layer`` to symbolic arguments: infer or trace its outputs, record a node, return symbolic outputs."""
    structure = (args, kwargs)
    symbols = [t for t in tf.nest.flatten(structure) if isinstance(t, SymbolicTensor)]
    node = Node(layer, args, kwargs)
    try:
        own = layer._own_graph_outputs(args, kwargs) if hasattr(layer, "_own_graph_outputs") else None
        inferred = None if own is not None else shape_inference.infer(layer, args, kwargs)
        if own is not None:  # a functional model on inputs like its own: its recorded outputs, no trace
            shapes, dtypes, masks = own
            node.outputs = _symbolic_outputs(layer, node, shapes, dtypes, masks)
        elif inferred is not None:
            shapes, masks = inferred
            dtypes = [layer.compute_dtype] * len(masks)
            node.outputs = _symbolic_outputs(layer, node, shapes, dtypes, masks)
            node.unchecked = True
        else:
            node.outputs = _traced_outputs(layer, node, symbols, structure)
    except (ValueError, TypeError, tf.errors.InvalidArgumentError) as error:
        shapes = ", ".join(str(t.shape) for t in symbols)
        raise ValueError(
            f"Layer '{layer.name}' ({type(layer).__name__}) cannot be applied to inputs of shape {shapes}: {error}"
        ) from error
    layer._recorded_nodes.append(node)
    layer._set_output_shapes(tf.nest.map_structure(lambda t: t.shape, node.outputs))
    return node.outputs


def topological_nodes(flat_inputs: list[SymbolicTensor], flat_outputs: list[SymbolicTensor]) -> list[Node]:
    """Every node the outputs depend on, each after its inputs (a depth-first walk without recursion,
    so a graph thousands of calls deep, such as a shared layer applied 5,000 times, is fine)."""
    input_ids = {id(t) for t in flat_inputs}
    order: list[Node] = []
    done: set[int] = set()
    for out in flat_outputs:
        # (tensor, consumers: the layers that led here as a linked list, node's inputs already pushed?)
        stack: list[tuple[SymbolicTensor, Any, bool]] = [(out, None, False)]
        open_nodes: set[int] = set()
        while stack:
            tensor, consumers, expanded = stack.pop()
            if id(tensor) in input_ids:
                continue
            node = tensor.node
            if expanded:
                open_nodes.discard(id(node))
                if id(node) not in done:
                    done.add(id(node))
                    order.append(node)
                continue
            if isinstance(node.layer, InputLayer):
                path = []
                while consumers is not None:
                    name, consumers = consumers
                    path.append(name)
                raise ValueError(
                    f"Graph disconnected: output depends on input '{node.layer.name}' (shape {tensor.shape}), "
                    f"which is not among the model's inputs {[t.name for t in flat_inputs]}."
                    + (f" Path: {' -> '.join(path)}" if path else "")
                )
            if id(node) in done:
                continue
            if id(node) in open_nodes:
                raise ValueError(f"The layer graph has a cycle through layer '{node.layer.name}'")
            open_nodes.add(id(node))
            stack.append((tensor, consumers, True))
            here = (node.layer.name, consumers)
            stack.extend((t, here, False) for t in reversed(node.input_tensors))
    return order


def _clone_from_intermediate(inputs: Any, outputs: Any) -> tuple[Any, Any]:
    """``inputs`` with a new ``Input`` for each intermediate tensor, and ``outputs`` recomputed from them: every
    node between them is recorded again (same layer, same arguments) on the new symbolic tensors."""
    flat_inputs = tf.nest.flatten(inputs)
    mapped: dict[int, SymbolicTensor] = {}
    new_inputs = []
    for t in flat_inputs:
        if isinstance(t.node.layer, InputLayer):
            new_inputs.append(t)
            continue
        clone = Input(batch_shape=t.shape, dtype=t.dtype, name=f"{t.name}CLONE")
        mapped[id(t)] = clone
        new_inputs.append(clone)
    for node in topological_nodes(flat_inputs, tf.nest.flatten(outputs)):
        if not any(id(t) in mapped for t in node.input_tensors):
            continue
        args, kwargs = tf.nest.map_structure(
            lambda v: mapped.get(id(v), v) if isinstance(v, SymbolicTensor) else v, (node.args, node.kwargs)
        )
        copy = Node(node.layer, args, kwargs)
        flat = [
            SymbolicTensor(t.shape, t.dtype, name=t.name, node=copy, index=t.index, mask_spec=t.mask_spec)
            for t in node.flat_outputs
        ]
        copy.outputs = tf.nest.pack_sequence_as(node.outputs, flat)
        node.layer._recorded_nodes.append(copy)
        mapped.update({id(old): new for old, new in zip(node.flat_outputs, flat)})
    new_outputs = tf.nest.map_structure(lambda t: mapped.get(id(t), t), outputs)
    return tf.nest.pack_sequence_as(inputs, new_inputs), new_outputs


class FunctionalGraph:
    """The nodes between ``inputs`` and ``outputs``, in the order they must run."""

    def __init__(self, inputs: Any, outputs: Any) -> None:
        self.inputs = inputs
        self.outputs = outputs
        self.flat_inputs: list[SymbolicTensor] = tf.nest.flatten(inputs)
        self.flat_outputs: list[SymbolicTensor] = tf.nest.flatten(outputs)
        for t in self.flat_inputs + self.flat_outputs:
            if not isinstance(t, SymbolicTensor):
                raise ValueError(
                    f"Model inputs and outputs must be symbolic tensors from tfkit.Input and layer calls, got {type(t).__name__}"
                )
        if any(not isinstance(t.node.layer, InputLayer) for t in self.flat_inputs):
            # Keras 3: a model may start at intermediate tensors; they become new Inputs ("<name>CLONE") and the
            # calls after them are recorded again on those (the same layers, new nodes).
            self.inputs, self.outputs = _clone_from_intermediate(inputs, outputs)
            self.flat_inputs, self.flat_outputs = tf.nest.flatten(self.inputs), tf.nest.flatten(self.outputs)
        self.nodes = self._topological_nodes()
        self.layers = self._layers_in_order()
        self._by_layer: dict[int, list[Node]] | None = None  # node lists by id(layer), made on first use
        self._node_indices: dict[int, int] = {}

    def _topological_nodes(self) -> list[Node]:
        return topological_nodes(self.flat_inputs, self.flat_outputs)

    def _layers_in_order(self) -> list[Layer]:
        """Keras's order (``map_graph``): deepest first (longest path to an output), ties by first visit from the
        outputs; so ``layers``, ``weights`` and Keras weight files line up with Keras's for branched graphs too."""
        visit: dict[int, int] = {}
        by_id: dict[int, Layer] = {}
        seen: set[int] = set()
        stack = list(reversed(self.flat_outputs))
        while stack:  # pre-order walk from the outputs, inputs in order
            node = stack.pop().node
            if id(node) in seen:
                continue
            seen.add(id(node))
            by_id.setdefault(id(node.layer), node.layer)
            visit.setdefault(id(node.layer), len(visit))
            if not isinstance(node.layer, InputLayer):
                stack.extend(reversed(node.input_tensors))
        node_depth: dict[int, int] = {}
        layer_depth: dict[int, int] = {}
        input_nodes = [t.node for t in self.flat_inputs]
        for node in list(reversed(self.nodes)) + input_nodes:  # every consumer before its producers
            depth = max(node_depth.get(id(node), 0), layer_depth.get(id(node.layer), 0))
            layer_depth[id(node.layer)] = depth
            for t in [] if isinstance(node.layer, InputLayer) else node.input_tensors:
                node_depth[id(t.node)] = max(depth + 1, node_depth.get(id(t.node), 0))
        for t in self.flat_inputs:  # an input no output uses: depth 0, first among equals
            by_id.setdefault(id(t.node.layer), t.node.layer)
            visit.setdefault(id(t.node.layer), -1)
        layers = sorted(by_id.values(), key=lambda l: (-layer_depth.get(id(l), 0), visit[id(l)]))
        names = [l.name for l in layers]
        counts: dict[str, int] = {}
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        duplicates = sorted(name for name, count in counts.items() if count > 1)
        if duplicates:
            raise ValueError(f"Layer names must be unique inside a model; repeated: {duplicates}")
        return layers

    def outputs_for_own_inputs(self, inputs: Any) -> tuple[Any, list[Any], list[Any]] | None:
        """``(shapes, dtypes, mask specs)`` of the outputs when ``inputs`` are symbolic tensors just like the
        graph's own inputs (structure, shapes, dtypes, masks): what a trace of the graph would find; else None."""
        try:
            tf.nest.assert_same_structure(inputs, self.inputs)
        except (ValueError, TypeError):
            return None
        for given, own in zip(tf.nest.flatten(inputs), self.flat_inputs):
            if not isinstance(given, SymbolicTensor) or (given.shape, given.dtype) != (own.shape, own.dtype):
                return None
            if given.mask_spec != own.mask_spec:
                return None
        shapes = tf.nest.map_structure(lambda t: tf.TensorShape(t.shape), self.outputs)
        return shapes, [t.dtype for t in self.flat_outputs], [t.mask_spec for t in self.flat_outputs]

    def run(self, inputs: Sequence[tf.Tensor]) -> Any:
        """Run the nodes on concrete tensors for ``flat_inputs``; returns the outputs' structure."""
        values: dict[int, Any] = {id(s): t for s, t in zip(self.flat_inputs, inputs)}
        for node in self.nodes:
            args, kwargs = tf.nest.map_structure(
                lambda v: values[id(v)] if isinstance(v, SymbolicTensor) else v, (node.args, node.kwargs)
            )
            result = node.layer(*args, **kwargs)
            if node.unchecked:
                node.check_outputs(result)
            for symbol, tensor in zip(node.flat_outputs, tf.nest.flatten(result)):
                values[id(symbol)] = tensor
        return tf.nest.pack_sequence_as(self.outputs, [values[id(t)] for t in self.flat_outputs])

    def inbound_names(self, layer: Layer) -> list[str]:
        """Names of the layers feeding ``layer`` in this graph (for summary's 'Connected to')."""
        return self.all_inbound_names().get(id(layer), [])

    def all_inbound_names(self) -> dict[int, list[str]]:
        """``inbound_names`` of every layer at once, by ``id(layer)`` (one pass over the nodes)."""
        names: dict[int, list[str]] = {}
        for node in self.nodes:
            names.setdefault(id(node.layer), []).extend(
                f"{t.node.layer.name}[{self.node_index(t.node)}][{t.index}]" for t in node.input_tensors
            )
        return names

    def nodes_of(self, layer: Layer) -> list[Node]:
        """This graph's nodes of ``layer``, in order."""
        return self._nodes_by_layer().get(id(layer), [])

    def node_index(self, node: Node) -> int:
        """Index of ``node`` among this graph's nodes of the same layer (0 for inputs)."""
        if isinstance(node.layer, InputLayer):
            return 0
        self._nodes_by_layer()
        index = self._node_indices.get(id(node))
        if index is None:
            raise ValueError(f"A call of layer '{node.layer.name}' is not part of this graph")
        return index

    def _nodes_by_layer(self) -> dict[int, list[Node]]:
        if self._by_layer is None:
            by_layer: dict[int, list[Node]] = {}
            for node in self.nodes:
                group = by_layer.setdefault(id(node.layer), [])
                self._node_indices[id(node)] = len(group)
                group.append(node)
            self._by_layer = by_layer
        return self._by_layer


layer_module.set_symbolic_call_recorder(record_call)  # Layer.__call__ on symbolic tensors records a node
