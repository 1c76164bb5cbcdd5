"""``Qwen3Attention``: Qwen 3's grouped-query self-attention (RMS norms of queries and keys, optional window)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.hub.models.qwen3.qwen3_layernorm import Qwen3LayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3Attention(CachedGroupedQueryAttention):
    """A multi-head attention layer for Qwen 3 models.

    Grouped-query attention without biases; each query and key head is
    RMS-normalized (`_query_dense_layer_norm`, `_key_dense_layer_norm`)
    before the rotary position embedding. With `sliding_window_size`, a query
    attends to the keys less than that many positions away. KerasHub's
    config leaves out `head_dim` and `layer_norm_epsilon`; tfkit's keeps them.

    Args:
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        head_dim: Integer, the size of each head; `None` means
            `hidden_dim // num_query_heads`.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: Float, the rotary embedding's position scaling.
            Defaults to `1`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        dropout: Float, the dropout rate of the attention output. Defaults
            to `0.0`.
        layer_norm_epsilon: Float, the query and key norms' epsilon.
            Defaults to `1e-5`.
        sliding_window_size: Integer, the attention window, or `None` (the
            default) for none.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: Tensor `(batch, length, hidden_dim)`.
        attention_mask: Optional `(batch, length, key_length)` mask.
        cache: Optional `(batch, 2, max_length, num_key_value_heads,
            head_dim)` key/value cache.
        cache_update_index: Where the new keys and values go in `cache`.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.qwen3.qwen3_attention import Qwen3Attention
        >>> attention = Qwen3Attention(num_query_heads=4, num_key_value_heads=2, head_dim=6)
        >>> attention(np.ones((1, 3, 8), "float32")).shape
        TensorShape([1, 3, 8])
        >>> tuple(attention._query_dense_layer_norm.scale.shape)
        (6,)
    """

    def __init__(
        self,
        num_query_heads: int,
        num_key_value_heads: int,
        head_dim: int | None,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1,
        kernel_initializer: Any = "glorot_uniform",
        dropout: float = 0.0,
        layer_norm_epsilon: float = 1e-5,
        sliding_window_size: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = head_dim
        self.dropout = dropout
        self.layer_norm_epsilon = layer_norm_epsilon
        self.num_key_value_groups = num_query_heads // num_key_value_heads
        self.rope_max_wavelength = rope_max_wavelength
        self.kernel_initializer = initializers.get(clone_initializer(kernel_initializer))
        self.rope_scaling_factor = rope_scaling_factor
        self.sliding_window_size = sliding_window_size

    def build(self, inputs_shape: Any) -> None:
        if not self.head_dim:
            self.head_dim = inputs_shape[-1] // self.num_query_heads
        self._build_attention(
            inputs_shape,
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            head_dim=self.head_dim,
            kernel_initializer=self.kernel_initializer,
            bias_initializer="zeros",
            use_bias=False,
            dropout=self.dropout,
            rope_max_wavelength=self.rope_max_wavelength,
            rope_scaling_factor=self.rope_scaling_factor,
            make_head_norm=lambda name: self._head_norm(name, inputs_shape),
        )

    def _head_norm(self, name: str, inputs_shape: Any) -> Qwen3LayerNorm:
        norm = Qwen3LayerNorm(
            epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, head_dim=self.head_dim, name=name
        )
        norm.build(inputs_shape)
        return norm

    def _query_heads(self, projected: tf.Tensor, start_index: Any) -> tf.Tensor:
        return self.rotary_embedding_layer(self._query_dense_layer_norm(projected), start_index=start_index)

    def _key_heads(self, projected: tf.Tensor, start_index: Any) -> tf.Tensor:
        return self.rotary_embedding_layer(self._key_dense_layer_norm(projected), start_index=start_index)

    def _attention_window(self) -> int | None:
        return self.sliding_window_size or None

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            head_dim=self.head_dim,
            rope_max_wavelength=self.rope_max_wavelength,
            rope_scaling_factor=self.rope_scaling_factor,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            dropout=self.dropout,
            layer_norm_epsilon=self.layer_norm_epsilon,
            sliding_window_size=self.sliding_window_size,
        )
        return config
