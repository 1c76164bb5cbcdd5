"""``GatedDecoderBlock``: the pre-norm decoder block of Llama-style models (Llama, Mistral, Qwen, Qwen 3).

    class QwenTransformerDecoder(GatedDecoderBlock):
        norm_class = QwenLayerNorm
    y = decoder(x, decoder_padding_mask=mask)
    y, cache = decoder(x, self_attention_cache=cache, self_attention_cache_update_index=index)

RMS norm, causal self-attention, residual; RMS norm, gated feedforward network
(``down(up(x) * silu(gate(x)))``, no biases, the activation in float32), residual.
KerasHub writes this block once a family (``LlamaTransformerDecoder``,
``MistralTransformerDecoder``, ``QwenTransformerDecoder``, ``Qwen3TransformerDecoder``,
with the same sub-layer names); tfkit writes it here, and each family declares its norm
(``norm_class``, whose class name Keras's weight files key by) and, where it has its own,
its attention (``attention_class``).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.attention_masks import sliding_window_mask
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.grouped_query_attention import CachedGroupedQueryAttention
from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.layers.transformer_layer_utils import (
    clone_initializer,
    compute_causal_mask,
    merge_padding_and_attention_mask,
)
from tfkit.layers import Dense, Dropout


class GatedDecoderBlock(DeclaredConfig, Layer):
    """Base of the pre-norm decoder blocks with a gated feedforward network (Llama, Mistral, Qwen, Qwen 3).

    A subclass declares `norm_class` (its RMS norm) and may declare
    `attention_class` (a `CachedGroupedQueryAttention` subclass) and extend
    `_attention_arguments`; `build` makes the sub-layers under KerasHub's
    attribute names.

    Args:
        intermediate_dim: Integer, the hidden size of the feedforward network.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        head_dim: Integer, the size of each attention head; `None` (the
            default) means `hidden_dim // num_query_heads`.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: Float, the rotary embedding's position scaling.
            Defaults to `1.0`.
        activation: The activation of the gate. Defaults to `"silu"`.
        layer_norm_epsilon: Float, the RMS norms' epsilon. Defaults to
            `1e-5`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        dropout: Float, the dropout rate. Defaults to `0`.
        sliding_window: Integer or `None`: each token attends to itself and
            the `sliding_window - 1` tokens before it (Mistral's causal
            band, applied by this block's mask). Defaults to `None`.
        attention_window: Integer or `None`, a two-sided window the
            attention applies (Qwen's). Defaults to `None`.
        attention_bias: Whether the query, key and value projections have
            biases (Qwen's). Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        decoder_sequence: Tensor `(batch, length, hidden_dim)`.
        decoder_padding_mask: Optional `(batch, length)`, 1 for real tokens.
        decoder_attention_mask: Optional `(batch, length, length)`.
        self_attention_cache: Optional `(batch, 2, max_length,
            num_key_value_heads, head_dim)` key/value cache.
        self_attention_cache_update_index: Where the new steps go in the
            cache (the position of `decoder_sequence[:, 0]`).
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.mistral.mistral_transformer_decoder import MistralTransformerDecoder
        >>> decoder = MistralTransformerDecoder(intermediate_dim=16, num_query_heads=2, num_key_value_heads=1,
        ...     sliding_window=2)
        >>> decoder(np.ones((1, 4, 8), "float32")).shape
        TensorShape([1, 4, 8])
    """

    norm_class: type[Layer]
    attention_class: type[CachedGroupedQueryAttention] = CachedGroupedQueryAttention

    def __init__(
        self,
        intermediate_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        head_dim: int | None = None,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        activation: Any = "silu",
        layer_norm_epsilon: float = 1e-5,
        kernel_initializer: Any = "glorot_uniform",
        dropout: float = 0,
        sliding_window: int | None = None,
        attention_window: int | None = None,
        attention_bias: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.intermediate_dim = intermediate_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = head_dim
        self.rope_max_wavelength = rope_max_wavelength
        self.rope_scaling_factor = rope_scaling_factor
        self.dropout = dropout
        self.activation = activations.get(activation)
        self.layer_norm_epsilon = layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.sliding_window = sliding_window
        self.attention_window = attention_window
        self.attention_bias = attention_bias
        self.supports_masking = True

    def _attention_arguments(self) -> dict[str, Any]:
        """The arguments of `attention_class` (a subclass adds its own to these)."""
        return {
            "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "head_dim": self.head_dim,
            "rope_max_wavelength": self.rope_max_wavelength,
            "rope_scaling_factor": self.rope_scaling_factor,
            "kernel_initializer": clone_initializer(self.kernel_initializer),
            "use_bias": self.attention_bias,
            "dropout": self.dropout,
            "attention_window": self.attention_window,
        }

    def _make_norm(self, name: str) -> Layer:
        return self.norm_class(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)

    def _dense(self, units: int, name: str, input_shape: tuple) -> Dense:
        dense = Dense(
            units,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            use_bias=False,
            dtype=self.dtype_policy,
            name=name,
        )
        dense.build(input_shape)
        return dense

    def build(self, decoder_sequence_shape: Any) -> None:
        shape = tuple(decoder_sequence_shape)
        self._decoder_sequence_shape = shape
        self.hidden_dim = shape[-1]
        self._self_attention_layer = self.attention_class(
            **self._attention_arguments(), dtype=self.dtype_policy, name="self_attention"
        )
        self._self_attention_layer.build(shape)
        self._self_attention_layernorm = self._make_norm("self_attention_layernorm")
        self._self_attention_layernorm.build(shape)
        self._self_attention_dropout = Dropout(
            rate=self.dropout, dtype=self.dtype_policy, name="self_attention_dropout"
        )
        self._build_feedforward(shape)
        self._feedforward_layernorm = self._make_norm("feedforward_layernorm")
        self._feedforward_layernorm.build(shape)

    def _build_feedforward(self, shape: tuple) -> None:
        """Makes the gated feedforward network's three kernels (a hook: Mixtral's experts replace them)."""
        self._feedforward_intermediate_dense = self._dense(
            self.intermediate_dim, "feedforward_intermediate_dense", shape
        )
        self._feedforward_gate_dense = self._dense(self.intermediate_dim, "feedforward_gate_dense", shape)
        self._feedforward_output_dense = self._dense(
            self.hidden_dim, "feedforward_output_dense", shape[:-1] + (self.intermediate_dim,)
        )

    def _feedforward(self, x: tf.Tensor, padding_mask: Any, training: Any) -> tuple[tf.Tensor, tuple]:
        """The feedforward network of the normalized `x`, and the extra outputs the block returns (a hook).

        Returns:
            `down(up(x) * silu(gate(x)))` (the activation in float32) and no
            extra outputs; Mixtral's experts return their router logits when
            the block is asked for them.
        """
        gate = tf.cast(self.activation(tf.cast(self._feedforward_gate_dense(x), tf.float32)), self.compute_dtype)
        return self._feedforward_output_dense(self._feedforward_intermediate_dense(x) * gate), ()

    def call(
        self,
        decoder_sequence: tf.Tensor,
        decoder_padding_mask: Any = None,
        decoder_attention_mask: Any = None,
        self_attention_cache: Any = None,
        self_attention_cache_update_index: Any = None,
        training: Any = None,
    ) -> Any:
        mask = self._compute_self_attention_mask(
            decoder_sequence,
            decoder_padding_mask,
            decoder_attention_mask,
            self_attention_cache,
            self_attention_cache_update_index,
        )
        residual = decoder_sequence
        x = self._self_attention_layer(
            hidden_states=self._self_attention_layernorm(decoder_sequence),
            attention_mask=mask,
            cache=self_attention_cache,
            cache_update_index=self_attention_cache_update_index,
        )
        if self_attention_cache is not None:
            x, self_attention_cache = x
        x = self._self_attention_dropout(x, training=training) + residual
        feedforward, extra_outputs = self._feedforward(self._feedforward_layernorm(x), decoder_padding_mask, training)
        outputs = (feedforward + x,) + (() if self_attention_cache is None else (self_attention_cache,)) + extra_outputs
        return outputs[0] if len(outputs) == 1 else outputs

    def _compute_self_attention_mask(
        self,
        decoder_sequence: tf.Tensor,
        decoder_padding_mask: Any,
        decoder_attention_mask: Any,
        self_attention_cache: Any,
        self_attention_cache_update_index: Any,
    ) -> tf.Tensor:
        """The causal mask (narrowed to `sliding_window`) merged with the padding and custom masks, int32."""
        decoder_mask = merge_padding_and_attention_mask(decoder_sequence, decoder_padding_mask, decoder_attention_mask)
        shape = tf.shape(decoder_sequence)
        batch_size, output_length = shape[0], shape[1]
        input_length = output_length if self_attention_cache is None else cache_length(self_attention_cache)
        index = 0 if self_attention_cache_update_index is None else self_attention_cache_update_index
        causal_mask = compute_causal_mask(batch_size, input_length, output_length, index)
        window = self._mask_window()
        if window is not None:
            causal_mask = tf.logical_and(causal_mask, sliding_window_mask(output_length, input_length, window, index))
        causal_mask = tf.cast(causal_mask, tf.int32)
        return causal_mask if decoder_mask is None else tf.minimum(decoder_mask, causal_mask)

    def _mask_window(self) -> int | None:
        """The causal band this block's mask applies: `sliding_window` (a hook: GPT-OSS's attention applies its
        own window, so its block applies none)."""
        return self.sliding_window

    # masks never change the output's shape: a symbolic call infers it instead of tracing the block
    _shape_free_call_arguments = ("decoder_padding_mask", "decoder_attention_mask")

    def compute_output_shape(self, decoder_sequence_shape: Any) -> Any:
        return decoder_sequence_shape
