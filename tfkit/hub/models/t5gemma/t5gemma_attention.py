"""``T5GemmaAttention``: Gemma's grouped-query attention as T5Gemma uses it, for self- and cross-attention.

    attention = T5GemmaAttention(hidden_size=768, num_attention_heads=12, num_key_value_heads=12,
                                 query_pre_attn_scalar=64, attention_bias=False, head_dim=64)
    y, _ = attention(x, attention_mask=mask)                                   # self-attention, rotary positions
    y, cache = attention(x, attention_mask=mask, cache=cache, cache_update_index=i)   # cached decoding
    cross = T5GemmaAttention(..., attention_type="cross", cross_attention_hidden_size=768)
    y, cache = cross([x, encoder_output], attention_mask=mask)                 # the keys and values to keep
    y, cache = cross([x, encoder_output], attention_mask=mask, cache=cache)    # read as it is

``CachedGemmaAttention``'s grouped queries and soft cap, with KerasHub's
T5Gemma layout and masking: input-first query, key and value kernels ``(in,
heads, head_dim)``, optional biases, queries scaled by
``query_pre_attn_scalar ** -0.5``, plain rotary positions (self-attention
only, no interleaving), ``-1e9`` added to masked logits (a query that sees no
key averages every value, as in KerasHub) and no sliding window of its own
(the blocks make the masks).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.hub.models.gemma.gemma_attention import CachedGemmaAttention
from tfkit.hub.models.t5gemma.t5gemma_layers import t5gemma_kernel_initializer
from tfkit.layers import Dropout, EinsumDense, Softmax


class T5GemmaAttention(CachedGemmaAttention):
    """T5Gemma's attention: self-attention with rotary positions, or cross-attention over the encoder's output.

    Args:
        hidden_size: Integer, the size of the hidden states.
        num_attention_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads; it
            must divide `num_attention_heads`.
        query_pre_attn_scalar: The queries are scaled by its inverse square
            root.
        attention_bias: Whether the projections have biases.
        head_dim: Integer, the size of each head.
        attention_type: `"self"` or `"cross"`. Defaults to `"self"`.
        cross_attention_hidden_size: The size of the encoder's states
            (cross-attention). Defaults to `None` (`hidden_size`).
        initializer_range: The deviation of the kernels' normal
            initializer. Defaults to `0.02`.
        attention_dropout: The dropout rate of the attention probabilities.
            Defaults to `0.0`.
        attn_logit_softcapping: Optional soft cap of the attention logits.
            Defaults to `None`.
        rope_max_wavelength: The rotary embedding's wavelength
            (self-attention). Defaults to `10000.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: The hidden states `(batch, length, hidden_size)`, or for
            cross-attention `[hidden_states, encoder_states]`.
        attention_mask: Boolean `(batch, length, key_length)`: which keys
            each query sees. Defaults to `None`.
        cache: Self-attention: the cache to write at `cache_update_index`,
            a `(keys, values)` pair or `(batch, 2, max_length, heads,
            head_dim)`. Cross-attention: the keys and values to read, or
            `None` to compute them. Defaults to `None`.
        cache_update_index: The position of `inputs[:, 0]`. Defaults to
            `None` (`0`).
        training: Whether dropout applies. Defaults to `None`.

    Returns:
        `(output, cache)`: the output `(batch, length, hidden_size)` and the
        updated cache (given none: this call's keys and values, `(batch, 2,
        key_length, num_key_value_heads, head_dim)`, as KerasHub's).

    Raises:
        ValueError: If `attention_type` is neither `"self"` nor `"cross"`.

    Example:
        >>> from tfkit.hub.models.t5gemma.t5gemma_attention import T5GemmaAttention
        >>> attention = T5GemmaAttention(hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
        ...     query_pre_attn_scalar=4, attention_bias=False, head_dim=4)
        >>> output, _ = attention(np.ones((1, 3, 8), "float32"))
        >>> output.shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        hidden_size: int,
        num_attention_heads: int,
        num_key_value_heads: int,
        query_pre_attn_scalar: float,
        attention_bias: bool,
        head_dim: int,
        attention_type: str = "self",
        cross_attention_hidden_size: int | None = None,
        initializer_range: float = 0.02,
        attention_dropout: float = 0.0,
        attn_logit_softcapping: float | None = None,
        rope_max_wavelength: float = 10000.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            head_dim=head_dim,
            num_query_heads=num_attention_heads,
            num_key_value_heads=num_key_value_heads,
            kernel_initializer=t5gemma_kernel_initializer(initializer_range),
            logit_soft_cap=attn_logit_softcapping,
            dropout=attention_dropout,
            query_head_dim_normalize=False,
            use_sliding_window_attention=False,
            **kwargs,
        )
        if attention_type not in ("self", "cross"):
            raise ValueError(f"attention_type must be 'self' or 'cross', but got {attention_type}")
        self.attention_type = attention_type
        self.hidden_size = hidden_size
        self.cross_attention_hidden_size = cross_attention_hidden_size or hidden_size
        self.query_pre_attn_scalar = query_pre_attn_scalar
        self.attention_bias = attention_bias
        self.initializer_range = initializer_range
        self.attention_dropout = attention_dropout
        self.rope_max_wavelength = rope_max_wavelength
        if attention_type == "self":
            self.rotary_embedding = RotaryEmbedding(
                max_wavelength=rope_max_wavelength,
                sequence_axis=1,
                feature_axis=3,
                dtype=self.dtype_policy,
                name="rotary_embedding",
            )

    def _dense(self, equation: str, output_shape: tuple, bias_axes: str, name: str) -> EinsumDense:
        return EinsumDense(
            equation,
            output_shape=output_shape,
            kernel_initializer=clone_initializer(self._kernel_initializer),
            bias_axes=bias_axes if self.attention_bias else None,
            dtype=self.dtype_policy,
            name=name,
        )

    def build(self, input_shape: Any) -> None:
        if self.attention_type == "cross":
            hidden_shape, key_value_shape = input_shape
        else:
            hidden_shape = key_value_shape = input_shape
        self.hidden_dim = hidden_shape[-1]
        heads, kv_heads, head_dim = self.num_query_heads, self.num_key_value_heads, self.head_dim
        self.query_dense = self._dense("btd,dnh->btnh", (None, heads, head_dim), "nh", "query")
        self.query_dense.build(hidden_shape)
        self.key_dense = self._dense("bsd,dkh->bskh", (None, kv_heads, head_dim), "kh", "key")
        self.key_dense.build(key_value_shape)
        self.value_dense = self._dense("bsd,dkh->bskh", (None, kv_heads, head_dim), "kh", "value")
        self.value_dense.build(key_value_shape)
        self.output_dense = self._dense("btnh,nhd->btd", (None, self.hidden_dim), "d", "attention_output")
        self.output_dense.build((None, None, heads, head_dim))
        self.dropout_layer = Dropout(rate=self.attention_dropout, dtype=self.dtype_policy)
        self.softmax = Softmax(dtype="float32")

    def _query_scale(self) -> float:
        return float(self.query_pre_attn_scalar) ** -0.5

    def _compute_attention(
        self,
        q: tf.Tensor,
        k: tf.Tensor,
        v: tf.Tensor,
        attention_mask: Any,
        training: Any = False,
        cache_update_index: Any = 0,
    ) -> tf.Tensor:
        """KerasHub's T5Gemma attention: a masked key's logit gets `-1e9` added (after the soft cap), so a query
        with no key to attend to (a padded position past a sliding window) averages every value, as there."""
        q = q * tf.cast(self._query_scale(), q.dtype)
        shape = tf.shape(q)
        batch, length = shape[0], shape[1]
        q = tf.reshape(q, [batch, length, self.num_key_value_heads, self.num_key_value_groups, self.head_dim])
        logits = tf.einsum("btkgh,bskh->bkgts", q, k)
        if self.logit_soft_cap is not None:
            logits = tf.tanh(logits / self.logit_soft_cap) * self.logit_soft_cap
        if attention_mask is not None:
            masked = 1.0 - tf.cast(attention_mask[:, None, None, :, :], logits.dtype)
            logits += masked * (-3e4 if logits.dtype == tf.float16 else -1e9)
        probabilities = tf.cast(self.softmax(logits), logits.dtype)
        if self.dropout:
            probabilities = self.dropout_layer(probabilities, training=training)
        results = tf.einsum("bkgts,bskh->btkgh", probabilities, v)
        return tf.reshape(results, [batch, length, self.num_query_heads, self.head_dim])

    @tf.autograph.experimental.do_not_convert
    def call(
        self,
        inputs: Any,
        attention_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = None,
        training: Any = None,
    ) -> tuple[tf.Tensor, Any]:
        if self.attention_type == "cross":
            hidden_states, key_value_states = inputs
            query = self.query_dense(hidden_states)
            if cache is not None:
                key, value = split_cache(cache)
            else:
                key, value = self.key_dense(key_value_states), self.value_dense(key_value_states)
                cache = tf.stack([key, value], axis=1)
        else:
            index = 0 if cache_update_index is None else cache_update_index
            query, key, value = self.query_dense(inputs), self.key_dense(inputs), self.value_dense(inputs)
            query = self.rotary_embedding(query, start_index=index)
            key = self.rotary_embedding(key, start_index=index)
            if cache is not None:
                key_cache, value_cache = split_cache(cache)
                key = update_cache(key_cache, key, index)
                value = update_cache(value_cache, value, index)
                cache = join_cache(key, value, like=cache)
            else:
                cache = tf.stack([key, value], axis=1)
        attended = self._compute_attention(query, key, value, attention_mask, training=training)
        return self.output_dense(attended), cache

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape[0] if self.attention_type == "cross" else input_shape

    def get_config(self) -> dict[str, Any]:
        config = Layer.get_config(self)  # the constructor's arguments, not the base attention's
        config.update(
            hidden_size=self.hidden_size,
            num_attention_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            head_dim=self.head_dim,
            query_pre_attn_scalar=self.query_pre_attn_scalar,
            attention_bias=self.attention_bias,
            attention_type=self.attention_type,
            cross_attention_hidden_size=self.cross_attention_hidden_size,
            initializer_range=self.initializer_range,
            attention_dropout=self.attention_dropout,
            attn_logit_softcapping=self.logit_soft_cap,
            rope_max_wavelength=self.rope_max_wavelength,
        )
        return config
