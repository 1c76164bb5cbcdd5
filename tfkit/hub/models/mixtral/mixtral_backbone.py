"""``MixtralBackbone``: Mixtral's decoder stack (sliding-window attention, sparse mixture of experts), KerasHub's layout.

backbone = MixtralBackbone(vocabulary_size=32000, num_layers=32, num_query_heads=32, hidden_dim=4096,
                           intermediate_dim=14336, num_key_value_heads=8, num_experts=8, top_k=2)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.decoder_backbone import decoder_blocks, decoder_graph, token_embedding
from tfkit.hub.models.mixtral.mixtral_decoder import MixtralTransformerDecoder
from tfkit.hub.models.mixtral.mixtral_layer_norm import MixtralLayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MixtralBackbone(Backbone):
    """The Mixtral Transformer core architecture with hyperparameters.

    Token embeddings feed `num_layers` decoder blocks (RMS norm, causal
    grouped-query self-attention with rotary position embeddings and a
    sliding window, RMS norm, a sparse mixture of `num_experts` gated SiLU
    feedforward experts of which each token uses `top_k`), then a final RMS
    norm; the outputs are the last hidden states (Jiang et al., 2024,
    "Mixtral of Experts"). The output embedding is separate from the input
    one. The layer names and weights are KerasHub's, so KerasHub's Mixtral
    presets load into it. In training each block adds
    `router_aux_loss_coef` times its load-balancing loss to the model's
    losses.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of decoder blocks.
        num_query_heads: The number of query heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each expert.
        num_key_value_heads: The number of key and value heads of each block.
        num_experts: The number of experts of each block.
        top_k: How many experts each token goes to. Defaults to `2`.
        router_jitter_noise: The routers' input noise in training. Defaults
            to `0.0`.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: The rotary embedding's position scaling.
            Defaults to `1.0`.
        layer_norm_epsilon: The RMS norms' epsilon. Defaults to `1e-6`.
        router_aux_loss_coef: The weight of the load-balancing losses.
            Defaults to `0.02`.
        sliding_window: How many tokens each token attends to (itself and
            those before it); `None` for full causal attention. Defaults to
            `512`.
        dropout: The dropout rate. Defaults to `0`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        output_router_logits: Whether each block also returns its router's
            logits (KerasHub's argument; the backbone's output stays the
            hidden states). Defaults to `False`.
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.MixtralBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, num_key_value_heads=1, num_experts=4, sliding_window=3)
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
        router_jitter_noise: float = 0.0,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        layer_norm_epsilon: float = 1e-6,
        router_aux_loss_coef: float = 0.02,
        sliding_window: int | None = 512,
        dropout: float = 0,
        dtype: Any = None,
        output_router_logits: bool = False,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = token_embedding(vocabulary_size, hidden_dim, tie_weights=False, dtype=dtype)
        self.transformer_layers = decoder_blocks(
            MixtralTransformerDecoder,
            num_layers,
            dtype,
            intermediate_dim=intermediate_dim,
            num_query_heads=num_query_heads,
            num_key_value_heads=num_key_value_heads,
            num_experts=num_experts,
            top_k=top_k,
            router_jitter_noise=router_jitter_noise,
            router_aux_loss_coef=router_aux_loss_coef,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_scaling_factor,
            layer_norm_epsilon=layer_norm_epsilon,
            sliding_window=sliding_window,
            dropout=dropout,
        )
        self.layer_norm = MixtralLayerNormalization(
            epsilon=layer_norm_epsilon, dtype=dtype, name="sequence_output_layernorm"
        )
        super().__init__(**decoder_graph(self), dtype=dtype, **kwargs)
