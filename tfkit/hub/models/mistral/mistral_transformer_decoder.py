"""``MistralTransformerDecoder``: Mistral's decoder block (RMS norms, sliding-window attention, gated MLP)."""

from __future__ import annotations

from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.models.mistral.mistral_layer_norm import MistralLayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MistralTransformerDecoder(GatedDecoderBlock):
    """A Transformer decoder layer for the Mistral backbone.

    RMS norm, causal self-attention, residual; RMS norm, gated feedforward
    network, residual. With `sliding_window`, each token attends to itself
    and the `sliding_window - 1` tokens before it only. The arguments are
    `GatedDecoderBlock`'s.

    Args:
        *args: `GatedDecoderBlock`'s positional arguments (`intermediate_dim`,
            `num_query_heads`, `num_key_value_heads`).
        **kwargs: `GatedDecoderBlock`'s keyword arguments, such as
            `sliding_window`, `head_dim` and `name`.

    Example:
        >>> from tfkit.hub.models.mistral.mistral_transformer_decoder import MistralTransformerDecoder
        >>> decoder = MistralTransformerDecoder(intermediate_dim=16, num_query_heads=2, num_key_value_heads=1,
        ...     sliding_window=2)
        >>> decoder(np.ones((1, 4, 8), "float32")).shape
        TensorShape([1, 4, 8])
    """

    norm_class = MistralLayerNormalization
