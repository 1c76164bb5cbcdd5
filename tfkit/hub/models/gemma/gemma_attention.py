"""``CachedGemmaAttention``: Gemma's grouped-query attention with rotary positions and a key/value cache.

    attention = CachedGemmaAttention(head_dim=256, num_query_heads=8, num_key_value_heads=1)
    out = attention(x, attention_mask=mask)                                        # (batch, length, hidden)
    out, cache = attention(x, attention_mask=mask, cache=cache, cache_update_index=i)  # cached decoding

Queries are grouped over the key/value heads (``num_query_heads //
num_key_value_heads`` queries share one key and value head). Gemma 2 adds a
soft cap on the attention logits (``cap * tanh(logits / cap)``) and, on
alternate layers, a sliding window: a query at position ``i`` sees the keys at
``|i - j| < sliding_window_size`` (the causal mask keeps ``j <= i``). The
cache is ``(batch, 2, max_length, num_key_value_heads, head_dim)``; a call
writes its keys and values at ``cache_update_index`` in place
(``tensor_scatter_nd_update``), so generation compiles under XLA.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.attention_masks import windowed_mask
from tfkit.hub.layers.fused_projections import project_heads
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.layers import Dropout, EinsumDense, Softmax


class CachedGemmaAttention(Layer):
    """A cached grouped-query attention layer (Gemma, Gemma 2).

    Projects the inputs to `num_query_heads` queries and
    `num_key_value_heads` keys and values of size `head_dim` (no biases),
    rotates queries and keys by position (rotary embedding, wavelength
    10000), scales the queries by `1 / sqrt(head_dim)` (or by
    `1 / sqrt(hidden_dim // num_query_heads)` with
    `query_head_dim_normalize=False`), applies the optional soft cap and
    sliding window, and projects the attended values back to the input size.
    A query with no key to attend to gets zeros. The sub-layers are KerasHub's
    (`query_dense`, `key_dense`, `value_dense`, `output_dense`), built on the
    first call.

    Args:
        head_dim: Integer, the size of each attention head.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads; it
            must divide `num_query_heads`.
        kernel_initializer: Initializer of the projections. Defaults to
            `"glorot_uniform"`.
        logit_soft_cap: Optional float: the attention logits become
            `cap * tanh(logits / cap)`. Defaults to `None`.
        use_sliding_window_attention: Whether a query sees only the keys
            within `sliding_window_size` positions. Defaults to `False`.
        sliding_window_size: Integer, the window. Defaults to `4096`.
        query_head_dim_normalize: Whether to scale the queries by
            `1 / sqrt(head_dim)` (`True`) or by
            `1 / sqrt(hidden_dim // num_query_heads)`. Defaults to `True`.
        dropout: Float, the dropout rate of the attention probabilities.
            Defaults to `0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: The input sequence `(batch, length, hidden_dim)`.
        attention_mask: `(batch, length, key_length)` mask: which keys each
            query may attend to (the causal and padding mask).
        cache: Optional cache `(batch, 2, max_length, num_key_value_heads,
            head_dim)`.
        cache_update_index: The position of `x[:, 0]` in the sequence: where
            its keys and values go in the cache. Defaults to `0`.
        training: Whether dropout applies. Defaults to `False`.

    Returns:
        The attention output `(batch, length, hidden_dim)`, and the updated
        cache when a cache is given.

    Raises:
        ValueError: If `num_key_value_heads` does not divide
            `num_query_heads`.

    Example:
        >>> from tfkit.hub.models.gemma.gemma_attention import CachedGemmaAttention
        >>> attention = CachedGemmaAttention(head_dim=4, num_query_heads=2, num_key_value_heads=1)
        >>> x = np.random.rand(1, 3, 8).astype("float32")
        >>> mask = np.tril(np.ones((1, 3, 3), "int32"))
        >>> attention(x, attention_mask=mask).shape
        TensorShape([1, 3, 8])
        >>> out, cache = attention(x, attention_mask=mask, cache=tf.zeros((1, 2, 3, 1, 4)))
        >>> cache.shape
        TensorShape([1, 2, 3, 1, 4])
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
        dropout: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if num_query_heads % num_key_value_heads:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': num_key_value_heads={num_key_value_heads} must divide "
                f"num_query_heads={num_query_heads} (each key/value head serves a group of query heads)"
            )
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = head_dim
        self.logit_soft_cap = logit_soft_cap
        self.use_sliding_window_attention = use_sliding_window_attention
        self.sliding_window_size = sliding_window_size
        self.query_head_dim_normalize = query_head_dim_normalize
        self.dropout = dropout
        self._kernel_initializer = initializers.get(clone_initializer(kernel_initializer))
        self.num_key_value_groups = num_query_heads // num_key_value_heads

    def _projection(self, equation: str, heads: int, name: str) -> EinsumDense:
        return EinsumDense(
            equation,
            output_shape=(None, heads, self.head_dim),
            kernel_initializer=self._kernel_initializer,
            dtype=self.dtype_policy,
            name=name,
        )

    def build(self, inputs_shape: Any) -> None:
        self.hidden_dim = inputs_shape[-1]
        self.query_dense = self._projection("btd,ndh->btnh", self.num_query_heads, "query")
        self.query_dense.build(inputs_shape)
        self.key_dense = self._projection("bsd,kdh->bskh", self.num_key_value_heads, "key")
        self.key_dense.build(inputs_shape)
        self.value_dense = self._projection("bsd,kdh->bskh", self.num_key_value_heads, "value")
        self.value_dense.build(inputs_shape)
        self._build_query_key_norms(inputs_shape)
        self.dropout_layer = Dropout(rate=self.dropout, dtype=self.dtype_policy)
        self.output_dense = EinsumDense(
            "btnh,nhd->btd",
            output_shape=(None, self.hidden_dim),
            kernel_initializer=self._kernel_initializer,
            dtype=self.dtype_policy,
            name="attention_output",
        )
        self.output_dense.build((None, None, self.num_query_heads, self.head_dim))
        self.softmax = Softmax(dtype="float32")
        self.rope_layer = self._make_rope()

    def _build_query_key_norms(self, inputs_shape: Any) -> None:
        """Gemma 3 normalizes queries and keys here; Gemma has no such layers."""

    def _make_rope(self) -> RotaryEmbedding:
        return RotaryEmbedding(max_wavelength=10_000.0, dtype=self.dtype_policy)

    def _apply_rope(self, x: tf.Tensor, start_index: Any) -> tf.Tensor:
        """Rotates queries or keys, then interleaves the two rotated halves as Gemma's checkpoints expect (the
        same permutation for queries and keys, so the logits are those of the plain rotation)."""
        x = self.rope_layer(x, start_index=start_index)
        interleaved = tf.reshape(tf.stack(tf.split(x, 2, axis=-1), axis=-1), tf.shape(x))
        interleaved.set_shape(x.shape)
        return interleaved

    def _query_scale(self) -> float:
        if self.query_head_dim_normalize:
            return 1 / np.sqrt(self.head_dim)
        return 1 / np.sqrt(self.hidden_dim // self.num_query_heads)

    def _mask_sliding_window(self, attention_mask: Any, cache_update_index: Any = 0) -> tf.Tensor:
        shape = tf.shape(attention_mask)
        return windowed_mask(attention_mask, shape[1], shape[2], self.sliding_window_size, cache_update_index)

    def _compute_attention(
        self,
        q: tf.Tensor,
        k: tf.Tensor,
        v: tf.Tensor,
        attention_mask: Any,
        training: Any = False,
        cache_update_index: Any = 0,
    ) -> tf.Tensor:
        if self.use_sliding_window_attention and attention_mask is not None:
            attention_mask = self._mask_sliding_window(attention_mask, cache_update_index=cache_update_index)
        q = q * tf.cast(self._query_scale(), q.dtype)
        shape = tf.shape(q)
        batch, length = shape[0], shape[1]
        q = tf.reshape(q, [batch, length, self.num_key_value_heads, self.num_key_value_groups, self.head_dim])
        logits = tf.einsum("btkgh,bskh->bkgts", q, k)
        if self.logit_soft_cap is not None:
            logits = tf.tanh(logits / self.logit_soft_cap) * self.logit_soft_cap
        if attention_mask is not None:
            attention_mask = attention_mask[:, None, None, :, :]
        probabilities = tf.cast(self.softmax(logits, mask=attention_mask), logits.dtype)
        if self.dropout:
            probabilities = self.dropout_layer(probabilities, training=training)
        results = tf.einsum("bkgts,bskh->btkgh", probabilities, v)
        return tf.reshape(results, [batch, length, self.num_query_heads, self.head_dim])

    def _attend(self, query: Any, key: Any, value: Any, attention_mask: Any, training: Any, index: Any) -> tf.Tensor:
        """The attention output of projected, rotated queries, keys and values (a query with no key: zeros)."""
        attended = self._compute_attention(
            query, key, value, attention_mask, training=training, cache_update_index=index
        )
        if attention_mask is not None:
            unattended = tf.logical_not(tf.cast(attention_mask, tf.bool))
            nothing = tf.reduce_all(unattended, axis=-1, keepdims=True)[..., tf.newaxis]
            attended = tf.where(nothing, tf.zeros_like(attended), attended)
        return self.output_dense(attended)

    def _projections(self, x: tf.Tensor) -> list[tf.Tensor]:
        """The queries, keys and values of ``x`` before any norm or rotation; under XLA, one product
        (``fused_projections``)."""
        return project_heads([self.query_dense, self.key_dense, self.value_dense], x)

    def _project(self, x: tf.Tensor, index: Any) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """The rotated queries and keys and the values of ``x``, whose first position is ``index``."""
        query, key, value = self._projections(x)
        return self._apply_rope(query, index), self._apply_rope(key, index), value

    @tf.autograph.experimental.do_not_convert
    def call(
        self,
        x: tf.Tensor,
        attention_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = 0,
        training: Any = False,
    ) -> Any:
        query, key, value = self._project(x, cache_update_index)
        if cache is not None:
            key_cache, value_cache = split_cache(cache)
            key = update_cache(key_cache, key, cache_update_index)
            value = update_cache(value_cache, value, cache_update_index)
            cache = join_cache(key, value, like=cache)
        output = self._attend(query, key, value, attention_mask, training, cache_update_index)
        return (output, cache) if cache is not None else output

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            head_dim=self.head_dim,
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            kernel_initializer=initializers.serialize(self._kernel_initializer),
            logit_soft_cap=self.logit_soft_cap,
            use_sliding_window_attention=self.use_sliding_window_attention,
            sliding_window_size=self.sliding_window_size,
            query_head_dim_normalize=self.query_head_dim_normalize,
            dropout=self.dropout,
        )
        return config

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
