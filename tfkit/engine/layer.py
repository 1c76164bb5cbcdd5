"""``Layer``: state from ``add_weight`` plus a ``call``, on top of ``tf.Module``.

    class Linear(tfkit.Layer):
        def build(self, input_shape): self.w = self.add_weight((input_shape[-1], 4))
        def call(self, x): return tf.matmul(x, self.w)

A layer builds itself on its first call, passes the ``training`` flag and
masks on to the layers it calls, collects ``add_loss`` values, checks its
inputs once built, and captures its constructor arguments as a config.
Because it is a ``tf.Module``, ``tf.train.Checkpoint``, ``tf.saved_model``,
``trainable_variables`` and ``submodules`` work on it unchanged.
"""

from __future__ import annotations

import inspect
import re
import weakref
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit import constraints, initializers, regularizers
from tfkit.base import dtype_policy, registry, variable_roles
from tfkit.base import dtype_policy_map as dtype_policies_map
from tfkit.base.symbolic import is_symbolic
from tfkit.distribution import values as distribution_values
from tfkit.engine import (
    autocast,
    autograph,
    call_context,
    config_capture,
    config_serialization,
    layer_paths,
    masking,
    tracking,
    variable_options,
)
from tfkit.engine.attribute_lock import AttributeLock
from tfkit.engine.call_signature import build_parameters, call_signature, marking_built, naming_errors, shape_tuple
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer_removed import RemovedLayerMethods
from tfkit.engine.layer_state import LayerState
from tfkit.engine.layer_weights import LayerWeights
from tfkit.engine.naming import clear_session, scope_name, to_snake_case, unique_name  # noqa: F401  (tfkit.clear_session)

# ``record(layer, args, kwargs)``: a call on symbolic tensors becomes a node of a functional graph.
# ``functional_graph`` (above this module: it defines the Input layer) provides it when imported.
_symbolic_call_recorder: Any = None


def set_symbolic_call_recorder(record: Any) -> None:
    """Called once by ``engine.functional_graph``: how a call on symbolic tensors is recorded."""
    global _symbolic_call_recorder
    _symbolic_call_recorder = record


