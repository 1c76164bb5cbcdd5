"""``GptOssBackbone``: GPT-OSS's decoder stack (sink attention, a window on every other layer, sparse experts).

backbone = GptOssBackbone(vocabulary_size=201088, num_layers=24, num_query_heads=64, hidden_dim=2880,
                          intermediate_dim=2880, num_key_value_heads=8, num_experts=32, top_k=4, head_dim=64,
                          sliding_window=128, rope_max_wavelength=150000, rope_scaling_factor=32.0)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.decoder_backbone import decoder_blocks, decoder_graph, token_embedding
from tfkit.hub.models.gpt_oss.gpt_oss_decoder import GptOssTransformerDecoder
from tfkit.hub.models.gpt_oss.gpt_oss_layer_norm import GptOssLayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GptOssBackbone(Backbone):
    """A GPT-style Transformer with a Mixture of Experts (OpenAI's GPT-OSS).

    Token embeddings feed `num_layers` decoder blocks (RMS norm, grouped-query
    self-attention with biases, YaRN rotary embeddings and a learned sink
    logit per head, RMS norm, a sparse mixture of `num_experts` clamped
    gated experts of which each token uses `top_k`), then a final RMS norm;
    the outputs are the last hidden states. The odd-numbered blocks attend
    within `sliding_window` tokens, the even ones to every token before.
    The output embedding is separate from the input one. The layer names and
    weights are KerasHub's, so KerasHub's GPT-OSS presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of decoder blocks.
        num_query_heads: The number of query heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each expert.
        num_key_value_heads: The number of key and value heads of each block.
        num_experts: The number of experts of each block.
        top_k: How many experts each token goes to. Defaults to `2`.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: YaRN's scaling factor. Defaults to `1.0`.
        layer_norm_epsilon: The RMS norms' epsilon. Defaults to `1e-6`.
        sliding_window: The window of the odd-numbered blocks' attention (the
            tokens before each token it sees). Defaults to `4096`.
        head_dim: The size of each attention head; `None` (the default)
            means `hidden_dim // num_query_heads`.
        dropout: The attention's dropout rate. Defaults to `0`.
        output_router_logits: Whether each block also returns its router's
            scores (KerasHub's argument; the backbone's output stays the
            hidden states). Defaults to `False`.
        layer_types: `None` (the default: KerasHub's rule, the odd-numbered
            blocks windowed), or each block's `"sliding_attention"` or
            `"full_attention"`, as a Transformers checkpoint's config lists
            them (its default windows the even-numbered blocks). Beyond
            KerasHub: left out of the config when `None`, so KerasHub loads
            the presets this backbone saves.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.GptOssBackbone(vocabulary_size=10, num_layers=2, num_query_heads=2,
        ...     hidden_dim=8, intermediate_dim=8, num_key_value_heads=1, num_experts=4, sliding_window=2)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_query_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        num_key_value_heads: int,
        num_experts: int,
        top_k: int = 2,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        layer_norm_epsilon: float = 1e-6,
        sliding_window: int | None = 4096,
        head_dim: int | None = None,
        dropout: float = 0,
        output_router_logits: bool = False,
        layer_types: list[str] | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if layer_types is not None and len(layer_types) != num_layers:
            raise ValueError(
                f"GptOssBackbone: layer_types lists {len(layer_types)} blocks; expected num_layers={num_layers}"
            )
        self.token_embedding = token_embedding(vocabulary_size, hidden_dim, tie_weights=False, dtype=dtype)
        self.transformer_layers = decoder_blocks(
            GptOssTransformerDecoder,
            num_layers,
            dtype,
            per_layer=lambda i: {"sliding_window": sliding_window if _windowed(layer_types, i) else None},
            intermediate_dim=intermediate_dim,
            num_query_heads=num_query_heads,
            num_key_value_heads=num_key_value_heads,
            num_experts=num_experts,
            top_k=top_k,
            output_router_logits=output_router_logits,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_scaling_factor,
            layer_norm_epsilon=layer_norm_epsilon,
            dropout=dropout,
            head_dim=head_dim,
        )
        self.layer_norm = GptOssLayerNormalization(
            epsilon=layer_norm_epsilon, dtype=dtype, name="sequence_output_layernorm"
        )
        super().__init__(**decoder_graph(self), dtype=dtype, **kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        if config["layer_types"] is None:
            del config["layer_types"]  # KerasHub's backbone has no such argument
        return config


def _windowed(layer_types: list[str] | None, index: int) -> bool:
    """Whether block `index` attends within the sliding window."""
    if layer_types is None:
        return index % 2 == 1
    kind = layer_types[index]
    if kind not in ("sliding_attention", "full_attention"):
        raise ValueError(
            f"GptOssBackbone: layer_types[{index}]={kind!r}; expected 'sliding_attention' or 'full_attention'"
        )
    return kind == "sliding_attention"
