"""Convolutional LSTMs: ``ConvLSTM1D``, ``ConvLSTM2D``, ``ConvLSTM3D`` (Shi et al., 2015).

    lstm = tfkit.layers.ConvLSTM2D(8, 3, padding="same", return_sequences=True)
    y = lstm(tf.ones((4, 10, 16, 16, 3)))            # (4, 10, 16, 16, 8)
    y, h, c = tfkit.layers.ConvLSTM1D(4, 3, return_state=True)(tf.ones((2, 5, 9, 3)))   # h, c: (2, 7, 4)

An ``RNN`` over a :class:`~tfkit.layers.conv_lstm_cell.ConvLSTMCell` named
``conv_lstm_cell``, with Keras 3's arguments, defaults, config and weight
paths (``conv_lstm2d/conv_lstm_cell/kernel``). Inputs are ``(batch, time,
*spatial, channels)``, or ``(batch, time, channels, *spatial)`` with
``data_format="channels_first"``; masks, ``go_backwards``, ``stateful``,
``unroll`` and dropout behave as in ``LSTM``.
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.base import registry
from tfkit.engine.input_spec import InputSpec
from tfkit.layers.conv_lstm_cell import ConvLSTMCell
from tfkit.layers.core import base_config
from tfkit.layers.recurrent import RNN

__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]

_CELL_ATTRIBUTES = (
    "filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
    "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
    "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
    "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout", "seed",
)


class _ConvLSTM(RNN):
    """An ``RNN`` that builds its ``ConvLSTMCell`` of ``rank`` from Keras's arguments."""

    rank: int = 2

    def __init__(
        self,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: int | Sequence[int] = 1,
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
        **kwargs: Any,
    ) -> None:
        cell = ConvLSTMCell(
            self.rank, filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed, name="conv_lstm_cell",
            **{key: kwargs[key] for key in ("dtype", "trainable") if key in kwargs},
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
            stateful=stateful, activity_regularizer=activity_regularizer, **kwargs,
        )
        self.input_spec = InputSpec(ndim=self.rank + 3)

    def __getattr__(self, name: str) -> Any:
        # ``conv_lstm.filters``, ``conv_lstm.padding`` ... read through to the cell, as in Keras.
        if name in _CELL_ATTRIBUTES:
            cell = self.__dict__.get("cell")
            if cell is not None:
                return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        shape = tuple(sequences_shape)
        if len(shape) != self.rank + 3:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}' expected inputs of rank {self.rank + 3} "
                f"(batch, time, *spatial, channels), got shape {shape}"
            )
        super().build(sequences_shape, initial_state_shape)
        self.input_spec = InputSpec(ndim=self.rank + 3, shape=(None, None, *shape[2:]))

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype", "rank"):
            cell_config.pop(key, None)
        config.update(cell_config)
        config.update(self._loop_config())
        config.setdefault("activity_regularizer", None)    # Keras 3 always lists it
        return config


@registry.builtin("layers")
class ConvLSTM1D(_ConvLSTM):
    """Convolutional LSTM over ``(batch, time, steps, channels)``."""

    rank = 1


@registry.builtin("layers")
class ConvLSTM2D(_ConvLSTM):
    """Convolutional LSTM over ``(batch, time, rows, cols, channels)``."""

    rank = 2


@registry.builtin("layers")
class ConvLSTM3D(_ConvLSTM):
    """Convolutional LSTM over ``(batch, time, depth, rows, cols, channels)``."""

    rank = 3
