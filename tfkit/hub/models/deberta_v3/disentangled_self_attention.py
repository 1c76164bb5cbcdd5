"""``DisentangledSelfAttention``: DeBERTa's attention of content and relative position, KerasHub's layout.

    attention = DisentangledSelfAttention(num_heads=12, hidden_dim=768, max_position_embeddings=512, bucket_size=256)
    out = attention(x, rel_embeddings=table, attention_mask=mask)      # (batch, length, hidden_dim)

Each score is the sum of three: content to content (query . key), content to position (query .
the key projection of the relative distance's embedding) and position to content (the query
projection of the distance's embedding . key), each divided by ``sqrt(3 * head_size)``. Distances
past ``bucket_size // 2`` fall into logarithmic buckets up to ``max_position_embeddings``.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.layers import Dropout, EinsumDense, Softmax
from tfkit.saving import register_keras_serializable


def log_bucket_positions(relative: tf.Tensor, bucket_size: int, max_position: int) -> tf.Tensor:
    """DeBERTa's buckets of relative distances: exact within `bucket_size // 2`, logarithmic beyond.

    Args:
        relative: Int tensor of distances (query position minus key position).
        bucket_size: The number of buckets on each side.
        max_position: The longest distance the logarithmic buckets reach.

    Returns:
        Int32 tensor of the same shape: the bucket of each distance.

    Example:
        >>> from tfkit.hub.models.deberta_v3.disentangled_self_attention import log_bucket_positions
        >>> log_bucket_positions(tf.range(-6, 7), bucket_size=4, max_position=16).numpy().tolist()
        [-3, -3, -3, -3, -2, -1, 0, 1, 2, 3, 3, 3, 3]
    """
    relative = tf.cast(relative, tf.int32)
    mid = bucket_size // 2
    sign = tf.sign(relative)
    absolute = tf.where((relative < mid) & (relative > -mid), tf.fill(tf.shape(relative), mid - 1), tf.abs(relative))
    scaled = tf.math.log(tf.cast(absolute, tf.float32) / float(mid)) * float(mid - 1)
    logarithmic = tf.cast(tf.math.ceil(scaled / tf.math.log(float(max_position - 1) / float(mid))), tf.int32)
    return tf.where(absolute <= mid, relative, (logarithmic + mid) * sign)


@register_keras_serializable(package="keras_hub")
class DisentangledSelfAttention(DeclaredConfig, Layer):
    """DisentangledSelfAttention layer: DeBERTa's self-attention of content and relative position.

    The query, key and value projections (`query`, `key`, `value`, with
    biases) apply to the hidden states and, for the position terms, to the
    relative embeddings; the scores add content-to-content,
    content-to-position and position-to-content terms, softmax (float32)
    over the keys the mask keeps, then `attention_output`.

    Args:
        num_heads: Integer, the number of heads.
        hidden_dim: Integer, the size of the hidden states.
        max_position_embeddings: Integer, the longest distance the
            logarithmic buckets reach. Defaults to `512`.
        bucket_size: Integer, the number of relative distance buckets on
            each side. Defaults to `256`.
        dropout: Float, the dropout rate of the relative embeddings and
            the attention weights. Defaults to `0.1`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Tensor `(batch, length, hidden_dim)`.
        rel_embeddings: Tensor `(batch, 2 * bucket_size, hidden_dim)`.
        attention_mask: Optional `(batch, length, length)`, 1 where a query
            may attend to a key.
        return_attention_scores: Whether to return the attention weights
            too. Defaults to `False`.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and `(batch, num_heads, length,
        length)` weights when `return_attention_scores`.

    Example:
        >>> from tfkit.hub.models.deberta_v3.disentangled_self_attention import DisentangledSelfAttention
        >>> attention = DisentangledSelfAttention(num_heads=2, hidden_dim=8, max_position_embeddings=16,
        ...     bucket_size=4)
        >>> attention(np.ones((1, 5, 8), "float32"), rel_embeddings=np.ones((1, 8, 8), "float32")).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        num_heads: int,
        hidden_dim: int,
        max_position_embeddings: int = 512,
        bucket_size: int = 256,
        dropout: float = 0.1,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim
        self.max_position_embeddings = max_position_embeddings
        self.bucket_size = bucket_size
        self.dropout = dropout
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.attn_head_size = hidden_dim // num_heads
        self.scale_factor = 1.0 / math.sqrt(float(3 * self.attn_head_size))  # three kinds of scores

    def _dense(self, equation: str, output_shape: tuple, bias_axes: str, name: str, input_shape: tuple) -> EinsumDense:
        dense = EinsumDense(
            equation=equation,
            output_shape=output_shape,
            bias_axes=bias_axes,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            dtype=self.dtype_policy,
            name=name,
        )
        dense.build(input_shape)
        return dense

    def build(self, inputs_shape: Any, rel_embeddings_shape: Any = None) -> None:
        shape = tuple(inputs_shape)
        heads = (None, self.num_heads, self.attn_head_size)
        self._query_dense = self._dense("abc,cde->abde", heads, "de", "query", shape)
        self._key_dense = self._dense("abc,cde->abde", heads, "de", "key", shape)
        self._value_dense = self._dense("abc,cde->abde", heads, "de", "value", shape)
        self._position_dropout_layer = Dropout(self.dropout, dtype=self.dtype_policy)
        self._attn_dropout_layer = Dropout(self.dropout, dtype=self.dtype_policy, name="attention_dropout")
        self._softmax = Softmax(axis=-1, dtype="float32", name="attention_softmax")
        self._output_dense = self._dense("abc,cd->abd", (None, self.hidden_dim), "d", "attention_output", shape)

    def _relative_positions(self, length: tf.Tensor) -> tf.Tensor:
        """The bucket of each (query, key) distance, `(length, length)`."""
        ids = tf.range(length)
        return log_bucket_positions(ids[:, None] - ids[None, :], self.bucket_size, self.max_position_embeddings)

    def _disentangled_scores(self, query: tf.Tensor, key: tf.Tensor, rel_embeddings: tf.Tensor) -> tf.Tensor:
        """The content-to-position plus position-to-content scores, `(batch, heads, length, length)`, scaled."""
        shape = tf.shape(query)
        full = [shape[0], self.num_heads, shape[1], shape[1]]
        relative = self._relative_positions(shape[1])
        span = self.bucket_size
        # content to position: each query against the key projection of its distance to each key
        c2p = tf.einsum("aecd,abcd->acbe", self._key_dense(rel_embeddings), query)
        c2p_index = tf.broadcast_to(tf.clip_by_value(relative + span, 0, 2 * span - 1), full)
        c2p = tf.gather(c2p, c2p_index, batch_dims=3) * self.scale_factor
        # position to content: each key against the query projection of the distance from each query
        p2c = tf.einsum("aecd,abcd->acbe", self._query_dense(rel_embeddings), key)
        p2c_index = tf.broadcast_to(tf.clip_by_value(-relative + span, 0, 2 * span - 1), full)
        p2c = tf.transpose(tf.gather(p2c, p2c_index, batch_dims=3), [0, 1, 3, 2]) * self.scale_factor
        return c2p + p2c

    def call(
        self,
        inputs: tf.Tensor,
        rel_embeddings: tf.Tensor,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: Any = None,
    ) -> Any:
        query, key, value = self._query_dense(inputs), self._key_dense(inputs), self._value_dense(inputs)
        scores = tf.einsum("aecd,abcd->acbe", key, query) * self.scale_factor
        rel_embeddings = self._position_dropout_layer(rel_embeddings, training=training)
        scores += self._disentangled_scores(query, key, rel_embeddings)
        mask = None if attention_mask is None else attention_mask[:, None, :, :]
        scores = self._softmax(scores, mask=mask)  # float32
        scores = self._attn_dropout_layer(tf.cast(scores, self.compute_dtype), training=training)
        outputs = tf.einsum("acbe,aecd->abcd", scores, value)
        shape = tf.shape(outputs)
        outputs = self._output_dense(tf.reshape(outputs, [shape[0], shape[1], self.hidden_dim]))
        return (outputs, scores) if return_attention_scores else outputs

    def compute_output_shape(self, inputs_shape: Any, rel_embeddings_shape: Any = None) -> Any:
        return inputs_shape
