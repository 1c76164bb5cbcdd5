"""Qwen MoE from a Hugging Face Transformers checkpoint (``model_type: qwen2_moe``): config, weights and tokenizer.

    backbone = QwenMoeBackbone.from_preset("./qwen1.5-moe-hf")    # config.json, model*.safetensors, tokenizer.json

Attention and norms are Qwen 2's layout (query, key and value biases). Each expert's
``gate_proj``, ``up_proj`` and ``down_proj`` (``mlp.experts.<e>.``) are joined and stacked
into KerasHub's two expert weights, as Qwen 3 MoE's; the shared expert
(``mlp.shared_expert``) and its gate (``mlp.shared_expert_gate``) are one dense MLP and one
kernel. Blocks without experts read ``mlp.gate_proj`` and its siblings. The window follows
Transformers' rule (``use_sliding_window``).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from tfkit.hub.models.qwen_moe.qwen_moe_backbone import QwenMoeBackbone
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


class QwenMoeConverter:
    """How a Transformers Qwen MoE checkpoint becomes a `QwenMoeBackbone` and a `QwenMoeTokenizer`."""

    backbone_cls = QwenMoeBackbone
    # each kind of expert kernel of a layer fills one (experts, ...) variable: sized together by the budget
    stacked_tensors = re.compile(r"^model\.layers\.\d+\.mlp\.experts\.(?P<expert>\d+)\.(gate|up|down)_proj\.weight$")

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        return {
            "vocabulary_size": hf["vocab_size"],
            "hidden_dim": hf["hidden_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_query_heads": hf["num_attention_heads"],
            "num_key_value_heads": hf["num_key_value_heads"],
            "intermediate_dim": hf["intermediate_size"],
            "moe_intermediate_dim": hf["moe_intermediate_size"],
            "shared_expert_intermediate_dim": hf["shared_expert_intermediate_size"],
            "num_experts": hf["num_experts"],
            "top_k": hf["num_experts_per_tok"],
            "norm_top_k_prob": hf.get("norm_topk_prob", False),
            "decoder_sparse_step": hf.get("decoder_sparse_step", 1),
            "mlp_only_layers": hf.get("mlp_only_layers") or None,
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "rope_max_wavelength": rope_theta(hf),
            "use_sliding_window_attention": sliding_window_config(hf),
            "sliding_window_size": hf.get("sliding_window") or 32768,
            "router_aux_loss_coefficient": hf.get("router_aux_loss_coef", 0.001),
            "tie_word_embeddings": hf.get("tie_word_embeddings", False),
        }

    @staticmethod
    def plan_weights(backbone: QwenMoeBackbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            plan_decoder_attention(block, prefix, plan)
            attention = block._self_attention_layer
            for dense, name in (
                (attention._query_dense, "q"),
                (attention._key_dense, "k"),
                (attention._value_dense, "v"),
            ):
                shape = tuple(dense.bias.shape)
                plan.port(
                    dense.bias, f"{prefix}self_attn.{name}_proj.bias", lambda value, s=shape: np.reshape(value, s)
                )
            if not block.is_sparse_mlp:
                plan_gated_mlp(block.mlp, prefix + "mlp.", plan)
                continue
            plan_experts(block.mlp, prefix + "mlp.", backbone.num_experts, plan)
            plan_gated_mlp(block.mlp.shared_expert_dense, prefix + "mlp.shared_expert.", plan)
            plan.port(block.mlp.shared_expert_gate_dense.kernel, prefix + "mlp.shared_expert_gate.weight", np.transpose)

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("qwen2_moe", QwenMoeConverter)
