"""Gemma and Gemma 2 from Hugging Face Transformers checkpoints (``model_type: gemma`` / ``gemma2``).

    backbone = GemmaBackbone.from_preset("./gemma-2-hf")     # config.json, model.safetensors, tokenizer.model

Transformers keeps each projection as a ``(out, in)`` matrix: queries, keys
and values ``(heads * head_dim, hidden)``, the attention output ``(hidden,
heads * head_dim)``; KerasHub's ``EinsumDense`` kernels are
``(heads, hidden, head_dim)`` and ``(heads, head_dim, hidden)``, and its
feedforward kernels ``(in, out)``. Gemma 1 names the norm before the
feedforward network ``post_attention_layernorm``; Gemma 2 has four norms a
layer. The ``port_*`` functions (``presets/decoder_conversion.py``) are shared with
Gemma 3's converter.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.gemma.gemma_backbone import GemmaBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.decoder_conversion import TOKENIZER_MODEL_FILE, port_attention, port_feedforward, port_norms
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class GemmaConverter:
    """How a Transformers Gemma or Gemma 2 checkpoint becomes a `GemmaBackbone` and a `GemmaTokenizer`."""

    backbone_cls = GemmaBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        heads = hf["num_attention_heads"]
        config = {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_query_heads": heads,
            "num_key_value_heads": hf.get("num_key_value_heads", heads),
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"] * 2,
            "head_dim": hf.get("head_dim") or hf["hidden_size"] // heads,
            "layer_norm_epsilon": hf.get("rms_norm_eps", 1e-6),
        }
        if hf["model_type"] == "gemma2":
            config.update(
                query_head_dim_normalize=hf.get("query_pre_attn_scalar", config["head_dim"]) == config["head_dim"],
                use_post_ffw_norm=True,
                use_post_attention_norm=True,
                final_logit_soft_cap=hf.get("final_logit_softcapping"),
                attention_logit_soft_cap=hf.get("attn_logit_softcapping"),
                sliding_window_size=hf.get("sliding_window") or 4096,
                use_sliding_window_attention=True,
            )
        return config

    @staticmethod
    def plan_weights(backbone: GemmaBackbone, hf: dict, plan: WeightPlan) -> None:
        plan.port(backbone.token_embedding.embeddings, "model.embed_tokens.weight")
        pre_ffw_key = "pre_feedforward_layernorm" if hf["model_type"] == "gemma2" else "post_attention_layernorm"
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            port_norms(plan, block, prefix, pre_ffw_key)
            port_attention(plan, block.attention, prefix)
            port_feedforward(plan, block, prefix)
        plan.port(backbone.layer_norm.scale, "model.norm.weight")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return cls(proto=files.preset_file(directory, TOKENIZER_MODEL_FILE), **arguments)


register("gemma", GemmaConverter)
register("gemma2", GemmaConverter)
