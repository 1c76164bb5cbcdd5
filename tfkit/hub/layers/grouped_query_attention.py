"""``CachedGroupedQueryAttention``: the rotary self-attention with a key/value cache of Llama-style decoders.

    class QwenAttention(CachedGroupedQueryAttention):
        def build(self, inputs_shape):
            self._build_attention(inputs_shape, num_query_heads=8, num_key_value_heads=2, head_dim=16, ...)
    out = attention(x, attention_mask=mask)                                   # the whole sequence
    out, cache = attention(x, attention_mask=mask, cache=cache, cache_update_index=index)   # cached decoding

Mistral's, Qwen's and Qwen 3's attention layers (KerasHub's ``CachedMistralAttention``,
``QwenAttention``, ``Qwen3Attention``) differ in their arguments, their configs and a
few weights (Qwen's query/key/value biases, Qwen 3's query and key norms), not in how
they attend: queries and keys rotated by position (RoPE), keys and values written into
the cache at ``cache_update_index``, each key/value head shared by a group of query
heads, softmax in float32 over masked scores. That part is written once here, as KerasHub
computes it on TensorFlow, so the families' outputs equal KerasHub's.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.attention_masks import windowed_mask
from tfkit.hub.layers.fused_projections import project_heads
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.layers import Dropout, EinsumDense, Softmax


class CachedGroupedQueryAttention(Layer):
    """Base of rotary grouped-query self-attention layers with a key/value cache (Mistral, Qwen, Qwen 3).

    A subclass takes its family's arguments and, in `build`, calls
    `_build_attention`, which makes the sub-layers under KerasHub's names
    (`_query_dense` "query", `_key_dense` "key", `_value_dense` "value",
    `_output_dense` "attention_output", `_softmax`, `_dropout_layer`,
    `rotary_embedding_layer`). Queries have `num_query_heads` heads, keys and
    values `num_key_value_heads`, each shared by `num_query_heads //
    num_key_value_heads` query heads. A subclass may override
    `_query_heads` and `_key_heads` (Qwen 3 normalizes the projections) and
    `_windowed` (a sliding window applied by the attention, as Qwen's).

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: Tensor `(batch, length, hidden_dim)`.
        attention_mask: Optional `(batch, length, key_length)` mask, 1 where
            a query may attend to a key.
        cache: Optional `(batch, 2, max_length, num_key_value_heads,
            head_dim)` keys and values.
        cache_update_index: Where the new keys and values go in `cache`
            (the position of `hidden_states[:, 0]`); `None` reads the cache
            as it is.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Raises:
        ValueError: If `cache_update_index` is given without a `cache`.

    Example:
        >>> from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
        >>> from tfkit.hub.models.qwen.qwen_attention import QwenAttention
        >>> issubclass(QwenAttention, CachedGroupedQueryAttention)
        True
    """

    def _build_attention(
        self,
        inputs_shape: Any,
        num_query_heads: int,
        num_key_value_heads: int,
        head_dim: int,
        kernel_initializer: Any,
        bias_initializer: Any,
        use_bias: bool,
        dropout: float,
        rope_max_wavelength: float,
        rope_scaling_factor: float,
        make_head_norm: Callable[[str], Layer] | None = None,
    ) -> None:
        """Makes and builds the projections, softmax, dropout and rotary embedding, KerasHub's names, in KerasHub's
        order; with `make_head_norm` (Qwen 3), the query and key norms right after their projections."""
        inputs_shape = tuple(inputs_shape)
        hidden_dim = inputs_shape[-1]
        self._inv_norm_factor = 1.0 / math.sqrt(head_dim)

        def projection(equation: str, heads: int, bias_axes: str | None, name: str) -> EinsumDense:
            dense = EinsumDense(
                equation=equation,
                output_shape=(None, heads, head_dim),
                kernel_initializer=kernel_initializer,
                bias_initializer=bias_initializer,
                bias_axes=bias_axes if use_bias else None,
                dtype=self.dtype_policy,
                name=name,
            )
            dense.build(inputs_shape)
            return dense

        self._query_dense = projection("bqm,muh->bquh", num_query_heads, "uh", "query")
        if make_head_norm is not None:
            self._query_dense_layer_norm = make_head_norm("query_dense_layernorm")
        self._key_dense = projection("bkm,mvh->bkvh", num_key_value_heads, "vh", "key")
        if make_head_norm is not None:
            self._key_dense_layer_norm = make_head_norm("key_dense_layernorm")
        self._value_dense = projection("bkm,mvh->bkvh", num_key_value_heads, "vh", "value")
        self._softmax = Softmax(axis=-1, dtype="float32", name="attention_softmax")
        self._dropout_layer = Dropout(rate=dropout, dtype=self.dtype_policy)
        self._output_dense = EinsumDense(
            equation="bquh,uhm->bqm",
            output_shape=(None, hidden_dim),
            kernel_initializer=kernel_initializer,
            dtype=self.dtype_policy,
            name="attention_output",
        )
        self._output_dense.build((None, None, num_query_heads, head_dim))
        self.rotary_embedding_layer = RotaryEmbedding(
            max_wavelength=rope_max_wavelength, scaling_factor=rope_scaling_factor, dtype=self.dtype_policy
        )

    def _query_heads(self, projected: tf.Tensor, start_index: Any) -> tf.Tensor:
        """The projected queries made ready to attend: rotated (Qwen 3 normalizes them first)."""
        return self.rotary_embedding_layer(projected, start_index=start_index)

    def _key_heads(self, projected: tf.Tensor, start_index: Any) -> tf.Tensor:
        """The projected keys made ready to attend and be cached: rotated (Qwen 3 normalizes them first)."""
        return self.rotary_embedding_layer(projected, start_index=start_index)

    def _project_query(self, hidden_states: tf.Tensor, start_index: Any) -> tf.Tensor:
        """The rotated queries `(batch, length, num_query_heads, head_dim)`."""
        return self._query_heads(self._query_dense(hidden_states), start_index)

    def _project_all(self, hidden_states: tf.Tensor, start_index: Any) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """The rotated queries, the rotated keys and the values, under XLA as one product (`fused_projections`)."""
        query, key, value = project_heads([self._query_dense, self._key_dense, self._value_dense], hidden_states)
        return self._query_heads(query, start_index), self._key_heads(key, start_index), value

    def _attention_window(self) -> int | None:
        """The two-sided sliding window this layer attends through, in tokens (a hook: Qwen's); `None`, none."""
        return None

    def _windowed(self, attention_mask: Any, query: tf.Tensor, key: tf.Tensor, cache_update_index: Any) -> Any:
        """The attention mask narrowed to `_attention_window()` (the mask as it is without one)."""
        window = self._attention_window()
        if not window:
            return attention_mask
        return windowed_mask(attention_mask, tf.shape(query)[1], tf.shape(key)[1], window, cache_update_index)

    def call(
        self,
        hidden_states: tf.Tensor,
        attention_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = None,
        training: Any = None,
    ) -> Any:
        start_index = 0 if cache_update_index is None else cache_update_index
        if cache is None:
            if cache_update_index is not None:
                raise ValueError(
                    f"{type(self).__name__} layer '{self.name}': `cache_update_index` should not be set if "
                    f"`cache` is `None`. Received: cache=None, cache_update_index={cache_update_index}"
                )
            query, key, value = self._project_all(hidden_states, start_index)
        elif cache_update_index is None:
            query = self._project_query(hidden_states, start_index)
            key, value = split_cache(cache)
        else:
            query, key_update, value_update = self._project_all(hidden_states, start_index)
            key_cache, value_cache = split_cache(cache)
            key = update_cache(key_cache, key_update, cache_update_index)
            value = update_cache(value_cache, value_update, cache_update_index)
            cache = join_cache(key, value, like=cache)
        outputs = self._attend(query, key, value, self._windowed(attention_mask, query, key, cache_update_index))
        outputs = self._output_dense(self._dropout_layer(outputs, training=training))
        return outputs if cache is None else (outputs, cache)

    def _attend(self, query: tf.Tensor, key: tf.Tensor, value: tf.Tensor, attention_mask: Any) -> tf.Tensor:
        """Scaled dot-product attention as KerasHub computes it on TensorFlow: scores, float32 softmax, values.

        Each key/value head serves its group of query heads in place: the
        queries are viewed as `(batch, length, key_value_heads, group, dim)`
        where KerasHub repeats the keys and values per group, copying the
        whole cache at every decoding step. The numbers are the same.
        """
        kv_heads, head_dim = int(self._key_dense.kernel.shape[1]), int(self._key_dense.kernel.shape[2])
        heads = int(self._query_dense.kernel.shape[1])
        batch, query_length, key_length = tf.shape(query)[0], tf.shape(query)[1], tf.shape(key)[1]
        grouped = tf.reshape(query, [batch, query_length, kv_heads, heads // kv_heads, head_dim])
        scores = tf.einsum("bqkgh,bskh->bkgqs", grouped, key)
        scores = tf.reshape(scores, [batch, heads, query_length, key_length])
        scores = scores * tf.cast(self._inv_norm_factor, self.compute_dtype)
        if attention_mask is not None:
            scores = self._softmax(scores, mask=attention_mask[:, None, :, :])
        else:
            scores = self._softmax(scores)
        scores = tf.reshape(
            tf.cast(scores, self.compute_dtype), [batch, kv_heads, heads // kv_heads, query_length, key_length]
        )
        outputs = tf.einsum("bkgqs,bskh->bqkgh", scores, value)
        return tf.reshape(outputs, [batch, query_length, heads, head_dim])

    def compute_output_shape(self, inputs_shape: Any) -> Any:
        return inputs_shape
