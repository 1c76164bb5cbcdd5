"""One timestep of a convolutional LSTM: ``LSTMCell`` with convolutions in place of the matmuls.

    cell = ConvLSTMCell(rank=2, filters=8, kernel_size=3, padding="same")
    h, [h, c] = cell(x_t, [h0, c0])             # x_t: (batch, rows, cols, channels); h, c: (batch, rows, cols, 8)
    tfkit.layers.RNN(cell, return_sequences=True)(x)    # what ConvLSTM2D runs

Weights are Keras 3's: ``kernel`` ``(*kernel_size, in_channels, 4 * filters)``,
``recurrent_kernel`` ``(*kernel_size, filters, 4 * filters)``, ``bias``
``(4 * filters,)``, gates i, f, c, o. The inputs are convolved with ``strides``,
``padding`` and ``dilation_rate``; the state with stride 1 and ``"same"``
padding. The cell keeps the RNN layer's fast path: :meth:`project_inputs`
convolves one timestep or all of them at once, :meth:`step` does the rest.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base.data_format import from_channels_last, standardize_data_format, to_channels_last
from tfkit.distribution import values as distribution_values
from tfkit.layers import conv_utils as cu
from tfkit.layers.rnn_cells import LSTMCell
from tfkit.layers.rnn_structure import zeros_for

__all__: list[str] = []


class ConvLSTMCell(LSTMCell):
    """The step of ``ConvLSTM1D/2D/3D`` (``rank`` 1, 2, 3); states ``[h, c]`` laid out like the inputs."""

    def __init__(
        self,
        rank: int,
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
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
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
            **kwargs,
        )
        who = cu.layer_label(self)
        if rank not in (1, 2, 3):
            raise ValueError(f"{who} supports rank 1, 2 or 3 convolutions, got rank={rank!r}")
        self.rank = rank
        self.filters = self.units
        self.kernel_size = cu.normalize_tuple(kernel_size, rank, "kernel_size", who)
        self.strides = cu.normalize_tuple(strides, rank, "strides", who)
        self.padding = cu.normalize_padding(padding, who)
        self.data_format = standardize_data_format(data_format, who)
        self.dilation_rate = cu.normalize_tuple(dilation_rate, rank, "dilation_rate", who)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{who}: strides > 1 cannot be combined with dilation_rate > 1, "
                f"got strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self._state_spatial: tuple[int, ...] | None = None

    # ----------------------------------------------------------- structure

    def _state_shape(self) -> tf.TensorShape:
        spatial = self._state_spatial or (None,) * self.rank
        if self.data_format == "channels_last":
            return tf.TensorShape([*spatial, self.filters])
        return tf.TensorShape([self.filters, *spatial])

    @property
    def state_size(self) -> list[tf.TensorShape]:
        return [self._state_shape(), self._state_shape()]

    @property
    def output_size(self) -> tf.TensorShape:
        return self._state_shape()

    def get_initial_state(self, batch_size: Any = None) -> list[tf.Tensor]:
        return zeros_for(self.state_size, batch_size, self.compute_dtype)

    def build(self, input_shape: Any) -> None:
        who = cu.layer_label(self)
        shape = cu.check_input_rank(tuple(input_shape), self.rank + 2, who, cu.layout(self.rank, self.data_format))
        spatial, channels = cu.spatial_dims(shape, self.data_format), cu.channel_dim(shape, self.data_format)
        if None in spatial or channels is None:
            raise ValueError(
                f"{who} needs known spatial and channel sizes (the state's shape depends on them), "
                f"got a timestep of shape {shape}"
            )
        self._state_spatial = tuple(self._output_spatial(spatial))
        if min(self._state_spatial) <= 0:
            cu.check_positive_output((shape[0], *self._state_spatial), shape, who)
        width = 4 * self.filters
        self.kernel = self.add_weight(
            shape=(*self.kernel_size, channels, width),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.recurrent_kernel = self.add_weight(
            shape=(*self.kernel_size, self.filters, width),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
            name="recurrent_kernel",
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(width,),
                initializer=self._bias_initializer(),
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )

    def _output_spatial(self, spatial: Sequence[Any]) -> list[Any]:
        return [
            cu.conv_output_length(length, k, self.padding, s, d)
            for length, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        ]

    # ----------------------------------------------------------- the math

    def project_inputs(self, inputs: tf.Tensor, input_mask: Any = None) -> tf.Tensor:
        """The input convolution (+ bias) of one timestep ``(batch, ...)`` or of all, ``(time, batch, ...)``."""
        if input_mask is not None:
            inputs = inputs * input_mask
        leading = inputs.shape.rank - (self.rank + 1)  # 1: one timestep, 2: time-major sequence
        if leading == 2:
            dims = tf.shape(inputs)
            merged = tf.reshape(inputs, tf.concat([[-1], dims[2:]], axis=0))
            merged.set_shape([None, *inputs.shape[2:]])
            out = self.project_inputs(merged)
            result = tf.reshape(out, tf.concat([dims[:2], tf.shape(out)[1:]], axis=0))
            result.set_shape([*inputs.shape[:2], *out.shape[1:]])
            return result
        x = to_channels_last(inputs, self.data_format)
        kernel = self._weight(self.kernel, x.dtype)
        out = tf.nn.convolution(
            x, kernel, strides=self.strides, padding=self.padding.upper(), dilations=self.dilation_rate
        )
        if self.bias is not None:
            out = out + self._weight(self.bias, out.dtype)
        return from_channels_last(out, self.data_format)

    def step(self, projected: tf.Tensor, states: Sequence[tf.Tensor], recurrent_mask: Any = None) -> tuple:
        h_prev, c_prev = states[0], states[1]
        if recurrent_mask is not None:
            h_prev = h_prev * recurrent_mask
        recurrent = tf.nn.convolution(
            to_channels_last(h_prev, self.data_format),
            self._weight(self.recurrent_kernel, projected.dtype),
            padding="SAME",
        )
        z = projected + from_channels_last(recurrent, self.data_format)
        channels = -1 if self.data_format == "channels_last" else 1
        z_i, z_f, z_c, z_o = tf.split(distribution_values.whole_along(z, channels), 4, axis=channels)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = f * c_prev + i * self.activation(z_c)
        o = self.recurrent_activation(z_o)
        h = o * self.activation(c)
        return h, [h, c]

    def compute_output_shape(self, input_shape: Any, states_shape: Any = None) -> tuple:
        shape = tuple(input_shape)
        spatial = self._output_spatial(cu.spatial_dims(shape, self.data_format))
        return cu.assemble_shape(shape[0], spatial, self.filters, self.data_format)

    # -------------------------------------------------------------- config

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        units = config.pop("units")
        config = {
            **{k: config.pop(k) for k in ("name", "trainable", "dtype") if k in config},
            "rank": self.rank,
            "filters": units,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            **config,
        }
        return config
