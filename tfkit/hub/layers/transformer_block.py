"""What KerasHub's transformer encoder and decoder blocks share: arguments, config and the feedforward half.

    class TransformerEncoder(TransformerBlock):
        def build(self, shape):
            ...                                              # the attention sub-layers
            self._build_feedforward(shape, norm_first=True)  # _feedforward_layer_norm, _intermediate_dense, ...
        def call(self, x):
            ...
            return self._feedforward(x, training)

Sub-layers keep KerasHub's attribute names, so KerasHub's weight files load.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.layers import Dense, Dropout, LayerNormalization


class TransformerBlock(Layer):
    """The arguments, config and feedforward network of `TransformerEncoder` and `TransformerDecoder`.

    Args:
        intermediate_dim: Integer, the hidden size of the feedforward network.
        num_heads: Integer, the number of attention heads.
        dropout: Float, the dropout rate of the attention and feedforward
            network. Defaults to `0`.
        activation: Activation of the feedforward network. Defaults to
            `"relu"`.
        layer_norm_epsilon: Float, the layer norms' epsilon. Defaults to
            `1e-05`.
        kernel_initializer: Initializer of the dense and attention kernels.
            Defaults to `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        normalize_first: Whether to normalize before the attention and the
            feedforward network (GPT-2) instead of after them (BERT).
            Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> from tfkit.hub.layers.transformer_block import TransformerBlock
        >>> issubclass(keras_hub.layers.TransformerDecoder, TransformerBlock)
        True
    """

    def __init__(
        self,
        intermediate_dim: int,
        num_heads: int,
        dropout: float = 0,
        activation: Any = "relu",
        layer_norm_epsilon: float = 1e-05,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        normalize_first: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.intermediate_dim = intermediate_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.activation = activations.get(activation)
        self.layer_norm_epsilon = layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.normalize_first = normalize_first
        self.supports_masking = True

    def _head_dim(self, hidden_dim: int) -> int:
        """``hidden_dim // num_heads``, or a ``ValueError`` naming the layer when that is zero."""
        head_dim = int(hidden_dim // self.num_heads)
        if head_dim == 0:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': the attention head size hidden_dim // num_heads "
                f"cannot be zero: hidden_dim={hidden_dim} must be at least num_heads={self.num_heads}"
            )
        return head_dim

    def _make_layer_norm(self, name: str, shape: tuple) -> LayerNormalization:
        norm = LayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)
        norm.build(shape)
        return norm

    def _make_dropout(self, name: str) -> Dropout:
        return Dropout(rate=self.dropout, dtype=self.dtype_policy, name=name)

    def _build_feedforward(self, sequence_shape: tuple, norm_first: bool) -> None:
        """The feedforward sub-layers, built; the layer norm made before the dense layers (``norm_first``,
        KerasHub's encoder) or after them (its decoder), so the weights come in KerasHub's order."""
        if norm_first:
            self._feedforward_layer_norm = self._make_layer_norm("feedforward_layer_norm", sequence_shape)
        self._feedforward_intermediate_dense = Dense(
            self.intermediate_dim,
            activation=self.activation,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            dtype=self.dtype_policy,
            name="feedforward_intermediate_dense",
        )
        self._feedforward_intermediate_dense.build(sequence_shape)
        self._feedforward_output_dense = Dense(
            sequence_shape[-1],
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            dtype=self.dtype_policy,
            name="feedforward_output_dense",
        )
        self._feedforward_output_dense.build(tuple(sequence_shape[:-1]) + (self.intermediate_dim,))
        if not norm_first:
            self._feedforward_layer_norm = self._make_layer_norm("feedforward_layer_norm", sequence_shape)
        self._feedforward_dropout = self._make_dropout("feedforward_dropout")

    def _feedforward(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        """(norm), dense, dense, dropout, residual, (norm)."""
        residual = x
        if self.normalize_first:
            x = self._feedforward_layer_norm(x)
        x = self._feedforward_intermediate_dense(x)
        x = self._feedforward_output_dense(x)
        x = self._feedforward_dropout(x, training=training)
        x = x + residual
        if not self.normalize_first:
            x = self._feedforward_layer_norm(x)
        return x

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            intermediate_dim=self.intermediate_dim,
            num_heads=self.num_heads,
            dropout=self.dropout,
            activation=activations.serialize(self.activation),
            layer_norm_epsilon=self.layer_norm_epsilon,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            normalize_first=self.normalize_first,
        )
        return config

    def compute_output_shape(self, inputs_shape: Any) -> Any:
        return inputs_shape
