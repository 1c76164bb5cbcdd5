"""Recurrent layers: ``SimpleRNN``, ``LSTM`` and ``GRU``, each an ``RNN`` over its built-in cell.

    lstm = tfkit.layers.LSTM(32, return_sequences=True)
    y = lstm(tf.ones((4, 10, 8)))            # (4, 10, 32)
    y, h, c = tfkit.layers.LSTM(32, return_state=True)(tf.ones((4, 10, 8)))

Arguments, defaults and weights (``lstm.cell.kernel``, ...) are Keras 3's;
each layer builds its cell (``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``) from
its arguments and reads them back through it (``lstm.units`` is
``lstm.cell.units``). Running the cell over the timesteps (masks, state,
``stateful=True``, unrolling) is the generic ``RNN``'s, in ``rnn_layer``.
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.base import registry
from tfkit.engine.input_spec import InputSpec
from tfkit.layers.core import base_config
from tfkit.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell
from tfkit.layers.rnn_cudnn import checked_use_cudnn
from tfkit.layers.rnn_layer import RNN
from tfkit.layers.stacked_cells import StackedRNNCells

__all__ = ["RNN", "SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells"]


# --------------------------------------------------------- built-in layers


_CELL_ARGS = (
    "units",
    "activation",
    "use_bias",
    "kernel_initializer",
    "recurrent_initializer",
    "bias_initializer",
    "kernel_regularizer",
    "recurrent_regularizer",
    "bias_regularizer",
    "kernel_constraint",
    "recurrent_constraint",
    "bias_constraint",
    "dropout",
    "recurrent_dropout",
    "seed",
)

_GATED_ARGS = ("recurrent_activation", "unit_forget_bias", "reset_after")


def refuse_cell_attribute(layer: Any, name: str, cell_attributes: Sequence[str]) -> None:
    """Refuse ``lstm.activation = ...``: a built-in RNN layer's cell arguments are read-only views of its cell.

    Keras makes them properties without setters; an instance attribute would shadow the cell's value
    while the cell went on computing with the old one.
    """
    if name in cell_attributes and "cell" in layer.__dict__:
        raise AttributeError(
            f"{type(layer).__name__} layer '{layer.name}': `{name}` is read from its cell and cannot be set on "
            f"the layer (as in Keras); set `layer.cell.{name}` instead"
        )


class _BuiltinRNN(RNN):
    """An ``RNN`` that builds its own cell from the constructor's arguments."""

    def _cell_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {key: kwargs[key] for key in ("dtype", "trainable") if key in kwargs}

    def __getattr__(self, name: str) -> Any:
        # ``lstm.units``, ``lstm.dropout`` ... read through to the cell, as in Keras.
        if name in _CELL_ARGS or name in _GATED_ARGS:
            cell = self.__dict__.get("cell")
            if cell is not None:
                return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        refuse_cell_attribute(self, name, _CELL_ARGS + _GATED_ARGS)
        super().__setattr__(name, value)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        config.update(cell_config)
        config.update(self._loop_config())
        config.pop("zero_output_for_mask")
        return config


