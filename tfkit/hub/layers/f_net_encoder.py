"""``FNetEncoder``: FNet's encoder block (Lee-Thorp et al., 2021), a Fourier transform where attention would be.

encoder = FNetEncoder(intermediate_dim=64)
outputs = encoder(embeddings)        # (batch, length, dim): mixing, add & norm, feedforward, add & norm
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.layers import Dense, Dropout, LayerNormalization
from tfkit.saving import register_keras_serializable


def fourier_mixing(inputs: tf.Tensor) -> tf.Tensor:
    """The real part of the 2-D discrete Fourier transform over the sequence and feature axes, in float32."""
    transformed = tf.signal.fft2d(tf.complex(tf.cast(inputs, tf.float32), tf.zeros_like(inputs, tf.float32)))
    return tf.cast(tf.math.real(transformed), inputs.dtype)


@register_keras_serializable(package="keras_hub")
class FNetEncoder(Layer):
    """An FNet encoder block: Fourier mixing with a residual and layer norm, then a feedforward network likewise.

    The token mixing has no weights: the real part of the 2-D FFT over the
    sequence and features. The weights are KerasHub's, under its names
    (`mixing_layer_norm`, `output_layer_norm`, `intermediate_dense`,
    `output_dense`), so a KerasHub FNet encoder's weights load into it.

    Args:
        intermediate_dim: The hidden size of the feedforward network.
        dropout: The dropout rate after the feedforward network. Defaults to
            `0`.
        activation: The feedforward network's activation. Defaults to
            `"relu"`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-5`.
        kernel_initializer: The dense layers' kernel initializer. Defaults
            to `"glorot_uniform"`.
        bias_initializer: The dense layers' bias initializer. Defaults to
            `"zeros"`.
        **kwargs: Layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(batch, length, dim)`.
        training: Whether dropout is active. Defaults to `None`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> encoder = keras_hub.layers.FNetEncoder(intermediate_dim=8)
        >>> encoder(np.random.default_rng(0).random((2, 5, 4), dtype="float32")).shape
        TensorShape([2, 5, 4])
    """

    def __init__(
        self,
        intermediate_dim: int,
        dropout: float = 0,
        activation: Any = "relu",
        layer_norm_epsilon: float = 1e-5,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.intermediate_dim = intermediate_dim
        self.dropout = dropout
        self.activation = activations.get(activation)
        self.layer_norm_epsilon = layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def build(self, inputs_shape: Any) -> None:
        features = inputs_shape[-1]
        self._mixing_layer_norm = LayerNormalization(
            epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name="mixing_layer_norm"
        )
        self._mixing_layer_norm.build(inputs_shape)
        self._output_layer_norm = LayerNormalization(
            epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name="output_layer_norm"
        )
        self._output_layer_norm.build(inputs_shape)
        dense = {"dtype": self.dtype_policy}
        self._intermediate_dense = Dense(
            self.intermediate_dim,
            activation=self.activation,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            name="intermediate_dense",
            **dense,
        )
        self._intermediate_dense.build(inputs_shape)
        self._output_dense = Dense(
            features,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            name="output_dense",
            **dense,
        )
        self._output_dense.build((*tuple(inputs_shape)[:-1], self.intermediate_dim))
        self._output_dropout = Dropout(rate=self.dropout, dtype=self.dtype_policy, name="output_dropout")
        self.built = True

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        mixed = self._mixing_layer_norm(inputs + fourier_mixing(inputs))
        fed = self._output_dropout(self._output_dense(self._intermediate_dense(mixed)), training=training)
        return self._output_layer_norm(mixed + fed)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            intermediate_dim=self.intermediate_dim,
            dropout=self.dropout,
            activation=activations.serialize(self.activation),
            layer_norm_epsilon=self.layer_norm_epsilon,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
        )
        return config

    def compute_output_shape(self, inputs_shape: Any) -> Any:
        return inputs_shape
