"""``DisentangledAttentionEncoder``: DeBERTa's post-norm encoder block (disentangled attention, GELU network).

block = DisentangledAttentionEncoder(intermediate_dim=3072, num_heads=12, bucket_size=256, activation="gelu")
y = block(x, rel_embeddings=table, padding_mask=mask)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.transformer_layer_utils import clone_initializer, merge_padding_and_attention_mask
from tfkit.hub.models.deberta_v3.disentangled_self_attention import DisentangledSelfAttention
from tfkit.layers import Dense, Dropout, LayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DisentangledAttentionEncoder(DeclaredConfig, Layer):
    """Disentangled attention encoder: DeBERTa's transformer encoder block.

    Disentangled self-attention (`DisentangledSelfAttention`), dropout,
    residual, layer norm; a feedforward network (dense with `activation`,
    dense), dropout, residual, layer norm. The sub-layers have KerasHub's
    names.

    Args:
        intermediate_dim: Integer, the hidden size of the feedforward network.
        num_heads: Integer, the number of attention heads.
        max_position_embeddings: Integer, the longest distance the
            logarithmic position buckets reach. Defaults to `512`.
        bucket_size: Integer, the number of relative distance buckets on
            each side. Defaults to `256`.
        dropout: Float, the dropout rate. Defaults to `0`.
        activation: The feedforward network's activation. Defaults to
            `"relu"`.
        layer_norm_epsilon: Float, the layer norms' epsilon. Defaults to
            `1e-5`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Tensor `(batch, length, hidden_dim)`.
        rel_embeddings: Tensor `(batch, 2 * bucket_size, hidden_dim)`.
        padding_mask: Optional `(batch, length)`, 1 for real tokens.
        attention_mask: Optional `(batch, length, length)`.

    Returns:
        Tensor `(batch, length, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.deberta_v3.disentangled_attention_encoder import DisentangledAttentionEncoder
        >>> block = DisentangledAttentionEncoder(intermediate_dim=16, num_heads=2, max_position_embeddings=16,
        ...     bucket_size=4)
        >>> block(np.ones((1, 5, 8), "float32"), rel_embeddings=np.ones((1, 8, 8), "float32")).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        intermediate_dim: int,
        num_heads: int,
        max_position_embeddings: int = 512,
        bucket_size: int = 256,
        dropout: float = 0,
        activation: Any = "relu",
        layer_norm_epsilon: float = 1e-05,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.intermediate_dim = intermediate_dim
        self.num_heads = num_heads
        self.max_position_embeddings = max_position_embeddings
        self.bucket_size = bucket_size
        self.dropout = dropout
        self.activation = activations.get(activation)
        self.layer_norm_epsilon = layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.supports_masking = True

    def _norm(self, name: str, shape: tuple) -> LayerNormalization:
        norm = LayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)
        norm.build(shape)
        return norm

    def _dense(self, units: int, name: str, shape: tuple, activation: Any = None) -> Dense:
        dense = Dense(
            units,
            activation=activation,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            dtype=self.dtype_policy,
            name=name,
        )
        dense.build(shape)
        return dense

    def build(self, inputs_shape: Any, rel_embeddings_shape: Any = None) -> None:
        shape = tuple(inputs_shape)
        self._self_attention_layer = DisentangledSelfAttention(
            num_heads=self.num_heads,
            hidden_dim=shape[-1],
            max_position_embeddings=self.max_position_embeddings,
            bucket_size=self.bucket_size,
            dropout=self.dropout,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            dtype=self.dtype_policy,
            name="self_attention_layer",
        )
        self._self_attention_layer.build(shape)
        self._self_attention_layer_norm = self._norm("self_attention_layer_norm", shape)
        self._self_attention_dropout = Dropout(self.dropout, dtype=self.dtype_policy, name="self_attention_dropout")
        self._feedforward_layer_norm = self._norm("feedforward_layer_norm", shape)
        self._feedforward_intermediate_dense = self._dense(
            self.intermediate_dim, "feedforward_intermediate_dense", shape, self.activation
        )
        self._feedforward_output_dense = self._dense(
            shape[-1], "feedforward_output_dense", shape[:-1] + (self.intermediate_dim,)
        )
        self._feedforward_dropout = Dropout(self.dropout, dtype=self.dtype_policy, name="feedforward_dropout")

    def call(
        self,
        inputs: tf.Tensor,
        rel_embeddings: tf.Tensor,
        padding_mask: Any = None,
        attention_mask: Any = None,
        training: Any = None,
    ) -> tf.Tensor:
        mask = merge_padding_and_attention_mask(inputs, padding_mask, attention_mask)
        x = self._self_attention_layer(inputs, rel_embeddings=rel_embeddings, attention_mask=mask, training=training)
        x = self._self_attention_layer_norm(self._self_attention_dropout(x, training=training) + inputs)
        y = self._feedforward_output_dense(self._feedforward_intermediate_dense(x))
        return self._feedforward_layer_norm(self._feedforward_dropout(y, training=training) + x)

    _shape_free_call_arguments = ("padding_mask", "attention_mask")

    def compute_output_shape(self, inputs_shape: Any, rel_embeddings_shape: Any = None) -> Any:
        return inputs_shape
