"""Recurrent layers: the generic ``RNN(cell)`` and ``SimpleRNN``, ``LSTM``, ``GRU``.

    lstm = tfkit.layers.LSTM(32, return_sequences=True)
    y = lstm(tf.ones((4, 10, 8)))            # (4, 10, 32)
    y, h, c = tfkit.layers.LSTM(32, return_state=True)(tf.ones((4, 10, 8)))

Arguments, defaults and weights (``lstm.cell.kernel``, ...) are Keras 3's.
For the built-in cells on a GPU the input projection of every timestep is
one matmul before the loop, which then (``rnn_loop.run``) only does the
recurrent part; on a CPU the projection stays inside the loop, where it is
faster (see ``RNN._precompute_projection``). Masks (from ``Embedding(mask_zero=True)``, ``Masking`` or ``mask=``)
make masked timesteps keep the previous state and repeat the previous output.
``stateful=True`` keeps the final states in non-trainable variables (not
listed in ``weights``, saved in checkpoints) and starts the next call from
them until ``reset_states()``.
"""

from __future__ import annotations

import contextlib

import inspect
from typing import Any, Sequence

import tensorflow as tf

from tfkit.input_spec import InputSpec
from tfkit.layer import Layer
from tfkit.layers import rnn_loop
from tfkit.layers.core import base_config
from tfkit.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell, _RecurrentCell
from tfkit.saving import registry

__all__ = ["RNN", "SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell", "GRUCell"]


class RNNStates(tf.Module):
    """The carried-over states of a stateful RNN: variables that are state, not weights."""

    _tfkit_is_state = True

    def __init__(self, initial_values: Sequence[tf.Tensor], name: str = "rnn_states") -> None:
        super().__init__(name=name)
        with tf.init_scope():
            self.values = [
                tf.Variable(v, trainable=False, name=f"rnn_state_{i}") for i, v in enumerate(initial_values)
            ]

    def reset(self) -> None:
        for variable in self.values:
            variable.assign(tf.zeros_like(variable))


def _sizes(size: Any) -> list[Any]:
    return list(size) if isinstance(size, (list, tuple)) else [size]


def _size_tuple(size: Any) -> tuple:
    if isinstance(size, tf.TensorShape):
        return tuple(size.as_list())
    return tuple(size) if isinstance(size, (list, tuple)) else (int(size),)


