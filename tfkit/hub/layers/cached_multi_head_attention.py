"""``CachedMultiHeadAttention``: multi-head attention with a key/value cache for autoregressive decoding.

    cache = tf.zeros((batch, 2, max_length, num_heads, head_dim))              # keys and values, preallocated
    out, cache = attention(x, x, cache=cache, cache_update_index=0)            # the prompt fills positions 0..T-1
    out, cache = attention(step, step, cache=cache, cache_update_index=index)  # one new token at `index`

The new keys and values are written into the cache at ``cache_update_index``
with ``tf.tensor_scatter_nd_update`` (a dynamic update in place under XLA, so
the cache is never rebuilt); with ``cache_update_index=None`` the cache is read
as it is. The attention itself is computed as Keras 3 computes it on
TensorFlow (:func:`keras_attention`), so outputs equal KerasHub's.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import regularizers
from tfkit.hub.layers.fused_projections import project_heads
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.layers import MultiHeadAttention
from tfkit.saving import register_keras_serializable

_LARGE_NEGATIVE = -0.7 * 3.38953e38  # Keras's fill for masked float32 logits on TensorFlow


def keras_attention(
    layer: MultiHeadAttention,
    query: tf.Tensor,
    key: tf.Tensor,
    value: tf.Tensor,
    attention_mask: Any = None,
    training: Any = None,
    return_attention_scores: bool = False,
) -> tuple[tf.Tensor, tf.Tensor | None]:
    """``layer``'s attention on projected ``(batch, T|S, heads, dim)`` tensors, as Keras 3's on TensorFlow.

    Keras computes attention without dropout and without returned scores by
    its fused path (softmax in float32; a query that may attend to no key
    gets the mean of the values), otherwise by the explicit one (such a query
    gets zeros): tfkit's ``MultiHeadAttention._compute_attention``.
    """
    if attention_mask is not None:
        attention_mask = tf.cast(attention_mask, tf.bool)
    if layer.dropout > 0.0 or return_attention_scores or query.shape.rank != 4:
        return MultiHeadAttention._compute_attention(
            layer, query, key, value, attention_mask, training, return_attention_scores
        )
    logits_dtype = tf.float64 if query.dtype == tf.float64 else tf.float32
    logits = tf.cast(tf.einsum("btnh,bsnh->bnts", query, key), logits_dtype)
    logits = logits * tf.cast(layer._inverse_sqrt_key_dim, logits_dtype)
    if attention_mask is not None:
        for _ in range(4 - attention_mask.shape.rank):  # (B, T, S) -> (B, 1, T, S): one mask for every head
            attention_mask = tf.expand_dims(attention_mask, axis=-3)
        logits = tf.where(attention_mask, logits, tf.cast(_LARGE_NEGATIVE, logits.dtype))
    probabilities = tf.cast(tf.nn.softmax(tf.cast(logits, tf.float32), axis=-1), key.dtype)
    return tf.einsum("bnts,bsnh->btnh", probabilities, value), None


@register_keras_serializable(package="keras_hub")
class CachedMultiHeadAttention(MultiHeadAttention):
    """MultiHeadAttention layer with cache support.

    For autoregressive decoding: a call can reuse the keys and values of the
    earlier steps from a cache instead of recomputing them. Three modes:

    - no cache: regular multi-head attention;
    - a cache with `cache_update_index=None`: the cached keys and values are
      used and the `key`/`value` inputs ignored (cross-attention to a fixed
      encoder sequence);
    - a cache and `cache_update_index`: the keys and values of the inputs are
      written into the cache at that index, and the updated cache is used.

    `B` is the batch size, `T` the query length (1 for a decoding step), `S`
    the key/value length (the cache's length). Weights and config are
    `tfkit.layers.MultiHeadAttention`'s (`query_dense`, `key_dense`,
    `value_dense`, `output_dense`), registered as KerasHub's
    `keras_hub>CachedMultiHeadAttention`. Masks carried by the inputs are not
    read: pass `attention_mask`. The cache is for inference; do not train
    through it.

    Args:
        num_heads: Number of attention heads.
        key_dim: Size of each attention head for query and key.
        value_dim: Size of each attention head for value. Defaults to
            `None` (`key_dim`).
        dropout: Dropout rate of the attention weights. Defaults to `0.0`.
        use_bias: Whether the projections have biases. Defaults to `True`.
        output_shape: Output size besides the batch and sequence axes.
            Defaults to `None` (the query's feature size).
        attention_axes: Axes attention is applied over. Defaults to `None`.
        sliding_window: Optional window size (unused with a cache, as in
            KerasHub). Defaults to `None`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        kernel_regularizer: Regularizer of the kernels. Defaults to `None`.
        bias_regularizer: Regularizer of the biases. Defaults to `None`.
        activity_regularizer: Regularizer of the output. Defaults to `None`.
        kernel_constraint: Constraint on the kernels. Defaults to `None`.
        bias_constraint: Constraint on the biases. Defaults to `None`.
        use_gate: Whether to gate the attended values. Defaults to `False`.
        seed: Optional seed of the dropout. Defaults to `None`.
        flash_attention: Not available on TensorFlow. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        query: Query tensor `(B, T, dim)`.
        value: Value tensor `(B, S*, dim)`: without a cache `S* = S`; with a
            cache and an update index, the `S*` new steps written into it.
        key: Optional key tensor, as `value`. Defaults to `value`.
        attention_mask: Boolean or 0/1 mask `(B, T, S)`: which keys each query
            may attend to.
        cache: Optional key/value cache `(B, 2, S, num_heads, key_dim)`.
        cache_update_index: Optional int or int tensor: where the new keys
            and values go in the cache. `None` reads the cache as it is.
        return_attention_scores: Whether to also return the attention scores.
            Defaults to `False`.
        training: Whether dropout applies. Defaults to `None`.

    Returns:
        `attention_output`, `(attention_output, attention_scores)`,
        `(attention_output, cache)` or
        `(attention_output, attention_scores, cache)`, as the arguments ask.

    Raises:
        ValueError: If `cache_update_index` is given without a `cache`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> attention = keras_hub.layers.CachedMultiHeadAttention(num_heads=2, key_dim=4)
        >>> x = np.random.rand(1, 3, 8).astype("float32")
        >>> cache = tf.zeros((1, 2, 3, 2, 4))
        >>> full, cache = attention(x, x, cache=cache, cache_update_index=0)
        >>> full.shape, cache.shape
        (TensorShape([1, 3, 8]), TensorShape([1, 2, 3, 2, 4]))
        >>> step, _ = attention(x[:, 2:], x[:, 2:], cache=cache, cache_update_index=2)
        >>> bool(np.allclose(step[0, 0], full[0, 2], atol=1e-6))
        True
    """

    @tf.autograph.experimental.do_not_convert
    def call(
        self,
        query: tf.Tensor,
        value: Any,
        key: Any = None,
        attention_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = None,
        return_attention_scores: bool = False,
        training: Any = None,
    ) -> Any:
        if cache is None and cache_update_index is not None:
            raise ValueError(
                f"CachedMultiHeadAttention layer '{self.name}': `cache_update_index` should not be set if "
                f"`cache` is None. Received: cache=None, cache_update_index={cache_update_index}"
            )
        self_attention = value is query and key is None
        value = self._as_input(value)
        key = value if key is None else self._as_input(key)
        if cache is not None and cache_update_index is None:  # attend to the cache as it is
            query = self._query_dense(query)
            key, value = split_cache(cache)
        else:
            query, key, value = self._project(query, key, value, self_attention)
            if cache is not None:
                key_cache, value_cache = split_cache(cache)
                key = update_cache(key_cache, key, cache_update_index)
                value = update_cache(value_cache, value, cache_update_index)
                cache = join_cache(key, value, like=cache)
        attention_output, attention_scores = self._compute_attention(
            query, key, value, attention_mask, training, return_attention_scores
        )
        attention_output = self._output_dense(attention_output)
        if return_attention_scores and cache is not None:
            return attention_output, attention_scores, cache
        if return_attention_scores:
            return attention_output, attention_scores
        if cache is not None:
            return attention_output, cache
        return attention_output

    def _project(
        self, query: tf.Tensor, key: tf.Tensor, value: tf.Tensor, self_attention: bool
    ) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """The projected queries, keys and values; for self-attention under XLA, one product (`fused_projections`)."""
        denses = [self._query_dense, self._key_dense, self._value_dense]
        if self_attention:
            return tuple(project_heads(denses, value))
        return tuple(dense(inputs) for dense, inputs in zip(denses, (query, key, value)))

    def _compute_attention(
        self,
        query: tf.Tensor,
        key: tf.Tensor,
        value: tf.Tensor,
        attention_mask: Any = None,
        training: Any = None,
        return_attention_scores: bool = False,
    ) -> tuple[tf.Tensor, tf.Tensor | None]:
        return keras_attention(self, query, key, value, attention_mask, training, return_attention_scores)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None  # the outputs (a tuple with the cache) carry no mask: the decoder block passes its own on

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.setdefault("activity_regularizer", regularizers.serialize(self.activity_regularizer))  # as Keras
        return config
