"""``GPTNeoXDecoder``: GPT-NeoX's block, attention and feedforward side by side on the same input (parallel residual).

block = GPTNeoXDecoder(intermediate_dim=64, num_heads=4)
y = block(x, decoder_padding_mask=mask)            # x + attention(norm_1(x)) + feedforward(norm_2(x))
y, cache = block(step, self_attention_cache=cache, self_attention_cache_update_index=index)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers, layers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.layers.transformer_layer_utils import (
    clone_initializer,
    compute_causal_mask,
    merge_padding_and_attention_mask,
)
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_attention import GPTNeoXAttention
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GPTNeoXDecoder(DeclaredConfig, Layer):
    """A GPT-NeoX decoder block: causal self-attention and a feedforward network in parallel.

    Both branches read the block's input through their own layer norm, and
    their outputs are added to the input: `x + attention(norm(x)) +
    feedforward(norm'(x))`. Sub-layers under KerasHub's names
    (`_self_attention_layer`, `_self_attention_layer_norm`,
    `_feedforward_intermediate_dense`, `_feedforward_output_dense`,
    `_feedforward_layer_norm` and the dropouts).

    Args:
        intermediate_dim: The size of the feedforward network's hidden layer.
        num_heads: The number of attention heads.
        dropout: The dropout rate. Defaults to `0.0`.
        activation: The feedforward activation. Defaults to `"relu"`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-5`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        rotary_percentage: The rotated part of each query and key head.
            Defaults to `0.25`.
        rotary_max_wavelength: The rotary embedding's longest wavelength.
            Defaults to `10000`.
        max_sequence_length: The longest sequence. Defaults to `512`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        decoder_sequence: `(batch, length, hidden_dim)`.
        decoder_padding_mask: Optional `(batch, length)` padding mask.
        decoder_attention_mask: Optional `(batch, length, length)` mask.
        self_attention_cache: Optional cache of this block's keys and values.
        self_attention_cache_update_index: The position of the first step.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.gpt_neo_x.gpt_neo_x_decoder import GPTNeoXDecoder
        >>> GPTNeoXDecoder(intermediate_dim=16, num_heads=2)(np.ones((1, 3, 16), "float32")).shape
        TensorShape([1, 3, 16])
    """

    def __init__(
        self,
        intermediate_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        activation: Any = "relu",
        layer_norm_epsilon: float = 1e-5,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        rotary_percentage: float = 0.25,
        rotary_max_wavelength: int = 10000,
        max_sequence_length: int = 512,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.intermediate_dim = intermediate_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.activation = activations.get(activation)
        self.layer_norm_epsilon = layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.rotary_percentage = rotary_percentage
        self.rotary_max_wavelength = rotary_max_wavelength
        self.max_sequence_length = max_sequence_length
        self.supports_masking = True

    def build(self, decoder_sequence_shape: Any) -> None:
        """Makes and builds the attention, the norms, the feedforward network and the dropouts (KerasHub's order)."""
        shape = tuple(decoder_sequence_shape)
        hidden_dim = shape[-1]

        def initialized() -> dict[str, Any]:
            return {
                "kernel_initializer": clone_initializer(self.kernel_initializer),
                "bias_initializer": clone_initializer(self.bias_initializer),
                "dtype": self.dtype_policy,
            }

        self._self_attention_layer = GPTNeoXAttention(
            num_heads=self.num_heads,
            hidden_dim=hidden_dim,
            dropout=self.dropout,
            rotary_percentage=self.rotary_percentage,
            rotary_max_wavelength=self.rotary_max_wavelength,
            max_sequence_length=self.max_sequence_length,
            name="self_attention",
            **initialized(),
        )
        self._self_attention_layer.build(shape)
        self._self_attention_layer_norm = self._norm("self_attention_layer_norm", shape)
        self._self_attention_dropout = layers.Dropout(
            self.dropout, dtype=self.dtype_policy, name="self_attention_dropout"
        )
        self._feedforward_intermediate_dense = layers.Dense(
            self.intermediate_dim, activation=self.activation, name="feedforward_intermediate_dense", **initialized()
        )
        self._feedforward_intermediate_dense.build(shape)
        self._feedforward_output_dense = layers.Dense(hidden_dim, name="feedforward_output_dense", **initialized())
        self._feedforward_output_dense.build(shape[:-1] + (self.intermediate_dim,))
        self._feedforward_layer_norm = self._norm("feedforward_layer_norm", shape)
        self._feedforward_dropout = layers.Dropout(self.dropout, dtype=self.dtype_policy, name="feedforward_dropout")

    def _norm(self, name: str, shape: tuple) -> Layer:
        norm = layers.LayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)
        norm.build(shape)
        return norm

    def call(
        self,
        decoder_sequence: tf.Tensor,
        decoder_padding_mask: Any = None,
        decoder_attention_mask: Any = None,
        self_attention_cache: Any = None,
        self_attention_cache_update_index: Any = None,
    ) -> Any:
        mask = merge_padding_and_attention_mask(decoder_sequence, decoder_padding_mask, decoder_attention_mask)
        batch, length = tf.shape(decoder_sequence)[0], tf.shape(decoder_sequence)[1]
        key_length = length if self_attention_cache is None else cache_length(self_attention_cache)
        index = 0 if self_attention_cache_update_index is None else self_attention_cache_update_index
        causal = tf.cast(compute_causal_mask(batch, key_length, length, index), tf.int32)
        mask = causal if mask is None else tf.minimum(mask, causal)
        attended = self._self_attention_layer(
            self._self_attention_layer_norm(decoder_sequence),
            attention_mask=mask,
            cache=self_attention_cache,
            cache_update_index=self_attention_cache_update_index,
        )
        if self_attention_cache is not None:
            attended, self_attention_cache = attended
        attended = self._self_attention_dropout(attended)
        fed = self._feedforward_output_dense(
            self._feedforward_intermediate_dense(self._feedforward_layer_norm(decoder_sequence))
        )
        x = fed + attended + decoder_sequence
        return x if self_attention_cache is None else (x, self_attention_cache)

    def compute_output_shape(self, decoder_sequence_shape: Any) -> Any:
        return decoder_sequence_shape
