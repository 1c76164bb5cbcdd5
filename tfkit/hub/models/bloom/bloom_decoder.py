"""``BloomDecoder``: Bloom's pre-norm block, ALiBi self-attention then a tanh-GELU feedforward network.

block = BloomDecoder(num_heads=4, intermediate_dim=64)
y = block(x, decoder_padding_mask=mask)
y, cache = block(step, cache=cache, cache_update_index=index)        # Bloom's blocks name the cache so
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers, layers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.layers.transformer_layer_utils import (
    clone_initializer,
    compute_causal_mask,
    merge_padding_and_attention_mask,
)
from tfkit.hub.models.bloom.bloom_attention import BloomAttention
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BloomDecoder(DeclaredConfig, Layer):
    """A Bloom decoder block: `x + attention(norm(x))`, then `x + feedforward(norm'(x))`.

    Sub-layers under KerasHub's names (`_pre_attention_layernorm`,
    `_self_attention_layer`, `_post_attention_layernorm`,
    `_mlp_intermediate_dense`, `_mlp_output_dense`, `_dropout_layer`).

    Args:
        num_heads: The number of attention heads (it divides the hidden size).
        intermediate_dim: The size of the feedforward network's hidden layer.
        dropout: The dropout rate. Defaults to `0.0`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-5`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        decoder_sequence: `(batch, length, hidden_dim)`.
        decoder_padding_mask: Optional `(batch, length)` padding mask.
        decoder_attention_mask: Optional `(batch, length, length)` mask.
        cache: Optional cache of this block's keys and values.
        cache_update_index: The position of the first step.
        use_causal_mask: Whether queries see only earlier keys. Defaults to
            `True`.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Raises:
        ValueError: If `num_heads` does not divide the hidden size.

    Example:
        >>> from tfkit.hub.models.bloom.bloom_decoder import BloomDecoder
        >>> BloomDecoder(num_heads=2, intermediate_dim=16)(np.ones((1, 3, 8), "float32")).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        num_heads: int,
        intermediate_dim: int,
        dropout: float = 0.0,
        layer_norm_epsilon: float = 1e-5,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.intermediate_dim = intermediate_dim
        self.dropout = dropout
        self.layer_norm_epsilon = layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def build(self, decoder_sequence_shape: Any) -> None:
        """Makes and builds the norms, the attention and the feedforward network (KerasHub's order)."""
        shape = tuple(decoder_sequence_shape)
        hidden_dim = shape[-1]
        if hidden_dim % self.num_heads:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': the hidden size {hidden_dim} must be divisible by "
                f"num_heads={self.num_heads}"
            )

        def initialized() -> dict[str, Any]:
            return {
                "kernel_initializer": clone_initializer(self.kernel_initializer),
                "bias_initializer": clone_initializer(self.bias_initializer),
                "dtype": self.dtype_policy,
            }

        self._pre_attention_layernorm = self._norm("pre_attention_layernorm", shape)
        self._self_attention_layer = BloomAttention(
            num_heads=self.num_heads, dropout=self.dropout, name="self_attention", **initialized()
        )
        self._self_attention_layer.build(shape)
        self._post_attention_layernorm = self._norm("post_attention_layernorm", shape)
        self._mlp_intermediate_dense = layers.Dense(
            self.intermediate_dim, name="mlp_intermediate_dense", **initialized()
        )
        self._mlp_intermediate_dense.build(shape)
        self._mlp_output_dense = layers.Dense(hidden_dim, name="mlp_output_dense", **initialized())
        self._mlp_output_dense.build(shape[:-1] + (self.intermediate_dim,))
        self._dropout_layer = layers.Dropout(rate=self.dropout, dtype=self.dtype_policy, name="dropout")

    def _norm(self, name: str, shape: tuple) -> Layer:
        norm = layers.LayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)
        norm.build(shape)
        return norm

    def call(
        self,
        decoder_sequence: tf.Tensor,
        decoder_padding_mask: Any = None,
        decoder_attention_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = None,
        use_causal_mask: bool = True,
    ) -> Any:
        mask = merge_padding_and_attention_mask(decoder_sequence, decoder_padding_mask, decoder_attention_mask)
        if use_causal_mask:
            batch, length = tf.shape(decoder_sequence)[0], tf.shape(decoder_sequence)[1]
            key_length = length if cache is None else cache_length(cache)
            index = 0 if cache_update_index is None else cache_update_index
            causal = tf.cast(compute_causal_mask(batch, key_length, length, index), tf.int32)
            mask = causal if mask is None else tf.minimum(mask, causal)
        attended = self._self_attention_layer(
            self._pre_attention_layernorm(decoder_sequence),
            attention_mask=mask,
            cache=cache,
            cache_update_index=cache_update_index,
        )
        if cache is not None:
            attended, cache = attended
        x = attended + decoder_sequence
        fed = gelu_approximate(self._mlp_intermediate_dense(self._post_attention_layernorm(x)))
        x = self._dropout_layer(self._mlp_output_dense(fed)) + x
        return x if cache is None else (x, cache)

    def compute_output_shape(self, decoder_sequence_shape: Any) -> Any:
        return decoder_sequence_shape
