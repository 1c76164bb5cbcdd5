"""Core layers: ``Dense``, ``EinsumDense``, ``Activation``, ``Identity``, ``Lambda``.

dense = tfkit.layers.Dense(64, activation="relu")
y = dense(tf.ones((2, 3)))       # kernel (3, 64), bias (64,)
dense.get_config()["units"]      # 64
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import tensorflow as tf

from tfkit import activations, constraints, initializers, regularizers
from tfkit.base import registry
from tfkit.base.argument_validation import is_shape, positive_int
from tfkit.engine import config_capture, shape_inference
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers import assigned_activation
from tfkit.layers.einsum_dense import EinsumDense  # noqa: F401  (its own file; exported with the core layers)
from tfkit.layers.lora import LoRA
from tfkit.layers.quantized import Int8Quantization

__all__ = ["Dense", "EinsumDense", "Activation", "Identity", "Lambda"]


def base_config(layer: Layer) -> dict[str, Any]:
    """The base layer's config plus ``activity_regularizer`` when one is set.

    Shared by tfkit's built-in layers, whose ``get_config`` starts from it.
    """
    config = Layer.get_config(layer)
    if layer.activity_regularizer is not None:
        config["activity_regularizer"] = regularizers.serialize(layer.activity_regularizer)
    return config


def check_input_spec(layer: Layer, input_shape: Any) -> None:
    """Check ``layer.input_spec`` against the first input's shape while building.

    The base layer checks specs on calls after the build; built-in layers
    whose spec is known from ``__init__`` call this from ``build`` so the very
    first call fails the same way.
    """
    if layer.input_spec is not None and isinstance(input_shape, tuple):
        layer.input_spec.check(tf.TensorSpec(input_shape), f"Layer '{layer.name}' ({type(layer).__name__})")


# ------------------------------------------------------------------ Dense


@registry.builtin("layers")
class Dense(Int8Quantization, LoRA, Layer):
    """Just your regular densely-connected NN layer.

    `Dense` computes `activation(inputs @ kernel + bias)` on the last axis of
    its inputs, where `kernel` is an `(input_dim, units)` weight matrix and
    `bias` a `(units,)` vector (when `use_bias` is `True`). Inputs of rank
    above 2 are multiplied along their last axis, so `(batch, time, features)`
    gives `(batch, time, units)`. Inputs of another dtype are cast to the
    kernel's dtype. The layer passes its input mask through unchanged.

    With `lora_rank` set, LoRA is enabled as soon as the layer is built (see
    `enable_lora()`); under an `"int8"`/`"int4"` dtype policy, or after
    `quantize()`, the kernel is stored quantized.

    Args:
        units: Positive integer, the size of the output's last axis.
        activation: Activation to apply: a name (`"relu"`), a callable, or
            `None` (the default) for none (`a(x) = x`).
        use_bias: Whether to add a bias vector. Defaults to `True`.
        kernel_initializer: Initializer for the `kernel` weight matrix.
            Defaults to `"glorot_uniform"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        kernel_regularizer: Regularizer applied to the `kernel`. Defaults to
            `None`.
        bias_regularizer: Regularizer applied to the bias. Defaults to `None`.
        kernel_constraint: Constraint applied to the `kernel` after each
            optimizer update. Defaults to `None`.
        bias_constraint: Constraint applied to the bias. Defaults to `None`.
        lora_rank: Optional positive integer: enable LoRA with this rank when
            the layer is built. The kernel is then frozen and two trainable
            factors `lora_kernel_a` `(input_dim, rank)` and `lora_kernel_b`
            `(rank, units)` are added. Defaults to `None` (no LoRA).
        lora_alpha: Optional scale of the LoRA update: the layer computes with
            `kernel + (lora_alpha / lora_rank) * lora_kernel_a @ lora_kernel_b`.
            `None` (the default) uses `lora_rank`.
        quantization_config: Optional `tfkit.quantizers.QuantizationConfig`
            (or its config dict) used when the layer is quantized. Defaults
            to `None`.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype`,
            `trainable` and `activity_regularizer`.

    Call arguments:
        inputs: A tensor of rank 2 or more whose last axis is `input_dim`.

    Input shape:
        N-D tensor with shape `(batch_size, ..., input_dim)`. The most common
        situation is a 2D input with shape `(batch_size, input_dim)`.

    Output shape:
        N-D tensor with shape `(batch_size, ..., units)`. For instance, for a
        2D input with shape `(batch_size, input_dim)`, the output has shape
        `(batch_size, units)`.

    Raises:
        ValueError: If `units` or `lora_rank` is not a positive integer, if the
            input has rank below 2 or an unknown last dimension, or if
            `quantization_config` is not a `QuantizationConfig`.

    Example:
        >>> layer = tfkit.layers.Dense(3, activation="relu")
        >>> layer(np.ones((2, 4))).shape
        TensorShape([2, 3])
        >>> layer.kernel.shape, layer.bias.shape
        (TensorShape([4, 3]), TensorShape([3]))
        >>> ones = tfkit.layers.Dense(2, kernel_initializer="ones")
        >>> ones(np.ones((2, 5, 4))).shape
        TensorShape([2, 5, 2])
        >>> ones(np.ones((1, 4))).numpy()
        array([[4., 4.]], dtype=float32)
    """

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        lora_rank: int | None = None,
        lora_alpha: float | None = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.units = positive_int(units, "units", f"Dense layer '{self.name}'")
        self._init_lora(lora_rank, lora_alpha)
        self._init_quantization(quantization_config)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape: tuple) -> None:
        if len(input_shape) < 2:
            raise ValueError(
                f"Dense layer '{self.name}' expected input of rank >= 2 (batch, ..., features), "
                f"got input shape {tuple(input_shape)}"
            )
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(
                f"Dense layer '{self.name}' needs a known last input dimension, got input shape {input_shape}"
            )
        if self.quantization_mode:
            self._build_quantized((input_dim, self.units))
        else:
            self.kernel = self.add_weight(
                shape=(input_dim, self.units),
                initializer=self.kernel_initializer,
                regularizer=self.kernel_regularizer,
                constraint=self.kernel_constraint,
                name="kernel",
            )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        else:
            self.bias = None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})
        self.built = True  # also when build() is called directly, as in Keras
        self._lora_after_build()

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        if self.quantization_mode:
            outputs = self._quantized_matmul(inputs)
            if self.lora_enabled:
                outputs += self._lora_delta_outputs(inputs, lookup=False)
            if self.bias is not None:
                outputs = tf.nn.bias_add(outputs, tf.cast(self.bias, outputs.dtype))
            return assigned_activation.apply(self, outputs)
        kernel = self.merged_kernel() if self.lora_enabled else self.kernel
        if inputs.dtype != kernel.dtype:
            inputs = tf.cast(inputs, kernel.dtype)
        rank = inputs.shape.rank
        if rank == 2:
            outputs = tf.matmul(inputs, kernel)
        else:
            outputs = tf.tensordot(inputs, kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape[:-1].concatenate([self.units]))
        if self.bias is not None:
            outputs = tf.nn.bias_add(outputs, self.bias)
        return assigned_activation.apply(self, outputs)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return (*tuple(input_shape)[:-1], self.units)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(
            units=self.units,
            activation=activations.serialize(self.activation),
            use_bias=self.use_bias,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            kernel_constraint=constraints.serialize(self.kernel_constraint),
            bias_constraint=constraints.serialize(self.bias_constraint),
            **self._quantized_config(),
            **self._lora_config(),
        )
        return config


# ------------------------------------------------------------- Activation


@registry.builtin("layers")
class Activation(Layer):
    """Applies an activation function to an output.

    `Activation("relu")(x)` equals `tfkit.activations.relu(x)`. The input
    mask, if any, is passed through.

    Args:
        activation: Activation function to apply: a name such as `"relu"` (any
            name `tfkit.activations.get` accepts) or a callable.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor.

    Input shape:
        Arbitrary.

    Output shape:
        Same shape as the input.

    Example:
        >>> layer = tfkit.layers.Activation("relu")
        >>> layer(tf.constant([-1.0, 0.0, 2.0])).numpy()
        array([0., 0., 2.], dtype=float32)
    """

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.supports_masking = True

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return self.activation(inputs)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["activation"] = activations.serialize(self.activation)
        return config


@registry.builtin("layers")
class Identity(Layer):
    """Identity layer: returns its inputs unchanged.

    It is a placeholder where a layer is expected but nothing should be done.
    Any structure of tensors passes through, and so does the input mask.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor or a nested structure of tensors.

    Input shape:
        Arbitrary.

    Output shape:
        Same as the input.

    Example:
        >>> layer = tfkit.layers.Identity()
        >>> layer(tf.constant([1.0, 2.0])).numpy()
        array([1., 2.], dtype=float32)
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return base_config(self)


