"""One timestep of a recurrent network: ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``.

    cell = tfkit.layers.LSTMCell(8)
    h, [h, c] = cell(x_t, [h0, c0])              # x_t: (batch, features)
    seq = tfkit.layers.RNN(cell, return_sequences=True)(x)

Weights match Keras 3 (``kernel`` ``(input_dim, gates * units)``,
``recurrent_kernel`` ``(units, gates * units)``, ``bias``; LSTM gates in the
order i, f, c, o and GRU gates z, r, h, GRU ``reset_after`` bias ``(2, 3 * units)``).
Besides the per-step ``call`` every cell splits its work in two, which the
``RNN`` layer uses to run fast: :meth:`project_inputs` multiplies inputs by
``kernel`` (one timestep, or *all* timesteps at once), and :meth:`step` does
the recurrent part of a single timestep from that projection.

Dropout follows Keras's "variational" scheme: one input mask and one
recurrent mask per sequence, reused at every timestep (and shared by the
gates), drawn only when ``training`` is true.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

import numpy as np
import tensorflow as tf

from tfkit import activations, constraints, initializers, random, regularizers
from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.distribution import values as distribution_values
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers import assigned_activation
from tfkit.layers.core import base_config

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell"]


def _rate(value: Any, what: str, who: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise ValueError(f"{who} expected {what} to be a float in [0, 1], got {value!r}")
    return float(min(1.0, max(0.0, float(value))))


def _matching(weight: tf.Variable, dtype: tf.DType) -> tf.Tensor:
    return weight if weight.dtype == dtype else tf.cast(weight, dtype)


class _RecurrentCell(Layer):
    """What the three built-in cells share: weights, dropout masks, config.

    Subclasses set ``_gates`` (how many ``units``-wide blocks ``kernel`` has)
    and implement :meth:`step` and, if their bias is special, :meth:`_bias_initializer`.
    """

    _gates = 1

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = f"{type(self).__name__} '{self.name}'"
        self.units = positive_int(units, "units", who)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = _rate(dropout, "dropout", who)
        self.recurrent_dropout = _rate(recurrent_dropout, "recurrent_dropout", who)
        self.seed = seed
        self.seed_generator = random.SeedGenerator(seed)

    # ----------------------------------------------------------- structure

    @property
    def state_size(self) -> int | list[int]:
        return self.units

    @property
    def output_size(self) -> int:
        return self.units

    def get_initial_state(self, batch_size: Any = None) -> list[tf.Tensor]:
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [self.state_size]
        return [tf.zeros(tf.stack([batch_size, size]), dtype=self.compute_dtype) for size in sizes]

    # --------------------------------------------------------------- build

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(
                f"{type(self).__name__} '{self.name}' needs a known last input dimension, got input shape {input_shape}"
            )
        width = self._gates * self.units
        self.kernel = self.add_weight(
            shape=(input_dim, width),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, width),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
            name="recurrent_kernel",
        )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=self._bias_shape(),
                initializer=self._bias_initializer(),
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        else:
            self.bias = None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: int(input_dim)})

    def _bias_shape(self) -> tuple[int, ...]:
        return (self._gates * self.units,)

    def _bias_initializer(self) -> Any:
        return self.bias_initializer

    def _input_bias(self, dtype: tf.DType) -> tf.Tensor | None:
        return None if self.bias is None else self._weight(self.bias, dtype)

    @contextlib.contextmanager
    def weights_read_once(self) -> Iterator[None]:
        """Inside the block, the step reads each weight from one value read before the loop.

        A variable read inside a ``tf.while_loop`` body is a new tensor at every
        timestep, and the loop's gradient then stores it once per timestep; a
        value read before the loop is loop-invariant and stored once.
        """
        weights = [w for w in (self.kernel, self.recurrent_kernel, self.bias) if w is not None]
        self._tfkit_weight_values = {id(w): tf.convert_to_tensor(w) for w in weights}
        try:
            yield
        finally:
            self._tfkit_weight_values = None

    def _weight(self, weight: tf.Variable, dtype: tf.DType) -> tf.Tensor:
        values = getattr(self, "_tfkit_weight_values", None)
        value = values.get(id(weight), weight) if values else weight
        return _matching(value, dtype)

    # ------------------------------------------------------------- dropout

    def dropout_masks(self, step_inputs: tf.Tensor, state: tf.Tensor, training: Any) -> tuple[Any, Any]:
        """``(input_mask, recurrent_mask)`` for one sequence; ``None`` where no dropout applies."""
        return (
            _dropout_mask(step_inputs, self.dropout, self.seed_generator, training),
            _dropout_mask(state, self.recurrent_dropout, self.seed_generator, training),
        )

    # ----------------------------------------------------------- the math

    def project_inputs(self, inputs: tf.Tensor, input_mask: Any = None) -> tf.Tensor:
        """``inputs @ kernel (+ input bias)`` for ``inputs`` of shape ``(..., input_dim)``.

        ``input_mask`` (``(batch, input_dim)``) is broadcast over any axes
        between the batch axis and the last one, so time-major
        ``(time, batch, input_dim)`` inputs take a ``(1, batch, input_dim)`` mask.
        """
        if input_mask is not None:
            inputs = inputs * input_mask
        kernel = self._weight(self.kernel, inputs.dtype)
        if inputs.shape.rank == 2:
            projected = tf.matmul(inputs, kernel)
        else:
            flat = tf.reshape(inputs, [-1, tf.shape(inputs)[-1]])
            projected = tf.reshape(
                tf.matmul(flat, kernel), tf.concat([tf.shape(inputs)[:-1], [kernel.shape[-1]]], axis=0)
            )
            projected.set_shape(inputs.shape[:-1].concatenate([kernel.shape[-1]]))
        bias = self._input_bias(projected.dtype)
        if bias is not None:
            projected = projected + bias
        return projected

    def step(self, projected: tf.Tensor, states: Sequence[tf.Tensor], recurrent_mask: Any = None) -> tuple:
        """``(output, new_states)`` for one timestep from its projected inputs."""
        raise NotImplementedError

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs: tf.Tensor, states: Any, training: Any = None) -> tuple:
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        states = [self._convert_inputs(state) for state in states]  # NumPy / float64 states -> compute dtype, as Keras
        input_mask, recurrent_mask = self.dropout_masks(inputs, states[0], training)
        return self.step(self.project_inputs(inputs, input_mask), states, recurrent_mask)

    def compute_output_shape(self, input_shape: Any, states_shape: Any = None) -> tuple:
        return (input_shape[0], self.units)

    # -------------------------------------------------------------- config

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(
            units=self.units,
            activation=activations.serialize(self.activation),
            use_bias=self.use_bias,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            recurrent_initializer=initializers.serialize(self.recurrent_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            recurrent_regularizer=regularizers.serialize(self.recurrent_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            kernel_constraint=constraints.serialize(self.kernel_constraint),
            recurrent_constraint=constraints.serialize(self.recurrent_constraint),
            bias_constraint=constraints.serialize(self.bias_constraint),
            dropout=self.dropout,
            recurrent_dropout=self.recurrent_dropout,
            seed=self.seed,
        )
        return config


def _dropout_mask(like: tf.Tensor, rate: float, seed: random.SeedGenerator, training: Any) -> Any:
    """A ``{0, 1/(1-rate)}`` mask shaped like ``like`` when training, else ``None``."""
    if rate <= 0.0 or training is None:
        return None
    if isinstance(training, (bool, np.bool_, int)) and not training:
        return None
    ones = tf.ones_like(like)
    dropped = tf.zeros_like(like) if rate >= 1.0 else random.dropout(ones, rate=rate, seed=seed)
    if isinstance(training, (bool, np.bool_, int)):
        return dropped
    return tf.where(tf.cast(training, tf.bool), dropped, ones)


# --------------------------------------------------------------- SimpleRNN


@registry.builtin("layers")
class SimpleRNNCell(_RecurrentCell):
    """Cell class for `SimpleRNN`.

    This class processes one step within the whole time sequence input,
    whereas `tfkit.layers.SimpleRNN` processes the whole sequence. It
    computes `h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel +
    bias)`; the output and the single state are `h_t`. Dropout follows
    Keras's "variational" scheme: one input mask and one recurrent mask per
    call (per sequence inside `RNN`), drawn only when training.

    Args:
        units: Positive integer, dimensionality of the output space (and of
            each state).
        activation: Activation function to use. Defaults to hyperbolic
            tangent (`"tanh"`). If you pass `None`, no activation is applied
            (ie. "linear" activation: `a(x) = x`).
        use_bias: Boolean, whether the layer uses a bias vector. Defaults to
            `True`.
        kernel_initializer: Initializer for the `kernel` weights matrix, used
            for the linear transformation of the inputs. Defaults to
            `"glorot_uniform"`.
        recurrent_initializer: Initializer for the `recurrent_kernel` weights
            matrix, used for the linear transformation of the recurrent
            state. Defaults to `"orthogonal"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        kernel_regularizer: Regularizer function applied to the `kernel`
            weights matrix. Defaults to `None`.
        recurrent_regularizer: Regularizer function applied to the
            `recurrent_kernel` weights matrix. Defaults to `None`.
        bias_regularizer: Regularizer function applied to the bias vector.
            Defaults to `None`.
        kernel_constraint: Constraint function applied to the `kernel`
            weights matrix. Defaults to `None`.
        recurrent_constraint: Constraint function applied to the
            `recurrent_kernel` weights matrix. Defaults to `None`.
        bias_constraint: Constraint function applied to the bias vector.
            Defaults to `None`.
        dropout: Float between 0 and 1 (values outside are clipped). Fraction
            of the units to drop for the linear transformation of the inputs.
            Defaults to `0.0`.
        recurrent_dropout: Float between 0 and 1 (values outside are
            clipped). Fraction of the units to drop for the linear
            transformation of the recurrent state. Defaults to `0.0`.
        seed: Random seed for dropout. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 2D tensor with shape `(batch, features)`, one timestep.
        states: The previous states: `[h]`, each `(batch, units)` (a
            single tensor is accepted where there is one state).
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            `dropout` or `recurrent_dropout` is used.

    Input shape:
        `(batch_size, features)`.

    Output shape:
        `(output, new_states)`: `output` has shape `(batch_size, units)` and
        `new_states` is the list `[h]`.

    Raises:
        ValueError: If `units` is not a positive integer, or a rate is not a
            number.

    Example:
        >>> cell = tfkit.layers.SimpleRNNCell(4)
        >>> output, [state] = cell(tf.ones((2, 5)), [tf.zeros((2, 4))])
        >>> output.shape, cell.kernel.shape, cell.recurrent_kernel.shape
        (TensorShape([2, 4]), TensorShape([5, 4]), TensorShape([4, 4]))
        >>> tfkit.layers.RNN(cell, return_sequences=True)(np.ones((2, 10, 5))).shape
        TensorShape([2, 10, 4])
    """

    _gates = 1

    def step(self, projected: tf.Tensor, states: Sequence[tf.Tensor], recurrent_mask: Any = None) -> tuple:
        h_prev = states[0]
        if recurrent_mask is not None:
            h_prev = h_prev * recurrent_mask
        h = assigned_activation.apply(
            self, projected + tf.matmul(h_prev, self._weight(self.recurrent_kernel, projected.dtype))
        )
        return h, [h]


# -------------------------------------------------------------------- LSTM


@registry.builtin("layers")
class LSTMCell(_RecurrentCell):
    """Cell class for the LSTM layer.

    This class processes one step within the whole time sequence input,
    whereas `tfkit.layers.LSTM` processes the whole sequence. The states are
    `[h, c]`; the gates are i, f, c, o in that order in `kernel`
    `(features, 4 * units)`, `recurrent_kernel` `(units, 4 * units)` and
    `bias` `(4 * units,)`, as in Keras 3. Dropout follows Keras's
    "variational" scheme: one input mask and one recurrent mask per call
    (per sequence inside `RNN`), shared by the gates, drawn only when
    training.

    Args:
        units: Positive integer, dimensionality of the output space (and of
            each state).
        activation: Activation function to use. Defaults to hyperbolic
            tangent (`"tanh"`). If you pass `None`, no activation is applied
            (ie. "linear" activation: `a(x) = x`).
        recurrent_activation: Activation function to use for the recurrent
            step (the gates). Defaults to sigmoid (`"sigmoid"`).
        use_bias: Boolean, whether the layer uses a bias vector. Defaults to
            `True`.
        kernel_initializer: Initializer for the `kernel` weights matrix, used
            for the linear transformation of the inputs. Defaults to
            `"glorot_uniform"`.
        recurrent_initializer: Initializer for the `recurrent_kernel` weights
            matrix, used for the linear transformation of the recurrent
            state. Defaults to `"orthogonal"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        unit_forget_bias: Boolean. If `True`, add 1 to the bias of the forget
            gate at initialization (the forget-gate block of the bias starts
            at ones, the others from `bias_initializer`), as recommended in
            Jozefowicz et al. Defaults to `True`.
        kernel_regularizer: Regularizer function applied to the `kernel`
            weights matrix. Defaults to `None`.
        recurrent_regularizer: Regularizer function applied to the
            `recurrent_kernel` weights matrix. Defaults to `None`.
        bias_regularizer: Regularizer function applied to the bias vector.
            Defaults to `None`.
        kernel_constraint: Constraint function applied to the `kernel`
            weights matrix. Defaults to `None`.
        recurrent_constraint: Constraint function applied to the
            `recurrent_kernel` weights matrix. Defaults to `None`.
        bias_constraint: Constraint function applied to the bias vector.
            Defaults to `None`.
        dropout: Float between 0 and 1 (values outside are clipped). Fraction
            of the units to drop for the linear transformation of the inputs.
            Defaults to `0.0`.
        recurrent_dropout: Float between 0 and 1 (values outside are
            clipped). Fraction of the units to drop for the linear
            transformation of the recurrent state. Defaults to `0.0`.
        seed: Random seed for dropout. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 2D tensor with shape `(batch, features)`, one timestep.
        states: The previous states: `[h, c]`, each `(batch, units)` (a
            single tensor is accepted where there is one state).
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            `dropout` or `recurrent_dropout` is used.

    Input shape:
        `(batch_size, features)`.

    Output shape:
        `(output, new_states)`: `output` has shape `(batch_size, units)` and
        `new_states` is the list `[h, c]`.

    Raises:
        ValueError: If `units` is not a positive integer, or a rate is not a
            number.

    Example:
        >>> cell = tfkit.layers.LSTMCell(8)
        >>> h, [h, c] = cell(tf.ones((2, 5)), [tf.zeros((2, 8)), tf.zeros((2, 8))])
        >>> h.shape, c.shape, cell.state_size
        (TensorShape([2, 8]), TensorShape([2, 8]), [8, 8])
        >>> cell.bias.numpy()[8:16]  # the forget gate's bias starts at 1
        array([1., 1., 1., 1., 1., 1., 1., 1.], dtype=float32)
    """

    _gates = 4

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            **kwargs,
        )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self) -> list[int]:
        return [self.units, self.units]

    def _bias_initializer(self) -> Any:
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, units = self.bias_initializer, self.units

        def forget_gate_one(shape: Any, dtype: Any = None) -> tf.Tensor:
            return tf.concat(
                [base((units,), dtype=dtype), tf.ones((units,), dtype=dtype), base((2 * units,), dtype=dtype)], axis=0
            )

        return forget_gate_one

    def step(self, projected: tf.Tensor, states: Sequence[tf.Tensor], recurrent_mask: Any = None) -> tuple:
        h_prev, c_prev = states[0], states[1]
        if recurrent_mask is not None:
            h_prev = h_prev * recurrent_mask
        z = projected + tf.matmul(h_prev, self._weight(self.recurrent_kernel, projected.dtype))
        z_i, z_f, z_c, z_o = tf.split(distribution_values.whole_along(z, -1), 4, axis=-1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = f * c_prev + i * self.activation(z_c)
        o = self.recurrent_activation(z_o)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            recurrent_activation=activations.serialize(self.recurrent_activation),
            unit_forget_bias=self.unit_forget_bias,
        )
        return config


# --------------------------------------------------------------------- GRU


@registry.builtin("layers")
class GRUCell(_RecurrentCell):
    """Cell class for the GRU layer.

    This class processes one step within the whole time sequence input,
    whereas `tfkit.layers.GRU` processes the whole sequence. The gates are z
    (update), r (reset) and h (candidate), in that order in `kernel`
    `(features, 3 * units)` and `recurrent_kernel` `(units, 3 * units)`;
    `h_t = z * h_{t-1} + (1 - z) * candidate`. With `reset_after=True`
    (Keras's default) the reset gate multiplies `h_{t-1} @ recurrent_kernel`
    and the bias has two rows, one for the inputs and one for the
    recurrence. Dropout follows Keras's "variational" scheme (one mask per
    call, drawn only when training).

    Args:
        units: Positive integer, dimensionality of the output space (and of
            each state).
        activation: Activation function to use. Defaults to hyperbolic
            tangent (`"tanh"`). If you pass `None`, no activation is applied
            (ie. "linear" activation: `a(x) = x`).
        recurrent_activation: Activation function to use for the recurrent
            step (the gates). Defaults to sigmoid (`"sigmoid"`).
        use_bias: Boolean, whether the layer uses a bias vector. Defaults to
            `True`.
        kernel_initializer: Initializer for the `kernel` weights matrix, used
            for the linear transformation of the inputs. Defaults to
            `"glorot_uniform"`.
        recurrent_initializer: Initializer for the `recurrent_kernel` weights
            matrix, used for the linear transformation of the recurrent
            state. Defaults to `"orthogonal"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        kernel_regularizer: Regularizer function applied to the `kernel`
            weights matrix. Defaults to `None`.
        recurrent_regularizer: Regularizer function applied to the
            `recurrent_kernel` weights matrix. Defaults to `None`.
        bias_regularizer: Regularizer function applied to the bias vector.
            Defaults to `None`.
        kernel_constraint: Constraint function applied to the `kernel`
            weights matrix. Defaults to `None`.
        recurrent_constraint: Constraint function applied to the
            `recurrent_kernel` weights matrix. Defaults to `None`.
        bias_constraint: Constraint function applied to the bias vector.
            Defaults to `None`.
        dropout: Float between 0 and 1 (values outside are clipped). Fraction
            of the units to drop for the linear transformation of the inputs.
            Defaults to `0.0`.
        recurrent_dropout: Float between 0 and 1 (values outside are
            clipped). Fraction of the units to drop for the linear
            transformation of the recurrent state. Defaults to `0.0`.
        reset_after: GRU convention (whether to apply the reset gate after or
            before the matrix multiplication). `True` (the default) is
            Keras 3's and cuDNN's convention: the bias then has shape
            `(2, 3 * units)`, one row for the inputs and one for the
            recurrence.
        seed: Random seed for dropout. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 2D tensor with shape `(batch, features)`, one timestep.
        states: The previous states: `[h]`, each `(batch, units)` (a
            single tensor is accepted where there is one state).
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            `dropout` or `recurrent_dropout` is used.

    Input shape:
        `(batch_size, features)`.

    Output shape:
        `(output, new_states)`: `output` has shape `(batch_size, units)` and
        `new_states` is the list `[h]`.

    Raises:
        ValueError: If `units` is not a positive integer, or a rate is not a
            number.

    Example:
        >>> cell = tfkit.layers.GRUCell(3)
        >>> output, [state] = cell(tf.ones((2, 5)), [tf.zeros((2, 3))])
        >>> output.shape, cell.kernel.shape, cell.bias.shape
        (TensorShape([2, 3]), TensorShape([5, 9]), TensorShape([2, 9]))
    """

    _gates = 3

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        reset_after: bool = True,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            **kwargs,
        )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = bool(reset_after)

    def _bias_shape(self) -> tuple[int, ...]:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _input_bias(self, dtype: tf.DType) -> tf.Tensor | None:
        if self.bias is None:
            return None
        bias = self._weight(self.bias, dtype)
        return bias[0] if self.reset_after else bias

    def step(self, projected: tf.Tensor, states: Sequence[tf.Tensor], recurrent_mask: Any = None) -> tuple:
        h_prev = states[0]
        h_in = h_prev if recurrent_mask is None else h_prev * recurrent_mask
        recurrent_kernel = distribution_values.whole_along(self._weight(self.recurrent_kernel, projected.dtype), -1)
        x_z, x_r, x_h = tf.split(distribution_values.whole_along(projected, -1), 3, axis=-1)
        units = self.units
        if self.reset_after:
            inner = tf.matmul(h_in, recurrent_kernel)
            if self.bias is not None:
                inner = inner + self._weight(self.bias, projected.dtype)[1]
            r_z, r_r, r_h = tf.split(distribution_values.whole_along(inner, -1), 3, axis=-1)
            z = self.recurrent_activation(x_z + r_z)
            r = self.recurrent_activation(x_r + r_r)
            candidate = self.activation(x_h + r * r_h)
        else:
            inner = tf.matmul(h_in, recurrent_kernel[:, : 2 * units])
            r_z, r_r = tf.split(inner, 2, axis=-1)
            z = self.recurrent_activation(x_z + r_z)
            r = self.recurrent_activation(x_r + r_r)
            candidate = self.activation(x_h + tf.matmul(r * h_in, recurrent_kernel[:, 2 * units :]))
        h = z * h_prev + (1.0 - z) * candidate
        return h, [h]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            recurrent_activation=activations.serialize(self.recurrent_activation), reset_after=self.reset_after
        )
        return config


def outputs_first_state(cell: Any) -> bool:
    """Whether ``cell`` steps with a built-in step, whose output is its new first state (h)."""
    return getattr(type(cell), "step", None) in (SimpleRNNCell.step, LSTMCell.step, GRUCell.step)
