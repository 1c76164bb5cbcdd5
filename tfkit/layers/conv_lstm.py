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
from tfkit.layers.recurrent import RNN, refuse_cell_attribute

__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]

_CELL_ATTRIBUTES = (
    "filters",
    "kernel_size",
    "strides",
    "padding",
    "data_format",
    "dilation_rate",
    "activation",
    "recurrent_activation",
    "use_bias",
    "kernel_initializer",
    "recurrent_initializer",
    "bias_initializer",
    "unit_forget_bias",
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
            self.rank,
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
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
            name="conv_lstm_cell",
            **{key: kwargs[key] for key in ("dtype", "trainable") if key in kwargs},
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
        self.input_spec = InputSpec(ndim=self.rank + 3)

    def __getattr__(self, name: str) -> Any:
        # ``conv_lstm.filters``, ``conv_lstm.padding`` ... read through to the cell, as in Keras.
        if name in _CELL_ATTRIBUTES:
            cell = self.__dict__.get("cell")
            if cell is not None:
                return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        refuse_cell_attribute(self, name, _CELL_ATTRIBUTES)
        super().__setattr__(name, value)

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
        config.setdefault("activity_regularizer", None)  # Keras 3 always lists it
        return config


@registry.builtin("layers")
class ConvLSTM1D(_ConvLSTM):
    """1D Convolutional LSTM.

    Similar to an LSTM layer, but the input transformations and recurrent
    transformations are both convolutional (Shi et al., 2015). Inputs are
    sequences of 1D signals: `(batch, time, ...spatial, channels)`, or
    `(batch, time, channels, ...spatial)` with
    `data_format="channels_first"`. The layer is an `RNN` over a
    `ConvLSTMCell` named `conv_lstm_cell`, with Keras 3's arguments,
    defaults, config and weight paths (`kernel` of shape
    `(*kernel_size, channels, 4 * filters)`, `recurrent_kernel`
    `(*kernel_size, filters, 4 * filters)`, `bias` `(4 * filters,)`); masks,
    `go_backwards`, `stateful` and dropout behave as in `LSTM`.

    Args:
        filters: Positive integer, the number of output filters of the
            convolutions (the channels of the output and of each state).
        kernel_size: An integer or tuple/list of 1 integer, the size of the
            convolution window.
        strides: An integer or tuple/list of 1 integer, the stride of the input
            convolution (the recurrent convolution always has stride 1 and
            `"same"` padding). Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive), the padding
            of the input convolution. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, time, steps, channels)`) or `"channels_first"` (inputs
            of shape `(batch, time, channels, steps)`). `None` (the default)
            means `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 1 integer, the dilation rate
            of the input convolution. Defaults to `1`.
        activation: Activation function to use. Defaults to `"tanh"`.
        recurrent_activation: Activation function to use for the recurrent
            step (the gates). Defaults to `"sigmoid"`.
        use_bias: Boolean, whether the layer uses a bias vector. Defaults to
            `True`.
        kernel_initializer: Initializer for the `kernel` weights, used for the
            convolution of the inputs. Defaults to `"glorot_uniform"`.
        recurrent_initializer: Initializer for the `recurrent_kernel`
            weights, used for the convolution of the recurrent state.
            Defaults to `"orthogonal"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        unit_forget_bias: Boolean. If `True`, add 1 to the bias of the forget
            gate at initialization. Defaults to `True`.
        kernel_regularizer: Regularizer function applied to the `kernel`
            weights. Defaults to `None`.
        recurrent_regularizer: Regularizer function applied to the
            `recurrent_kernel` weights. Defaults to `None`.
        bias_regularizer: Regularizer function applied to the bias vector.
            Defaults to `None`.
        activity_regularizer: Regularizer function applied to the output of
            the layer. Defaults to `None`.
        kernel_constraint: Constraint function applied to the `kernel`
            weights. Defaults to `None`.
        recurrent_constraint: Constraint function applied to the
            `recurrent_kernel` weights. Defaults to `None`.
        bias_constraint: Constraint function applied to the bias vector.
            Defaults to `None`.
        dropout: Float between 0 and 1. Fraction of the units to drop for the
            linear transformation of the inputs. Defaults to `0.0`.
        recurrent_dropout: Float between 0 and 1. Fraction of the units to
            drop for the linear transformation of the recurrent state.
            Defaults to `0.0`.
        seed: Random seed for dropout. Defaults to `None`.
        return_sequences: Boolean. Whether to return the last output in the
            output sequence (`False`, the default) or the full sequence.
        return_state: Boolean. Whether to return the final states `h` and `c`
            in addition to the output. Defaults to `False`.
        go_backwards: Boolean. If `True`, process the input sequence backwards
            and, with `return_sequences=True`, return the outputs in that
            reversed order. Defaults to `False`.
        stateful: Boolean. If `True`, the last state for each sample at index
            `i` in a batch is used as the initial state for the sample of
            index `i` in the following batch, until `reset_states()`.
            Defaults to `False`.
        **kwargs: Further `RNN` arguments (such as `unroll`) and base layer
            keyword arguments, such as `name` and `dtype`.

    Call arguments:
        sequences: A 4D tensor of shape
            `(batch, time, steps, channels)` (channels last).
        initial_state: List of initial state tensors `[h, c]` to be passed to
            the first call of the cell. If not given, zero-filled states are
            used.
        mask: Binary tensor of shape `(batch, time)` indicating whether a
            given timestep should be masked.
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            `dropout` or `recurrent_dropout` is set.

    Input shape:
        If `data_format="channels_last"`: a 4D tensor with shape
        `(samples, time, steps, channels)`. If
        `data_format="channels_first"`: a 4D tensor with shape
        `(samples, time, channels, steps)`.

    Output shape:
        With `return_sequences=True`: `(samples, time, new_steps, filters)`
        (channels last), else `(samples, new_steps, filters)`. With
        `return_state=True`, followed by the final states `h` and `c`, each
        of shape `(samples, new_steps, filters)`. The new spatial sizes are
        those of the input convolution.

    Raises:
        ValueError: If an argument is out of range (such as `strides > 1` with
            `dilation_rate > 1`), the input does not have rank 4, or
            its spatial or channel sizes are unknown.

    Example:
        >>> layer = tfkit.layers.ConvLSTM1D(4, 3, return_state=True)
        >>> output, h, c = layer(np.ones((2, 5, 9, 3)))
        >>> output.shape, h.shape, c.shape
        (TensorShape([2, 7, 4]), TensorShape([2, 7, 4]), TensorShape([2, 7, 4]))
    """

    rank = 1


@registry.builtin("layers")
class ConvLSTM2D(_ConvLSTM):
    """2D Convolutional LSTM.

    Similar to an LSTM layer, but the input transformations and recurrent
    transformations are both convolutional (Shi et al., 2015). Inputs are
    sequences of images: `(batch, time, ...spatial, channels)`, or
    `(batch, time, channels, ...spatial)` with
    `data_format="channels_first"`. The layer is an `RNN` over a
    `ConvLSTMCell` named `conv_lstm_cell`, with Keras 3's arguments,
    defaults, config and weight paths (`kernel` of shape
    `(*kernel_size, channels, 4 * filters)`, `recurrent_kernel`
    `(*kernel_size, filters, 4 * filters)`, `bias` `(4 * filters,)`); masks,
    `go_backwards`, `stateful` and dropout behave as in `LSTM`.

    Args:
        filters: Positive integer, the number of output filters of the
            convolutions (the channels of the output and of each state).
        kernel_size: An integer or tuple/list of 2 integers, the size of the
            convolution window.
        strides: An integer or tuple/list of 2 integers, the stride of the input
            convolution (the recurrent convolution always has stride 1 and
            `"same"` padding). Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive), the padding
            of the input convolution. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, time, rows, cols, channels)`) or `"channels_first"` (inputs
            of shape `(batch, time, channels, rows, cols)`). `None` (the default)
            means `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 2 integers, the dilation rate
            of the input convolution. Defaults to `1`.
        activation: Activation function to use. Defaults to `"tanh"`.
        recurrent_activation: Activation function to use for the recurrent
            step (the gates). Defaults to `"sigmoid"`.
        use_bias: Boolean, whether the layer uses a bias vector. Defaults to
            `True`.
        kernel_initializer: Initializer for the `kernel` weights, used for the
            convolution of the inputs. Defaults to `"glorot_uniform"`.
        recurrent_initializer: Initializer for the `recurrent_kernel`
            weights, used for the convolution of the recurrent state.
            Defaults to `"orthogonal"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        unit_forget_bias: Boolean. If `True`, add 1 to the bias of the forget
            gate at initialization. Defaults to `True`.
        kernel_regularizer: Regularizer function applied to the `kernel`
            weights. Defaults to `None`.
        recurrent_regularizer: Regularizer function applied to the
            `recurrent_kernel` weights. Defaults to `None`.
        bias_regularizer: Regularizer function applied to the bias vector.
            Defaults to `None`.
        activity_regularizer: Regularizer function applied to the output of
            the layer. Defaults to `None`.
        kernel_constraint: Constraint function applied to the `kernel`
            weights. Defaults to `None`.
        recurrent_constraint: Constraint function applied to the
            `recurrent_kernel` weights. Defaults to `None`.
        bias_constraint: Constraint function applied to the bias vector.
            Defaults to `None`.
        dropout: Float between 0 and 1. Fraction of the units to drop for the
            linear transformation of the inputs. Defaults to `0.0`.
        recurrent_dropout: Float between 0 and 1. Fraction of the units to
            drop for the linear transformation of the recurrent state.
            Defaults to `0.0`.
        seed: Random seed for dropout. Defaults to `None`.
        return_sequences: Boolean. Whether to return the last output in the
            output sequence (`False`, the default) or the full sequence.
        return_state: Boolean. Whether to return the final states `h` and `c`
            in addition to the output. Defaults to `False`.
        go_backwards: Boolean. If `True`, process the input sequence backwards
            and, with `return_sequences=True`, return the outputs in that
            reversed order. Defaults to `False`.
        stateful: Boolean. If `True`, the last state for each sample at index
            `i` in a batch is used as the initial state for the sample of
            index `i` in the following batch, until `reset_states()`.
            Defaults to `False`.
        **kwargs: Further `RNN` arguments (such as `unroll`) and base layer
            keyword arguments, such as `name` and `dtype`.

    Call arguments:
        sequences: A 5D tensor of shape
            `(batch, time, rows, cols, channels)` (channels last).
        initial_state: List of initial state tensors `[h, c]` to be passed to
            the first call of the cell. If not given, zero-filled states are
            used.
        mask: Binary tensor of shape `(batch, time)` indicating whether a
            given timestep should be masked.
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            `dropout` or `recurrent_dropout` is set.

    Input shape:
        If `data_format="channels_last"`: a 5D tensor with shape
        `(samples, time, rows, cols, channels)`. If
        `data_format="channels_first"`: a 5D tensor with shape
        `(samples, time, channels, rows, cols)`.

    Output shape:
        With `return_sequences=True`: `(samples, time, new_rows, new_cols, filters)`
        (channels last), else `(samples, new_rows, new_cols, filters)`. With
        `return_state=True`, followed by the final states `h` and `c`, each
        of shape `(samples, new_rows, new_cols, filters)`. The new spatial sizes are
        those of the input convolution.

    Raises:
        ValueError: If an argument is out of range (such as `strides > 1` with
            `dilation_rate > 1`), the input does not have rank 5, or
            its spatial or channel sizes are unknown.

    Example:
        >>> layer = tfkit.layers.ConvLSTM2D(8, 3, padding="same", return_sequences=True)
        >>> layer(np.ones((2, 4, 6, 6, 3))).shape
        TensorShape([2, 4, 6, 6, 8])
        >>> layer.cell.kernel.shape, layer.cell.recurrent_kernel.shape
        (TensorShape([3, 3, 3, 32]), TensorShape([3, 3, 8, 32]))
    """

    rank = 2


@registry.builtin("layers")
class ConvLSTM3D(_ConvLSTM):
    """3D Convolutional LSTM.

    Similar to an LSTM layer, but the input transformations and recurrent
    transformations are both convolutional (Shi et al., 2015). Inputs are
    sequences of volumes: `(batch, time, ...spatial, channels)`, or
    `(batch, time, channels, ...spatial)` with
    `data_format="channels_first"`. The layer is an `RNN` over a
    `ConvLSTMCell` named `conv_lstm_cell`, with Keras 3's arguments,
    defaults, config and weight paths (`kernel` of shape
    `(*kernel_size, channels, 4 * filters)`, `recurrent_kernel`
    `(*kernel_size, filters, 4 * filters)`, `bias` `(4 * filters,)`); masks,
    `go_backwards`, `stateful` and dropout behave as in `LSTM`.

    Args:
        filters: Positive integer, the number of output filters of the
            convolutions (the channels of the output and of each state).
        kernel_size: An integer or tuple/list of 3 integers, the size of the
            convolution window.
        strides: An integer or tuple/list of 3 integers, the stride of the input
            convolution (the recurrent convolution always has stride 1 and
            `"same"` padding). Strides above 1 cannot be combined with a
            `dilation_rate` above 1. Defaults to `1`.
        padding: String, `"valid"` or `"same"` (case-insensitive), the padding
            of the input convolution. Defaults to `"valid"`.
        data_format: String, `"channels_last"` (inputs of shape
            `(batch, time, depth, rows, cols, channels)`) or `"channels_first"` (inputs
            of shape `(batch, time, channels, depth, rows, cols)`). `None` (the default)
            means `tfkit.backend.image_data_format()`.
        dilation_rate: An integer or tuple/list of 3 integers, the dilation rate
            of the input convolution. Defaults to `1`.
        activation: Activation function to use. Defaults to `"tanh"`.
        recurrent_activation: Activation function to use for the recurrent
            step (the gates). Defaults to `"sigmoid"`.
        use_bias: Boolean, whether the layer uses a bias vector. Defaults to
            `True`.
        kernel_initializer: Initializer for the `kernel` weights, used for the
            convolution of the inputs. Defaults to `"glorot_uniform"`.
        recurrent_initializer: Initializer for the `recurrent_kernel`
            weights, used for the convolution of the recurrent state.
            Defaults to `"orthogonal"`.
        bias_initializer: Initializer for the bias vector. Defaults to
            `"zeros"`.
        unit_forget_bias: Boolean. If `True`, add 1 to the bias of the forget
            gate at initialization. Defaults to `True`.
        kernel_regularizer: Regularizer function applied to the `kernel`
            weights. Defaults to `None`.
        recurrent_regularizer: Regularizer function applied to the
            `recurrent_kernel` weights. Defaults to `None`.
        bias_regularizer: Regularizer function applied to the bias vector.
            Defaults to `None`.
        activity_regularizer: Regularizer function applied to the output of
            the layer. Defaults to `None`.
        kernel_constraint: Constraint function applied to the `kernel`
            weights. Defaults to `None`.
        recurrent_constraint: Constraint function applied to the
            `recurrent_kernel` weights. Defaults to `None`.
        bias_constraint: Constraint function applied to the bias vector.
            Defaults to `None`.
        dropout: Float between 0 and 1. Fraction of the units to drop for the
            linear transformation of the inputs. Defaults to `0.0`.
        recurrent_dropout: Float between 0 and 1. Fraction of the units to
            drop for the linear transformation of the recurrent state.
            Defaults to `0.0`.
        seed: Random seed for dropout. Defaults to `None`.
        return_sequences: Boolean. Whether to return the last output in the
            output sequence (`False`, the default) or the full sequence.
        return_state: Boolean. Whether to return the final states `h` and `c`
            in addition to the output. Defaults to `False`.
        go_backwards: Boolean. If `True`, process the input sequence backwards
            and, with `return_sequences=True`, return the outputs in that
            reversed order. Defaults to `False`.
        stateful: Boolean. If `True`, the last state for each sample at index
            `i` in a batch is used as the initial state for the sample of
            index `i` in the following batch, until `reset_states()`.
            Defaults to `False`.
        **kwargs: Further `RNN` arguments (such as `unroll`) and base layer
            keyword arguments, such as `name` and `dtype`.

    Call arguments:
        sequences: A 6D tensor of shape
            `(batch, time, depth, rows, cols, channels)` (channels last).
        initial_state: List of initial state tensors `[h, c]` to be passed to
            the first call of the cell. If not given, zero-filled states are
            used.
        mask: Binary tensor of shape `(batch, time)` indicating whether a
            given timestep should be masked.
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode. Only relevant when
            `dropout` or `recurrent_dropout` is set.

    Input shape:
        If `data_format="channels_last"`: a 6D tensor with shape
        `(samples, time, depth, rows, cols, channels)`. If
        `data_format="channels_first"`: a 6D tensor with shape
        `(samples, time, channels, depth, rows, cols)`.

    Output shape:
        With `return_sequences=True`: `(samples, time, new_depth, new_rows, new_cols, filters)`
        (channels last), else `(samples, new_depth, new_rows, new_cols, filters)`. With
        `return_state=True`, followed by the final states `h` and `c`, each
        of shape `(samples, new_depth, new_rows, new_cols, filters)`. The new spatial sizes are
        those of the input convolution.

    Raises:
        ValueError: If an argument is out of range (such as `strides > 1` with
            `dilation_rate > 1`), the input does not have rank 6, or
            its spatial or channel sizes are unknown.

    Example:
        >>> layer = tfkit.layers.ConvLSTM3D(2, 2)
        >>> layer(np.ones((1, 3, 4, 4, 4, 2))).shape
        TensorShape([1, 3, 3, 3, 2])
    """

    rank = 3
