"""``GemmaDecoderBlock``: one Gemma transformer layer (RMS norms, cached attention, gated GELU feedforward).

    block = GemmaDecoderBlock(hidden_dim=2048, intermediate_dim=32768, head_dim=256,
                              num_query_heads=8, num_key_value_heads=1)
    x = block(x, padding_mask=mask)                                          # (batch, length, hidden_dim)
    x, cache = block(x, cache=cache, cache_update_index=index)              # cached decoding

``x + attention(norm(x))`` then ``+ ffw(norm(.))``, where ``ffw(y) =
linear(gelu(gate(y)) * gate_2(y))``; Gemma 2 adds a norm after the attention
and after the feedforward network. ``GemmaBlockLayers`` holds what Gemma 3's
block shares: the sub-layers, their build and the feedforward network.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations
from tfkit.engine.layer import Layer
from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.layers.transformer_layer_utils import compute_causal_mask, merge_padding_and_attention_mask
from tfkit.hub.models.gemma.gemma_attention import CachedGemmaAttention
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
from tfkit.layers import Dropout, EinsumDense


class GemmaBlockLayers(Layer):
    """The sub-layers Gemma's and Gemma 3's decoder blocks share, with KerasHub's attribute names.

    Subclasses set their arguments, then call `_create_sublayers` with their
    attention layer and the width of the gated feedforward network.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.gemma.gemma_decoder_block import GemmaBlockLayers, GemmaDecoderBlock
        >>> issubclass(GemmaDecoderBlock, GemmaBlockLayers)
        True
    """

    def _norm(self, name: str) -> RMSNormalization:
        return RMSNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)

    def _create_sublayers(self, attention: Layer, gate_dim: int) -> None:
        self.pre_attention_norm = self._norm("pre_attention_norm")
        if self.use_post_attention_norm:
            self.post_attention_norm = self._norm("post_attention_norm")
        self.attention = attention
        if self.dropout > 0:
            self.attention_dropout = Dropout(rate=self.dropout)
            self.feedforward_dropout = Dropout(rate=self.dropout)  # made, and unused, as in KerasHub
        self.pre_ffw_norm = self._norm("pre_ffw_norm")
        if self.use_post_ffw_norm:
            self.post_ffw_norm = self._norm("post_ffw_norm")
        for attribute, name in (("gating_ffw", "ffw_gating"), ("gating_ffw_2", "ffw_gating_2")):
            dense = EinsumDense("btd,df->btf", output_shape=(None, gate_dim), dtype=self.dtype_policy, name=name)
            setattr(self, attribute, dense)
        self.ffw_linear = EinsumDense(
            "btf,fd->btd", output_shape=(None, self.hidden_dim), dtype=self.dtype_policy, name="ffw_linear"
        )

    def build(self, input_shape: Any) -> None:
        self.pre_attention_norm.build(input_shape)
        self.attention.build(input_shape)
        if self.use_post_attention_norm:
            self.post_attention_norm.build(input_shape)
        self.pre_ffw_norm.build(input_shape)
        self.gating_ffw.build(input_shape)
        self.gating_ffw_2.build(input_shape)
        gated_shape = self.gating_ffw.compute_output_shape(input_shape)
        self.ffw_linear.build(gated_shape)
        if self.use_post_ffw_norm:
            self.post_ffw_norm.build(self.ffw_linear.compute_output_shape(gated_shape))

    def _after_attention(self, attention: tf.Tensor) -> tf.Tensor:
        if self.use_post_attention_norm:
            attention = self.post_attention_norm(attention)
        if self.dropout:
            attention = self.attention_dropout(attention)
        return attention

    def _feedforward(self, x: tf.Tensor) -> tf.Tensor:
        """The feedforward network's output (before the residual): ``linear(gelu(gate(y)) * gate_2(y))``."""
        normalized = self.pre_ffw_norm(x)
        gated = activations.gelu(self.gating_ffw(normalized), approximate=True) * self.gating_ffw_2(normalized)
        x = self.ffw_linear(gated)
        if self.use_post_ffw_norm:
            x = self.post_ffw_norm(x)
        return x

    def _causal_mask(self, x: tf.Tensor, padding_mask: Any, key_length: Any, cache_update_index: Any) -> tf.Tensor:
        """The padding mask (int ``(batch, 1, key_length)``, or None) and the causal mask (bool)."""
        decoder_mask = merge_padding_and_attention_mask(inputs=x, padding_mask=padding_mask, attention_mask=None)
        shape = tf.shape(x)
        causal_mask = compute_causal_mask(shape[0], key_length, shape[1], cache_index=cache_update_index)
        return decoder_mask, causal_mask

    # masks never change the output's shape: a symbolic call infers it instead of tracing the block
    _shape_free_call_arguments = ("padding_mask",)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class GemmaDecoderBlock(GemmaBlockLayers):
    """A Gemma (or Gemma 2) transformer decoder layer, as KerasHub's `GemmaDecoderBlock`.

    Pre-norm residual blocks: `x + attention(norm(x))`, then
    `y + ffw(norm(y))` with a gated GELU feedforward network of width
    `intermediate_dim // 2`. Attention is causal, with the padding mask, the
    optional soft cap and the optional sliding window of Gemma 2. KerasHub's
    block always scales the queries by `1 / sqrt(head_dim)`, whatever
    `query_head_dim_normalize` says (a bug for Gemma 2 27B, whose checkpoints
    scale by `1 / sqrt(hidden_dim // num_query_heads)`); tfkit's passes the
    argument on.

    Args:
        hidden_dim: Integer, the size of the hidden states.
        intermediate_dim: Integer, twice the width of the gated feedforward
            network.
        head_dim: Integer, the size of each attention head.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        query_head_dim_normalize: Whether the queries are scaled by
            `1 / sqrt(head_dim)` (else by `1 / sqrt(hidden_dim //
            num_query_heads)`). Defaults to `True`.
        use_post_ffw_norm: Whether to normalize the feedforward output.
            Defaults to `False`.
        use_post_attention_norm: Whether to normalize the attention output.
            Defaults to `False`.
        logit_soft_cap: Optional soft cap of the attention logits. Defaults to
            `None`.
        use_sliding_window_attention: Whether attention is limited to a
            sliding window. Defaults to `False`.
        sliding_window_size: Integer, the window. Defaults to `4096`.
        layer_norm_epsilon: Float, the RMS norms' epsilon. Defaults to `1e-6`.
        dropout: Float, the dropout rate. Defaults to `0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: The input sequence `(batch, length, hidden_dim)`.
        padding_mask: Optional `(batch, length)` mask of real tokens.
        cache: Optional key/value cache of the attention layer.
        cache_update_index: The position of `x[:, 0]` in the sequence.
            Defaults to `0`.

    Returns:
        The output sequence, and the updated cache when a cache is given.

    Example:
        >>> from tfkit.hub.models.gemma.gemma_decoder_block import GemmaDecoderBlock
        >>> block = GemmaDecoderBlock(hidden_dim=8, intermediate_dim=16, head_dim=4, num_query_heads=2,
        ...     num_key_value_heads=1)
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
        use_post_ffw_norm: bool = False,
        use_post_attention_norm: bool = False,
        logit_soft_cap: float | None = None,
        use_sliding_window_attention: bool = False,
        sliding_window_size: int = 4096,
        layer_norm_epsilon: float = 1e-6,
        dropout: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.intermediate_dim = intermediate_dim
        self.hidden_dim = hidden_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = head_dim
        self.layer_norm_epsilon = layer_norm_epsilon
        self.dropout = dropout
        self.query_head_dim_normalize = query_head_dim_normalize
        self.use_post_ffw_norm = use_post_ffw_norm
        self.use_post_attention_norm = use_post_attention_norm
        self.logit_soft_cap = logit_soft_cap
        self.use_sliding_window_attention = use_sliding_window_attention
        self.sliding_window_size = sliding_window_size
        attention = CachedGemmaAttention(
            head_dim=head_dim,
            num_query_heads=num_query_heads,
            num_key_value_heads=num_key_value_heads,
            logit_soft_cap=logit_soft_cap,
            use_sliding_window_attention=use_sliding_window_attention,
            sliding_window_size=sliding_window_size,
            query_head_dim_normalize=query_head_dim_normalize,
            dropout=dropout,
            dtype=self.dtype_policy,
            name="attention",
        )
        self._create_sublayers(attention, intermediate_dim // 2)

    def _compute_attention_mask(self, x: tf.Tensor, padding_mask: Any, cache: Any, cache_update_index: Any) -> Any:
        key_length = cache_length(cache) if cache is not None else tf.shape(x)[1]
        decoder_mask, causal_mask = self._causal_mask(x, padding_mask, key_length, cache_update_index)
        if decoder_mask is None:
            return causal_mask
        return tf.minimum(decoder_mask, tf.cast(causal_mask, decoder_mask.dtype))

    @tf.autograph.experimental.do_not_convert
    def call(self, x: tf.Tensor, padding_mask: Any = None, cache: Any = None, cache_update_index: Any = 0) -> Any:
        return self._masked_call(x, cache, cache_update_index, padding_mask)

    def _masked_call(self, x: tf.Tensor, cache: Any, cache_update_index: Any, *masks: Any) -> Any:
        """`call`, with the masks `_compute_attention_mask` takes after `cache_update_index` (a subclass adds
        its own: PaliGemma's `response_mask`)."""
        normalized = self.pre_attention_norm(x)
        attention_mask = self._compute_attention_mask(normalized, masks[0], cache, cache_update_index, *masks[1:])
        if cache is not None:
            attention, cache = self.attention(
                normalized, attention_mask=attention_mask, cache=cache, cache_update_index=cache_update_index
            )
        else:
            attention = self.attention(normalized, attention_mask=attention_mask)
        attention_x = x + self._after_attention(attention)
        x = self._feedforward(attention_x) + attention_x
        return (x, cache) if cache is not None else x

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.intermediate_dim,
            head_dim=self.head_dim,
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            layer_norm_epsilon=self.layer_norm_epsilon,
            dropout=self.dropout,
            use_post_ffw_norm=self.use_post_ffw_norm,
            use_post_attention_norm=self.use_post_attention_norm,
            logit_soft_cap=self.logit_soft_cap,
            use_sliding_window_attention=self.use_sliding_window_attention,
            sliding_window_size=self.sliding_window_size,
            query_head_dim_normalize=self.query_head_dim_normalize,
        )
        return config