@registry.builtin("layers")
class RNN(Layer):
    """Run a cell over the time axis of ``(batch, time, features)`` inputs.

    ``cell`` is a layer with ``state_size`` (an int or a list of ints),
    optionally ``output_size``, and ``call(inputs_t, states, training=None)``
    returning ``(output_t, new_states)``; tfkit's built-in cells run faster
    through their :meth:`project_inputs` / :meth:`step` split.
    """

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if isinstance(cell, (dict, str)):
            cell = registry.resolve("layers", cell)
        if isinstance(cell, (list, tuple)):
            raise ValueError(
                f"RNN layer '{self.name}' takes a single cell; stacking a list of cells is not supported, "
                f"got {len(cell)} cells"
            )
        if getattr(cell, "state_size", None) is None or not callable(cell):
            raise ValueError(
                f"RNN layer '{self.name}' expected a cell: a layer with a `state_size` attribute and "
                f"call(inputs, states), got {cell!r}"
            )
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.rnn_states: RNNStates | None = None
        self.supports_masking = True

    # ----------------------------------------------------------- structure

    @property
    def state_size(self) -> list[Any]:
        return _sizes(self.cell.state_size)

    @property
    def output_size(self) -> Any:
        size = getattr(self.cell, "output_size", None)
        return self.state_size[0] if size is None else size

    @property
    def states(self) -> list[tf.Variable] | None:
        """The stateful layer's state variables (``None`` when not stateful or not built)."""
        return list(self.rnn_states.values) if self.rnn_states is not None else None

    def get_initial_state(self, batch_size: Any) -> list[tf.Tensor]:
        own = getattr(self.cell, "get_initial_state", None)
        if own is not None:
            return list(_sizes(own(batch_size=batch_size)))
        return [
            tf.zeros(tf.concat([[batch_size], _size_tuple(s)], axis=0), dtype=self.compute_dtype)
            for s in self.state_size
        ]

    def reset_states(self, states: Any = None) -> None:
        """Zero a stateful layer's states, or set them to ``states`` (a list of arrays)."""
        if not self.stateful:
            raise AttributeError(f"RNN layer '{self.name}' is not stateful; reset_states() needs stateful=True")
        if self.rnn_states is None:
            return
        if states is None:
            self.rnn_states.reset()
            return
        values = _sizes(states)
        if len(values) != len(self.rnn_states.values):
            raise ValueError(
                f"RNN layer '{self.name}' has {len(self.rnn_states.values)} states, got {len(values)} values"
            )
        for variable, value in zip(self.rnn_states.values, values):
            variable.assign(tf.cast(value, variable.dtype))

    reset_state = reset_states

    # --------------------------------------------------------------- build

    def build(self, sequences_shape: Any) -> None:
        if sequences_shape and isinstance(sequences_shape[0], (list, tuple)):  # nested inputs: the first decides
            sequences_shape = sequences_shape[0]
        if sequences_shape is None or len(sequences_shape) < 3:
            raise ValueError(
                f"RNN layer '{self.name}' expects inputs of shape (batch, time, features), "
                f"got shape {sequences_shape}"
            )
        step_shape = (sequences_shape[0], *sequences_shape[2:])
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build(step_shape)
            self.cell.built = True
        if self.stateful:
            batch = sequences_shape[0]
            if batch is None:
                raise ValueError(
                    f"RNN layer '{self.name}' is stateful and needs a static batch size; "
                    f"got inputs of shape {sequences_shape}. Give the Input a batch_size."
                )
            self.rnn_states = RNNStates(self.get_initial_state(batch))
        self.input_spec = InputSpec(min_ndim=3, axes={-1: sequences_shape[-1]})

    # ---------------------------------------------------------------- call

    def _initial_states(self, sequences: tf.Tensor, initial_state: Any) -> list[tf.Tensor]:
        expected = len(self.state_size)
        if initial_state is not None:
            given = [tf.convert_to_tensor(s) for s in _sizes(initial_state)]
            if len(given) != expected:
                raise ValueError(
                    f"RNN layer '{self.name}' expects {expected} initial state tensor(s), got {len(given)}"
                )
            return [tf.cast(s, self.compute_dtype) if s.dtype != self.compute_dtype else s for s in given]
        if self.stateful:
            batch = sequences.shape[0]
            expected_batch = self.rnn_states.values[0].shape[0]
            if batch is not None and batch != expected_batch:
                raise ValueError(
                    f"RNN layer '{self.name}' is stateful with batch size {expected_batch}, "
                    f"got inputs with batch size {batch}"
                )
            return [v.read_value() for v in self.rnn_states.values]
        return self.get_initial_state(tf.shape(sequences)[0])

    def _precompute_projection(self, sequences: tf.Tensor) -> bool:
        """Whether to multiply all timesteps by ``kernel`` in one matmul before the loop.

        On a GPU that one large matmul beats a small one per step (fewer
        kernel launches, as cuDNN does). On a CPU the per-step matmul is
        faster: its inputs stay in cache, while the precomputed
        ``(time, batch, gates * units)`` tensor must be written out and read
        back (measured 1.2-2.4x slower for LSTM(128) forward on CPU, under XLA
        too). ``_tfkit_precompute_inputs`` (True/False) overrides the choice.
        """
        forced = getattr(self, "_tfkit_precompute_inputs", None)
        if forced is not None:
            return bool(forced)
        device = getattr(sequences, "device", "") or ""
        if "GPU" in device.upper():
            return True
        if "CPU" in device.upper():
            return False
        return _gpu_visible()

    def _output_like(self, sequences: tf.Tensor, states: list[tf.Tensor]) -> tf.Tensor:
        size = getattr(self.cell, "output_size", None)
        if size is None:
            return tf.zeros_like(states[0])
        batch = tf.shape(sequences)[0]
        dims = _size_tuple(size)
        zeros = tf.zeros(tf.concat([[batch], dims], axis=0), dtype=states[0].dtype)
        zeros.set_shape((sequences.shape[0], *dims))
        return zeros

    @tf.autograph.experimental.do_not_convert
    def call(
        self,
        sequences: Any,
        initial_state: Any = None,
        mask: Any = None,
        training: Any = None,
    ) -> Any:
        flat = tf.nest.flatten(sequences)
        first = flat[0]
        if self.unroll and first.shape[1] is None:
            raise ValueError(
                f"RNN layer '{self.name}' cannot unroll over an unknown number of timesteps "
                f"(input shape {tuple(first.shape)}); give the Input a fixed time length"
            )
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        states = self._initial_states(first, initial_state)
        time_major_mask = None
        if mask is not None:
            mask = tf.convert_to_tensor(mask)
            if mask.shape.rank == 3:  # (batch, time, 1) masks
                mask = tf.squeeze(mask, -1)
            time_major_mask = tf.transpose(tf.cast(mask, tf.bool))

        if isinstance(self.cell, _RecurrentCell):
            cell = self.cell
            input_mask, recurrent_mask = cell.dropout_masks(first[:, 0], states[0], training)
            loop_inputs = tf.transpose(first, [1, 0, *range(2, first.shape.rank)])
            if self._precompute_projection(first):
                loop_inputs = cell.project_inputs(loop_inputs, None if input_mask is None else input_mask[None])

                def step(x_t: tf.Tensor, step_states: list) -> tuple:
                    return cell.step(x_t, step_states, recurrent_mask)
            else:

                def step(x_t: tf.Tensor, step_states: list) -> tuple:
                    return cell.step(cell.project_inputs(x_t, input_mask), step_states, recurrent_mask)
        else:
            cell_kwargs = {"training": training} if _accepts(self.cell, "training") else {}

            def step(x_t: Any, step_states: list) -> tuple:
                # As in Keras 3, a cell always receives its states as a list (even a single one).
                output, new_states = self.cell(x_t, list(step_states), **cell_kwargs)
                return output, _sizes(new_states)

            loop_inputs = tf.nest.map_structure(
                lambda x: tf.transpose(x, [1, 0, *range(2, x.shape.rank)]), sequences
            )

        reading = self.cell.weights_read_once() if isinstance(self.cell, _RecurrentCell) else contextlib.nullcontext()
        with reading:
            last_output, outputs, final_states = rnn_loop.run(
                step,
                loop_inputs,
                states,
                output_like=self._output_like(first, states),
                mask=time_major_mask,
                go_backwards=self.go_backwards,
                unroll=self.unroll,
                zero_output_for_mask=self.zero_output_for_mask,
                return_sequences=self.return_sequences,
            )
        if self.stateful:
            for variable, value in zip(self.rnn_states.values, final_states):
                variable.assign(tf.cast(value, variable.dtype))
        if self.return_sequences:
            output = tf.transpose(outputs, [1, 0, *range(2, outputs.shape.rank)])
        else:
            output = last_output
        if self.return_state:
            return (output, *final_states)
        return output

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return (output_mask, *[None] * len(self.state_size))
        return output_mask

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        if isinstance(sequences_shape, list) and sequences_shape and isinstance(sequences_shape[0], (list, tuple)):
            sequences_shape = sequences_shape[0]
        batch, length = sequences_shape[0], sequences_shape[1]
        dims = _size_tuple(self.output_size)
        output_shape = (batch, length, *dims) if self.return_sequences else (batch, *dims)
        if not self.return_state:
            return output_shape
        return (output_shape, *[(batch, *_size_tuple(s)) for s in self.state_size])

    # -------------------------------------------------------------- config

    def _loop_config(self) -> dict[str, Any]:
        return {
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
        }

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(self._loop_config())
        config["cell"] = registry.to_config("layers", self.cell)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "RNN":
        config = dict(config)
        if "cell" in config:
            config["cell"] = registry.resolve("layers", config["cell"])
        return super().from_config(config)


