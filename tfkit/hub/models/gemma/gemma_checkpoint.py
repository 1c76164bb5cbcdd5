"""Gemma and Gemma 2 from Hugging Face Transformers checkpoints (``model_type: gemma`` / ``gemma2``).

    backbone = GemmaBackbone.from_preset("./gemma-2-hf")     # config.json, model.safetensors, tokenizer.model

Transformers keeps each projection as a ``(out, in)`` matrix: queries, keys
and values ``(heads * head_dim, hidden)``, the attention output ``(hidden,
heads * head_dim)``; KerasHub's ``EinsumDense`` kernels are
``(heads, hidden, head_dim)`` and ``(heads, head_dim, hidden)``, and its
feedforward kernels ``(in, out)``. Gemma 1 names the norm before the
feedforward network ``post_attention_layernorm``; Gemma 2 has four norms a
layer. The ``port_*`` functions are shared with Gemma 3's converter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.gemma.gemma_backbone import GemmaBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

TOKENIZER_MODEL_FILE = "tokenizer.model"


def heads_in_kernel(shape: tuple) -> Any:
    """``(heads * head_dim, hidden)`` -> the ``(heads, hidden, head_dim)`` kernel of a query/key/value dense."""
    heads, hidden, head_dim = shape

    def transform(value: np.ndarray) -> np.ndarray:
        return np.transpose(np.reshape(value, (heads, head_dim, hidden)), (0, 2, 1))

    return transform


def heads_out_kernel(shape: tuple) -> Any:
    """``(hidden, heads * head_dim)`` -> the ``(heads, head_dim, hidden)`` kernel of the attention output."""
    heads, head_dim, hidden = shape

    def transform(value: np.ndarray) -> np.ndarray:
        return np.transpose(np.reshape(value, (hidden, heads, head_dim)), (1, 2, 0))

    return transform


def port_attention(plan: WeightPlan, attention: Any, prefix: str) -> None:
    """The four projections of a Gemma attention layer from ``<prefix>self_attn.{q,k,v,o}_proj.weight``."""
    for dense, name in (
        (attention.query_dense, "q_proj"),
        (attention.key_dense, "k_proj"),
        (attention.value_dense, "v_proj"),
    ):
        plan.port(dense.kernel, f"{prefix}self_attn.{name}.weight", heads_in_kernel(tuple(dense.kernel.shape)))
    output = attention.output_dense.kernel
    plan.port(output, f"{prefix}self_attn.o_proj.weight", heads_out_kernel(tuple(output.shape)))


def port_feedforward(plan: WeightPlan, block: Any, prefix: str) -> None:
    """The gated feedforward network from ``<prefix>mlp.{gate,up,down}_proj.weight`` (transposed)."""
    for dense, name in (
        (block.gating_ffw, "gate_proj"),
        (block.gating_ffw_2, "up_proj"),
        (block.ffw_linear, "down_proj"),
    ):
        plan.port(dense.kernel, f"{prefix}mlp.{name}.weight", np.transpose)


def port_norms(plan: WeightPlan, block: Any, prefix: str, pre_ffw_key: str) -> None:
    """The block's RMS norms: the two Gemma has, and the post-norms of Gemma 2 and 3 where the block has them."""
    plan.port(block.pre_attention_norm.scale, f"{prefix}input_layernorm.weight")
    plan.port(block.pre_ffw_norm.scale, f"{prefix}{pre_ffw_key}.weight")
    if block.use_post_attention_norm:
        plan.port(block.post_attention_norm.scale, f"{prefix}post_attention_layernorm.weight")
    if block.use_post_ffw_norm:
        plan.port(block.post_ffw_norm.scale, f"{prefix}post_feedforward_layernorm.weight")


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
