"""``GptOssTransformerDecoder``: GPT-OSS's decoder block (RMS norms, sink attention, sparse experts), KerasHub's."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.hub.models.gpt_oss.gpt_oss_attention import GptOssAttention
from tfkit.hub.models.gpt_oss.gpt_oss_experts import GptOssSparseMoeBlock
from tfkit.hub.models.gpt_oss.gpt_oss_layer_norm import GptOssLayerNormalization
from tfkit.layers import Dropout
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GptOssTransformerDecoder(GatedDecoderBlock):
    """A GPT-OSS transformer decoder layer.

    RMS norm, causal self-attention with sink logits (within
    `sliding_window` when it is set), residual; RMS norm, a sparse mixture
    of `num_experts` clamped gated experts (each token's `top_k`),
    residual. The sub-layers have KerasHub's names and build order
    (`self_attention_layer`, `input_layernorm`, `post_attention_layernorm`,
    `sparse_moe_block`).

    Args:
        intermediate_dim: Integer, each expert's hidden size.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        num_experts: Integer, the number of experts.
        top_k: Integer, how many experts each token goes to. Defaults to `2`.
        output_router_logits: Whether the block also returns its router's
            scores `(batch * length, num_experts)`, last. Defaults to `False`.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: Float, YaRN's scaling factor. Defaults to `1.0`.
        layer_norm_epsilon: Float, the RMS norms' epsilon. Defaults to `1e-6`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        sliding_window: Integer or `None`, the attention's window (the
            tokens before each one it sees). Defaults to `4096`.
        dropout: Float, the attention's dropout rate. Defaults to `0`.
        head_dim: Integer or `None`, the size of each attention head.
            Defaults to `None` (`hidden_dim // num_query_heads`).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.gpt_oss.gpt_oss_decoder import GptOssTransformerDecoder
        >>> block = GptOssTransformerDecoder(intermediate_dim=8, num_query_heads=2, num_key_value_heads=1,
        ...     num_experts=4, sliding_window=2)
        >>> block(np.ones((1, 3, 4), "float32")).shape
        TensorShape([1, 3, 4])
    """

    norm_class = GptOssLayerNormalization
    attention_class = GptOssAttention
    _self_attention_layer = StoredAs("self_attention_layer")
    _self_attention_layernorm = StoredAs("input_layernorm")
    _feedforward_layernorm = StoredAs("post_attention_layernorm")

    def __init__(
        self,
        intermediate_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        num_experts: int,
        top_k: int = 2,
        output_router_logits: bool = False,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        layer_norm_epsilon: float = 1e-6,
        kernel_initializer: Any = "glorot_uniform",
        sliding_window: int | None = 4096,
        dropout: float = 0,
        head_dim: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            intermediate_dim,
            num_query_heads,
            num_key_value_heads,
            head_dim=head_dim,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_scaling_factor,
            layer_norm_epsilon=layer_norm_epsilon,
            kernel_initializer=kernel_initializer,
            dropout=dropout,
            sliding_window=sliding_window,
            **kwargs,
        )
        self.num_experts = num_experts
        self.top_k = top_k
        self.output_router_logits = output_router_logits

    def _attention_arguments(self) -> dict[str, Any]:
        return {
            "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "rope_max_wavelength": self.rope_max_wavelength,
            "rope_scaling_factor": self.rope_scaling_factor,
            "kernel_initializer": clone_initializer(self.kernel_initializer),
            "sliding_window": self.sliding_window,
            "dropout": self.dropout,
            "head_dim": self.head_dim,
        }

    def _mask_window(self) -> None:
        return None  # the attention applies GPT-OSS's window itself

    def build(self, decoder_sequence_shape: Any) -> None:
        """KerasHub's sub-layers in its order: attention, the two norms, the experts."""
        shape = tuple(decoder_sequence_shape)
        self.hidden_dim = shape[-1]
        self._self_attention_layer = self.attention_class(
            **self._attention_arguments(), dtype=self.dtype_policy, name="self_attention"
        )
        self._self_attention_layer.build(shape)
        self._self_attention_layernorm = self._make_norm("input_layernorm")
        self._self_attention_layernorm.build(shape)
        self._feedforward_layernorm = self._make_norm("post_attention_layernorm")
        self._feedforward_layernorm.build(shape)
        self._self_attention_dropout = Dropout(rate=0.0, dtype=self.dtype_policy)  # KerasHub's block has none
        self.sparse_moe_block = GptOssSparseMoeBlock(
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.intermediate_dim,
            num_experts=self.num_experts,
            top_k=self.top_k,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            dtype=self.dtype_policy,
            name="sparse_moe_block",
        )
        self.sparse_moe_block.build(shape)

    def _feedforward(self, x: tf.Tensor, padding_mask: Any, training: Any) -> tuple[tf.Tensor, tuple]:
        outputs, router_scores = self.sparse_moe_block(x)
        return outputs, (router_scores,) if self.output_router_logits else ()
