"""SmolLM3 from a Hugging Face Transformers checkpoint (``model_type: smollm3``): config, weights and tokenizer.

    backbone = SmolLM3Backbone.from_preset("./smollm3-hf")    # config.json, model.safetensors, tokenizer.json

The weights are Llama's tensor names: the query, key and value projections are
KerasHub's plain ``Dense`` kernels (transposed), the output projection an
``(heads, head_dim, hidden)`` kernel, and the output embedding is the input one
(SmolLM3 ties them, as KerasHub's backbone does). Transformers' ``no_rope_layers``
(1 where a layer uses rotary embeddings, despite its name) becomes
``rope_layer_enabled_list``, as KerasHub's converter reads it; the tokenizer is a
byte-level BPE ``tokenizer.json``.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.smollm3.smollm3_backbone import SmolLM3Backbone
from tfkit.hub.presets.decoder_conversion import byte_pair_tokenizer, rope_theta, transposed
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class SmolLM3Converter:
    """How a Transformers SmolLM3 checkpoint becomes a `SmolLM3Backbone` and a `SmolLM3Tokenizer`."""

    backbone_cls = SmolLM3Backbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        if hf.get("tie_word_embeddings") is False:
            raise ValueError(
                "SmolLM3Backbone ties its output embedding to its input one (as KerasHub's does); this checkpoint "
                "has tie_word_embeddings=false"
            )
        if hf.get("use_sliding_window"):
            raise ValueError("use_sliding_window is true; SmolLM3Backbone (as KerasHub's) attends over every token")
        num_layers = hf["num_hidden_layers"]
        return {
            "vocabulary_size": hf["vocab_size"],
            "hidden_dim": hf["hidden_size"],
            "num_layers": num_layers,
            "num_attention_heads": hf["num_attention_heads"],
            "num_key_value_heads": hf["num_key_value_heads"],
            "intermediate_dim": hf["intermediate_size"],
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "max_position_embeddings": hf["max_position_embeddings"],
            "rope_theta": rope_theta(hf),
            "partial_rotary_factor": 1.0,
            "attention_bias": hf.get("attention_bias", False),
            "attention_dropout": hf.get("attention_dropout", 0.0),
            "rope_layer_enabled_list": [bool(x) for x in hf.get("no_rope_layers") or [1] * num_layers],
            "layer_types": hf.get("layer_types") or ["full_attention"] * num_layers,
            "mlp_bias": hf.get("mlp_bias", False),
        }

    @staticmethod
    def plan_weights(backbone: SmolLM3Backbone, hf: dict, plan: WeightPlan) -> None:
        plan.port(backbone.token_embedding.embeddings, "model.embed_tokens.weight")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            plan.port(block.input_layernorm.scale, prefix + "input_layernorm.weight")
            plan.port(block.post_attention_layernorm.scale, prefix + "post_attention_layernorm.weight")
            for owner, names, part in (
                (block.self_attn, ("q_proj", "k_proj", "v_proj", "o_proj"), "self_attn."),
                (block.mlp, ("gate_proj", "up_proj", "down_proj"), "mlp."),
            ):
                for name in names:
                    dense = getattr(owner, name)
                    plan.port(dense.kernel, f"{prefix}{part}{name}.weight", transposed(tuple(dense.kernel.shape)))
                    if getattr(dense, "bias", None) is not None:
                        plan.port(dense.bias, f"{prefix}{part}{name}.bias")
        plan.port(backbone.layer_norm.scale, "model.norm.weight")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("smollm3", SmolLM3Converter)
