"""``LlamaTransformerDecoder``: one Llama block: RMSNorm, grouped-query attention, RMSNorm, gated SiLU MLP.

    block = LlamaTransformerDecoder(intermediate_dim=14336, num_query_heads=32, num_key_value_heads=8)
    y = block(x, decoder_padding_mask=mask)                                      # causal self-attention
    y, cache = block(step, self_attention_cache=cache, self_attention_cache_update_index=index)

Pre-norm residual block: ``x + attention(norm(x))``, then ``x + down(up(norm(x)) * silu(gate(norm(x))))``
(the SiLU in float32). Sub-layers under KerasHub's attribute names, so its weight files load.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
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
        rope_frequency_adjustment_factor: Float, Llama 3.1's frequency
            factor. Defaults to `None`.
        rope_low_freq_factor: Float, Llama 3.1's low frequency factor.
            Defaults to `None`.
        rope_high_freq_factor: Float, Llama 3.1's high frequency factor.
            Defaults to `None`.
        rope_pretraining_sequence_length: Integer, Llama 3.1's pretraining
            context length. Defaults to `None`.
        **kwargs: `GatedDecoderBlock`'s other arguments
            (`rope_max_wavelength`, `rope_scaling_factor` for KerasHub's
            `rope_position_scaling_factor`, `layer_norm_epsilon`, ...) and
            base layer keyword arguments, such as `name` and `dtype`.

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

    norm_class = LlamaLayerNorm
    attention_class = LlamaAttention

    def __init__(
        self,
        intermediate_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        rope_frequency_adjustment_factor: float | None = None,
        rope_low_freq_factor: float | None = None,
        rope_high_freq_factor: float | None = None,
        rope_pretraining_sequence_length: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(intermediate_dim, num_query_heads, num_key_value_heads, **kwargs)
        self.rope_frequency_adjustment_factor = rope_frequency_adjustment_factor
        self.rope_low_freq_factor = rope_low_freq_factor
        self.rope_high_freq_factor = rope_high_freq_factor
        self.rope_pretraining_sequence_length = rope_pretraining_sequence_length

    def _attention_arguments(self) -> dict[str, Any]:
        return {
            **super()._attention_arguments(),
            "rope_frequency_adjustment_factor": self.rope_frequency_adjustment_factor,
            "rope_low_freq_factor": self.rope_low_freq_factor,
            "rope_high_freq_factor": self.rope_high_freq_factor,
            "rope_pretraining_sequence_length": self.rope_pretraining_sequence_length,
        }
