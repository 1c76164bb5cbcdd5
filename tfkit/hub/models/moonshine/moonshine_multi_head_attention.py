"""``MoonshineMultiHeadAttention``: cached multi-head attention that rotates queries and keys (Moonshine's).

attention = MoonshineMultiHeadAttention(num_heads=8, key_dim=36)
out = attention(x, x, x, rotary_embedding=angles, attention_mask=mask)       # (batch, length, dim)
out, cache = attention(step, step, step, rotary_embedding=angles_at_index,
                       cache=cache, cache_update_index=index)                 # one decoding step
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.cached_multi_head_attention import CachedMultiHeadAttention
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.hub.models.moonshine.moonshine_layers import apply_rotary_pos_emb
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MoonshineMultiHeadAttention(CachedMultiHeadAttention):
    """Moonshine multi-head attention layer.

    `CachedMultiHeadAttention` whose queries (and keys, with
    `apply_rotary_embedding`) are rotated by the angles passed as
    `rotary_embedding` (`MoonshineRotaryEmbedding`); keys are rotated before
    they enter the cache. A 2-D mask `(batch, S)` or 3-D mask
    `(batch, T, S)` applies to every head.

    Args:
        num_heads: int. Number of attention heads.
        key_dim: int. Size of each attention head for query and key.
        value_dim: int. Size of each attention head for value. Defaults to
            `None` (`key_dim`).
        attention_bias: bool. Whether the projections have biases. Defaults
            to `False`.
        attention_dropout: float. Dropout rate of the attention weights.
            Defaults to `0.0`.
        use_causal_mask: bool. Whether the block using it masks causally
            (read by `MoonshineDecoderBlock`). Defaults to `False`.
        apply_rotary_embedding: bool. Whether keys are rotated too. Defaults
            to `True`.
        **kwargs: `CachedMultiHeadAttention` keyword arguments (`use_bias`
            and `dropout` are replaced by the two above).

    Call arguments:
        query: `(batch, T, dim)`.
        value: `(batch, S, dim)`.
        key: `(batch, S, dim)`.
        rotary_embedding: Optional angles `(positions, rotary_dim)`; the
            first `T` rows apply.
        attention_mask: Optional boolean mask `(batch, S)` or `(batch, T, S)`.
        cache: Optional key/value cache `(batch, 2, S, heads, key_dim)`.
        cache_update_index: Where the new keys and values go in `cache`;
            `None` reads the cache as it is.
        training: Whether dropout applies.

    Returns:
        The attention output `(batch, T, dim)`, and the updated cache when a
        cache is given.

    Example:
        >>> from tfkit.hub.models.moonshine.moonshine_multi_head_attention import MoonshineMultiHeadAttention
        >>> from tfkit.hub.models.moonshine.moonshine_layers import MoonshineRotaryEmbedding
        >>> attention = MoonshineMultiHeadAttention(num_heads=2, key_dim=4)
        >>> x = np.ones((1, 3, 8), "float32")
        >>> angles = MoonshineRotaryEmbedding(head_dim=4, partial_rotary_factor=1.0)(tf.range(3))
        >>> attention(x, x, x, rotary_embedding=angles).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim: int | None = None,
        attention_bias: bool = False,
        attention_dropout: float = 0.0,
        use_causal_mask: bool = False,
        apply_rotary_embedding: bool = True,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("use_bias", None)
        kwargs.pop("dropout", None)
        super().__init__(
            num_heads=num_heads,
            key_dim=key_dim,
            value_dim=value_dim,
            use_bias=attention_bias,
            dropout=attention_dropout,
            **kwargs,
        )
        self.attention_bias = attention_bias
        self.attention_dropout = attention_dropout
        self.use_causal_mask = use_causal_mask
        self.apply_rotary_embedding = apply_rotary_embedding

    def _rotated(self, projected: tf.Tensor, rotary_embedding: Any) -> tf.Tensor:
        return projected if rotary_embedding is None else apply_rotary_pos_emb(projected, rotary_embedding)

    @tf.autograph.experimental.do_not_convert
    def call(
        self,
        query: tf.Tensor,
        value: tf.Tensor,
        key: tf.Tensor,
        rotary_embedding: Any = None,
        attention_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = None,
        training: Any = None,
    ) -> Any:
        if cache is None and cache_update_index is not None:
            raise ValueError(
                f"MoonshineMultiHeadAttention layer '{self.name}': `cache_update_index` should not be set if "
                f"`cache` is None. Received: cache=None, cache_update_index={cache_update_index}"
            )
        query_projected = self._rotated(self._query_dense(query), rotary_embedding)
        keys_rotate = self.apply_rotary_embedding and rotary_embedding is not None
        if cache is not None and cache_update_index is None:  # cross-attention to a filled cache
            key_projected, value_projected = split_cache(cache)
        else:
            key_projected = self._key_dense(self._as_input(key))
            value_projected = self._value_dense(self._as_input(value))
            if keys_rotate:
                key_projected = apply_rotary_pos_emb(key_projected, rotary_embedding)
            if cache is not None:
                key_cache, value_cache = split_cache(cache)
                key_projected = update_cache(key_cache, key_projected, cache_update_index)
                value_projected = update_cache(value_cache, value_projected, cache_update_index)
                cache = join_cache(key_projected, value_projected, like=cache)
        mask = attention_mask
        if mask is not None:
            mask = tf.convert_to_tensor(mask)
            mask = mask[:, None, None, :] if mask.shape.rank == 2 else mask[:, None, :, :]
        output, _ = self._compute_attention(query_projected, key_projected, value_projected, mask, training)
        output = self._output_dense(output)
        return (output, cache) if cache is not None else output

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            attention_bias=self.attention_bias,
            attention_dropout=self.attention_dropout,
            use_causal_mask=self.use_causal_mask,
            apply_rotary_embedding=self.apply_rotary_embedding,
        )
        return config
