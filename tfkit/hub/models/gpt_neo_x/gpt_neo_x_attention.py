"""``GPTNeoXAttention``: GPT-NeoX's self-attention (one fused query/key/value projection, partial rotary), cached.

    attention = GPTNeoXAttention(num_heads=4, hidden_dim=32, rotary_percentage=0.25)
    out = attention(x, attention_mask=mask)                                       # (batch, length, 32)
    out, cache = attention(step, attention_mask=mask, cache=cache, cache_update_index=index)

The projection's kernel is ``(hidden, heads, 3 * head_dim)``: each head's query,
key and value side by side, as Transformers' ``query_key_value`` keeps them. The
first ``rotary_percentage`` of each query and key head is rotated by position;
the rest passes through.

The rotation is at the positions the queries and keys have in the sequence
(``cache_update_index`` on), and the cache holds rotated keys. KerasHub 0.32
caches unrotated keys and rotates the cache and the step's query from position 0
at each decoding step, so its cached decoding does not compute its own forward
pass; this layer computes the forward pass at every step (Transformers' numbers).
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.layers import Dropout, EinsumDense, Softmax
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GPTNeoXAttention(DeclaredConfig, Layer):
    """GPT-NeoX's multi-head self-attention with partial rotary embeddings and a key/value cache.

    Sub-layers under KerasHub's attribute and layer names: `_qkv_dense`
    ("query_key_value"), `_output_dense` ("attention_output"), `_softmax`,
    `_attn_dropout_layer` (on the attention weights) and
    `rotary_embedding_layer`.

    Args:
        num_heads: The number of attention heads.
        hidden_dim: The size of the hidden states (`num_heads` divides it).
        dropout: The dropout rate of the attention weights. Defaults to `0.0`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        rotary_percentage: The part of each query and key head that is
            rotated. Defaults to `0.25`.
        rotary_max_wavelength: The longest wavelength of the rotary
            embedding. Defaults to `10000`.
        max_sequence_length: The longest sequence (kept in the config, as
            KerasHub does). Defaults to `512`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(batch, length, hidden_dim)`.
        attention_mask: Optional `(batch, length, key_length)` mask, 1 where a
            query may attend to a key.
        cache: Optional `(batch, 2, max_length, num_heads, head_dim)` keys and
            values, or a `(keys, values)` pair.
        cache_update_index: The position of `hidden_states[:, 0]`, where its
            keys and values go in `cache`; `None` reads the cache as it is.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Raises:
        ValueError: If `cache_update_index` is given without a `cache`.

    Example:
        >>> from tfkit.hub.models.gpt_neo_x.gpt_neo_x_attention import GPTNeoXAttention
        >>> attention = GPTNeoXAttention(num_heads=2, hidden_dim=16)
        >>> out, cache = attention(np.ones((1, 3, 16), "float32"), cache=tf.zeros((1, 2, 5, 2, 8)),
        ...     cache_update_index=0)
        >>> out.shape, cache.shape
        (TensorShape([1, 3, 16]), TensorShape([1, 2, 5, 2, 8]))
    """

    def __init__(
        self,
        num_heads: int,
        hidden_dim: int,
        dropout: float = 0.0,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        rotary_percentage: float = 0.25,
        rotary_max_wavelength: int = 10000,
        max_sequence_length: int = 512,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim
        self.dropout = dropout
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.rotary_percentage = rotary_percentage
        self.rotary_max_wavelength = rotary_max_wavelength
        self.max_sequence_length = max_sequence_length
        self.attn_head_size = hidden_dim // num_heads
        self.rotary_dim = int(self.attn_head_size * rotary_percentage)
        self._inv_norm_factor = 1.0 / math.sqrt(self.attn_head_size)
        self.rotary_embedding_layer = RotaryEmbedding(max_wavelength=rotary_max_wavelength, dtype=self.dtype_policy)

    def build(self, input_shape: Any) -> None:
        """Makes and builds the fused projection, the softmax, the dropout and the output projection."""
        self._qkv_dense = EinsumDense(
            equation="abc,cde->abde",
            output_shape=(None, self.num_heads, 3 * self.attn_head_size),
            bias_axes="de",
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            dtype=self.dtype_policy,
            name="query_key_value",
        )
        self._qkv_dense.build(input_shape)
        self._attn_dropout_layer = Dropout(self.dropout, dtype=self.dtype_policy, name="attention_dropout")
        self._softmax = Softmax(axis=-1, dtype="float32", name="attention_softmax")
        self._output_dense = EinsumDense(
            equation="abc,cd->abd",
            output_shape=(None, self.hidden_dim),
            bias_axes="d",
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            dtype=self.dtype_policy,
            name="attention_output",
        )
        self._output_dense.build(input_shape)

    def _rotated(self, heads: tf.Tensor, start_index: Any) -> tf.Tensor:
        """`heads` with the first `rotary_dim` features of each rotated at positions `start_index ...`."""
        rotated = self.rotary_embedding_layer(heads[..., : self.rotary_dim], start_index=start_index)
        return tf.concat([rotated, heads[..., self.rotary_dim :]], axis=-1)

    def call(
        self,
        hidden_states: tf.Tensor,
        attention_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = None,
        training: Any = None,
    ) -> Any:
        if cache is None and cache_update_index is not None:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': `cache_update_index` should not be set if `cache` is "
                f"`None`. Received: cache=None, cache_update_index={cache_update_index}"
            )
        start_index = 0 if cache_update_index is None else cache_update_index
        size = self.attn_head_size
        query_key_value = self._qkv_dense(hidden_states)
        query = self._rotated(query_key_value[..., :size], start_index)
        if cache is not None and cache_update_index is None:
            key, value = split_cache(cache)
        else:
            key = self._rotated(query_key_value[..., size : 2 * size], start_index)
            value = query_key_value[..., 2 * size :]
            if cache is not None:
                key_cache, value_cache = split_cache(cache)
                key = update_cache(key_cache, key, cache_update_index)
                value = update_cache(value_cache, value, cache_update_index)
                cache = join_cache(key, value, like=cache)
        outputs = self._attend(query, key, value, attention_mask, training)
        shape = tf.shape(outputs)
        outputs = self._output_dense(tf.reshape(outputs, [shape[0], shape[1], self.hidden_dim]))
        return outputs if cache is None else (outputs, cache)

    def _attend(self, query: tf.Tensor, key: tf.Tensor, value: tf.Tensor, mask: Any, training: Any) -> tf.Tensor:
        """Scaled dot-product attention as KerasHub's on TensorFlow: scores, float32 masked softmax, dropout."""
        scores = tf.einsum("aecd,abcd->acbe", key, query) * tf.cast(self._inv_norm_factor, self.compute_dtype)
        scores = self._softmax(scores, mask=mask[:, None, :, :]) if mask is not None else self._softmax(scores)
        scores = self._attn_dropout_layer(tf.cast(scores, self.compute_dtype), training=training)
        return tf.einsum("acbe,aecd->abcd", scores, value)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