@registry.base("layers")
class Layer(RemovedLayerMethods, LayerWeights, tf.Module):
    """This is the class from which all layers inherit.

    A layer is a callable object that takes one or more tensors as input and
    outputs one or more tensors. It holds computation, defined in `call`, and
    state (weight variables), created in `__init__` or in `build` with
    `add_weight`. A subclass usually implements:

    - `__init__`: saves the configuration in attributes and calls
      `super().__init__(**kwargs)`;
    - `build(input_shape)`: creates the weights that depend on the input's
      shape; called once, on the first call;
    - `call(inputs, ...)`: the forward computation. It may take `training`
      (passed on from the outer call, `False` by default) and `mask`
      arguments, which the layer fills in.

    On each call the layer converts NumPy inputs to tensors, casts floating
    inputs to its compute dtype (when `autocast`), checks them against its
    `input_spec` once built, and propagates Keras masks. Called on symbolic
    tensors (`tfkit.Input`), it records the call for a functional model
    instead of running it. Its constructor arguments are captured
    automatically: `get_config` returns them when they are plain values, so a
    subclass needs no `get_config` of its own for simple arguments. A layer is
    a `tf.Module`, so `tf.train.Checkpoint`, `tf.saved_model`,
    `trainable_variables` and `submodules` work on it unchanged.

    Args:
        *args: Positional arguments of a subclass's constructor (captured for
            `get_config`); the base class takes none.
        **kwargs: The base keyword arguments, which every layer accepts:
            `name` (a string without `/`; defaults to a unique name made from
            the class name), `dtype` (a dtype policy or its name, such as
            `"float32"` or `"mixed_float16"`, or `None` for the global policy,
            `tfkit.config.dtype_policy()`), `trainable` (whether the weights
            are trained; defaults to `True`), `autocast` (whether floating
            inputs are cast to the compute dtype; defaults to `True`),
            `input_shape` or `input_dim` (the shape of one sample, for the
            first layer of a `Sequential`; defaults to `None`) and
            `activity_regularizer` (a regularizer applied to the outputs,
            added to `losses`; defaults to `None`). Any other keyword raises
            a `TypeError`.

    Raises:
        TypeError: For an unknown keyword argument.
        ValueError: If `name` is empty or holds a `/`.

    Example:
        >>> class Linear(tfkit.Layer):
        ...     def __init__(self, units=2, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.units = units
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones")
        ...         self.b = self.add_weight(shape=(self.units,), initializer="zeros")
        ...     def call(self, inputs):
        ...         return tf.matmul(inputs, self.w) + self.b
        >>> layer = Linear(3)
        >>> layer(np.ones((2, 4)))
        <tf.Tensor: shape=(2, 3), dtype=float32, numpy=
        array([[4., 4., 4.],
               [4., 4., 4.]], dtype=float32)>
        >>> [tuple(w.shape) for w in layer.weights]
        [(4, 3), (3,)]
        >>> layer.get_config()
        {'name': 'linear', 'trainable': True, 'dtype': 'float32', 'units': 3}
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "build" in cls.__dict__:  # calling build() directly also marks the layer built
            cls.build = marking_built(cls.__dict__["build"])
        if "__init__" in cls.__dict__:  # constructor errors say which layer they are about
            cls.__init__ = naming_errors(cls.__dict__["__init__"])

    # A layer whose call runs on the host (a lookup table): under a tfkit.distribution its eager inputs stay
    # where they are instead of being split over the mesh, which such a layer could not read.
    _tfkit_runs_on_host: bool = False

    def __new__(cls, *args: Any, **kwargs: Any) -> "Layer":
        obj = super().__new__(cls)
        state = LayerState()
        state.init_args = config_capture.capture(cls, args, kwargs)
        object.__setattr__(obj, "_st", state)
        return obj

    def __init__(
        self,
        *,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        input_shape: Sequence[int | None] | None = None,
        input_dim: int | None = None,
        activity_regularizer: Any = None,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__} got unexpected keyword argument(s): {', '.join(sorted(kwargs))}")
        if name is not None and (not isinstance(name, str) or "/" in name or not name):
            raise ValueError(f"Layer names must be non-empty strings without '/', got {name!r}")
        layer_name = name or unique_name(to_snake_case(type(self).__name__))
        module_name = re.sub(r"\W", "_", layer_name)
        if not module_name[0].isalpha() and module_name[0] != "_":
            module_name = "_" + module_name
        super().__init__(name=module_name)
        st = self._st
        st.name = layer_name
        st.policy = dtype_policy.get(dtype)  # None: the global policy (tfkit.mixed_precision)
        st.trainable = bool(trainable)
        st.autocast = autocast
        st.supports_masking = type(self).compute_mask is not Layer.compute_mask
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        st.declared_batch_shape = (None, *input_shape) if input_shape is not None else None
        self.activity_regularizer = regularizers.get(activity_regularizer)

    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list["Layer"]:
        """Keras 3's private walk over this layer and its sub-layers, which Keras code calls (keras-io's LoRA
        example sets `trainable` on the leaves it finds): depth first, each once."""
        if recursive:
            return tracking.flatten_layers(self, include_self)
        return ([self] if include_self else []) + [child for _, child in tracking.children(self)]

    @property
    def _tracker(self) -> AttributeLock:
        """Keras 3's attribute lock, for code that unlocks it before setting a sub-layer (no effect in tfkit)."""
        lock = self.__dict__.get("_tfkit_attribute_lock")
        if lock is None:
            lock = AttributeLock()
            object.__setattr__(self, "_tfkit_attribute_lock", lock)
        return lock

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_tfkit_"):  # tfkit's own bookkeeping: never tracked as a dependency
            object.__setattr__(self, name, value)
            return
        super().__setattr__(name, value)

    # ----------------------------------------------------------------- naming

    @property
    def name(self) -> str:
        """The layer's name, unique in the session unless given."""
        return self._st.name

    @property
    def path(self) -> str:
        """The layer's path, as Keras 3 gives it: the parent's path, then the name (`"block/attention/query"`).

        It is fixed the first time the layer is called or built: the path of
        the layer whose call or build was running then (none: the bare name),
        then this layer's name. Its weights' `path` is this path, then the
        weight's name. Before that it is the path the layer would take now.
        Two layers first opened inside the same layer under the same name get
        `name` and `name_1` (Keras 3 gives both the same path).

        Example:
            >>> class Block(tfkit.Layer):
            ...     def __init__(self, **kwargs):
            ...         super().__init__(**kwargs)
            ...         self.proj = tfkit.layers.Dense(2, name="proj")
            ...     def call(self, x):
            ...         return self.proj(x)
            >>> block = Block(name="block")
            >>> _ = block(np.ones((1, 3)))
            >>> block.proj.path, block.proj.kernel.path
            ('block/proj', 'block/proj/kernel')
        """
        return self._st.path or layer_paths.under_current(self._st.name)

    def _place(self) -> str:
        """Where an error happened: the attribute path from the outermost layer being called (else the name)."""
        outer = call_context.outermost()
        if outer is not None:
            found = tracking.path_of(outer.layer, self)
            if found:
                return f"{outer.layer.name}/{found}"
        return self.name

    def _path_scope(self) -> layer_paths.Scope:
        """The scope a call or build of this layer runs in: fixes the layer's path on first use."""
        st = self._st
        if st.path is None:
            st.path = layer_paths.claim(st.name, self)
        return layer_paths.Scope(self, st.path, st.child_paths)

    @property
    def dtype(self) -> str:
        """The dtype of the layer's variables (Keras 3's meaning); see also ``compute_dtype``."""
        return self._own_policy().variable_dtype

    @property
    def compute_dtype(self) -> str:
        """The dtype the layer computes in: its floating inputs and variables are cast to it in ``call``."""
        return self._own_policy().compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype of the layer's weights (the dtype policy's `variable_dtype`)."""
        return self._own_policy().variable_dtype

    @property
    def dtype_policy(self) -> dtype_policy.DTypePolicy:
        """The layer's `tfkit.DTypePolicy`; settable with a policy or its name.

        A `DTypePolicyMap` (given as `dtype`, shared by a model's layers, as
        KerasHub's quantized presets give it) is returned as it is; the layer
        computes with the policy the map holds for its path. Setting a policy
        on a layer holding a map sets the map's entry for the layer's path.
        """
        return self._st.policy

    @dtype_policy.setter
    def dtype_policy(self, value: Any) -> None:
        policy = dtype_policy.get(value)
        held = self._st.policy
        if isinstance(held, dtype_policies_map.DTypePolicyMap) and not isinstance(policy, type(held)):
            if self.path in held:
                del held[self.path]
            held[self.path] = policy
        else:
            self._st.policy = policy

    @property
    def quantization_mode(self) -> str | None:
        """The quantization mode of the layer's weights (`"int8"`, `"int4"`), or `None` when not quantized."""
        return self._own_policy().quantization_mode

    def _own_policy(self) -> dtype_policy.DTypePolicy:
        """The policy this layer computes with: its own, or a map's entry for its path."""
        held = self._st.policy
        return held[self.path] if isinstance(held, dtype_policies_map.DTypePolicyMap) else held

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"

    # ---------------------------------------------------------------- weights

    def add_weight(
        self,
        shape: Sequence[int] | None = None,
        initializer: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        regularizer: Any = None,
        constraint: Any = None,
        name: str | None = None,
        aggregation: Any = "mean",
        synchronization: Any = "auto",
        autocast: bool = True,
    ) -> tf.Variable:
        """Adds a weight variable to the layer.

        Call it in `__init__` or `build`. The variable is tracked by the layer
        (in `weights`, saved and loaded by the attribute name it is stored
        under) and created outside any `tf.function` being traced. Its `path`
        is the layer's `path`, then `name` (`"block/dense/kernel"`, unique in
        the layer: a repeated name gets `_1`), and TensorFlow's name is that
        path with `:0`.

        Args:
            shape: Shape tuple of the variable. Defaults to `None` (a
                scalar).
            initializer: Initializer instance, name (`"ones"`,
                `"random_normal"`) or callable `fn(shape, dtype)`. Defaults
                to `None`: `"glorot_uniform"` for floating dtypes, `"zeros"`
                otherwise.
            dtype: Dtype of the variable. Defaults to `None` (the layer's
                `variable_dtype`).
            trainable: Whether the variable is trained (in
                `trainable_weights`). Defaults to `True`.
            regularizer: Regularizer instance, name or callable whose value
                on the variable is added to `losses`. Defaults to `None`.
            constraint: Constraint instance, name or callable applied to the
                variable after each optimizer update. Defaults to `None`.
            name: Name of the variable. Defaults to `None` (`"variable"`).
            aggregation: How the variable is aggregated across replicas
                under a distribution strategy: `"mean"`, `"sum"`,
                `"only_first_replica"` or `"none"` (or a
                `tf.VariableAggregation`). Defaults to `"mean"`.
            synchronization: When a distributed variable is synchronized:
                `"auto"`, `"on_write"`, `"on_read"` or `"none"` (or a
                `tf.VariableSynchronization`). Defaults to `"auto"`.
            autocast: Whether `call` sees the variable cast to the layer's
                compute dtype under a mixed dtype policy. Defaults to `True`.

        Returns:
            The new `tf.Variable`.

        Raises:
            ValueError: If the initializer, regularizer or constraint is
                unknown.
            RuntimeError: If the subclass's `__init__` did not call
                `super().__init__()`.

        Example:
            >>> layer = tfkit.Layer()
            >>> w = layer.add_weight(shape=(2, 3), initializer="ones", name="kernel")
            >>> w.shape, w.dtype
            (TensorShape([2, 3]), tf.float32)
            >>> len(layer.weights)
            1
        """
        self._check_initialized()
        shape = tuple(int(d) for d in (shape or ()))
        dtype = tf.as_dtype(dtype or self.variable_dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        try:
            init = initializers.get(initializer)
            constraint = constraints.get(constraint)
            reg = regularizers.get(regularizer)
        except ValueError as error:
            raise ValueError(
                f"Layer '{self._place()}' ({type(self).__name__}), weight '{name or 'variable'}': {error}"
            ) from error
        layer_path = self.path
        own_paths = {getattr(w, "path", None) for w in self._st.weights}
        path = layer_paths.unique_in(f"{layer_path}/{name or 'variable'}", own_paths)
        scope = layer_paths.tf_scope(layer_path)
        with tf.init_scope(), tf.name_scope(scope), distribution_values.variable_scope():
            # named by its path ("block/dense/kernel:0"): unique in a model; under a distribution, laid out by it
            variable = tf.Variable(
                initial_value=lambda: init(shape, dtype=dtype),
                shape=shape,  # declared: a load's variable budget reads it instead of tracing the initializer
                trainable=trainable,
                dtype=dtype,
                name=path.rsplit("/", 1)[-1],
                constraint=constraint,
                aggregation=variable_options.aggregation(aggregation),
                synchronization=variable_options.synchronization(synchronization),
                **variable_options.EAGER_CREATION,
            )
        variable_roles.mark_weight(variable, name or "variable", autocast)  # autocast=False: call() sees its dtype
        layer_paths.set_path(variable, path)
        self._st.weights.append(variable)
        if reg is not None:
            self._st.regularizers.append((variable, reg))
        return variable

    # ----------------------------------------------------------------- losses

    def add_loss(self, value: Any) -> None:
        """Adds a loss tensor to the layer, for the current forward pass.

        Call it in `call` (for example for an activity regularization term).
        The losses are reset at the start of each outermost call and collected
        in `losses`; a model's `compute_loss` adds them to the compiled loss,
        so `fit` minimizes them too.

        Args:
            value: A scalar tensor (or a value convertible to one).

        Example:
            >>> class ActivityPenalty(tfkit.Layer):
            ...     def call(self, inputs):
            ...         self.add_loss(0.5 * tf.reduce_sum(inputs))
            ...         return inputs
            >>> layer = ActivityPenalty()
            >>> _ = layer(tf.ones((2, 2)))
            >>> [float(loss) for loss in layer.losses]
            [2.0]
        """
        self._st.losses.append(value)

    @property
    def losses(self) -> list[Any]:
        """The losses added (`add_loss`) in the last forward pass, then the weight-regularization losses.

        Sub-layers' losses are included.
        """
        out: list[Any] = []
        layers = tracking.flatten_layers(self)
        for layer in layers:
            out.extend(layer._st.losses)
        for layer in layers:
            for variable, regularizer in layer._st.regularizers:
                out.append(regularizer(variable))
        return out

    def _clear_losses(self) -> None:
        for layer in tracking.flatten_layers(self):
            layer._st.losses.clear()

    # ------------------------------------------------------------------ build

    @property
    def built(self) -> bool:
        """Whether the layer's weights have been created (`build` ran)."""
        return self._st.built

    @built.setter
    def built(self, value: bool) -> None:
        self._st.built = bool(value)

    def build(self, input_shape: Any) -> None:
        """Creates the layer's weights, from the shape of its first input.

        Override it to create weights whose shapes depend on the input. It is
        called once, on the layer's first call (outside any `tf.function`
        being traced), or directly; either way the layer is then marked
        built. A `build` that takes more arguments named `<argument>_shape`
        receives the shapes of the call's other arguments of those names. The
        base implementation does nothing.

        Args:
            input_shape: Shape tuple of the first input (batch dimension
                included), or a structure of shape tuples for a list or dict
                of inputs.

        Example:
            >>> layer = tfkit.layers.Dense(4)
            >>> layer.build((None, 3))
            >>> layer.built, tuple(layer.kernel.shape)
            (True, (3, 4))
        """
        del input_shape

    @property
    def input_spec(self) -> Any:
        """A `tfkit.InputSpec` (or a list of them) that inputs are checked against once built; may be `None`."""
        return self._st.input_spec

    @input_spec.setter
    def input_spec(self, value: Any) -> None:
        self._st.input_spec = value

    @property
    def supports_masking(self) -> bool:
        """Whether the layer passes an input mask on to its outputs (see `compute_mask`)."""
        return self._st.supports_masking

    @supports_masking.setter
    def supports_masking(self, value: bool) -> None:
        self._st.supports_masking = bool(value)

    def _build_from_call(self, first: Any, args: tuple, kwargs: dict) -> None:
        shapes = tf.nest.map_structure(shape_tuple, first)
        params = build_parameters(type(self))
        build_kwargs = {}
        if len(params) > 1:
            bound = {self._first_arg_name(): first, **dict(zip(self._call_positional_names(), args)), **kwargs}
            for param in params[1:]:
                source = bound.get(param[: -len("_shape")]) if param.endswith("_shape") else None
                if source is not None:
                    build_kwargs[param] = tf.nest.map_structure(shape_tuple, source)
        n_weights = len(self._st.weights)
        with tf.init_scope():
            self.build(shapes, **build_kwargs)
        self._st.built = True
        self._st.build_shapes = shapes
        if (
            self._st.input_spec is None
            and len(self._st.weights) > n_weights
            and isinstance(shapes, tuple)
            and all(d is None or isinstance(d, int) for d in shapes)
            and shapes
        ):
            self._st.auto_spec = InputSpec(ndim=len(shapes), axes={-1: shapes[-1]})

    def _first_arg_name(self) -> str:
        return call_signature(type(self))[0]

    def _call_positional_names(self) -> list[str]:
        params = list(inspect.signature(type(self).call).parameters.values())[2:]
        return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    def _check_inputs(self, first: Any) -> None:
        spec = self._st.input_spec or self._st.auto_spec
        if spec is None:
            return
        where = _Where(self)  # the layer's place walks the model: computed only for an error's message
        specs = spec if isinstance(spec, (list, tuple)) else None
        if specs is None:
            if is_symbolic(first) or tf.is_tensor(first) or isinstance(first, np.ndarray):
                spec.check(first, where)
            return
        flat = tf.nest.flatten(first)
        if len(flat) != len(specs):
            raise ValueError(f"{where} expects {len(specs)} inputs, got {len(flat)}")
        for i, (s, t) in enumerate(zip(specs, flat)):
            if s is not None:
                s.check(t, _Where(self, f", input {i},"))

    # ------------------------------------------------------------------- call

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """The layer's forward computation; override it.

        Do not call it directly: call the layer (`layer(inputs)`), which
        builds it, converts and checks the inputs, passes `training` and
        `mask` on, and then calls `call`. The base implementation returns
        `inputs` unchanged.

        Args:
            inputs: The input tensor, or a list or dict of tensors.
            *args: Other positional arguments a subclass declares.
            **kwargs: Other keyword arguments a subclass declares; commonly
                `training` (bool: whether the call is for training, which
                layers such as `Dropout` read) and `mask` (the Keras mask of
                `inputs`).

        Returns:
            The output tensor(s).

        Example:
            >>> class Double(tfkit.Layer):
            ...     def call(self, inputs, training=None):
            ...         return inputs * 2.0 if training else inputs
            >>> layer = Double()
            >>> layer(tf.ones((1, 2)), training=True)
            <tf.Tensor: shape=(1, 2), dtype=float32, numpy=array([[2., 2.]], dtype=float32)>
            >>> layer(tf.ones((1, 2)))
            <tf.Tensor: shape=(1, 2), dtype=float32, numpy=array([[1., 1.]], dtype=float32)>
        """
        return inputs

    def _check_initialized(self) -> None:
        if not self._st.name:  # Layer.__init__ names every layer: it never ran
            raise RuntimeError(
                f"{type(self).__name__} was never initialized as a layer: its __init__ did not call "
                f"super().__init__(). Call super().__init__(**kwargs) in {type(self).__name__}.__init__ "
                f"(attributes may be set before or after it)."
            )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._check_initialized()
        first_name, has_training, has_mask, training_default, _ = call_signature(type(self))
        if args:
            first, rest = args[0], args[1:]
        elif first_name in kwargs:
            first, rest = kwargs.pop(first_name), ()
        else:
            raise TypeError(f"Layer '{self.name}' was called without inputs")
        if is_symbolic(first) or any(is_symbolic(a) for a in rest) or any(is_symbolic(v) for v in kwargs.values()):
            with self._path_scope():  # what the recorded call builds lies below this layer's path
                return _symbolic_call_recorder(self, (first, *rest), kwargs)
        first = self._convert_inputs(first)
        rest = tuple(self._convert_inputs(a) if isinstance(a, np.ndarray) else a for a in rest)

        outer = call_context.current()
        training = kwargs.pop("training", None)
        if training is None and outer is not None:
            training = outer.training
        if training is None:
            training = training_default
        if has_training:
            kwargs["training"] = training

        input_mask = kwargs.get("mask") if has_mask else None
        if input_mask is None:
            input_mask = masking.get_mask_structure(first)
            if has_mask and input_mask is not None:
                kwargs["mask"] = input_mask
        elif not has_mask:
            kwargs.pop("mask", None)

        if outer is None:
            self._clear_losses()
            if tf.executing_eagerly() and not self._tfkit_runs_on_host:  # under a distribution: split over the mesh
                first, rest = distribution_values.distribute_call_inputs(lambda: self.weights, (first, rest))
        with call_context.enter(self, training), self._path_scope():
            if not self._st.built:
                if self._st.input_spec is not None:
                    self._check_inputs(first)
                self._build_from_call(first, rest, kwargs)
            else:
                self._check_inputs(first)
            with autocast.variables_cast_in_call(self):
                if tf.executing_eagerly():
                    outputs = self.call(first, *rest, **kwargs)
                else:
                    with tf.name_scope(scope_name(self._name, "layer")):
                        outputs = autograph.convert_user_call(self.call)(first, *rest, **kwargs)
            outputs = distribution_values.constrain_output(self._name, outputs)  # a "<name>/output" layout
            self._st.output_shapes = tf.nest.map_structure(shape_tuple, outputs)
            if self.activity_regularizer is not None:
                for tensor in tf.nest.flatten(outputs):
                    self.add_loss(self.activity_regularizer(tensor) / tf.cast(tf.shape(tensor)[0], tensor.dtype))
            if input_mask is not None or self._st.supports_masking and _overrides_compute_mask(self):
                out_mask = self.compute_mask(first, input_mask)
                if out_mask is not None:
                    masking.set_mask_structure(outputs, out_mask)
        if outer is None and tf.executing_eagerly():
            outputs = distribution_values.readable_outputs(outputs)  # DTensors NumPy can read (replicated)
        return outputs

    def _convert_inputs(self, value: Any) -> Any:
        dtype = self._own_policy().compute_dtype
        floating = self._st.autocast and tf.as_dtype(dtype).is_floating

        def convert(x: Any) -> Any:
            if isinstance(x, np.ndarray):
                if floating and np.issubdtype(x.dtype, np.floating):
                    return tf.convert_to_tensor(x, dtype=dtype)
                return tf.convert_to_tensor(x)
            if floating and isinstance(x, (tf.Tensor, tf.Variable)) and x.dtype.is_floating and x.dtype != dtype:
                mask = masking.get_mask(x)
                x = tf.cast(x, dtype)
                if mask is not None:
                    masking.set_mask(x, mask)
            return x

        if isinstance(value, (np.ndarray, tf.Tensor, tf.Variable)):
            return convert(value)
        if isinstance(value, (list, tuple, dict)):
            return tf.nest.map_structure(convert, value)
        return value

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """Computes the output mask from the inputs and their mask.

        The layer calls it after `call` when a mask came in (or when a
        subclass overrides it) and attaches the result to the outputs. The
        base implementation passes `mask` through when `supports_masking`,
        else returns `None`.

        Args:
            inputs: The layer's inputs.
            mask: The inputs' mask (a boolean tensor), or `None`. Defaults to
                `None`.

        Returns:
            The outputs' mask, or `None`.

        Example:
            >>> layer = tfkit.layers.Masking(mask_value=0.0)
            >>> x = np.array([[[1.0], [0.0]]])
            >>> layer.compute_mask(x).numpy()
            array([[ True, False]])
        """
        return mask if self._st.supports_masking else None

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Computes the output shape of the layer for an input shape, without running it.

        Built-in layers define it. A subclass may define it so that a
        functional model knows the layer's output shape without tracing
        `call`; without it, calls on symbolic tensors trace `call` once in a
        scratch graph (no data runs). The base implementation raises.

        Args:
            input_shape: Shape tuple (batch dimension included; `None` for
                unknown dimensions), or a structure of them.

        Returns:
            The output shape tuple, or a structure of them.

        Raises:
            NotImplementedError: In the base class.

        Example:
            >>> tfkit.layers.Dense(4).compute_output_shape((None, 3))
            (None, 4)
        """
        raise NotImplementedError(f"Layer '{self.name}' ({type(self).__name__}) does not define compute_output_shape")

    @property
    def output(self) -> Any:
        """The symbolic output of this layer's first call in a functional model (as in Keras)."""
        return self._symbolic_node("output").outputs

    @property
    def input(self) -> Any:
        """The symbolic input of this layer's first call in a functional model (as in Keras)."""
        node = self._symbolic_node("input")
        return node.args[0] if len(node.args) == 1 else list(node.args)

    def _symbolic_node(self, what: str) -> Any:
        nodes = self._st.nodes
        owner = self._st.graph_owner
        if not nodes and owner is not None and owner() is not None and owner()._ensure_graph():
            nodes = self._st.nodes  # a Sequential built on data made its graph
        if not nodes:
            raise AttributeError(
                f"Layer '{self.name}' has no {what}: it was never called on symbolic inputs (tfkit.Input)"
            )
        return nodes[0]

    # ------------------------------ for tfkit's graphs, models and files: declared here, not public API

    @property
    def _build_shapes(self) -> Any:
        """The input shapes the layer was built with (batch dimension included), or None."""
        return self._st.build_shapes

    def _set_build_shapes(self, shapes: Any) -> None:
        self._st.build_shapes = shapes

    @property
    def _output_shapes(self) -> Any:
        """The output shapes of the last call (what ``summary`` shows), or None."""
        return self._st.output_shapes

    def _set_output_shapes(self, shapes: Any) -> None:
        self._st.output_shapes = shapes

    @property
    def _declared_batch_shape(self) -> Any:
        """``(None, *input_shape)`` from the constructor's ``input_shape=``/``input_dim=``, or None."""
        return self._st.declared_batch_shape

    def _own_weights(self) -> list[tf.Variable]:
        """The variables this layer created itself with ``add_weight``, in creation order."""
        return list(self._st.weights)

    @property
    def _recorded_nodes(self) -> list[Any]:
        """The calls of this layer on symbolic tensors (``functional_graph.Node``), oldest first."""
        return self._st.nodes

    @property
    def _inbound_names(self) -> list[str]:
        """The layers feeding this one in its functional model (for ``summary``)."""
        return self._st.inbound_names

    def _set_inbound_names(self, names: list[str]) -> None:
        self._st.inbound_names = list(names)

    def _set_graph_owner(self, owner: Any) -> None:
        """The ``Sequential`` that can make this layer's graph when ``layer.output`` is asked for."""
        self._st.graph_owner = weakref.ref(owner)

    def _state_snapshot(self) -> dict[str, Any]:
        """Everything the layer knows about itself besides weights, for :meth:`_restore_state`."""
        return self._st.snapshot()

    def _restore_state(self, snapshot: dict[str, Any]) -> None:
        self._st.restore(snapshot)

    # ----------------------------------------------------------------- config

    def get_config(self) -> dict[str, Any]:
        """Returns the config of the layer: a dict from which it can be recreated.

        The base implementation returns `name`, `trainable` and `dtype`, plus
        the constructor arguments the layer was created with when they are
        plain values (numbers, strings, lists, dicts) or serializable tfkit
        objects, so simple subclasses need no `get_config` of their own. A
        subclass that overrides it gets only the three base keys from
        `super().get_config()` and adds its own. The config holds no weights.

        Returns:
            A dict, serializable to JSON.

        Example:
            >>> tfkit.layers.Dropout(0.5, name="drop").get_config()
            {'name': 'drop', 'trainable': True, 'dtype': 'float32', 'rate': 0.5, 'seed': None, 'noise_shape': None}
        """
        policy = self._st.policy  # a mixed policy as Keras 3 writes it; a plain one as its dtype name
        base = {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": dtype_policy.serialize(policy) if policy.is_mixed else policy.name,
        }
        if type(self).get_config is not Layer.get_config:
            return base
        base.update(config_capture.plain_config(self.name, type(self), self._st.init_args))
        return base

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Layer":
        """Creates a layer from its config (the output of `get_config`).

        Calls `cls(**config)`; the base keys (`name`, `trainable`, `dtype`)
        that the constructor does not take are set afterwards. For your own
        classes, objects that `get_config()` returned serialized (layers,
        initializers, regularizers, constraints, registered functions) come
        back as objects. The new layer has fresh, unbuilt weights.

        Args:
            config: A dict, as `get_config` returns it.

        Returns:
            A new layer instance.

        Raises:
            TypeError: If the constructor does not accept the config (then
                override `from_config`).

        Example:
            >>> layer = tfkit.layers.Dense(3, activation="relu")
            >>> clone = tfkit.layers.Dense.from_config(layer.get_config())
            >>> clone.units, clone.activation.__name__
            (3, 'relu')
        """
        config = dict(config)
        if not registry.is_builtin("layers", cls):
            config = config_serialization.revive_config_values(config)
        later = {
            k: config.pop(k) for k in config_capture.BASE_KEYS if k in config and not config_capture.accepts(cls, k)
        }
        try:
            layer = cls(**config)
        except TypeError as error:
            raise TypeError(
                f"Could not rebuild {cls.__name__} from config {config}: {error}. "
                f"Override {cls.__name__}.from_config() if its constructor needs more than the config."
            ) from error
        if "trainable" in later:
            layer.trainable = later["trainable"]
        if "name" in later:
            layer._st.name = later["name"]
        if "dtype" in later and later["dtype"] is not None:
            layer._st.policy = dtype_policy.get(later["dtype"])
        return layer


def _overrides_compute_mask(layer: Layer) -> bool:
    return type(layer).compute_mask is not Layer.compute_mask


class _Where:
    """``Layer '<path>' (<class>)<suffix>`` for input-check messages, formatted only when a message is made.

    ``Layer._place`` walks the enclosing model; building the text on every call cost eager calls of large
    models time growing with the square of the layer count (found by the property tests).
    """

    def __init__(self, layer: Layer, suffix: str = "") -> None:
        self.layer, self.suffix = layer, suffix

    def __str__(self) -> str:
        return f"Layer '{self.layer._place()}' ({type(self.layer).__name__}){self.suffix}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)
