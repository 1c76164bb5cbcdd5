"""Mixtral from a Hugging Face Transformers checkpoint (``model_type: mixtral``): config, weights and tokenizer.

    backbone = MixtralBackbone.from_preset("./mixtral-hf")    # config.json, model*.safetensors, tokenizer.model

Attention and norms are Mistral's layout. Transformers keeps each expert's three
``(out, in)`` matrices apart (``block_sparse_moe.experts.<e>.w1`` the gate, ``w3`` the
up projection, ``w2`` the down projection); KerasHub's layer holds each kind for all
experts in one ``(experts, in, out)`` weight, so each is transposed and stacked.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from tfkit.hub.models.mixtral.mixtral_backbone import MixtralBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.decoder_conversion import plan_decoder_attention, plan_embeddings, rope_theta
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class MixtralConverter:
    """How a Transformers Mixtral checkpoint becomes a `MixtralBackbone` and a `MixtralTokenizer`."""

    backbone_cls = MixtralBackbone
    # each kind of expert kernel of a layer fills one (experts, in, out) variable: sized together by the budget
    stacked_tensors = re.compile(r"^model\.layers\.\d+\.block_sparse_moe\.experts\.(?P<expert>\d+)\.w[123]\.weight$")

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_query_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "num_key_value_heads": hf["num_key_value_heads"],
            "num_experts": hf["num_local_experts"],
            "top_k": hf["num_experts_per_tok"],
            "router_jitter_noise": hf.get("router_jitter_noise", 0.0),
            "router_aux_loss_coef": hf.get("router_aux_loss_coef", 0.02),
            "rope_max_wavelength": rope_theta(hf),
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "sliding_window": hf.get("sliding_window"),
        }

    @staticmethod
    def plan_weights(backbone: MixtralBackbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            plan_decoder_attention(block, prefix, plan)
            moe = block._sparse_moe_block
            plan.port(moe._sparse_feedforward_gate_dense.kernel, prefix + "block_sparse_moe.gate.weight", np.transpose)
            experts = [f"{prefix}block_sparse_moe.experts.{e}." for e in range(backbone.num_experts)]
            bank = moe.expert_bank
            for variable, name in (
                (bank._expert_feedforward_gate_dense, "w1"),
                (bank._expert_feedforward_intermediate_dense, "w3"),
                (bank._expert_feedforward_output_dense, "w2"),
            ):
                plan.port_stacked(variable, [f"{expert}{name}.weight" for expert in experts], np.transpose)

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return cls(proto=files.preset_file(directory, "tokenizer.model"), **arguments)


register("mixtral", MixtralConverter)
