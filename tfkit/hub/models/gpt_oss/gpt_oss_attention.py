"""``GptOssAttention``: GPT-OSS's grouped-query attention: biases, YaRN rotary, a sliding window and sink logits.

Each head has a learned *sink*: one more logit in its softmax that takes probability
mass and no value, so a head may attend to nothing. The window is GPT-OSS's own: a
token sees the ``sliding_window`` tokens before it and itself (``None`` or ``0``: all
before it), applied in the attention as KerasHub applies it.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.saving import register_keras_serializable

_MASKED = -1e9  # KerasHub's score of a masked position (float32)


@register_keras_serializable(package="keras_hub")
class GptOssAttention(CachedGroupedQueryAttention):
    """A cached attention layer with sliding window and sink tokens.

    Queries, keys and values are projected with biases, queries and keys
    rotated by YaRN rotary embeddings (KerasHub's settings: `beta_fast=32`,
    `beta_slow=1`, 4096 original positions, no truncation) and attended
    with a per-head learned sink logit in the softmax. The sub-layers have
    KerasHub's attribute names (`query_dense`, `key_dense`, `value_dense`,
    `output_dense`, `dropout_layer`, `rotary_embedding_layer`).

    Args:
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: Float, YaRN's scaling factor. Defaults to `1.0`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        sliding_window: Integer or `None`: each token attends to itself and
            the `sliding_window` tokens before it. Defaults to `4096`.
        dropout: Float, the dropout rate of the attention output. Defaults to
            `0`.
        head_dim: Integer, the size of each head; `None` (the default) means
            `hidden_dim // num_query_heads`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: Tensor `(batch, length, hidden_dim)`.
        attention_mask: Optional `(batch, length, key_length)` mask.
        cache: Optional `(batch, 2, max_length, num_key_value_heads,
            head_dim)` keys and values.
        cache_update_index: Where the new keys and values go in `cache`.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.gpt_oss.gpt_oss_attention import GptOssAttention
        >>> attention = GptOssAttention(num_query_heads=4, num_key_value_heads=2, sliding_window=2)
        >>> attention(np.ones((1, 3, 8), "float32")).shape, attention.sinks.shape
        (TensorShape([1, 3, 8]), TensorShape([4]))
    """

    output_bias = True
    _query_dense = StoredAs("query_dense")
    _key_dense = StoredAs("key_dense")
    _value_dense = StoredAs("value_dense")
    _output_dense = StoredAs("output_dense")
    _dropout_layer = StoredAs("dropout_layer")

    def __init__(
        self,
        num_query_heads: int,
        num_key_value_heads: int,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        kernel_initializer: Any = "glorot_uniform",
        sliding_window: int | None = 4096,
        dropout: float = 0,
        head_dim: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            num_query_heads,
            num_key_value_heads,
            head_dim=head_dim,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_scaling_factor,
            kernel_initializer=kernel_initializer,
            use_bias=True,
            dropout=dropout,
            **kwargs,
        )
        self.sliding_window = sliding_window

    def build(self, inputs_shape: Any) -> None:
        self.sinks = self.add_weight(name="sinks", shape=(self.num_query_heads,), initializer="random_normal")
        super().build(inputs_shape)
        self._rotary_dim = (self.head_dim // 2) * 2  # an odd head size keeps its last feature unrotated

    def _make_rotary_embedding(self) -> Layer:
        return RotaryEmbedding(
            max_wavelength=self.rope_max_wavelength,
            scaling_factor=self.rope_scaling_factor,
            rope_type="yarn",
            beta_fast=32.0,
            beta_slow=1.0,
            original_max_position_embeddings=4096,
            truncate=False,
            dtype=self.dtype_policy,
        )

    def _rotated(self, projected: tf.Tensor, start_index: Any) -> tf.Tensor:
        if self._rotary_dim == self.head_dim:
            return self.rotary_embedding_layer(projected, start_index=start_index)
        rotated = self.rotary_embedding_layer(projected[..., : self._rotary_dim], start_index=start_index)
        return tf.concat([rotated, projected[..., self._rotary_dim :]], axis=-1)

    _query_heads = _rotated
    _key_heads = _rotated

    def _windowed(self, attention_mask: Any, query: tf.Tensor, key: tf.Tensor, cache_update_index: Any) -> Any:
        """The mask narrowed to the `sliding_window` keys before each query, and the query's own."""
        if not self.sliding_window:
            return attention_mask
        start = 0 if cache_update_index is None else cache_update_index
        query_positions = tf.range(tf.shape(query)[1]) + tf.cast(start, tf.int32)
        band = tf.range(tf.shape(key)[1])[None, :] >= query_positions[:, None] - self.sliding_window
        if attention_mask is None:
            return tf.cast(band, tf.int32)[None]
        return tf.cast(band[None], attention_mask.dtype) * attention_mask

    def _attention_weights(self, scores: tf.Tensor, attention_mask: Any) -> tf.Tensor:
        """The softmax over the kept keys and the head's sink logit, the sink's share dropped."""
        if attention_mask is not None:
            scores = tf.where(tf.cast(attention_mask, tf.bool)[:, None], scores, tf.cast(_MASKED, scores.dtype))
        shape = tf.shape(scores)
        sinks = tf.broadcast_to(
            tf.reshape(tf.cast(self.sinks, scores.dtype), [1, -1, 1, 1]), tf.concat([shape[:3], [1]], 0)
        )
        logits = tf.concat([scores, sinks], axis=-1)
        logits = logits - tf.stop_gradient(tf.reduce_max(logits, axis=-1, keepdims=True))
        return tf.nn.softmax(logits, axis=-1)[..., :-1]
