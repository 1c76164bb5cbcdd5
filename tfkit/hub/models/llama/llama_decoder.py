"""``LlamaTransformerDecoder``: one Llama block: RMSNorm, grouped-query attention, RMSNorm, gated SiLU MLP.

    block = LlamaTransformerDecoder(intermediate_dim=14336, num_query_heads=32, num_key_value_heads=8)
    y = block(x, decoder_padding_mask=mask)                                      # causal self-attention
    y, cache = block(step, self_attention_cache=cache, self_attention_cache_update_index=index)

Pre-norm residual block: ``x + attention(norm(x))``, then ``x + down(up(norm(x)) * silu(gate(norm(x))))``
(the SiLU in float32). Sub-layers under KerasHub's attribute names, so its weight files load.
"""

from __future__ import annotations

from typing import Any

from tfkit import activations, initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.hub.models.llama.llama_attention import LlamaAttention
from tfkit.hub.models.llama.llama_layernorm import LlamaLayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class LlamaTransformerDecoder(GatedDecoderBlock):
    """A Transformer decoder layer for the Llama backbone.

    Causal self-attention (`LlamaAttention`: rotary embeddings, grouped-query
    heads, a key/value cache for generation) and a gated feedforward network
    (`output(intermediate(x) * activation(gate(x)))`, no biases), each after
    an RMS norm (`LlamaLayerNorm`) and around a residual connection. Padding
    and custom attention masks combine with the causal mask. With a cache,
    the output at the new positions equals the uncached call's.

    KerasHub's `get_config` for this layer raises (it reads an attribute it
    never sets); tfkit's returns the constructor's arguments.

    Args:
        intermediate_dim: Integer, the hidden size of the feedforward network.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        rope_max_wavelength: Integer, the rotary embedding's longest
            wavelength. Defaults to `10000`.
        rope_position_scaling_factor: Float, the rotary embedding's position
            scaling. Defaults to `1.0`.
        rope_frequency_adjustment_factor: Float, Llama 3.1's frequency
            factor. Defaults to `None`.
        rope_low_freq_factor: Float, Llama 3.1's low frequency factor.
            Defaults to `None`.
        rope_high_freq_factor: Float, Llama 3.1's high frequency factor.
            Defaults to `None`.
        rope_pretraining_sequence_length: Integer, Llama 3.1's pretraining
            context length. Defaults to `None`.
        activation: The gate's activation. Defaults to `"silu"`.
        layer_norm_epsilon: Float, the RMS norms' epsilon. Defaults to
            `1e-5`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        dropout: Float, the dropout rate after attention. Defaults to `0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        decoder_sequence: Tensor `(batch, length, hidden_dim)`.
        decoder_padding_mask: Optional 0/1 mask `(batch, length)` of the
            keys (the cache's length when a cache is given).
        decoder_attention_mask: Optional mask `(batch, length, key_length)`.
        self_attention_cache: Optional key/value cache `(batch, 2,
            max_length, num_key_value_heads, head_dim)`.
        self_attention_cache_update_index: Where the new steps go in the
            cache (an int or int tensor).
        training: Whether dropout applies. Defaults to `None`.

    Returns:
        The output `(batch, length, hidden_dim)`, and the updated cache when
        one is given.

    Example:
        >>> from tfkit.hub.models.llama.llama_decoder import LlamaTransformerDecoder
        >>> block = LlamaTransformerDecoder(intermediate_dim=16, num_query_heads=4, num_key_value_heads=2)
        >>> x = np.random.rand(1, 4, 8).astype("float32")
        >>> full = block(x)
        >>> cache = tf.zeros((1, 2, 4, 2, 2))
        >>> steps = []
        >>> for index in range(4):
        ...     out, cache = block(
        ...         x[:, index : index + 1], self_attention_cache=cache, self_attention_cache_update_index=index
        ...     )
        ...     steps.append(out)
        >>> bool(np.allclose(tf.concat(steps, axis=1), full, atol=1e-5))
        True
    """

    def __init__(
        self,
        intermediate_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        rope_max_wavelength: int = 10000,
        rope_position_scaling_factor: float = 1.0,
        rope_frequency_adjustment_factor: float | None = None,
        rope_low_freq_factor: float | None = None,
        rope_high_freq_factor: float | None = None,
        rope_pretraining_sequence_length: int | None = None,
        activation: Any = "silu",
        layer_norm_epsilon: float = 1e-5,
        kernel_initializer: Any = "glorot_uniform",
        dropout: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            intermediate_dim,
            num_query_heads,
            num_key_value_heads,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_position_scaling_factor,
            activation=activation,
            layer_norm_epsilon=layer_norm_epsilon,
            kernel_initializer=kernel_initializer,
            dropout=dropout,
            **kwargs,
        )
        self.rope_position_scaling_factor = rope_position_scaling_factor
        self.rope_frequency_adjustment_factor = rope_frequency_adjustment_factor
        self.rope_low_freq_factor = rope_low_freq_factor
        self.rope_high_freq_factor = rope_high_freq_factor
        self.rope_pretraining_sequence_length = rope_pretraining_sequence_length

    def _make_attention(self) -> LlamaAttention:
        return LlamaAttention(
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            rope_max_wavelength=self.rope_max_wavelength,
            rope_position_scaling_factor=self.rope_position_scaling_factor,
            rope_frequency_adjustment_factor=self.rope_frequency_adjustment_factor,
            rope_low_freq_factor=self.rope_low_freq_factor,
            rope_high_freq_factor=self.rope_high_freq_factor,
            rope_pretraining_sequence_length=self.rope_pretraining_sequence_length,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            dropout=self.dropout,
            dtype=self.dtype_policy,
            name="self_attention",
        )

    def _make_norm(self, name: str) -> LlamaLayerNorm:
        return LlamaLayerNorm(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)

    def get_config(self) -> dict[str, Any]:
        config = Layer.get_config(self)  # not GatedDecoderBlock's keys: rope_scaling_factor is not Llama's
        config.update(
            intermediate_dim=self.intermediate_dim,
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            rope_max_wavelength=self.rope_max_wavelength,
            rope_position_scaling_factor=self.rope_position_scaling_factor,
            rope_frequency_adjustment_factor=self.rope_frequency_adjustment_factor,
            rope_low_freq_factor=self.rope_low_freq_factor,
            rope_high_freq_factor=self.rope_high_freq_factor,
            rope_pretraining_sequence_length=self.rope_pretraining_sequence_length,
            activation=activations.serialize(self.activation),
            layer_norm_epsilon=self.layer_norm_epsilon,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            dropout=self.dropout,
        )
        return config