@registry.builtin("layers")
class SimpleRNN(_BuiltinRNN):
    """Fully-connected RNN where the output is to be fed back as the new input.

    Each timestep computes
    `h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias)`;
    the output is `h_t`. The layer runs a `SimpleRNNCell` (its weights are
    `layer.cell.kernel`, ...) through `RNN`; see `RNN` for masks and the
    loop.

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
        activity_regularizer: Regularizer function applied to the output of
            the layer. Defaults to `None`.
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
        return_sequences: Boolean. Whether to return the last output in the
            output sequence (`False`, the default) or the full sequence
            `(batch, timesteps, units)`.
        return_state: Boolean. Whether to return the final states in addition
            to the output: the call then returns `[output, *states]`.
            Defaults to `False`.
        go_backwards: Boolean. If `True`, process the input sequence backwards
            (from the last timestep to the first) and, with
            `return_sequences=True`, return the outputs in that reversed
            order. Defaults to `False`.
        stateful: Boolean. If `True`, the last state for each sample at index
            `i` in a batch is used as the initial state for the sample of
            index `i` in the following batch. The states live in
            non-trainable variables (saved in checkpoints, not listed in
            `weights`) until `reset_states()`; the layer then needs a fixed
            batch size (`Input(batch_shape=...)`). Defaults to `False`.
        unroll: Boolean. If `True`, the network is unrolled (a Python loop
            over the timesteps, which needs a known number of timesteps);
            else a symbolic `tf.while_loop` is used, which runs up to four
            timesteps per iteration when the length is known (one under
            XLA, which compiles that faster and runs it faster). Unrolling can
            speed up an RNN on short sequences, at the cost of memory and
            graph size. Defaults to `False`.
        seed: Random seed for dropout. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `trainable` (`dtype` and `trainable` also go to the cell).

    Call arguments:
        sequences: A 3D tensor with shape `(batch, timesteps, features)`.
        initial_state: List of initial state tensors to be passed to the
            first call of the cell. If not given, zero-filled states are
            used (or a stateful layer's stored states).
        mask: Binary tensor of shape `(batch, timesteps)` indicating whether
            a given timestep should be masked: an entry of `True` means the
            timestep is used, `False` that it is skipped (the states keep
            their previous values and the output repeats the previous
            output). It comes automatically from an upstream
            `Embedding(mask_zero=True)` or `Masking` layer.
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            `dropout` or `recurrent_dropout` is used.

    Input shape:
        3D tensor with shape `(batch_size, timesteps, features)`.

    Output shape:
        With `return_sequences=True`: `(batch_size, timesteps, units)`, else
        `(batch_size, units)`. With `return_state=True`, followed by
        the final state `h`, each of shape `(batch_size, units)`.

    Raises:
        ValueError: If `units` is not a positive integer, the inputs are not
            of rank 3, `unroll=True` meets an unknown number of timesteps, or
            a stateful layer has no static batch size.

    Example:
        >>> layer = tfkit.layers.SimpleRNN(4, return_sequences=True, return_state=True)
        >>> sequence, state = layer(np.ones((2, 10, 8)))
        >>> sequence.shape, state.shape
        (TensorShape([2, 10, 4]), TensorShape([2, 4]))
    """

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
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        cell = SimpleRNNCell(
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
            name="simple_rnn_cell",
            **self._cell_kwargs(kwargs),
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
        self.input_spec = InputSpec(ndim=3)

    def build(self, sequences_shape: Any) -> None:
        super().build(sequences_shape)
        self.input_spec = InputSpec(ndim=3, axes={-1: sequences_shape[-1]})


@registry.builtin("layers")
class LSTM(_BuiltinRNN):
    """Long Short-Term Memory layer - Hochreiter 1997.

    Each timestep computes the gates `i, f, c, o` (in that order in the
    weights) from `x_t @ kernel + h_{t-1} @ recurrent_kernel + bias`, then
    `c_t = f * c_{t-1} + i * activation(c)` and
    `h_t = o * activation(c_t)`; the output is `h_t` and the states are
    `[h, c]`. The layer runs an `LSTMCell` (its weights are
    `layer.cell.kernel` `(features, 4 * units)`, `recurrent_kernel`
    `(units, 4 * units)` and `bias` `(4 * units,)`, as in Keras 3) through
    `RNN`.

    - `return_sequences=False` (the default) returns the last output only,
      `(batch, units)`; `True` returns the output of every timestep,
      `(batch, timesteps, units)` (what a following recurrent layer needs).
    - `return_state=True` also returns the final states: the call gives
      `[output, h, c]` (the last output equals `h`).
    - `stateful=True` carries the final states of a batch over to the next
      call, sample `i` to sample `i`, until `reset_states()`.
    - `go_backwards=True` reads the sequence from its last timestep to its
      first (and returns the sequence in that reversed order).
    - Masks (from `Embedding(mask_zero=True)`, `Masking` or `mask=`) make
      masked timesteps keep the previous states and repeat the previous
      output.
    - The loop over timesteps is a `tf.while_loop` (up to four timesteps per
      iteration when the length is known, one under XLA), unless `unroll=True`, which
      unrolls it into a Python loop: that needs a known number of timesteps
      and suits short sequences. On a GPU the input projection of all
      timesteps is one matmul before the loop; on a CPU it stays inside.
      tfkit never uses cuDNN (see `use_cudnn`).

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
        activity_regularizer: Regularizer function applied to the output of
            the layer. Defaults to `None`.
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
        return_sequences: Boolean. Whether to return the last output in the
            output sequence (`False`, the default) or the full sequence
            `(batch, timesteps, units)`.
        return_state: Boolean. Whether to return the final states in addition
            to the output: the call then returns `[output, *states]`.
            Defaults to `False`.
        go_backwards: Boolean. If `True`, process the input sequence backwards
            (from the last timestep to the first) and, with
            `return_sequences=True`, return the outputs in that reversed
            order. Defaults to `False`.
        stateful: Boolean. If `True`, the last state for each sample at index
            `i` in a batch is used as the initial state for the sample of
            index `i` in the following batch. The states live in
            non-trainable variables (saved in checkpoints, not listed in
            `weights`) until `reset_states()`; the layer then needs a fixed
            batch size (`Input(batch_shape=...)`). Defaults to `False`.
        unroll: Boolean. If `True`, the network is unrolled (a Python loop
            over the timesteps, which needs a known number of timesteps);
            else a symbolic `tf.while_loop` is used, which runs up to four
            timesteps per iteration when the length is known (one under
            XLA, which compiles that faster and runs it faster). Unrolling can
            speed up an RNN on short sequences, at the cost of memory and
            graph size. Defaults to `False`.
        use_cudnn: Keras's choice of the cuDNN kernel: `"auto"` (the default),
            `True` or `False`. tfkit has no cuDNN kernel and always runs its
            own loop (on a GPU the input projection of all timesteps is one
            large matmul, as cuDNN does), so `"auto"` and `False` behave
            alike and `True` raises a `ValueError` at the first call.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `trainable` (`dtype` and `trainable` also go to the cell).

    Call arguments:
        sequences: A 3D tensor with shape `(batch, timesteps, features)`.
        initial_state: List of initial state tensors to be passed to the
            first call of the cell. If not given, zero-filled states are
            used (or a stateful layer's stored states).
        mask: Binary tensor of shape `(batch, timesteps)` indicating whether
            a given timestep should be masked: an entry of `True` means the
            timestep is used, `False` that it is skipped (the states keep
            their previous values and the output repeats the previous
            output). It comes automatically from an upstream
            `Embedding(mask_zero=True)` or `Masking` layer.
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            `dropout` or `recurrent_dropout` is used.

    Input shape:
        3D tensor with shape `(batch_size, timesteps, features)`.

    Output shape:
        With `return_sequences=True`: `(batch_size, timesteps, units)`, else
        `(batch_size, units)`. With `return_state=True`, followed by
        the final states `h` and `c`, each of shape `(batch_size, units)`.

    Raises:
        ValueError: If `units` is not a positive integer, `use_cudnn` is not
            one of `"auto"`, `True`, `False` (or is `True` when called), the
            inputs are not of rank 3, `unroll=True` meets an unknown number
            of timesteps, or a stateful layer has no static batch size.

    Example:
        >>> inputs = np.ones((4, 10, 8))
        >>> tfkit.layers.LSTM(32)(inputs).shape
        TensorShape([4, 32])
        >>> lstm = tfkit.layers.LSTM(32, return_sequences=True, return_state=True)
        >>> sequence, h, c = lstm(inputs)
        >>> sequence.shape, h.shape, c.shape
        (TensorShape([4, 10, 32]), TensorShape([4, 32]), TensorShape([4, 32]))
        >>> ids = tf.constant([[3, 5, 0, 0]])
        >>> embedded = tfkit.layers.Embedding(10, 3, mask_zero=True)(ids)
        >>> steps = tfkit.layers.LSTM(2, return_sequences=True)(embedded)
        >>> bool(tf.reduce_all(steps[:, 1] == steps[:, 3]))  # masked steps repeat the last output
        True
    """

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
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        use_cudnn: Any = "auto",
        **kwargs: Any,
    ) -> None:
        cell = LSTMCell(
            units,
            activation=activation,
            recurrent_activation=recurrent_activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            name="lstm_cell",
            **self._cell_kwargs(kwargs),
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
        self.input_spec = InputSpec(ndim=3)
        self.use_cudnn = checked_use_cudnn(use_cudnn, f"LSTM layer '{self.name}'")

    def build(self, sequences_shape: Any) -> None:
        super().build(sequences_shape)
        self.input_spec = InputSpec(ndim=3, axes={-1: sequences_shape[-1]})


@registry.builtin("layers")
class GRU(_BuiltinRNN):
    """Gated Recurrent Unit - Cho et al. 2014.

    Each timestep computes the update gate `z`, the reset gate `r` and the
    candidate `h~`, then `h_t = z * h_{t-1} + (1 - z) * h~`; the output and
    the single state are `h_t`. With `reset_after=True` (the default, as in
    Keras 3 and cuDNN) the reset gate multiplies
    `h_{t-1} @ recurrent_kernel`, else `h_{t-1}` before the product. The
    layer runs a `GRUCell` through `RNN`; see `LSTM` and `RNN` for
    `return_sequences`, `return_state`, `stateful`, masks and the loop.

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
        activity_regularizer: Regularizer function applied to the output of
            the layer. Defaults to `None`.
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
        return_sequences: Boolean. Whether to return the last output in the
            output sequence (`False`, the default) or the full sequence
            `(batch, timesteps, units)`.
        return_state: Boolean. Whether to return the final states in addition
            to the output: the call then returns `[output, *states]`.
            Defaults to `False`.
        go_backwards: Boolean. If `True`, process the input sequence backwards
            (from the last timestep to the first) and, with
            `return_sequences=True`, return the outputs in that reversed
            order. Defaults to `False`.
        stateful: Boolean. If `True`, the last state for each sample at index
            `i` in a batch is used as the initial state for the sample of
            index `i` in the following batch. The states live in
            non-trainable variables (saved in checkpoints, not listed in
            `weights`) until `reset_states()`; the layer then needs a fixed
            batch size (`Input(batch_shape=...)`). Defaults to `False`.
        unroll: Boolean. If `True`, the network is unrolled (a Python loop
            over the timesteps, which needs a known number of timesteps);
            else a symbolic `tf.while_loop` is used, which runs up to four
            timesteps per iteration when the length is known (one under
            XLA, which compiles that faster and runs it faster). Unrolling can
            speed up an RNN on short sequences, at the cost of memory and
            graph size. Defaults to `False`.
        reset_after: GRU convention (whether to apply the reset gate after or
            before the matrix multiplication). `True` (the default) is
            Keras 3's and cuDNN's convention: the bias then has shape
            `(2, 3 * units)`, one row for the inputs and one for the
            recurrence.
        use_cudnn: Keras's choice of the cuDNN kernel: `"auto"` (the default),
            `True` or `False`. tfkit has no cuDNN kernel and always runs its
            own loop (on a GPU the input projection of all timesteps is one
            large matmul, as cuDNN does), so `"auto"` and `False` behave
            alike and `True` raises a `ValueError` at the first call.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `trainable` (`dtype` and `trainable` also go to the cell).

    Call arguments:
        sequences: A 3D tensor with shape `(batch, timesteps, features)`.
        initial_state: List of initial state tensors to be passed to the
            first call of the cell. If not given, zero-filled states are
            used (or a stateful layer's stored states).
        mask: Binary tensor of shape `(batch, timesteps)` indicating whether
            a given timestep should be masked: an entry of `True` means the
            timestep is used, `False` that it is skipped (the states keep
            their previous values and the output repeats the previous
            output). It comes automatically from an upstream
            `Embedding(mask_zero=True)` or `Masking` layer.
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            `dropout` or `recurrent_dropout` is used.

    Input shape:
        3D tensor with shape `(batch_size, timesteps, features)`.

    Output shape:
        With `return_sequences=True`: `(batch_size, timesteps, units)`, else
        `(batch_size, units)`. With `return_state=True`, followed by
        the final state `h`, each of shape `(batch_size, units)`.

    Raises:
        ValueError: If `units` is not a positive integer, `use_cudnn` is not
            one of `"auto"`, `True`, `False` (or is `True` when called), the
            inputs are not of rank 3, `unroll=True` meets an unknown number
            of timesteps, or a stateful layer has no static batch size.

    Example:
        >>> gru = tfkit.layers.GRU(4, return_sequences=True, return_state=True)
        >>> sequence, state = gru(np.ones((2, 10, 8)))
        >>> sequence.shape, state.shape
        (TensorShape([2, 10, 4]), TensorShape([2, 4]))
        >>> gru.cell.bias.shape
        TensorShape([2, 12])
    """

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
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        reset_after: bool = True,
        use_cudnn: Any = "auto",
        **kwargs: Any,
    ) -> None:
        cell = GRUCell(
            units,
            activation=activation,
            recurrent_activation=recurrent_activation,
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
            reset_after=reset_after,
            seed=seed,
            name="gru_cell",
            **self._cell_kwargs(kwargs),
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
        self.input_spec = InputSpec(ndim=3)
        self.use_cudnn = checked_use_cudnn(use_cudnn, f"GRU layer '{self.name}'")

    def build(self, sequences_shape: Any) -> None:
        super().build(sequences_shape)
        self.input_spec = InputSpec(ndim=3, axes={-1: sequences_shape[-1]})
