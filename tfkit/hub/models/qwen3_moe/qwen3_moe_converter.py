"""Qwen 3 MoE from a Hugging Face Transformers checkpoint (``model_type: qwen3_moe``): config, weights and tokenizer.

    backbone = Qwen3MoeBackbone.from_preset("./qwen3-moe-hf")    # config.json, model*.safetensors, tokenizer.json

Attention and norms are Qwen 3's layout. Transformers keeps each expert's
``gate_proj``, ``up_proj`` and ``down_proj`` apart (``mlp.experts.<e>.``); KerasHub's layer
holds the gate and up kernels of all experts side by side in one
``(experts, hidden, 2 * moe_intermediate)`` weight and the down kernels in another, so
each is transposed, joined and stacked. Blocks without experts (``mlp_only_layers``, or
skipped by ``decoder_sparse_step``) read ``mlp.gate_proj`` and its siblings. The window
follows Transformers' rule (``use_sliding_window``), as Qwen 3's does.
"""

from __future__ import annotations

import re
from typing import Any

from tfkit.hub.models.qwen3_moe.qwen3_moe_backbone import Qwen3MoeBackbone
from tfkit.hub.presets.decoder_conversion import (
    byte_pair_tokenizer,
    plan_decoder_attention,
    plan_embeddings,
    plan_experts,
    plan_gated_mlp,
    rope_theta,
    sliding_window_config,
)
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class Qwen3MoeConverter:
    """How a Transformers Qwen 3 MoE checkpoint becomes a `Qwen3MoeBackbone` and a `Qwen3MoeTokenizer`."""

    backbone_cls = Qwen3MoeBackbone
    # each kind of expert kernel of a layer fills one (experts, ...) variable: sized together by the budget
    stacked_tensors = re.compile(r"^model\.layers\.\d+\.mlp\.experts\.(?P<expert>\d+)\.(gate|up|down)_proj\.weight$")

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        return {
            "vocabulary_size": hf["vocab_size"],
            "head_dim": hf.get("head_dim") or hf["hidden_size"] // hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_query_heads": hf["num_attention_heads"],
            "num_key_value_heads": hf["num_key_value_heads"],
            "intermediate_dim": hf["intermediate_size"],
            "moe_intermediate_dim": hf["moe_intermediate_size"],
            "num_experts": hf["num_experts"],
            "top_k": hf["num_experts_per_tok"],
            "norm_top_k_prob": hf.get("norm_topk_prob", False),
            "decoder_sparse_step": hf.get("decoder_sparse_step", 1),
            "mlp_only_layers": hf.get("mlp_only_layers") or None,
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "rope_max_wavelength": rope_theta(hf),
            "sliding_window_size": hf.get("sliding_window") if sliding_window_config(hf) else None,
            "router_aux_loss_coefficient": hf.get("router_aux_loss_coef", 0.001),
            "tie_word_embeddings": hf.get("tie_word_embeddings", False),
        }

    @staticmethod
    def plan_weights(backbone: Qwen3MoeBackbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            plan_decoder_attention(block, prefix, plan)
            attention = block._self_attention_layer
            plan.port(attention._query_dense_layer_norm.scale, prefix + "self_attn.q_norm.weight")
            plan.port(attention._key_dense_layer_norm.scale, prefix + "self_attn.k_norm.weight")
            if block.is_sparse_mlp:
                plan_experts(block.mlp, prefix + "mlp.", backbone.num_experts, plan)
            else:
                plan_gated_mlp(block.mlp, prefix + "mlp.", plan)

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("qwen3_moe", Qwen3MoeConverter)
