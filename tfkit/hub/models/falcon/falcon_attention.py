"""``FalconAttention``: Falcon-RW's multi-head self-attention, ALiBi added before the scaling, with a cache.

attention = FalconAttention(num_heads=4, attention_dropout_rate=0.0)
out = attention(x, alibi=alibi, attention_mask=mask)          # alibi: (batch, heads, 1, key_length)
out, cache = attention(step, alibi=alibi, attention_mask=mask, cache=cache, cache_update_index=index)
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.kv_cache import join_cache, split_cache, update_cache
from tfkit.layers import Dense, Dropout, EinsumDense, Softmax
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class FalconAttention(DeclaredConfig, Layer):
    """Falcon's self-attention: query, key and value projections with biases, `(scores + alibi) / sqrt(head_dim)`.

    Sub-layers under KerasHub's attribute and layer names: `query_dense`,
    `key_dense`, `value_dense`, `attention_dropout`, `output_dense`,
    `softmax` (float32).

    Args:
        num_heads: The number of attention heads.
        attention_dropout_rate: The dropout rate of the attention weights.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(batch, length, hidden_dim)`.
        alibi: `(batch, num_heads, 1, key_length)` biases of the keys.
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
        >>> from tfkit.hub.models.falcon.falcon_attention import FalconAttention
        >>> attention = FalconAttention(num_heads=2, attention_dropout_rate=0.0)
        >>> attention(np.ones((1, 3, 8), "float32"), alibi=tf.zeros((1, 2, 1, 3)),
        ...     attention_mask=np.ones((1, 3, 3))).shape
        TensorShape([1, 3, 8])
    """

    def __init__(self, num_heads: int, attention_dropout_rate: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.attention_dropout_rate = attention_dropout_rate

    def build(self, inputs_shape: Any) -> None:
        """Makes and builds the projections, the dropout and the softmax (KerasHub's names and order)."""
        inputs_shape = tuple(inputs_shape)
        hidden_dim = inputs_shape[-1]
        self.head_dim = hidden_dim // self.num_heads
        self.inv_norm_factor = 1.0 / math.sqrt(self.head_dim)
        for attribute, equation in (("query", "bqm,mnh->bqnh"), ("key", "bkm,mnh->bknh"), ("value", "bkm,mnh->bknh")):
            dense = EinsumDense(
                equation=equation,
                output_shape=(None, self.num_heads, self.head_dim),
                bias_axes="nh",
                dtype=self.dtype_policy,
                name=f"{attribute}_dense",
            )
            dense.build(inputs_shape)
            setattr(self, f"{attribute}_dense", dense)
        self.attention_dropout = Dropout(self.attention_dropout_rate, dtype=self.dtype_policy, name="attention_dropout")
        self.output_dense = Dense(hidden_dim, dtype=self.dtype_policy, name="output_dense")
        self.output_dense.build(inputs_shape)
        self.softmax = Softmax(dtype="float32", name="softmax")

    def call(
        self,
        inputs: tf.Tensor,
        alibi: tf.Tensor,
        attention_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = None,
    ) -> Any:
        if cache is None and cache_update_index is not None:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': `cache_update_index` should not be set if `cache` is "
                f"`None`. Received: cache=None, cache_update_index={cache_update_index}"
            )
        query = self.query_dense(inputs)
        if cache is not None and cache_update_index is None:
            key, value = split_cache(cache)
        else:
            key, value = self.key_dense(inputs), self.value_dense(inputs)
            if cache is not None:
                key_cache, value_cache = split_cache(cache)
                key = update_cache(key_cache, key, cache_update_index)
                value = update_cache(value_cache, value, cache_update_index)
                cache = join_cache(key, value, like=cache)
        scores = (tf.einsum("bqnh,bknh->bnqk", query, key) + alibi) * tf.cast(self.inv_norm_factor, self.compute_dtype)
        scores = self.softmax(scores, mask=None if attention_mask is None else attention_mask[:, None, :, :])
        scores = self.attention_dropout(tf.cast(scores, self.compute_dtype))
        outputs = tf.einsum("bnqk,bknh->bqnh", scores, value)
        shape = tf.shape(outputs)
        outputs = self.output_dense(tf.reshape(outputs, [shape[0], shape[1], self.num_heads * self.head_dim]))
        return outputs if cache is None else (outputs, cache)
