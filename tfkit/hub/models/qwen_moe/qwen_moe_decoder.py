"""``QwenMoeTransformerDecoder``: Qwen MoE's decoder block (attention with biases, experts with a shared expert)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.expert_layers import GatedMLP, SparseMoeBlock
from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.models.qwen_moe.qwen_moe_attention import QwenMoeAttention
from tfkit.hub.models.qwen_moe.qwen_moe_layernorm import QwenMoeLayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class QwenMoeTransformerDecoder(GatedDecoderBlock):
    """A Transformer decoder layer for the Qwen MoE backbone.

    RMS norm, causal self-attention with query, key and value biases
    (within `attention_window`), residual; RMS norm, then either a sparse
    mixture of experts plus a shared expert every token goes through
    (`SparseMoeBlock`, when `is_sparse_mlp`) or a dense gated MLP
    (`GatedMLP`), held as `mlp` as in KerasHub, residual. In training the
    experts' load-balancing loss, over the padding mask, is added to the
    layer's losses.

    Args:
        intermediate_dim: Integer, the dense MLP's hidden size.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        moe_intermediate_dim: Integer, each expert's hidden size.
        shared_expert_intermediate_dim: Integer, the shared expert's hidden
            size.
        num_experts: Integer, the number of experts.
        top_k: Integer, how many experts each token goes to.
        norm_top_k_prob: Whether the chosen experts' weights are renormalized.
        is_sparse_mlp: Whether the block has experts (else a dense MLP).
            Defaults to `False`.
        output_router_logits: Whether the block also returns its router's
            logits, last. Defaults to `False`.
        router_aux_loss_coefficient: Float, the weight of the load-balancing
            loss. Defaults to `0.001`.
        **kwargs: `GatedDecoderBlock`'s other arguments (`attention_window`,
            `layer_norm_epsilon`, ...) and base layer keyword arguments, such
            as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.qwen_moe.qwen_moe_decoder import QwenMoeTransformerDecoder
        >>> block = QwenMoeTransformerDecoder(intermediate_dim=8, num_query_heads=2, num_key_value_heads=1,
        ...     moe_intermediate_dim=4, shared_expert_intermediate_dim=6, num_experts=4, top_k=2,
        ...     norm_top_k_prob=False, is_sparse_mlp=True)
        >>> block(np.ones((1, 3, 4), "float32")).shape
        TensorShape([1, 3, 4])
    """

    norm_class = QwenMoeLayerNorm
    attention_class = QwenMoeAttention

    def __init__(
        self,
        intermediate_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        moe_intermediate_dim: int,
        shared_expert_intermediate_dim: int,
        num_experts: int,
        top_k: int,
        norm_top_k_prob: bool,
        is_sparse_mlp: bool = False,
        output_router_logits: bool = False,
        router_aux_loss_coefficient: float = 0.001,
        **kwargs: Any,
    ) -> None:
        super().__init__(intermediate_dim, num_query_heads, num_key_value_heads, attention_bias=True, **kwargs)
        self.moe_intermediate_dim = moe_intermediate_dim
        self.shared_expert_intermediate_dim = shared_expert_intermediate_dim
        self.num_experts = num_experts
        self.top_k = top_k
        self.norm_top_k_prob = norm_top_k_prob
        self.is_sparse_mlp = is_sparse_mlp
        self.output_router_logits = output_router_logits
        self.router_aux_loss_coefficient = router_aux_loss_coefficient

    def _build_feedforward(self, shape: tuple) -> None:
        if self.is_sparse_mlp:
            self.mlp = SparseMoeBlock(
                hidden_dim=self.hidden_dim,
                moe_intermediate_dim=self.moe_intermediate_dim,
                shared_expert_intermediate_dim=self.shared_expert_intermediate_dim,
                num_experts=self.num_experts,
                top_k=self.top_k,
                norm_top_k_prob=self.norm_top_k_prob,
                router_aux_loss_coefficient=self.router_aux_loss_coefficient,
                kernel_initializer=self.kernel_initializer,
                dtype=self.dtype_policy,
                name="qwen_sparse_moe_block",
            )
        else:
            self.mlp = GatedMLP(
                intermediate_dim=self.intermediate_dim,
                hidden_dim=self.hidden_dim,
                dtype=self.dtype_policy,
                name="qwen_moe_mlp",
            )
        self.mlp.build(shape)

    def _feedforward(self, x: tf.Tensor, padding_mask: Any, training: Any) -> tuple[tf.Tensor, tuple]:
        if not self.is_sparse_mlp:
            return self.mlp(x), ()
        outputs, router_logits = self.mlp(x, attention_mask=padding_mask, training=training)
        return outputs, (router_logits,) if self.output_router_logits else ()
