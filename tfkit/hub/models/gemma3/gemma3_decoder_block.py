"""``Gemma3DecoderBlock``: Gemma's decoder layer with query/key norms, per-layer rotary wavelengths and a wider MLP.

    block = Gemma3DecoderBlock(hidden_dim=2560, intermediate_dim=10240, head_dim=256, num_query_heads=8,
                               num_key_value_heads=4, use_query_key_norm=True, gate_dim_reduction=1)
    x = block(x, padding_mask=mask)
    x, (key, value) = block(x, cache=(key, value), cache_update_index=index, cache_update_mask=update)

The feedforward network is ``intermediate_dim // gate_dim_reduction`` wide
(Gemma 3's backbone passes 1). Images' bidirectional attention
(``vision_mask``) and EmbeddingGemma's bidirectional masks are computed here
as KerasHub does; float16 residual sums are clipped to float16's range.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.models.gemma.gemma_decoder_block import GemmaBlockLayers
from tfkit.hub.models.gemma3.gemma3_attention import CachedGemma3Attention

_FLOAT16_MAX = 65504.0


def image_bidirectional_mask(vision_mask: Any) -> tf.Tensor:
    """``(batch, length, length)`` booleans: image token ``i`` sees image token ``j`` of the same image (a
    contiguous run of ``True`` in ``vision_mask``), both ways."""
    vision = tf.cast(vision_mask, tf.int32)
    padded = tf.pad(vision, [[0, 0], [1, 0]])
    starts = tf.cast(padded[..., 1:] > padded[..., :-1], tf.int32)
    image_index = vision * tf.cumsum(starts, axis=-1)  # 1, 2, ... per image; 0 for text
    same_image = tf.equal(image_index[:, None, :], image_index[:, :, None])
    return tf.logical_and(same_image, tf.cast(image_index[:, :, None], tf.bool))


def _clipped_sum(a: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
    """``a + b`` computed in float32 and clipped to float16's range, for float16 blocks."""
    total = tf.clip_by_value(tf.cast(a, tf.float32) + tf.cast(b, tf.float32), -_FLOAT16_MAX, _FLOAT16_MAX)
    return tf.cast(total, tf.float16)


