"""Qwen 3 from a Hugging Face Transformers checkpoint (``model_type: qwen3``): config, weights and tokenizer.

    backbone = Qwen3Backbone.from_preset("./qwen3-hf")    # config.json, model.safetensors, tokenizer.json

The weights are Mistral's layout plus each attention's query and key norms
(``self_attn.q_norm``, ``self_attn.k_norm``); the output embedding is read only
when the checkpoint does not tie it. The sliding window follows Transformers'
rule (``use_sliding_window``, from layer ``max_window_layers`` on, or
``layer_types``), and the tokenizer is read as Qwen 2's.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.qwen3.qwen3_backbone import Qwen3Backbone
from tfkit.hub.presets.decoder_conversion import (
    byte_pair_tokenizer,
    plan_decoder_block,
    plan_embeddings,
    rope_theta,
    sliding_window_config,
)
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class Qwen3Converter:
    """How a Transformers Qwen 3 checkpoint becomes a `Qwen3Backbone` and a `Qwen3Tokenizer`."""

    backbone_cls = Qwen3Backbone

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
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "rope_max_wavelength": rope_theta(hf),
            "sliding_window_size": hf.get("sliding_window") if sliding_window_config(hf) else None,
            "tie_word_embeddings": hf.get("tie_word_embeddings", False),
        }

    @staticmethod
    def plan_weights(backbone: Qwen3Backbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            plan_decoder_block(block, prefix, plan)
            attention = block._self_attention_layer
            plan.port(attention._query_dense_layer_norm.scale, prefix + "self_attn.q_norm.weight")
            plan.port(attention._key_dense_layer_norm.scale, prefix + "self_attn.k_norm.weight")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("qwen3", Qwen3Converter)
