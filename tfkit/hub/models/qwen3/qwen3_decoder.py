"""``Qwen3TransformerDecoder``: Qwen 3's decoder block (RMS norms, attention with query/key norms, gated MLP)."""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.layers.query_key_normed_attention import QueryKeyNormedAttention
from tfkit.hub.models.qwen3.qwen3_layernorm import Qwen3LayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3TransformerDecoder(GatedDecoderBlock):
    """A Transformer decoder layer for the Qwen 3 backbone.

    RMS norm, causal self-attention (`QueryKeyNormedAttention`, optionally within a
    two-sided window, `attention_window`), residual; RMS norm, gated
    feedforward network, residual. The attention's query and key norms use
    `layer_norm_epsilon`, as Transformers' Qwen 3 does (KerasHub 0.32 leaves
    them at `1e-5` whatever the epsilon). The arguments are
    `GatedDecoderBlock`'s.

    Args:
        *args: `GatedDecoderBlock`'s positional arguments (`intermediate_dim`,
            `num_query_heads`, `num_key_value_heads`).
        **kwargs: `GatedDecoderBlock`'s keyword arguments, such as
            `head_dim`, `attention_window` and `name`.

    Example:
        >>> from tfkit.hub.models.qwen3.qwen3_decoder import Qwen3TransformerDecoder
        >>> decoder = Qwen3TransformerDecoder(intermediate_dim=16, num_query_heads=2, num_key_value_heads=1,
        ...     head_dim=6)
        >>> decoder(np.ones((1, 4, 8), "float32")).shape
        TensorShape([1, 4, 8])
    """

    norm_class = Qwen3LayerNorm
    attention_class = QueryKeyNormedAttention

    def _attention_arguments(self) -> dict[str, Any]:
        return {**super()._attention_arguments(), "layer_norm_epsilon": self.layer_norm_epsilon}
