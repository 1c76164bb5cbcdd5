"""``T5GemmaDecoderLayer``: one T5Gemma decoder block (causal self-attention, cross-attention, feedforward network).

    x, (self_cache, cross_cache) = layer((x, encoder_output), self_attention_padding_mask=decoder_mask,
                                         cross_attention_padding_mask=encoder_mask)
    x, caches = layer((x, encoder_output), cross_attention_padding_mask=encoder_mask,
                      cache=(self_cache, cross_cache), cache_update_index=i)        # cached decoding

The self-attention cache is written at ``cache_update_index``; the cross-attention's keys and values are computed
when its cache is ``None`` and read as they are otherwise. A ``"sliding_attention"`` layer's query at ``i`` sees
the keys at ``i - sliding_window <= j <= i``, as KerasHub's mask has it.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.models.t5gemma.t5gemma_encoder import T5GemmaBlockParts
from tfkit.layers import Dropout


class T5GemmaDecoderLayer(T5GemmaBlockParts):
    """A T5Gemma decoder block: causal (optionally windowed) self-attention, cross-attention over the encoder's
    output, then the feedforward network, each between two RMS norms and added to its input.

    Args:
        hidden_size: Integer, the size of the hidden states.
        rms_norm_eps: The epsilon of the RMS norms.
        num_attention_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        query_pre_attn_scalar: The queries are scaled by its inverse square
            root.
        attention_bias: Whether the attention projections have biases.
        intermediate_size: Integer, the feedforward network's width.
        hidden_activation: The feedforward network's activation.
        dropout_rate: The dropout rate of the residual branches and the
            feedforward network.
        head_dim: Integer, the size of each attention head.
        initializer_range: The deviation of the kernels' normal initializer.
        attention_dropout: The dropout rate of the attention probabilities.
        layer_type: `"full_attention"` or `"sliding_attention"`.
        cross_attention_hidden_size: The size of the encoder's states.
            Defaults to `None` (`hidden_size`).
        attn_logit_softcapping: Optional soft cap of the attention logits.
            Defaults to `None`.
        sliding_window: The window of a `"sliding_attention"` layer.
            Defaults to `None`.
        rope_max_wavelength: The rotary embedding's wavelength. Defaults to
            `10000.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(hidden_states, encoder_hidden_states)`.
        self_attention_padding_mask: `(batch, length)`, or `None`.
        cross_attention_padding_mask: `(batch, encoder_length)`, or `None`.
        cache: `(self_attention_cache, cross_attention_cache)`, or `None`.
        cache_update_index: The position of `hidden_states[:, 0]` (with a
            cache). Defaults to `None`.
        training: Whether dropout applies. Defaults to `None`.

    Returns:
        `(hidden_states, (self_attention_cache, cross_attention_cache))`.

    Raises:
        ValueError: If `layer_type` is unknown, or `"sliding_attention"`
            without a `sliding_window`.

    Example:
        >>> from tfkit.hub.models.t5gemma.t5gemma_decoder import T5GemmaDecoderLayer
        >>> layer = T5GemmaDecoderLayer(hidden_size=8, rms_norm_eps=1e-6, num_attention_heads=2,
        ...     num_key_value_heads=1, query_pre_attn_scalar=4, attention_bias=False, intermediate_size=16,
        ...     hidden_activation="gelu_approximate", dropout_rate=0.0, head_dim=4, initializer_range=0.02,
        ...     attention_dropout=0.0, layer_type="sliding_attention", cross_attention_hidden_size=6,
        ...     sliding_window=2)
        >>> x, _ = layer((np.ones((1, 3, 8), "float32"), np.ones((1, 5, 6), "float32")))
        >>> x.shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        hidden_size: int,
        rms_norm_eps: float,
        num_attention_heads: int,
        num_key_value_heads: int,
        query_pre_attn_scalar: float,
        attention_bias: bool,
        intermediate_size: int,
        hidden_activation: str,
        dropout_rate: float,
        head_dim: int,
        initializer_range: float,
        attention_dropout: float,
        layer_type: str,
        cross_attention_hidden_size: int | None = None,
        attn_logit_softcapping: float | None = None,
        sliding_window: int | None = None,
        rope_max_wavelength: float = 10000.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_size, self.rms_norm_eps, self.head_dim = hidden_size, rms_norm_eps, head_dim
        self.num_attention_heads, self.num_key_value_heads = num_attention_heads, num_key_value_heads
        self.query_pre_attn_scalar, self.attention_bias = query_pre_attn_scalar, attention_bias
        self.intermediate_size, self.hidden_activation = intermediate_size, hidden_activation
        self.dropout_rate, self.initializer_range, self.attention_dropout = (
            dropout_rate,
            initializer_range,
            attention_dropout,
        )
        self.layer_type, self.sliding_window, self.rope_max_wavelength = layer_type, sliding_window, rope_max_wavelength
        self.cross_attention_hidden_size = cross_attention_hidden_size
        self.attn_logit_softcapping = attn_logit_softcapping
        self._check_layer_type()
        self.self_attn = self._attention("self", "self_attention", rope_max_wavelength=rope_max_wavelength)
        self.pre_self_attn_layernorm = self._norm("decoder_pre_self_attention_layernorm")
        self.post_self_attn_layernorm = self._norm("decoder_post_self_attention_layernorm")
        self.cross_attn = self._attention(
            "cross", "cross_attention", cross_attention_hidden_size=cross_attention_hidden_size
        )
        self.pre_cross_attn_layernorm = self._norm("decoder_pre_cross_attention_layernorm")
        self.post_cross_attn_layernorm = self._norm("decoder_post_cross_attention_layernorm")
        self.mlp = self._mlp()
        self.pre_feedforward_layernorm = self._norm("decoder_pre_feedforward_layernorm")
        self.post_feedforward_layernorm = self._norm("decoder_post_feedforward_layernorm")
        self.dropout = Dropout(dropout_rate, dtype=self.dtype_policy, name="decoder_residual_dropout")

    def build(self, input_shape: Any) -> None:
        hidden_shape, encoder_shape = input_shape
        for layer in (self.pre_self_attn_layernorm, self.self_attn, self.post_self_attn_layernorm):
            layer.build(hidden_shape)
        self.pre_cross_attn_layernorm.build(hidden_shape)
        self.cross_attn.build([hidden_shape, encoder_shape])
        self.post_cross_attn_layernorm.build(hidden_shape)
        for layer in (self.pre_feedforward_layernorm, self.mlp, self.post_feedforward_layernorm):
            layer.build(hidden_shape)

    def _self_attention_mask(self, x: tf.Tensor, padding_mask: Any, cache: Any, cache_update_index: Any) -> tf.Tensor:
        """Boolean `(batch or 1, length, key_length)`: causal, windowed on a sliding layer, padding masked."""
        length = tf.shape(x)[1]
        if cache is not None:
            key_length, start = cache_length(cache), tf.cast(cache_update_index, tf.int32)
        else:
            key_length, start = length, 0
        queries = tf.range(length)[:, None] + start
        keys = tf.range(key_length)[None, :]
        mask = keys <= queries
        if self.layer_type == "sliding_attention":
            mask = tf.logical_and(mask, queries - self.sliding_window <= keys)
        mask = mask[None]
        if padding_mask is not None:
            mask = tf.logical_and(mask, tf.cast(padding_mask[:, None, :key_length], tf.bool))
        return mask

    def call(
        self,
        inputs: Any,
        self_attention_padding_mask: Any = None,
        cross_attention_padding_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = None,
        training: Any = None,
    ) -> tuple[tf.Tensor, tuple[Any, Any]]:
        hidden_states, encoder_hidden_states = inputs
        self_cache, cross_cache = cache if cache is not None else (None, None)
        mask = self._self_attention_mask(hidden_states, self_attention_padding_mask, self_cache, cache_update_index)
        attended, self_cache = self.self_attn(
            self.pre_self_attn_layernorm(hidden_states),
            attention_mask=mask,
            cache=self_cache,
            cache_update_index=cache_update_index,
            training=training,
        )
        x = self._residual(hidden_states, self.post_self_attn_layernorm(attended), training)
        cross_mask = None
        if cross_attention_padding_mask is not None:
            cross_mask = tf.cast(cross_attention_padding_mask, tf.bool)[:, None, :]
        attended, cross_cache = self.cross_attn(
            [self.pre_cross_attn_layernorm(x), encoder_hidden_states],
            attention_mask=cross_mask,
            cache=cross_cache,
            training=training,
        )
        x = self._residual(x, self.post_cross_attn_layernorm(attended), training)
        return self._feedforward(x, training), (self_cache, cross_cache)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape[0]
