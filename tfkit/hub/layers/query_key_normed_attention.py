"""``QueryKeyNormedAttention``: grouped-query attention whose query and key heads are RMS-normalized (Qwen 3's).

    attention = QueryKeyNormedAttention(num_query_heads=16, num_key_value_heads=8, head_dim=128,
                                        layer_norm_epsilon=1e-6, name="self_attention")

Qwen 3 and Qwen 3 MoE normalize each projected query and key head (a scale of
``head_dim``) before the rotary embedding; the rest is ``CachedGroupedQueryAttention``.
The norms are ``_query_dense_layer_norm`` and ``_key_dense_layer_norm``, KerasHub's
attribute names, made right after their projections, in KerasHub's order.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.hub.layers.rms_normalization import HeadRMSNorm


class QueryKeyNormedAttention(CachedGroupedQueryAttention):
    """Rotary grouped-query attention with RMS norms of the query and key heads (Qwen 3, Qwen 3 MoE).

    Args:
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        layer_norm_epsilon: Float, the query and key norms' epsilon.
            Defaults to `1e-5`.
        **kwargs: `CachedGroupedQueryAttention`'s other arguments (`head_dim`,
            `rope_max_wavelength`, `attention_window`, ...) and base layer
            keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.layers.query_key_normed_attention import QueryKeyNormedAttention
        >>> attention = QueryKeyNormedAttention(num_query_heads=4, num_key_value_heads=2, head_dim=6)
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

    def _make_head_norm(self, name: str, inputs_shape: tuple) -> HeadRMSNorm:
        norm = HeadRMSNorm(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, head_dim=self.head_dim, name=name)
        norm.build(inputs_shape)
        return norm

    def _query_heads(self, projected: tf.Tensor, start_index: Any) -> tf.Tensor:
        return self.rotary_embedding_layer(self._query_dense_layer_norm(projected), start_index=start_index)

    def _key_heads(self, projected: tf.Tensor, start_index: Any) -> tf.Tensor:
        return self.rotary_embedding_layer(self._key_dense_layer_norm(projected), start_index=start_index)
