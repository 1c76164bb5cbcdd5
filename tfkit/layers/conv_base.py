"""The shared base of tfkit's convolution layers: arguments, bias, activation, data layout.

    class _Conv(ConvBase):                       # see convolution.py
        def build(self, input_shape): self.kernel = ...; self._add_bias(self.filters)
        def _convolve(self, x): return tf.nn.convolution(x, self.kernel, ...)

Subclasses set ``rank``, create ``self.kernel`` (or their own kernels) in
``build`` and compute on channels-last inputs in ``_convolve``; ``call``
handles dtype, ``channels_first`` transposes, the bias and the activation.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit import activations, constraints, initializers, regularizers
from tfkit.base.argument_validation import positive_int
from tfkit.base.data_format import from_channels_last, standardize_data_format, to_channels_last
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers import assigned_activation
from tfkit.layers import conv_utils as cu

IntOrTuple = int | Sequence[int]


def serialize_optional(module: Any, value: Any) -> Any:
    """``module.serialize(value)``, keeping ``None`` as ``None``."""
    return None if value is None else module.serialize(value)


class ConvBase(Layer):
    """What every convolution shares: arguments, bias, activation, layout handling.

    Subclasses set ``rank``, create ``self.kernel`` in ``build`` and define
    ``_convolve(channels_last_inputs)``.
    """

    rank: int = 2
    allow_causal: bool = False

    def __init__(
        self,
        filters: int | None,
        kernel_size: IntOrTuple,
        strides: IntOrTuple = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: IntOrTuple = 1,
        activation: Any = None,
        use_bias: bool = True,
        bias_initializer: Any = "zeros",
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        who = cu.layer_label(self)
        self.filters = None if filters is None else positive_int(filters, "filters", who)
        self.kernel_size = cu.normalize_tuple(kernel_size, self.rank, "kernel_size", who)
        self.strides = cu.normalize_tuple(strides, self.rank, "strides", who)
        self.padding = cu.normalize_padding(padding, who, allow_causal=self.allow_causal)
        self.data_format = standardize_data_format(data_format, who)
        self.dilation_rate = cu.normalize_tuple(dilation_rate, self.rank, "dilation_rate", who)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{who}: strides > 1 cannot be combined with dilation_rate > 1, "
                f"got strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.bias_initializer = initializers.get(bias_initializer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    @property
    def _channel_axis(self) -> int:
        return -1 if self.data_format == "channels_last" else 1

    def _input_channels(self, input_shape: Any) -> int:
        """Check the rank of a build shape and return its (known) channel count."""
        who = cu.layer_label(self)
        shape = cu.check_input_rank(input_shape, self.rank + 2, who, cu.layout(self.rank, self.data_format))
        channels = cu.channel_dim(shape, self.data_format)
        if channels is None:
            raise ValueError(f"{who} needs a known channel dimension, got input shape {shape}")
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        return channels

    def _add_bias(self, size: int) -> None:
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(size,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        else:
            self.bias = None

    def _convolve(self, inputs: tf.Tensor) -> tf.Tensor:
        raise NotImplementedError

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        if inputs.dtype != self.compute_dtype:
            inputs = tf.cast(inputs, self.compute_dtype)
        outputs = self._convolve(to_channels_last(inputs, self.data_format))
        if self.bias is not None:
            # An add, not tf.nn.bias_add: the forward pass still fuses (conv + bias + activation), but
            # TensorFlow's CPU graph rewriter would fuse BiasAddGrad into the filter gradient, and that
            # oneDNN kernel took twice as long as the plain filter gradient plus a sum (small CNN on MNIST).
            outputs = outputs + self.bias
        outputs = from_channels_last(outputs, self.data_format)
        return assigned_activation.apply(self, outputs)

    def _output_channels(self, input_channels: int | None) -> int | None:
        """Channels of the output given the input's (``filters``; depthwise layers override)."""
        return self.filters

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The output shape of a forward (windowed) convolution; transposes override it."""
        who = cu.layer_label(self)
        shape = cu.check_input_rank(input_shape, self.rank + 2, who, cu.layout(self.rank, self.data_format))
        spatial = [
            cu.conv_output_length(length, k, self.padding, s, d)
            for length, k, s, d in zip(
                cu.spatial_dims(shape, self.data_format), self.kernel_size, self.strides, self.dilation_rate
            )
        ]
        channels = self._output_channels(cu.channel_dim(shape, self.data_format))
        out = cu.assemble_shape(shape[0], spatial, channels, self.data_format)
        return cu.check_positive_output(out, shape, who)

    def _base_conv_config(self, **leading: Any) -> dict[str, Any]:
        """Base config, then ``leading`` (e.g. ``filters``), then the arguments all convolutions share."""
        config = super().get_config()
        config.update(leading)
        config.update(
            kernel_size=self.kernel_size,
            strides=self.strides,
            padding=self.padding,
            data_format=self.data_format,
            dilation_rate=self.dilation_rate,
            activation=activations.serialize(self.activation),
            use_bias=self.use_bias,
            bias_initializer=initializers.serialize(self.bias_initializer),
            bias_regularizer=serialize_optional(regularizers, self.bias_regularizer),
            activity_regularizer=serialize_optional(regularizers, self.activity_regularizer),
            bias_constraint=serialize_optional(constraints, self.bias_constraint),
        )
        return config
