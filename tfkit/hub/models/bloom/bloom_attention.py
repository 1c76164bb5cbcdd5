"""``BloomAttention``: Bloom's multi-head self-attention with ALiBi distance biases and a key/value cache.

    attention = BloomAttention(num_heads=4)
    out = attention(x, attention_mask=mask)                                        # (batch, length, hidden)
    out, cache = attention(step, attention_mask=mask, cache=cache, cache_update_index=index)

No position enters the queries or keys: each head's scores get a penalty linear
in the key's distance (``tfkit.hub.layers.AlibiBias``), so cached keys need no
rotation and the bias of a key depends only on its position.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.alibi_bias import AlibiBias
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.layers import Dense, Dropout, EinsumDense, Softmax
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BloomAttention(DeclaredConfig, Layer):
    """Bloom's self-attention: query, key and value projections with biases, ALiBi, a float32 softmax.

    Sub-layers under KerasHub's attribute and layer names: `_query_dense`
    ("query_dense"), `_key_dense`, `_value_dense`, `_alibi_layer`,
    `_output_dense` ("output_dense"), `_dropout_layer` (applied to the
    attention weights and to the output, as KerasHub does) and `_softmax`.

    Args:
        num_heads: The number of attention heads.
        dropout: The dropout rate. Defaults to `0.0`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(batch, length, hidden_dim)`.
        attention_mask: `(batch, length, key_length)` mask, 1 where a query
            may attend to a key.
        cache: Optional `(batch, 2, max_length, num_heads, head_dim)` keys and
            values, or a `(keys, values)` pair.
        cache_update_index: Where the step's keys and values go in `cache`;
            `None` reads the cache as it is.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Raises:
        ValueError: If `cache_update_index` is given without a `cache`.

    Example:
        >>> from tfkit.hub.models.bloom.bloom_attention import BloomAttention
        >>> attention = BloomAttention(num_heads=2)
        >>> out, cache = attention(np.ones((1, 3, 8), "float32"), attention_mask=np.ones((1, 3, 5)),
        ...     cache=tf.zeros((1, 2, 5, 2, 4)), cache_update_index=0)
        >>> out.shape, cache.shape
        (TensorShape([1, 3, 8]), TensorShape([1, 2, 5, 2, 4]))
    """

    def __init__(
        self,
        num_heads: int,
        dropout: float = 0.0,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.dropout = dropout
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def build(self, inputs_shape: Any) -> None:
        """Makes and builds the projections, the ALiBi bias, the dropout and the softmax (KerasHub's order)."""
        inputs_shape = tuple(inputs_shape)
        hidden_dim = inputs_shape[-1]
        self.head_dim = hidden_dim // self.num_heads
        self.inv_norm_factor = 1.0 / math.sqrt(self.head_dim)
        initialized = {
            "kernel_initializer": clone_initializer(self.kernel_initializer),
            "bias_initializer": clone_initializer(self.bias_initializer),
            "dtype": self.dtype_policy,
        }
        for attribute, equation in (("query", "btm,mnh->btnh"), ("key", "bsm,mnh->bsnh"), ("value", "bsm,mnh->bsnh")):
            dense = EinsumDense(
                equation=equation,
                output_shape=(None, self.num_heads, self.head_dim),
                bias_axes="nh",
                name=f"{attribute}_dense",
                **initialized,
            )
            dense.build(inputs_shape)
            setattr(self, f"_{attribute}_dense", dense)
        self._alibi_layer = AlibiBias(dtype=self.dtype_policy)
        self._output_dense = Dense(hidden_dim, name="output_dense", **initialized)
        self._output_dense.build(inputs_shape)
        self._dropout_layer = Dropout(rate=self.dropout, dtype=self.dtype_policy, name="dropout")
        self._softmax = Softmax(dtype="float32", name="softmax")

    def call(
        self, hidden_states: tf.Tensor, attention_mask: Any = None, cache: Any = None, cache_update_index: Any = None
    ) -> Any:
        if cache is None and cache_update_index is not None:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': `cache_update_index` should not be set if `cache` is "
                f"`None`. Received: cache=None, cache_update_index={cache_update_index}"
            )
        query = self._query_dense(hidden_states)
        if cache is not None and cache_update_index is None:
            key, value = split_cache(cache)
        else:
            key, value = self._key_dense(hidden_states), self._value_dense(hidden_states)
            if cache is not None:
                key_cache, value_cache = split_cache(cache)
                key = update_cache(key_cache, key, cache_update_index)
                value = update_cache(value_cache, value, cache_update_index)
                cache = join_cache(key, value, like=cache)
        scores = tf.einsum("btnh,bsnh->bnts", query, key) * self.inv_norm_factor
        scores = self._alibi_layer(scores)
        scores = self._softmax(scores, mask=None if attention_mask is None else attention_mask[:, None, :, :])
        scores = self._dropout_layer(tf.cast(scores, self.compute_dtype))
        outputs = tf.einsum("bnts,bsnh->btnh", scores, value)
        shape = tf.shape(outputs)
        outputs = tf.reshape(outputs, [shape[0], shape[1], self.num_heads * self.head_dim])
        outputs = self._dropout_layer(self._output_dense(outputs))
        return outputs if cache is None else (outputs, cache)
