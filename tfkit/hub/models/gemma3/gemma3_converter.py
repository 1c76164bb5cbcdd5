"""Gemma 3 (text) from Hugging Face Transformers checkpoints (``model_type: gemma3_text``, and ``gemma3``'s text).

    backbone = Gemma3Backbone.from_preset("./gemma-3-1b-it")    # config.json, model.safetensors, tokenizer.model

A ``gemma3_text`` checkpoint (``Gemma3ForCausalLM``) keeps the decoder under
``model.``; a multimodal ``gemma3`` checkpoint keeps it under
``model.language_model.`` (or ``language_model.model.``) beside its vision
tower, and its text settings in ``text_config``: tfkit.hub reads the text
model of either (the vision tower of a ``gemma3`` checkpoint is left out, with
a warning). The projections are laid out as Gemma's (``presets/decoder_conversion.py``),
plus the per-head query and key norms.
"""

from __future__ import annotations

import logging
from typing import Any

from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone
from tfkit.hub.models.gemma3.gemma3_tokenizer import END_OF_IMAGE_TOKEN, IMAGE_PLACEHOLDER_TOKEN, START_OF_IMAGE_TOKEN
from tfkit.hub.presets import files
from tfkit.hub.presets.decoder_conversion import TOKENIZER_MODEL_FILE, port_attention, port_feedforward, port_norms
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register
from tfkit.hub.tokenizers import SentencePieceTokenizer

_LOG = logging.getLogger("tfkit.hub")


def _rope_factors(text: dict) -> tuple[float, float]:
    """The (local, global) linear rotary scaling factors: ``rope_scaling`` is the global one where set, else
    ``rope_parameters`` holds both (``sliding_attention`` and ``full_attention``)."""
    parameters = text.get("rope_parameters") or {}
    scaling = text.get("rope_scaling")
    global_config = scaling if scaling is not None else parameters.get("full_attention") or {}
    local_config = parameters.get("sliding_attention") or {}
    return local_config.get("factor", 1.0), global_config.get("factor", 1.0)


class Gemma3Converter:
    """How a Transformers Gemma 3 checkpoint becomes a (text-only) `Gemma3Backbone` and a `Gemma3Tokenizer`."""

    backbone_cls = Gemma3Backbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        text = hf
        if hf["model_type"] != "gemma3_text":
            text = hf.get("text_config") or {}
            if "vision_config" in hf:
                _LOG.warning(
                    "tfkit.hub reads the text model of this gemma3 checkpoint; its vision tower is not loaded "
                    "(tfkit.hub builds Gemma 3's text model only)"
                )
        if text.get("use_bidirectional_attention"):
            raise ValueError(
                "This Gemma 3 checkpoint is an embedding model (use_bidirectional_attention, EmbeddingGemma with "
                "sentence-transformers heads); tfkit.hub reads Gemma 3's causal language models only"
            )
        head_dim = text["head_dim"]
        layer_types = text.get("layer_types") or []
        sliding_window = text.get("sliding_window")
        if layer_types:
            use_sliding_window = any(kind == "sliding_attention" for kind in layer_types)
        else:
            use_sliding_window = sliding_window not in (None, 0)
        local_factor, global_factor = _rope_factors(text)
        return {
            "vocabulary_size": text.get("vocab_size", 262144 if hf["model_type"] == "gemma3_text" else 262208),
            "image_size": None,
            "num_layers": text["num_hidden_layers"],
            "num_query_heads": text.get("num_attention_heads", 8),
            "num_key_value_heads": text.get("num_key_value_heads", 4),
            "hidden_dim": text["hidden_size"],
            "intermediate_dim": text["intermediate_size"],
            "head_dim": head_dim,
            "use_post_ffw_norm": text.get("use_post_ffw_norm", True),
            "use_post_attention_norm": text.get("use_post_attention_norm", True),
            "attention_logit_soft_cap": text.get("attn_logit_softcapping"),
            "final_logit_soft_cap": text.get("final_logit_softcapping"),
            "use_sliding_window_attention": use_sliding_window,
            "query_head_dim_normalize": text.get("query_pre_attn_scalar", head_dim) == head_dim,
            "sliding_window_size": sliding_window or 4096,
            "local_rope_scaling_factor": local_factor,
            "global_rope_scaling_factor": global_factor,
            "layer_norm_epsilon": text.get("rms_norm_eps", 1e-6),
            "use_query_key_norm": text.get("use_query_key_norm", True),
        }

    @staticmethod
    def plan_weights(backbone: Gemma3Backbone, hf: dict, plan: WeightPlan) -> None:
        # keys without the decoder's prefix: the checkpoint reader finds "model." or "model.language_model."
        # from the first of them, the embeddings (the vision tower's keys never end like the decoder's)
        plan.port(backbone.token_embedding.embeddings, "embed_tokens.weight")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"layers.{i}."
            port_norms(plan, block, prefix, "pre_feedforward_layernorm")
            port_attention(plan, block.attention, prefix)
            if block.attention.use_query_key_norm:
                plan.port(block.attention.query_norm.scale, f"{prefix}self_attn.q_norm.weight")
                plan.port(block.attention.key_norm.scale, f"{prefix}self_attn.k_norm.weight")
            port_feedforward(plan, block, prefix)
        plan.port(backbone.layer_norm.scale, "norm.weight")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        proto = files.preset_file(directory, TOKENIZER_MODEL_FILE)
        vocabulary = set(SentencePieceTokenizer(proto=proto).get_vocabulary())
        has_vision_tokens = {START_OF_IMAGE_TOKEN, IMAGE_PLACEHOLDER_TOKEN, END_OF_IMAGE_TOKEN} <= vocabulary
        return cls(proto=proto, has_vision_tokens=has_vision_tokens, **arguments)


register("gemma3_text", Gemma3Converter)
register("gemma3", Gemma3Converter)
