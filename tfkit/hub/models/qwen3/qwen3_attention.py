"""``Qwen3Attention``: Qwen 3's grouped-query self-attention (RMS norms of queries and keys, optional window)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.hub.models.qwen3.qwen3_layernorm import Qwen3LayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3Attention(CachedGroupedQueryAttention):
    """A multi-head attention layer for Qwen 3 models.

    Grouped-query attention without biases; each query and key head is
    RMS-normalized (`_query_dense_layer_norm`, `_key_dense_layer_norm`)
    before the rotary position embedding. With `attention_window`, a query
    attends to the keys less than that many positions away.

    Args:
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        layer_norm_epsilon: Float, the query and key norms' epsilon.
            Defaults to `1e-5`.
        **kwargs: `CachedGroupedQueryAttention`'s other arguments (`head_dim`,
            `rope_max_wavelength`, `attention_window`, ...) and base layer
            keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: Tensor `(batch, length, hidden_dim)`.
        attention_mask: Optional `(batch, length, key_length)` mask.
        cache: Optional `(batch, 2, max_length, num_key_value_heads,
            head_dim)` key/value cache.
        cache_update_index: Where the new keys and values go in `cache`.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.qwen3.qwen3_attention import Qwen3Attention
        >>> attention = Qwen3Attention(num_query_heads=4, num_key_value_heads=2, head_dim=6)
        >>> attention(np.ones((1, 3, 8), "float32")).shape
        TensorShape([1, 3, 8])
        >>> tuple(attention._query_dense_layer_norm.scale.shape)
        (6,)
    """

    def __init__(
        self, num_query_heads: int, num_key_value_heads: int, layer_norm_epsilon: float = 1e-5, **kwargs: Any
    ) -> None:
        super().__init__(num_query_heads, num_key_value_heads, **kwargs)
        self.layer_norm_epsilon = layer_norm_epsilon

    def _make_head_norm(self, name: str, inputs_shape: tuple) -> Qwen3LayerNorm:
        norm = Qwen3LayerNorm(
            epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, head_dim=self.head_dim, name=name
        )
        norm.build(inputs_shape)
        return norm

    def _query_heads(self, projected: tf.Tensor, start_index: Any) -> tf.Tensor:
        return self.rotary_embedding_layer(self._query_dense_layer_norm(projected), start_index=start_index)

    def _key_heads(self, projected: tf.Tensor, start_index: Any) -> tf.Tensor:
        return self.rotary_embedding_layer(self._key_dense_layer_norm(projected), start_index=start_index)
