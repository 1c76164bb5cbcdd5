"""``MixtralTransformerDecoder``: Mixtral's decoder block (RMS norms, sliding-window attention, sparse experts)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.models.mixtral.mixtral_attention import CachedMixtralAttention
from tfkit.hub.models.mixtral.mixtral_layer_norm import MixtralLayerNormalization
from tfkit.hub.models.mixtral.mixtral_sparse_moe_block import MixtralSparseMoeBlock
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MixtralTransformerDecoder(GatedDecoderBlock):
    """A Transformer decoder layer for the Mixtral backbone.

    RMS norm, causal self-attention (within `sliding_window`), residual;
    RMS norm, a sparse mixture of gated feedforward experts
    (`MixtralSparseMoeBlock`: each token's `top_k` of `num_experts`),
    residual. In training the experts' load-balancing loss is added to the
    layer's losses.

    Args:
        intermediate_dim: Integer, each expert's hidden size.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        num_experts: Integer, the number of experts.
        top_k: Integer, how many experts each token goes to. Defaults to `2`.
        router_jitter_noise: Float, the router's input noise in training.
            Defaults to `0.0`.
        output_router_logits: Whether the block also returns its router's
            logits `(batch * length, num_experts)`, last. Defaults to `False`.
        router_aux_loss_coef: Float, the weight of the load-balancing loss.
            Defaults to `0.02`.
        sliding_window: Integer or `None`, the attention window. Defaults to
            `512`.
        **kwargs: `GatedDecoderBlock`'s other arguments and base layer
            keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.mixtral.mixtral_decoder import MixtralTransformerDecoder
        >>> block = MixtralTransformerDecoder(intermediate_dim=8, num_query_heads=2, num_key_value_heads=1,
        ...     num_experts=4)
        >>> block(np.ones((1, 3, 4), "float32")).shape
        TensorShape([1, 3, 4])
    """

    norm_class = MixtralLayerNormalization
    attention_class = CachedMixtralAttention

    def __init__(
        self,
        intermediate_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        num_experts: int,
        top_k: int = 2,
        router_jitter_noise: float = 0.0,
        output_router_logits: bool = False,
        router_aux_loss_coef: float = 0.02,
        sliding_window: int | None = 512,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            intermediate_dim, num_query_heads, num_key_value_heads, sliding_window=sliding_window, **kwargs
        )
        self.num_experts = num_experts
        self.top_k = top_k
        self.router_jitter_noise = router_jitter_noise
        self.output_router_logits = output_router_logits
        self.router_aux_loss_coef = router_aux_loss_coef

    def _build_feedforward(self, shape: tuple) -> None:
        self._sparse_moe_block = MixtralSparseMoeBlock(
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.intermediate_dim,
            num_experts=self.num_experts,
            top_k=self.top_k,
            router_jitter_noise=self.router_jitter_noise,
            router_aux_loss_coef=self.router_aux_loss_coef,
            dtype=self.dtype_policy,
            name="mixtral_sparse_moe_block",
        )
        self._sparse_moe_block.build(shape)

    def _feedforward(self, x: tf.Tensor, padding_mask: Any, training: Any) -> tuple[tf.Tensor, tuple]:
        outputs, router_logits = self._sparse_moe_block(x, attention_mask=padding_mask, training=training)
        return outputs, (router_logits,) if self.output_router_logits else ()