_GPU_VISIBLE: list[bool] = []


def _gpu_visible() -> bool:
    if not _GPU_VISIBLE:
        _GPU_VISIBLE.append(bool(tf.config.list_logical_devices("GPU")))
    return _GPU_VISIBLE[0]


def _accepts(layer: Any, argument: str) -> bool:
    call = getattr(type(layer), "call", None) or layer
    try:
        return argument in inspect.signature(call).parameters
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------- built-in layers


_CELL_ARGS = (
    "units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
    "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
    "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout", "seed",
)


class _BuiltinRNN(RNN):
    """An ``RNN`` that builds its own cell from the constructor's arguments."""

    def _cell_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {key: kwargs[key] for key in ("dtype", "trainable") if key in kwargs}

    def __getattr__(self, name: str) -> Any:
        # ``lstm.units``, ``lstm.dropout`` ... read through to the cell, as in Keras.
        if name in _CELL_ARGS or name in ("recurrent_activation", "unit_forget_bias", "reset_after"):
            cell = self.__dict__.get("cell")
            if cell is not None:
                return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

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
    """Fully connected RNN: ``h_t = activation(x_t @ W + h_{t-1} @ U + b)``."""

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
            units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed,
            name="simple_rnn_cell", **self._cell_kwargs(kwargs),
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
            stateful=stateful, unroll=unroll, activity_regularizer=activity_regularizer, **kwargs,
        )
        self.input_spec = InputSpec(ndim=3)

    def build(self, sequences_shape: Any) -> None:
        super().build(sequences_shape)
        self.input_spec = InputSpec(ndim=3, axes={-1: sequences_shape[-1]})


@registry.builtin("layers")
class LSTM(_BuiltinRNN):
    """Long short-term memory (Hochreiter & Schmidhuber, 1997); states ``[h, c]``."""

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
        **kwargs: Any,
    ) -> None:
        cell = LSTMCell(
            units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed,
            name="lstm_cell", **self._cell_kwargs(kwargs),
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
            stateful=stateful, unroll=unroll, activity_regularizer=activity_regularizer, **kwargs,
        )
        self.input_spec = InputSpec(ndim=3)

    def build(self, sequences_shape: Any) -> None:
        super().build(sequences_shape)
        self.input_spec = InputSpec(ndim=3, axes={-1: sequences_shape[-1]})


@registry.builtin("layers")
class GRU(_BuiltinRNN):
    """Gated recurrent unit (Cho et al., 2014); ``reset_after=True`` as in Keras 3 and cuDNN."""

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
        **kwargs: Any,
    ) -> None:
        cell = GRUCell(
            units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout, recurrent_dropout=recurrent_dropout,
            reset_after=reset_after, seed=seed, name="gru_cell", **self._cell_kwargs(kwargs),
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
            stateful=stateful, unroll=unroll, activity_regularizer=activity_regularizer, **kwargs,
        )
        self.input_spec = InputSpec(ndim=3)

    def build(self, sequences_shape: Any) -> None:
        super().build(sequences_shape)
        self.input_spec = InputSpec(ndim=3, axes={-1: sequences_shape[-1]})
