"""``CachedGemma3Attention``: Gemma's grouped-query attention with query/key norms and per-layer rotary wavelengths.

    attention = CachedGemma3Attention(head_dim=256, num_query_heads=8, num_key_value_heads=4,
                                      use_query_key_norm=True, rope_wavelength=1_000_000.0)
    out, (key, value) = attention(x, attention_mask=mask, cache=(key, value), cache_update_index=i)

What Gemma 3 changes from ``CachedGemmaAttention``: queries and keys are RMS
normalized per head before the rotation (``use_query_key_norm``); the rotary
wavelength and scaling are arguments (10k on local layers, 1M on global ones)
and the rotated halves are not interleaved; the cache is a ``(key, value)``
pair of ``(batch, max_length, num_key_value_heads, head_dim)`` tensors, and a
``cache_update_mask`` keeps the prompt's cached keys where it is ``False``;
with ``use_bidirectional_attention`` (EmbeddingGemma) the sliding window is
centred on the query instead of trailing it.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.attention_masks import bidirectional_window_mask
from tfkit.hub.layers.kv_cache import update_cache
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.hub.models.gemma.gemma_attention import CachedGemmaAttention
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization


def _shape(x: tf.Tensor) -> Any:
    """``x``'s static shape where fully known (a compile-time constant under XLA), else its dynamic shape."""
    return x.shape.as_list() if x.shape.is_fully_defined() else tf.shape(x)


