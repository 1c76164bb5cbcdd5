"""``CachedGroupedQueryAttention``: the rotary self-attention with a key/value cache of Llama-style decoders.

    attention = CachedGroupedQueryAttention(num_query_heads=8, num_key_value_heads=2, name="self_attention")
    out = attention(x, attention_mask=mask)                                   # the whole sequence
    out, cache = attention(x, attention_mask=mask, cache=cache, cache_update_index=index)   # cached decoding

Llama's, Mistral's, Qwen's and Qwen 3's attention layers (KerasHub's ``LlamaAttention``,
``CachedMistralAttention``, ``QwenAttention``, ``Qwen3Attention``) differ in their
arguments and a few weights (Qwen's query/key/value biases, Qwen 3's query and key norms,
Llama 3's rotary scaling), not in how they attend: queries and keys rotated by position
(RoPE), keys and values written into the cache at ``cache_update_index``, each key/value
head shared by a group of query heads, softmax in float32 over masked scores. That part is
written once here, as KerasHub computes it on TensorFlow, so the families' outputs equal
KerasHub's; Mistral and Qwen use this layer as it is, Llama 3 subclasses it for its rotary
scaling, Mixtral for KerasHub's sub-layer names, and ``QueryKeyNormedAttention`` (Qwen 3,
Qwen 3 MoE) for its query and key norms.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.attention_masks import windowed_mask
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.fused_projections import project_heads
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.layers import Dropout, EinsumDense, Softmax


class CachedGroupedQueryAttention(DeclaredConfig, Layer):
    """Rotary grouped-query self-attention with a key/value cache (Llama, Mistral, Qwen, Qwen 3).

    Queries have `num_query_heads` heads, keys and values
    `num_key_value_heads`, each shared by `num_query_heads //
    num_key_value_heads` query heads; queries and keys are rotated by
    position. The sub-layers have KerasHub's names (`_query_dense` "query",
    `_key_dense` "key", `_value_dense` "value", `_output_dense`
    "attention_output", `_softmax`, `_dropout_layer`,
    `rotary_embedding_layer`). A subclass may override
    `_make_rotary_embedding` (Llama 3's scaled frequencies), `_make_head_norm`
    (Qwen 3's query and key norms) and `_query_heads`/`_key_heads`.

    Args:
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads; it
            divides `num_query_heads`.
        head_dim: Integer, the size of each head; `None` (the default) means
            `hidden_dim // num_query_heads`.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: Float, the rotary embedding's position scaling.
            Defaults to `1.0`.
        kernel_initializer: Initializer of the projections' kernels.
            Defaults to `"glorot_uniform"`.
        bias_initializer: Initializer of the query, key and value biases.
            Defaults to `"zeros"`.
        use_bias: Whether the query, key and value projections have biases
            (Qwen's). Defaults to `False`.
        dropout: Float, the dropout rate of the attention weights. Defaults
            to `0`.
        attention_window: Integer or `None`, a two-sided sliding window in
            tokens applied to the mask (Qwen's, Qwen 3's); `None` (the
            default) or `0`, none.
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
        ValueError: If `num_key_value_heads` does not divide
            `num_query_heads`, or `cache_update_index` is given without a
            `cache`.

    Example:
        >>> from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
        >>> attention = CachedGroupedQueryAttention(num_query_heads=4, num_key_value_heads=2)
        >>> out, cache = attention(np.ones((1, 3, 8), "float32"), cache=tf.zeros((1, 2, 5, 2, 2)),
        ...     cache_update_index=0)
        >>> out.shape, cache.shape
        (TensorShape([1, 3, 8]), TensorShape([1, 2, 5, 2, 2]))
    """

    output_bias: ClassVar[bool] = False  # whether the output projection has a bias (GPT-OSS's)

    def __init__(
        self,
        num_query_heads: int,
        num_key_value_heads: int,
        head_dim: int | None = None,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        use_bias: bool = False,
        dropout: float = 0,
        attention_window: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if num_key_value_heads <= 0 or num_query_heads % num_key_value_heads:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': num_key_value_heads={num_key_value_heads} must divide "
                f"num_query_heads={num_query_heads} (each key/value head serves a group of query heads)"
            )
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.num_key_value_groups = num_query_heads // num_key_value_heads
        self.head_dim = head_dim
        self.rope_max_wavelength = rope_max_wavelength
        self.rope_scaling_factor = rope_scaling_factor
        self.kernel_initializer = initializers.get(clone_initializer(kernel_initializer))
        self.bias_initializer = initializers.get(clone_initializer(bias_initializer))
        self.use_bias = use_bias
        self.dropout = dropout
        self.attention_window = attention_window

    def build(self, inputs_shape: Any) -> None:
        """Makes and builds the projections, softmax, dropout and rotary embedding: KerasHub's names and order.

        With a head norm (`_make_head_norm`, Qwen 3's), the query and key
        norms come right after their projections, as in KerasHub.
        """
        inputs_shape = tuple(inputs_shape)
        hidden_dim = inputs_shape[-1]
        if not self.head_dim:
            self.head_dim = hidden_dim // self.num_query_heads
        head_dim = self.head_dim
        self._inv_norm_factor = 1.0 / math.sqrt(head_dim)

        def projection(equation: str, heads: int, bias_axes: str, name: str) -> EinsumDense:
            dense = EinsumDense(
                equation=equation,
                output_shape=(None, heads, head_dim),
                kernel_initializer=self.kernel_initializer,
                bias_initializer=self.bias_initializer,
                bias_axes=bias_axes if self.use_bias else None,
                dtype=self.dtype_policy,
                name=name,
            )
            dense.build(inputs_shape)
            return dense

        self._query_dense = projection("bqm,muh->bquh", self.num_query_heads, "uh", "query")
        query_norm = self._make_head_norm("query_dense_layernorm", inputs_shape)
        if query_norm is not None:
            self._query_dense_layer_norm = query_norm
        self._key_dense = projection("bkm,mvh->bkvh", self.num_key_value_heads, "vh", "key")
        key_norm = self._make_head_norm("key_dense_layernorm", inputs_shape)
        if key_norm is not None:
            self._key_dense_layer_norm = key_norm
        self._value_dense = projection("bkm,mvh->bkvh", self.num_key_value_heads, "vh", "value")
        self._softmax = Softmax(axis=-1, dtype="float32", name="attention_softmax")
        self._dropout_layer = Dropout(rate=self.dropout, dtype=self.dtype_policy)
        self._output_dense = EinsumDense(
            equation="bquh,uhm->bqm",
            output_shape=(None, hidden_dim),
            kernel_initializer=self.kernel_initializer,
            bias_initializer=self.bias_initializer,
            bias_axes="m" if self.output_bias else None,
            dtype=self.dtype_policy,
            name="attention_output",
        )
        self._output_dense.build((None, None, self.num_query_heads, head_dim))
        self.rotary_embedding_layer = self._make_rotary_embedding()

    def _make_rotary_embedding(self) -> Layer:
        """The rotary position embedding of queries and keys (a hook: Llama 3 scales its frequencies)."""
        return RotaryEmbedding(
            max_wavelength=self.rope_max_wavelength, scaling_factor=self.rope_scaling_factor, dtype=self.dtype_policy
        )

    def _make_head_norm(self, name: str, inputs_shape: tuple) -> Layer | None:
        """A norm of each projected query or key head, built (a hook: Qwen 3's); `None`, none."""
        return None

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

    def _windowed(self, attention_mask: Any, query: tf.Tensor, key: tf.Tensor, cache_update_index: Any) -> Any:
        """The attention mask narrowed to `attention_window` (the mask as it is without one)."""
        window = self.attention_window
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
        kv_heads, head_dim = int(key.shape[2]), int(key.shape[3])  # the projections' (batch, length, heads, dim)
        heads = int(query.shape[2])
        batch, query_length, key_length = tf.shape(query)[0], tf.shape(query)[1], tf.shape(key)[1]
        grouped = tf.reshape(query, [batch, query_length, kv_heads, heads // kv_heads, head_dim])
        scores = tf.einsum("bqkgh,bskh->bkgqs", grouped, key)
        scores = tf.reshape(scores, [batch, heads, query_length, key_length])
        scores = scores * tf.cast(self._inv_norm_factor, self.compute_dtype)
        scores = self._attention_weights(scores, attention_mask)
        scores = tf.reshape(
            tf.cast(scores, self.compute_dtype), [batch, kv_heads, heads // kv_heads, query_length, key_length]
        )
        outputs = tf.einsum("bkgqs,bskh->bqkgh", scores, value)
        return tf.reshape(outputs, [batch, query_length, heads, head_dim])

    def _attention_weights(self, scores: tf.Tensor, attention_mask: Any) -> tf.Tensor:
        """The softmax of the scaled scores `(batch, heads, query, key)` over the keys the mask keeps (a hook:
        GPT-OSS adds its sink logits)."""
        if attention_mask is None:
            return self._softmax(scores)
        return self._softmax(scores, mask=attention_mask[:, None, :, :])

    def compute_output_shape(self, inputs_shape: Any) -> Any:
        return inputs_shape
