"""``FalconTransformerDecoder``: Falcon-RW's pre-norm block, ALiBi self-attention then an exact-GELU feedforward.

block = FalconTransformerDecoder(num_attention_heads=4, intermediate_dim=64)
y = block(x, decoder_padding_mask=mask)
y, cache = block(step, attention_cache=cache, attention_cache_update_index=index)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, layers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.alibi_bias import alibi_slopes
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.layers.transformer_layer_utils import compute_causal_mask, merge_padding_and_attention_mask
from tfkit.hub.models.falcon.falcon_attention import FalconAttention
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class FalconTransformerDecoder(DeclaredConfig, Layer):
    """A Falcon decoder block: `x + attention(norm(x))`, then `x + feedforward(norm'(x))`, with ALiBi biases.

    The ALiBi bias of a key is its head's slope times the key's position
    (counted over the padding mask's ones, or over the whole cache while
    decoding), added to the scores before their scaling, as KerasHub and
    Transformers' Falcon do. Sub-layers under KerasHub's names
    (`input_layernorm`, `attention_layer`, `attention_dropout`,
    `post_attention_layernorm`, `dense_h_to_4h`, `dense_4h_to_h`,
    `feedforward_dropout`).

    Args:
        num_attention_heads: The number of attention heads.
        intermediate_dim: The size of the feedforward network's hidden layer.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-5`.
        attention_dropout_rate: The attention's dropout rate. Defaults to `0`.
        feedforward_dropout_rate: The feedforward dropout rate. Defaults to
            `0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(batch, length, hidden_dim)`.
        decoder_padding_mask: Optional `(batch, length)` padding mask.
        decoder_attention_mask: Optional `(batch, length, length)` mask.
        attention_cache: Optional cache of this block's keys and values.
        attention_cache_update_index: The position of the first step.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.falcon.falcon_transformer_decoder import FalconTransformerDecoder
        >>> FalconTransformerDecoder(num_attention_heads=2, intermediate_dim=16)(np.ones((1, 3, 8), "float32")).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        num_attention_heads: int,
        intermediate_dim: int,
        layer_norm_epsilon: float = 1e-5,
        attention_dropout_rate: float = 0,
        feedforward_dropout_rate: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_attention_heads = num_attention_heads
        self.intermediate_dim = intermediate_dim
        self.layer_norm_epsilon = layer_norm_epsilon
        self.attention_dropout_rate = attention_dropout_rate
        self.feedforward_dropout_rate = feedforward_dropout_rate

    def build(self, decoder_sequence_shape: Any) -> None:
        """Makes and builds the norms, the attention, the feedforward network and the dropouts (KerasHub's order)."""
        shape = tuple(decoder_sequence_shape)
        self.hidden_dim = shape[-1]
        dtype = self.dtype_policy
        self.input_layernorm = self._norm("input_layernorm", shape)
        self.attention_layer = FalconAttention(
            num_heads=self.num_attention_heads,
            attention_dropout_rate=self.attention_dropout_rate,
            dtype=dtype,
            name="attention",
        )
        self.attention_layer.build(shape)
        self.attention_dropout = layers.Dropout(self.attention_dropout_rate, dtype=dtype, name="attention_dropout")
        self.post_attention_layernorm = self._norm("post_attention_layernorm", shape)
        self.dense_h_to_4h = layers.Dense(
            self.intermediate_dim, activation=activations.gelu, dtype=dtype, name="dense_h_to_4h"
        )
        self.dense_h_to_4h.build(shape)
        self.dense_4h_to_h = layers.Dense(self.hidden_dim, dtype=dtype, name="dense_4h_to_h")
        self.dense_4h_to_h.build(shape[:-1] + (self.intermediate_dim,))
        self.feedforward_dropout = layers.Dropout(
            self.feedforward_dropout_rate, dtype=dtype, name="feedforward_dropout"
        )

    def _norm(self, name: str, shape: tuple) -> Layer:
        norm = layers.LayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)
        norm.build(shape)
        return norm

    def _alibi(self, key_mask: tf.Tensor) -> tf.Tensor:
        """`(batch, heads, 1, key_length)`: each head's slope times each key's position among the mask's ones."""
        slopes = tf.constant(alibi_slopes(self.num_attention_heads), dtype=self.compute_dtype)
        key_mask = tf.cast(key_mask, tf.int32)
        positions = tf.cast((tf.cumsum(key_mask, axis=-1) - 1) * key_mask, self.compute_dtype)
        return slopes[None, :, None, None] * positions[:, None, None, :]

    def call(
        self,
        inputs: tf.Tensor,
        decoder_padding_mask: Any = None,
        decoder_attention_mask: Any = None,
        attention_cache: Any = None,
        attention_cache_update_index: Any = None,
        training: Any = None,
    ) -> Any:
        mask = merge_padding_and_attention_mask(inputs, decoder_padding_mask, decoder_attention_mask)
        batch, length = tf.shape(inputs)[0], tf.shape(inputs)[1]
        key_length = length if attention_cache is None else cache_length(attention_cache)
        index = 0 if attention_cache_update_index is None else attention_cache_update_index
        causal = tf.cast(compute_causal_mask(batch, key_length, length, index), tf.int32)
        mask = causal if mask is None else tf.minimum(mask, causal)
        key_mask = decoder_padding_mask if attention_cache is None else None
        if key_mask is None:
            key_mask = tf.ones(tf.stack([batch, key_length]), tf.int32)
        attended = self.attention_layer(
            self.input_layernorm(inputs),
            alibi=self._alibi(key_mask),
            attention_mask=mask,
            cache=attention_cache,
            cache_update_index=attention_cache_update_index,
        )
        if attention_cache is not None:
            attended, attention_cache = attended
        x = self.attention_dropout(attended, training=training) + inputs
        fed = self.dense_4h_to_h(self.dense_h_to_4h(self.post_attention_layernorm(x)))
        x = self.feedforward_dropout(fed, training=training) + x
        return x if attention_cache is None else (x, attention_cache)

    def compute_output_shape(self, decoder_sequence_shape: Any) -> Any:
        return decoder_sequence_shape