class CachedGemma3Attention(CachedGemmaAttention):
    """A cached grouped-query attention layer for Gemma 3, as KerasHub's `CachedGemma3Attention`.

    `CachedGemmaAttention` with RMS-normalized queries and keys
    (`query_norm`, `key_norm`), a configurable rotary embedding, a
    `(key, value)` cache that `cache_update_mask` can protect, and the
    centred sliding window of bidirectional (embedding) models.

    Args:
        head_dim: Integer, the size of each attention head.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        kernel_initializer: Initializer of the projections. Defaults to
            `"glorot_uniform"`.
        logit_soft_cap: Optional soft cap of the attention logits. Defaults
            to `None`.
        use_sliding_window_attention: Whether attention is limited to a
            sliding window. Defaults to `False`.
        sliding_window_size: Integer, the window. Defaults to `4096`.
        query_head_dim_normalize: Whether the queries are scaled by
            `1 / sqrt(head_dim)` (else by `1 / sqrt(hidden_dim //
            num_query_heads)`). Defaults to `True`.
        use_query_key_norm: Whether to RMS-normalize queries and keys.
            Defaults to `False`.
        layer_norm_epsilon: Float, the epsilon of those norms. Defaults to
            `1e-6`.
        rope_wavelength: Float, the rotary embedding's longest wavelength.
            Defaults to `10000.0`.
        rope_scaling_factor: Float, the rotary embedding's linear position
            scaling. Defaults to `1.0`.
        use_bidirectional_attention: Whether the sliding window is centred on
            the query (embedding models). Defaults to `False`.
        dropout: Float, the dropout rate of the attention probabilities.
            Defaults to `0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: The input sequence `(batch, length, hidden_dim)`.
        attention_mask: `(batch, length, key_length)` mask.
        cache: Optional `(key, value)` pair, each `(batch, max_length,
            num_key_value_heads, head_dim)`.
        cache_update_index: The position of `x[:, 0]`. Defaults to `0`.
        cache_update_mask: Optional boolean `(batch, length)`: where `False`,
            the cache keeps what it holds (the prompt's keys and values).
        training: Whether dropout applies. Defaults to `False`.

    Returns:
        The attention output, and the updated `(key, value)` cache when a
        cache is given.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_attention import CachedGemma3Attention
        >>> attention = CachedGemma3Attention(head_dim=4, num_query_heads=2, num_key_value_heads=1,
        ...     use_query_key_norm=True)
        >>> x = np.random.rand(1, 3, 8).astype("float32")
        >>> cache = (tf.zeros((1, 3, 1, 4)), tf.zeros((1, 3, 1, 4)))
        >>> out, (key, value) = attention(x, attention_mask=np.tril(np.ones((1, 3, 3))), cache=cache)
        >>> out.shape, key.shape
        (TensorShape([1, 3, 8]), TensorShape([1, 3, 1, 4]))
    """

    def __init__(
        self,
        head_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        kernel_initializer: Any = "glorot_uniform",
        logit_soft_cap: float | None = None,
        use_sliding_window_attention: bool = False,
        sliding_window_size: int = 4096,
        query_head_dim_normalize: bool = True,
        use_query_key_norm: bool = False,
        layer_norm_epsilon: float = 1e-6,
        rope_wavelength: float = 10_000.0,
        rope_scaling_factor: float = 1.0,
        use_bidirectional_attention: bool = False,
        dropout: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            head_dim,
            num_query_heads,
            num_key_value_heads,
            kernel_initializer=kernel_initializer,
            logit_soft_cap=logit_soft_cap,
            use_sliding_window_attention=use_sliding_window_attention,
            sliding_window_size=sliding_window_size,
            query_head_dim_normalize=query_head_dim_normalize,
            dropout=dropout,
            **kwargs,
        )
        self.use_query_key_norm = use_query_key_norm
        self.layer_norm_epsilon = layer_norm_epsilon
        self.rope_wavelength = rope_wavelength
        self.rope_scaling_factor = rope_scaling_factor
        self.use_bidirectional_attention = use_bidirectional_attention

    def _build_query_key_norms(self, inputs_shape: Any) -> None:
        if not self.use_query_key_norm:
            return
        for attribute, dense in (("query_norm", self.query_dense), ("key_norm", self.key_dense)):
            norm = RMSNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=attribute)
            norm.build(dense.compute_output_shape(inputs_shape))
            setattr(self, attribute, norm)

    def _make_rope(self) -> RotaryEmbedding:
        return RotaryEmbedding(
            max_wavelength=self.rope_wavelength, scaling_factor=self.rope_scaling_factor, dtype=self.dtype_policy
        )

    def _apply_rope(self, x: tf.Tensor, start_index: Any) -> tf.Tensor:
        return self.rope_layer(x, start_index=start_index)

    def _mask_sliding_window(self, attention_mask: Any, cache_update_index: Any = 0) -> tf.Tensor:
        if not self.use_bidirectional_attention:
            return super()._mask_sliding_window(attention_mask, cache_update_index)
        shape = tf.shape(attention_mask)
        window = bidirectional_window_mask(shape[0], shape[1], self.sliding_window_size)
        return tf.logical_and(tf.cast(attention_mask, tf.bool), window)

    def _project(self, x: tf.Tensor, index: Any) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        query, key, value = self._projections(x)
        if self.use_query_key_norm:
            query, key = self.query_norm(query), self.key_norm(key)
        return self._apply_rope(query, index), self._apply_rope(key, index), value

    @tf.autograph.experimental.do_not_convert
    def call(
        self,
        x: tf.Tensor,
        attention_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = 0,
        cache_update_mask: Any = None,
        training: Any = False,
    ) -> Any:
        query, key, value = self._project(x, cache_update_index)
        if cache is not None:
            key_cache, value_cache = cache
            if cache_update_mask is not None:  # keep the cached prompt where the mask is False
                keep_new = tf.cast(cache_update_mask, tf.bool)[:, :, None, None]
                start = [0, cache_update_index, 0, 0]
                key = tf.where(keep_new, key, tf.slice(key_cache, start, _shape(key)))
                value = tf.where(keep_new, value, tf.slice(value_cache, start, _shape(value)))
            key = update_cache(key_cache, key, cache_update_index)
            value = update_cache(value_cache, value, cache_update_index)
            cache = (key, value)
        output = self._attend(query, key, value, attention_mask, training, cache_update_index)
        return (output, cache) if cache is not None else output

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            use_query_key_norm=self.use_query_key_norm,
            layer_norm_epsilon=self.layer_norm_epsilon,
            rope_wavelength=self.rope_wavelength,
            rope_scaling_factor=self.rope_scaling_factor,
            use_bidirectional_attention=self.use_bidirectional_attention,
        )
        return config