class Gemma3DecoderBlock(GemmaBlockLayers):
    """A Gemma 3 transformer decoder layer, as KerasHub's `Gemma3DecoderBlock`.

    `GemmaDecoderBlock` with RMS-normalized queries and keys, a rotary
    wavelength and scaling of its own, a feedforward network of width
    `intermediate_dim // gate_dim_reduction`, a `(key, value)` cache with an
    update mask, and the masks of images (bidirectional within an image) and
    of bidirectional embedding models. As for Gemma, KerasHub always scales
    the queries by `1 / sqrt(head_dim)`; tfkit honours
    `query_head_dim_normalize`.

    Args:
        hidden_dim: Integer, the size of the hidden states.
        intermediate_dim: Integer, the feedforward size before the reduction.
        head_dim: Integer, the size of each attention head.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        query_head_dim_normalize: Whether the queries are scaled by
            `1 / sqrt(head_dim)`. Defaults to `True`.
        use_query_key_norm: Whether to RMS-normalize queries and keys.
            Defaults to `False`.
        use_post_ffw_norm: Whether to normalize the feedforward output.
            Defaults to `False`.
        use_post_attention_norm: Whether to normalize the attention output.
            Defaults to `False`.
        gate_dim_reduction: Integer, the feedforward width is
            `intermediate_dim // gate_dim_reduction`. Defaults to `2`.
        logit_soft_cap: Optional soft cap of the attention logits. Defaults to
            `None`.
        use_sliding_window_attention: Whether attention is limited to a
            sliding window. Defaults to `False`.
        sliding_window_size: Integer, the window. Defaults to `4096`.
        layer_norm_epsilon: Float, the RMS norms' epsilon. Defaults to `1e-6`.
        rope_wavelength: Float, the rotary wavelength. Defaults to `10000.0`.
        rope_scaling_factor: Float, the rotary position scaling. Defaults to
            `1.0`.
        use_bidirectional_attention: Whether attention is bidirectional
            (embedding models). Defaults to `False`.
        dropout: Float, the dropout rate. Defaults to `0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: The input sequence `(batch, length, hidden_dim)`.
        padding_mask: Optional `(batch, length)` mask of real tokens.
        vision_mask: Optional `(batch, length)` mask of image tokens.
        cache: Optional `(key, value)` cache of the attention layer.
        cache_update_index: The position of `x[:, 0]`. Defaults to `0`.
        cache_update_mask: Optional `(batch, length)` mask of the positions
            whose keys and values go into the cache.

    Returns:
        The output sequence, and the updated cache when a cache is given.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_decoder_block import Gemma3DecoderBlock
        >>> block = Gemma3DecoderBlock(hidden_dim=8, intermediate_dim=16, head_dim=4, num_query_heads=2,
        ...     num_key_value_heads=1, use_query_key_norm=True, gate_dim_reduction=1)
        >>> block(np.random.rand(1, 3, 8).astype("float32"), padding_mask=np.ones((1, 3))).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        head_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        query_head_dim_normalize: bool = True,
        use_query_key_norm: bool = False,
        use_post_ffw_norm: bool = False,
        use_post_attention_norm: bool = False,
        gate_dim_reduction: int = 2,
        logit_soft_cap: float | None = None,
        use_sliding_window_attention: bool = False,
        sliding_window_size: int = 4096,
        layer_norm_epsilon: float = 1e-6,
        rope_wavelength: float = 10_000.0,
        rope_scaling_factor: float = 1.0,
        use_bidirectional_attention: bool = False,
        dropout: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.head_dim = head_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.query_head_dim_normalize = query_head_dim_normalize
        self.use_query_key_norm = use_query_key_norm
        self.use_post_ffw_norm = use_post_ffw_norm
        self.use_post_attention_norm = use_post_attention_norm
        self.gate_dim_reduction = gate_dim_reduction
        self.logit_soft_cap = logit_soft_cap
        self.use_sliding_window_attention = use_sliding_window_attention
        self.sliding_window_size = sliding_window_size
        self.layer_norm_epsilon = layer_norm_epsilon
        self.rope_wavelength = rope_wavelength
        self.rope_scaling_factor = rope_scaling_factor
        self.use_bidirectional_attention = use_bidirectional_attention
        self.dropout = dropout
        attention = CachedGemma3Attention(
            head_dim=head_dim,
            num_query_heads=num_query_heads,
            num_key_value_heads=num_key_value_heads,
            use_query_key_norm=use_query_key_norm,
            logit_soft_cap=logit_soft_cap,
            use_sliding_window_attention=use_sliding_window_attention,
            sliding_window_size=sliding_window_size,
            query_head_dim_normalize=query_head_dim_normalize,
            layer_norm_epsilon=layer_norm_epsilon,
            rope_wavelength=rope_wavelength,
            rope_scaling_factor=rope_scaling_factor,
            dropout=dropout,
            use_bidirectional_attention=use_bidirectional_attention,
            dtype=self.dtype_policy,
            name="attention",
        )
        self._create_sublayers(attention, intermediate_dim // gate_dim_reduction)

    def _compute_attention_mask(
        self, x: tf.Tensor, padding_mask: Any, vision_mask: Any, cache: Any, cache_update_index: Any
    ) -> Any:
        key_length = tf.shape(cache[0])[1] if cache is not None else tf.shape(x)[1]
        decoder_mask, causal_mask = self._causal_mask(x, padding_mask, key_length, cache_update_index)
        if self.use_bidirectional_attention:  # embedding models: every real token sees every real token
            return decoder_mask * tf.transpose(decoder_mask, (0, 2, 1))
        if vision_mask is not None:
            causal_mask = tf.logical_or(causal_mask, image_bidirectional_mask(vision_mask))
        if decoder_mask is None:
            return causal_mask
        return tf.minimum(decoder_mask, tf.cast(causal_mask, decoder_mask.dtype))

    @tf.autograph.experimental.do_not_convert
    def call(
        self,
        x: tf.Tensor,
        padding_mask: Any = None,
        vision_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = 0,
        cache_update_mask: Any = None,
    ) -> Any:
        float16 = x.dtype == tf.float16
        if float16:
            x = tf.clip_by_value(x, -_FLOAT16_MAX, _FLOAT16_MAX)
        normalized = self.pre_attention_norm(x)
        attention_mask = self._compute_attention_mask(normalized, padding_mask, vision_mask, cache, cache_update_index)
        if cache is not None:
            attention, cache = self.attention(
                normalized,
                attention_mask=attention_mask,
                cache=cache,
                cache_update_index=cache_update_index,
                cache_update_mask=cache_update_mask,
            )
        else:
            attention = self.attention(normalized, attention_mask=attention_mask)
        attention = self._after_attention(attention)
        attention_x = _clipped_sum(x, attention) if float16 else x + attention
        x = self._feedforward(attention_x)
        x = _clipped_sum(x, attention_x) if float16 else x + attention_x
        return (x, cache) if cache is not None else x

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.intermediate_dim,
            head_dim=self.head_dim,
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            query_head_dim_normalize=self.query_head_dim_normalize,
            use_query_key_norm=self.use_query_key_norm,
            use_post_ffw_norm=self.use_post_ffw_norm,
            use_post_attention_norm=self.use_post_attention_norm,
            gate_dim_reduction=self.gate_dim_reduction,
            logit_soft_cap=self.logit_soft_cap,
            use_sliding_window_attention=self.use_sliding_window_attention,
            sliding_window_size=self.sliding_window_size,
            layer_norm_epsilon=self.layer_norm_epsilon,
            dropout=self.dropout,
            rope_wavelength=self.rope_wavelength,
            rope_scaling_factor=self.rope_scaling_factor,
            use_bidirectional_attention=self.use_bidirectional_attention,
        )
        return config