# ------------------------------------------------------------------ Lambda


def function_name(fn: Callable[..., Any], what: str, layer: str) -> str:
    """The name ``fn`` is saved under: a registered name or a built-in activation."""
    try:
        return registry.name_for("activations", fn)
    except ValueError:
        pass
    label = getattr(fn, "__name__", repr(fn))
    raise ValueError(
        f"{layer}: cannot save {what} {label!r} in a config: it has no name (a lambda). tfkit stores "
        f"functions by name only (never as code): define it with 'def' (loading then takes it in "
        f"custom_objects), or register it with @tfkit.saving.register_keras_serializable()."
    )


def resolve_function(name: Any, what: str) -> Callable[..., Any]:
    """The function a config names: a registered function, else a built-in activation."""
    if not isinstance(name, str):
        raise ValueError(
            f"Lambda config: {what} must be a registered function name (a string), got "
            f"{type(name).__name__}. tfkit does not load functions saved as code; register the "
            f"function with @tfkit.saving.register_keras_serializable(package=...) and save again."
        )
    try:
        return registry.lookup("functions", name)
    except ValueError:
        pass
    try:
        return registry.lookup("activations", name)
    except ValueError:
        raise ValueError(
            f"Lambda config: unknown {what} {name!r}. It is neither a registered function nor a "
            f"built-in activation; register it with @tfkit.saving.register_keras_serializable(package=...) "
            f"(or pass it in custom_objects=) before loading."
        ) from None


