"""``Qwen3MoeBackbone``: Qwen 3 MoE's decoder stack (query/key-normed attention, sparse experts), KerasHub's layout.

backbone = Qwen3MoeBackbone(vocabulary_size=151936, num_layers=48, num_query_heads=32, num_key_value_heads=4,
                            hidden_dim=2048, intermediate_dim=6144, moe_intermediate_dim=768, num_experts=128,
                            head_dim=128, top_k=8, norm_top_k_prob=True)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.decoder_backbone import decoder_blocks, decoder_graph, token_embedding
from tfkit.hub.models.qwen3_moe.qwen3_moe_decoder import Qwen3MoeTransformerDecoder
from tfkit.hub.models.qwen3_moe.qwen3_moe_layernorm import Qwen3MoeLayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3MoeBackbone(Backbone):
    """Qwen 3 MoE core network with hyperparameters.

    Token embeddings feed `num_layers` decoder blocks (RMS norm, causal
    grouped-query self-attention whose query and key heads are
    RMS-normalized, RMS norm, then a sparse mixture of `num_experts` gated
    SiLU experts of which each token uses `top_k`, or a dense MLP in the
    layers of `mlp_only_layers` and those `decoder_sparse_step` skips), then a
    final RMS norm. The layer names and weights are KerasHub's, so KerasHub's
    Qwen 3 MoE presets load into it. In training each expert block adds
    `router_aux_loss_coefficient` times its load-balancing loss to the
    model's losses.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of decoder blocks.
        num_query_heads: The number of query heads of each block.
        num_key_value_heads: The number of key and value heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of the dense MLPs.
        moe_intermediate_dim: The hidden size of each expert.
        num_experts: The number of experts of each sparse block.
        head_dim: The size of each attention head; `None` (the default) means
            `hidden_dim // num_query_heads`.
        top_k: How many experts each token goes to. Defaults to `4`.
        norm_top_k_prob: Whether the chosen experts' weights are renormalized
            to sum to one. Defaults to `False`.
        decoder_sparse_step: Every `decoder_sparse_step`-th block has experts.
            Defaults to `1`.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: The rotary embedding's position scaling.
            Defaults to `1.0`.
        layer_norm_epsilon: The RMS norms' epsilon. Defaults to `1e-6`.
        dropout: The dropout rate. Defaults to `0`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        tie_word_embeddings: Whether the output head reuses the token
            embedding. Defaults to `False`.
        sliding_window_size: The attention window in tokens. Defaults to
            `32768`.
        router_aux_loss_coefficient: The weight of the load-balancing losses.
            Defaults to `0.001`.
        mlp_only_layers: Indices of the blocks with a dense MLP instead of
            experts; `None` (the default), none.
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Qwen3MoeBackbone(vocabulary_size=10, num_layers=2, num_query_heads=2,
        ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, moe_intermediate_dim=4, num_experts=4,
        ...     top_k=2, mlp_only_layers=[1])
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_query_heads: int,
        num_key_value_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        moe_intermediate_dim: int,
        num_experts: int,
        head_dim: int | None = None,
        top_k: int = 4,
        norm_top_k_prob: bool = False,
        decoder_sparse_step: int = 1,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        layer_norm_epsilon: float = 1e-6,
        dropout: float = 0,
        dtype: Any = None,
        tie_word_embeddings: bool = False,
        sliding_window_size: int | None = 32768,
        router_aux_loss_coefficient: float = 0.001,
        mlp_only_layers: list[int] | None = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = token_embedding(vocabulary_size, hidden_dim, tie_word_embeddings, dtype)
        dense_layers = set(mlp_only_layers or [])
        self.transformer_layers = decoder_blocks(
            Qwen3MoeTransformerDecoder,
            num_layers,
            dtype,
            per_layer=lambda i: {
                "is_sparse_mlp": i not in dense_layers and num_experts > 0 and (i + 1) % decoder_sparse_step == 0
            },
            intermediate_dim=intermediate_dim,
            num_query_heads=num_query_heads,
            num_key_value_heads=num_key_value_heads,
            moe_intermediate_dim=moe_intermediate_dim,
            head_dim=head_dim,
            num_experts=num_experts,
            top_k=top_k,
            norm_top_k_prob=norm_top_k_prob,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_scaling_factor,
            layer_norm_epsilon=layer_norm_epsilon,
            dropout=dropout,
            attention_window=sliding_window_size,
            router_aux_loss_coefficient=router_aux_loss_coefficient,
        )
        self.layer_norm = Qwen3MoeLayerNorm(epsilon=layer_norm_epsilon, dtype=dtype, name="sequence_output_layernorm")
        super().__init__(**decoder_graph(self), dtype=dtype, **kwargs)
