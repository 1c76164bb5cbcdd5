"""``T5MultiHeadAttention``: T5's attention, unscaled, with a learned relative position bias and a key/value cache.

    out, bias, _ = attention(x, mask=mask)                                  # the first layer makes the bias
    out, _, _ = next_attention(x, position_bias=bias)                       # the rest of the stack reuse it
    out, bias, cache = attention(step, cache=cache, cache_update_index=i)   # cached decoding at position i

Only the first layer of a stack owns the bias table (``embeddings``, buckets by
heads); the mask is folded into the bias it returns, so the layers after it
take the bias alone. With a cache and ``cache_update_index=None`` the cached
keys and values are read as they are (the decoder's cross-attention during
generation).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers, layers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.hub.models.t5.t5_relative_position import relative_position_bucket

_MASKED = -1e9  # KerasHub's bias at masked positions


def _normal(stddev: float) -> Any:
    return initializers.RandomNormal(mean=0.0, stddev=stddev)


class T5MultiHeadAttention(DeclaredConfig, Layer):
    """Multi-head attention with T5's relative position bias, for self- or cross-attention.

    Queries and keys are not scaled by the head size (T5 folds that into the
    initialization). The first layer of each stack (`use_relative_attention_bias`)
    computes a bias from the bucketed relative positions of queries and keys,
    bidirectional in the encoder, causal in the decoder; the others add the
    bias they are given, or zeros.

    Args:
        is_decoder: Whether the layer is in the decoder (one-sided buckets).
        hidden_dim: The size of the output.
        key_value_dim: The size of each head.
        num_heads: The number of heads.
        dropout: The dropout rate of the attention weights.
        use_relative_attention_bias: Whether this layer owns the bias table.
            Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: The queries' input, `(batch, T, dim)`.
        mask: Optional `(batch, T, S)` mask, `1` where a key may be seen;
            folded into the returned bias (ignored with `position_bias`).
        key_value_states: Optional `(batch, S, dim)` keys' and values' input
            (cross-attention); `None` attends over `hidden_states`.
        position_bias: Optional bias `(batch|1, heads, T, S)` of an earlier
            layer, used as it is.
        cache: Optional `(batch, 2, S, heads, key_value_dim)` keys and values
            (or a `(keys, values)` pair).
        cache_update_index: Where the new keys and values go in `cache`;
            `None` reads the cache as it is.
        training: Whether dropout is on.

    Returns:
        `(attention_output, position_bias, cache)`; `cache` is `None` when
        none was given.

    Example:
        >>> from tfkit.hub.models.t5.t5_multi_head_attention import T5MultiHeadAttention
        >>> attention = T5MultiHeadAttention(is_decoder=False, hidden_dim=8, key_value_dim=4, num_heads=2,
        ...     dropout=0.0, use_relative_attention_bias=True)
        >>> out, bias, cache = attention(np.ones((1, 3, 8), "float32"))
        >>> out.shape, bias.shape, cache
        (TensorShape([1, 3, 8]), TensorShape([1, 2, 3, 3]), None)
    """

    relative_attention_buckets = 32
    relative_attention_max_distance = 128

    def __init__(
        self,
        is_decoder: bool,
        hidden_dim: int,
        key_value_dim: int,
        num_heads: int,
        dropout: float,
        use_relative_attention_bias: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.is_decoder = is_decoder
        self.hidden_dim = hidden_dim
        self.key_value_dim = key_value_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.use_relative_attention_bias = use_relative_attention_bias
        self.inner_dim = num_heads * key_value_dim
        inner = self.inner_dim
        policy = self.dtype_policy
        self.query_projector = layers.Dense(
            inner,
            use_bias=False,
            kernel_initializer=_normal((inner * key_value_dim) ** -0.5),
            dtype=policy,
            name="query_projector",
        )
        self.key_projector = layers.Dense(
            inner, use_bias=False, kernel_initializer=_normal(inner**-0.5), dtype=policy, name="key_projector"
        )
        self.value_projector = layers.Dense(
            inner, use_bias=False, kernel_initializer=_normal(inner**-0.5), dtype=policy, name="value_projector"
        )
        self.output_projector = layers.Dense(
            hidden_dim, use_bias=False, kernel_initializer=_normal(inner**-0.5), dtype=policy, name="output_projector"
        )
        self.dropout_layer = layers.Dropout(dropout, dtype=policy)
        if use_relative_attention_bias:
            self.relative_attention_bias = self.add_weight(
                name="embeddings", shape=(self.relative_attention_buckets, num_heads), initializer=_normal(inner**-0.5)
            )

    def compute_bias(self, query_length: Any, key_length: Any, query_start_index: Any = 0) -> tf.Tensor:
        """The relative position bias `(1, heads, query_length, key_length)`, queries from `query_start_index`.

        Args:
            query_length: The number of queries.
            key_length: The number of keys.
            query_start_index: The position of the first query (non-zero in
                cached decoding, where the keys span the whole cache).
                Defaults to `0`.

        Returns:
            The bias, in the table's dtype.
        """
        queries = tf.range(query_length)[:, None] + tf.cast(query_start_index, tf.int32)
        keys = tf.range(key_length)[None, :]
        buckets = relative_position_bucket(
            keys - queries,
            bidirectional=not self.is_decoder,
            num_buckets=self.relative_attention_buckets,
            max_distance=self.relative_attention_max_distance,
        )
        values = tf.gather(self.relative_attention_bias, buckets)  # (query_length, key_length, heads)
        return tf.transpose(values, (2, 0, 1))[None]

    def _heads(self, states: tf.Tensor, batch: Any) -> tf.Tensor:
        return tf.reshape(states, tf.stack([batch, -1, self.num_heads, self.key_value_dim]))

    def _keys_and_values(self, inputs: tf.Tensor, batch: Any, cache: Any, index: Any) -> tuple:
        if cache is None:
            if index is not None:
                raise ValueError(
                    f"T5MultiHeadAttention {self.name!r}: `cache_update_index` ({index}) needs a `cache`, got None"
                )
            return (
                self._heads(self.key_projector(inputs), batch),
                self._heads(self.value_projector(inputs), batch),
                None,
            )
        keys, values = split_cache(cache)
        if index is None:
            return keys, values, cache
        keys = update_cache(keys, self._heads(self.key_projector(inputs), batch), index)
        values = update_cache(values, self._heads(self.value_projector(inputs), batch), index)
        return keys, values, join_cache(keys, values, like=cache)

    def call(
        self,
        hidden_states: tf.Tensor,
        mask: Any = None,
        key_value_states: Any = None,
        position_bias: Any = None,
        cache: Any = None,
        cache_update_index: Any = None,
        training: Any = None,
    ) -> tuple:
        shape = tf.shape(hidden_states)
        batch, query_length = shape[0], shape[1]
        queries = self._heads(self.query_projector(hidden_states), batch)
        inputs = hidden_states if key_value_states is None else key_value_states
        keys, values, cache = self._keys_and_values(inputs, batch, cache, cache_update_index)
        key_length = tf.shape(keys)[1]
        scores = tf.einsum("bqnd,bknd->bnqk", queries, keys)
        if position_bias is None:
            if self.use_relative_attention_bias:
                start = 0 if cache_update_index is None else cache_update_index
                position_bias = self.compute_bias(query_length, key_length, query_start_index=start)
            else:
                position_bias = tf.zeros(tf.stack([1, self.num_heads, query_length, key_length]), self.compute_dtype)
            if mask is not None:
                position_bias = position_bias + (1.0 - tf.cast(mask[:, None, :, :], position_bias.dtype)) * _MASKED
        scores += tf.cast(position_bias, scores.dtype)
        weights = self.dropout_layer(tf.nn.softmax(scores, axis=-1), training=training)
        output = tf.einsum("bnqk,bknd->bqnd", weights, values)
        output = tf.reshape(output, tf.stack([batch, -1, self.inner_dim]))
        return self.output_projector(output), position_bias, cache