def _map_shapes(fn: Callable[[tuple], Any], shapes: Any) -> Any:
    if is_shape(shapes):
        return fn(tuple(shapes))
    if isinstance(shapes, dict):
        return {k: _map_shapes(fn, v) for k, v in shapes.items()}
    if isinstance(shapes, (tuple, list)):
        return type(shapes)(_map_shapes(fn, s) for s in shapes)
    raise ValueError(f"Expected a shape (tuple of ints/None) or a structure of shapes, got {shapes!r}")


def _first_shape(shapes: Any) -> tuple:
    if is_shape(shapes):
        return tuple(shapes)
    values = shapes.values() if isinstance(shapes, dict) else shapes
    for value in values:
        return _first_shape(value)
    return ()


def _accepts(function: Callable[..., Any], name: str) -> bool:
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


@registry.builtin("layers")
@shape_inference.always_trace  # a user function: only a trace tells its outputs
class Lambda(Layer):
    """Wraps an arbitrary function of the inputs as a `Layer` object.

    `Lambda` is for simple, stateless operations in a functional or sequential
    model; anything with weights should be a `Layer` subclass. `function` is
    called as `function(inputs, **arguments)`, and also receives `mask=` and
    `training=` when its signature names those parameters.

    Only named functions can be saved: a built-in activation name or a
    function registered with `tfkit.saving.register_keras_serializable`;
    `get_config` refuses lambdas and unregistered functions (tfkit never
    stores a function as code, unlike Keras's unsafe deserialization), and
    `arguments` must hold plain values to be saved.

    Args:
        function: The function to wrap. It takes the input tensor (or
            structure of tensors) as its first argument.
        output_shape: The output shape, without the batch axis: a tuple (or a
            structure of tuples for several outputs), or a function mapping
            the input shape (with the batch axis) to the output shape.
            `None` (the default) infers it by tracing `function`.
        mask: Either `None` (the default: no mask is produced), a tensor used
            as the output mask, or a function `mask(inputs, previous_mask)`
            computing it. A non-`None` value makes the layer support masking.
        arguments: Optional dict of extra keyword arguments passed to
            `function` on every call. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Input tensor(s) passed to `function`.
        mask: Optional input mask, passed on when `function` accepts `mask`.
        training: Python boolean or `None`, passed on when `function`
            accepts `training`.

    Input shape:
        Arbitrary.

    Output shape:
        Given by `output_shape`, else inferred from `function`.

    Raises:
        ValueError: If `function` is not callable or `arguments` is not a dict.
        NotImplementedError: From `compute_output_shape`, when `output_shape`
            is `None` and tracing `function` fails.

    Example:
        >>> double = tfkit.layers.Lambda(lambda x: x * 2)
        >>> double(tf.constant([[1.0, 2.0]])).numpy()
        array([[2., 4.]], dtype=float32)
        >>> scale = tfkit.layers.Lambda(lambda x, n: x * n, arguments={"n": 3})
        >>> scale(tf.constant([[1.0, 2.0]])).numpy()
        array([[3., 6.]], dtype=float32)
        >>> head = tfkit.layers.Lambda(lambda x: x[:, :2], output_shape=(2,))
        >>> head.compute_output_shape((None, 4))
        (None, 2)
    """

    def __init__(
        self,
        function: Callable[..., Any],
        output_shape: Any = None,
        mask: Any = None,
        arguments: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not callable(function):
            raise ValueError(f"Lambda layer '{self.name}' expected a callable function, got {function!r}")
        if arguments is not None and not isinstance(arguments, dict):
            raise ValueError(f"Lambda layer '{self.name}' expected arguments to be a dict or None, got {arguments!r}")
        self.function = function
        self._tfkit_arguments = dict(arguments or {})  # kept off tf.Module's tracking (plain dict)
        self.mask = mask
        self._output_shape = output_shape
        self.supports_masking = mask is not None
        self._tfkit_wants_mask = _accepts(function, "mask")
        self._tfkit_wants_training = _accepts(function, "training")

    @property
    def arguments(self) -> dict[str, Any]:
        """Extra keyword arguments passed to ``function`` on every call."""
        return self._tfkit_arguments

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        kwargs = dict(self.arguments)
        if self._tfkit_wants_mask:
            kwargs["mask"] = mask
        if self._tfkit_wants_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self._output_shape is None:
            return self._infer_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        batch = _first_shape(input_shape)[:1] or (None,)
        return _map_shapes(lambda s: (*batch, *s), self._output_shape)

    def _infer_output_shape(self, input_shape: Any) -> Any:
        specs = _map_shapes(lambda s: tf.TensorSpec(s, self.compute_dtype), input_shape)
        try:
            traced = tf.function(lambda x: self.call(x)).get_concrete_function(specs)
        except Exception as error:  # any failure of the user's function while tracing
            raise NotImplementedError(
                f"Lambda layer '{self.name}' could not infer its output shape from input shape "
                f"{input_shape} ({type(error).__name__}: {error}); pass output_shape=..."
            ) from error
        return tf.nest.map_structure(
            lambda t: tuple(t.shape.as_list()) if t.shape.rank is not None else None, traced.structured_outputs
        )

    def get_config(self) -> dict[str, Any]:
        who = f"Lambda layer '{self.name}'"
        config = base_config(self)
        config["function"] = function_name(self.function, "function", who)
        if self._output_shape is not None:
            if callable(self._output_shape):
                config["output_shape"] = function_name(self._output_shape, "output_shape function", who)
            else:
                config["output_shape"] = self._output_shape
        if self.mask is not None:
            if not callable(self.mask):
                raise ValueError(f"{who}: only a mask function (registered by name) can be saved, got {self.mask!r}")
            config["mask"] = function_name(self.mask, "mask function", who)
        if not config_capture.is_plain(self.arguments):
            raise ValueError(
                f"{who}: arguments must be plain values (numbers, strings, lists, dicts) to be saved, "
                f"got {self.arguments!r}"
            )
        config["arguments"] = self.arguments
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Lambda":
        config = dict(config)
        if "function" not in config:
            raise ValueError("Lambda config has no 'function' entry")
        config["function"] = resolve_function(config["function"], "function")
        output_shape = config.get("output_shape")
        if isinstance(output_shape, str):
            config["output_shape"] = resolve_function(output_shape, "output_shape function")
        elif output_shape is not None:
            if not isinstance(output_shape, (list, tuple)):
                raise ValueError(
                    f"Lambda config: output_shape must be a list of ints or a function name, got {output_shape!r}"
                )
            config["output_shape"] = _map_shapes(tuple, output_shape)
        if config.get("mask") is not None:
            config["mask"] = resolve_function(config["mask"], "mask function")
        return super().from_config(config)
