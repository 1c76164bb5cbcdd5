"""Llama 3 from a Hugging Face Transformers checkpoint (``model_type: llama``): config, weights and tokenizer.

    backbone = Llama3Backbone.from_preset("./Llama-3.2-1B")      # config.json, model.safetensors, tokenizer.json

Transformers' ``nn.Linear`` weights are ``(out, in)``: each is transposed, and
the attention projections reshaped to KerasHub's heads (``(hidden, heads,
head_dim)`` for queries, keys and values, ``(heads, head_dim, hidden)`` for
the output). ``rope_scaling`` of type ``llama3`` (Llama 3.1 and later) gives
the rotary embedding's frequency smoothing, of type ``linear`` its position
scaling. The tokenizer comes from ``tokenizer.json`` (byte-level BPE, with
the added special tokens but the reserved ones) and ``tokenizer_config.json``
(the start and end tokens).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.llama3.llama3_backbone import Llama3Backbone
from tfkit.hub.presets import files
from tfkit.hub.presets.decoder_conversion import plan_decoder_block
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

_RESERVED_PREFIX = "<|reserved_special_token_"


def _rope_arguments(hf: dict, where: str) -> dict[str, Any]:
    """The backbone's rotary arguments from ``rope_theta`` and ``rope_scaling`` (or Transformers 5's
    ``rope_parameters``)."""
    parameters = hf.get("rope_parameters") or {}
    scaling = hf.get("rope_scaling") or parameters
    theta = parameters.get("rope_theta", hf.get("rope_theta", 10000.0))
    arguments: dict[str, Any] = {"rope_max_wavelength": theta}
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    if rope_type == "llama3":
        arguments.update(
            rope_frequency_adjustment_factor=scaling["factor"],
            rope_low_freq_factor=scaling["low_freq_factor"],
            rope_high_freq_factor=scaling["high_freq_factor"],
            rope_pretraining_sequence_length=scaling["original_max_position_embeddings"],
        )
    elif rope_type == "linear":
        arguments["rope_position_scaling_factor"] = scaling["factor"]
    elif rope_type != "default":
        raise ValueError(
            f"{where}: rope_scaling of type {rope_type!r} is not supported for Llama; tfkit.hub reads 'llama3' "
            f"(Llama 3.1 and later) and 'linear' rotary scaling"
        )
    return arguments


def _check_supported(hf: dict, where: str) -> None:
    """Refuse what Llama3Backbone cannot hold, instead of loading a model that computes something else."""
    unsupported = [key for key in ("attention_bias", "mlp_bias") if hf.get(key)]
    if unsupported:
        raise ValueError(f"{where}: {' and '.join(unsupported)} set; Llama3Backbone's projections have no biases")
    if hf.get("hidden_act", "silu") != "silu":
        raise ValueError(f"{where}: hidden_act {hf['hidden_act']!r}; Llama3Backbone's feedforward gate is SiLU")
    head_dim = hf.get("head_dim")
    if head_dim is not None and head_dim != hf["hidden_size"] // hf["num_attention_heads"]:
        raise ValueError(
            f"{where}: head_dim {head_dim} differs from hidden_size // num_attention_heads "
            f"({hf['hidden_size']} // {hf['num_attention_heads']}); Llama3Backbone derives it from those two"
        )


class Llama3Converter:
    """How a Transformers Llama checkpoint becomes a `Llama3Backbone` and a `Llama3Tokenizer`."""

    backbone_cls = Llama3Backbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        where = "config.json (model_type llama)"
        _check_supported(hf, where)
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_query_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "num_key_value_heads": hf.get("num_key_value_heads") or hf["num_attention_heads"],
            "tie_word_embeddings": bool(hf.get("tie_word_embeddings", False)),
            # KerasHub leaves the epsilon at its 1e-6 default; Llama 3's checkpoints say 1e-5
            "layer_norm_epsilon": hf.get("rms_norm_eps", 1e-6),
            **_rope_arguments(hf, where),
        }

    @staticmethod
    def plan_weights(backbone: Llama3Backbone, hf: dict, plan: WeightPlan) -> None:
        embedding = backbone.token_embedding
        plan.port(embedding.embeddings, "embed_tokens.weight")
        if not backbone.tie_word_embeddings:
            plan.port(embedding.reverse_embeddings, "lm_head.weight", np.transpose)
        for i, block in enumerate(backbone.transformer_layers):
            plan_decoder_block(block, f"layers.{i}.", plan)
        plan.port(backbone.layer_norm.scale, "norm.weight")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        tokenizer_json = files.read_json(directory, "tokenizer.json")  # bounded in bytes and values, plain data
        model = tokenizer_json.get("model") if isinstance(tokenizer_json, dict) else None
        if not isinstance(model, dict) or model.get("type", "BPE") != "BPE" or "vocab" not in model:
            raise ValueError(f"preset {directory}: tokenizer.json does not hold a byte-pair (BPE) model")
        if model.get("byte_fallback"):  # Llama 2's SentencePiece-style BPE ("▁" for spaces), not Llama 3's bytes
            raise ValueError(
                f"preset {directory}: tokenizer.json is a SentencePiece-style BPE with byte fallback (Llama 2's); "
                f"Llama3Tokenizer is byte-level. Load Llama 2 from a KerasHub preset (LlamaCausalLM), or pass "
                f"preprocessor=None and tokenize with its tokenizer.model"
            )
        vocabulary = dict(model["vocab"])
        merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
        specials = []
        for token in tokenizer_json.get("added_tokens", []):
            if not token["content"].startswith(_RESERVED_PREFIX):
                vocabulary[token["content"]] = token["id"]
                specials.append(token["content"])
        special_arguments: dict[str, Any] = {"misc_special_tokens": specials}
        if files.has_file(directory, "tokenizer_config.json"):
            config = files.read_json(directory, "tokenizer_config.json")
            for ours, theirs in (("bos_token", "bos_token"), ("eos_token", "eos_token")):
                token = config.get(theirs)
                token = token.get("content") if isinstance(token, dict) else token  # an AddedToken's form
                if isinstance(token, str):
                    special_arguments[ours] = token
        return cls(vocabulary=vocabulary, merges=merges, **{**special_arguments, **arguments})


register("llama", Llama3Converter)
