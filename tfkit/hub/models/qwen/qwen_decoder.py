"""``QwenTransformerDecoder``: Qwen 2's decoder block (RMS norms, attention with biases, gated MLP)."""

from __future__ import annotations

from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.models.qwen.qwen_layernorm import QwenLayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class QwenTransformerDecoder(GatedDecoderBlock):
    """A Transformer decoder layer for the Qwen backbone.

    RMS norm, causal self-attention (with query, key and value biases when
    `attention_bias`, within a two-sided window when `attention_window`),
    residual; RMS norm, gated feedforward network, residual. The arguments
    are `GatedDecoderBlock`'s; `QwenBackbone` passes its
    `use_sliding_window_attention` and `sliding_window_size` as
    `attention_window`.

    Args:
        *args: `GatedDecoderBlock`'s positional arguments (`intermediate_dim`,
            `num_query_heads`, `num_key_value_heads`).
        **kwargs: `GatedDecoderBlock`'s keyword arguments, such as
            `attention_bias`, `attention_window` and `name`.

    Example:
        >>> from tfkit.hub.models.qwen.qwen_decoder import QwenTransformerDecoder
        >>> decoder = QwenTransformerDecoder(intermediate_dim=16, num_query_heads=2, num_key_value_heads=1,
        ...     attention_bias=True)
        >>> decoder(np.ones((1, 4, 8), "float32")).shape
        TensorShape([1, 4, 8])
    """

    norm_class = QwenLayerNorm
