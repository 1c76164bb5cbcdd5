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

from typing import Any, ClassVar

import tensorflow as tf

from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.models.t5gemma.t5gemma_encoder import T5GemmaBlockParts, key_mask


class T5GemmaDecoderLayer(T5GemmaBlockParts):
    """A T5Gemma decoder block: causal (optionally windowed) self-attention, cross-attention over the encoder's
    output, then the feedforward network, each between two RMS norms and added to its input.

    Its arguments are `T5GemmaEncoderLayer`'s (in KerasHub's order here:
    `head_dim` before `initializer_range`), and one more.

    Args:
        cross_attention_hidden_size: The size of the encoder's states.
            Defaults to `None` (`hidden_size`).
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

    name_prefix: ClassVar[str] = "decoder_"
    cross_attention: ClassVar[bool] = True

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

    def build(self, input_shape: Any) -> None:
        self._build_blocks(*input_shape)

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
        x, self_cache = self._self_attention(
            hidden_states, training, attention_mask=mask, cache=self_cache, cache_update_index=cache_update_index
        )
        attended, cross_cache = self.cross_attn(
            [self.pre_cross_attn_layernorm(x), encoder_hidden_states],
            attention_mask=key_mask(cross_attention_padding_mask),
            cache=cross_cache,
            training=training,
        )
        x = self._residual(x, self.post_cross_attn_layernorm(attended), training)
        return self._feedforward(x, training), (self_cache, cross_cache)
