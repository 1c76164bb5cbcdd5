"""Phi-3 from a Hugging Face Transformers checkpoint (``model_type: phi3``): config, weights and tokenizer.

    causal_lm = Phi3CausalLM.from_preset("./phi3-hf")   # config.json, model.safetensors, tokenizer.model

Transformers keeps the query, key and value projections as one ``qkv_proj``
matrix (their rows stacked in that order) and the gate and up projections as one
``gate_up_proj`` (gate rows first); each is split here into KerasHub's separate
kernels, transposed and reshaped as the other Llama-style families' are. The
rotary scaling ``"longrope"`` (``"su"`` in older configs) becomes
``rope_scaling_type="su"`` with its short and long factors; the pretraining
length is ``original_max_position_embeddings``. As KerasHub's ``Phi3Backbone``,
tfkit's applies no sliding window: Transformers' Phi-3-mini configs name one
(``sliding_window: 2047``), which changes nothing on shorter sequences. The
tokenizer is ``tokenizer.model`` with Transformers' added tokens
(``<|endoftext|>``, ``<|end|>``...) appended as pieces (``phi3_added_tokens``).
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.phi3.phi3_added_tokens import added_tokens, with_added_tokens
from tfkit.hub.models.phi3.phi3_backbone import Phi3Backbone
from tfkit.hub.models.phi3.phi3_rotary_embedding import embedding_scale
from tfkit.hub.presets import files
from tfkit.hub.presets.decoder_conversion import TOKENIZER_MODEL_FILE, plan_embeddings, rope_theta, transposed
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register
from tfkit.hub.tokenizers import asset_files

_LONG_ROPE = ("su", "longrope")


def _rotary_arguments(hf: dict) -> dict[str, Any]:
    """The backbone's rotary arguments: lengths and the long-rope scaling of `rope_scaling` (Transformers 4) or
    `rope_parameters` (Transformers 5, which may hold `original_max_position_embeddings` too)."""
    scaling = hf.get("rope_scaling") or hf.get("rope_parameters") or {}
    max_length = hf.get("max_position_embeddings", 4096)
    pretraining = hf.get("original_max_position_embeddings") or scaling.get("original_max_position_embeddings")
    arguments = {
        "max_sequence_length": max_length,
        "pretraining_sequence_length": pretraining or max_length,
        "rope_max_wavelength": rope_theta(hf),
        "rope_scaling_type": None,
        "rope_scaling_short_factor": None,
        "rope_scaling_long_factor": None,
    }
    kind = scaling.get("rope_type", scaling.get("type"))
    if kind in (None, "default"):
        return arguments
    if kind not in _LONG_ROPE:
        raise ValueError(
            f"config.json: rope_scaling type {kind!r}; KerasHub's Phi3Backbone (and tfkit's) takes none or "
            f"'longrope' ('su')"
        )
    scale = embedding_scale(max_length, arguments["pretraining_sequence_length"])
    if scaling.get("attention_factor") is not None and abs(scaling["attention_factor"] - scale) > 1e-6:
        raise ValueError(
            f"config.json: rope_scaling.attention_factor={scaling['attention_factor']}; KerasHub's Phi3Backbone "
            f"(and tfkit's) scales by {scale:.6f}, from max_position_embeddings and original_max_position_embeddings"
        )
    short, long = list(scaling["short_factor"]), list(scaling["long_factor"])
    return {
        **arguments,
        "rope_scaling_type": "su",
        "rope_scaling_short_factor": short,
        "rope_scaling_long_factor": long,
    }


class Phi3Converter:
    """How a Transformers Phi-3 checkpoint becomes a `Phi3Backbone` and a `Phi3Tokenizer`."""

    backbone_cls = Phi3Backbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        heads, hidden = hf["num_attention_heads"], hf["hidden_size"]
        if hf.get("partial_rotary_factor", 1.0) != 1.0:
            raise ValueError(
                f"config.json: partial_rotary_factor={hf['partial_rotary_factor']} (Phi-4-mini's rotary embedding of "
                f"part of each head); KerasHub's Phi3Backbone (and tfkit's) rotates whole heads"
            )
        if hf.get("head_dim") not in (None, hidden // heads):
            raise ValueError(f"config.json: head_dim={hf['head_dim']}; Phi3Backbone's heads are hidden_size // heads")
        if hf.get("hidden_act", "silu") != "silu":
            raise ValueError(f"config.json: hidden_act={hf['hidden_act']!r}; Phi3Backbone's gate is SiLU")
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "hidden_dim": hidden,
            "intermediate_dim": hf["intermediate_size"],
            "num_query_heads": heads,
            "num_key_value_heads": hf.get("num_key_value_heads") or heads,
            "layer_norm_epsilon": hf["rms_norm_eps"],
            **_rotary_arguments(hf),
        }

    @staticmethod
    def plan_weights(backbone: Phi3Backbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            plan.port(block.pre_attention_layernorm.scale, prefix + "input_layernorm.weight")
            plan.port(block.post_attention_layernorm.scale, prefix + "post_attention_layernorm.weight")
            attention = block.attention
            parts = [attention.query_dense.kernel, attention.key_dense.kernel, attention.value_dense.kernel]
            _port_fused(plan, parts, prefix + "self_attn.qkv_proj.weight")
            output = attention.output_dense.kernel
            plan.port(output, prefix + "self_attn.o_proj.weight", transposed(tuple(output.shape)))
            parts = [block.feedforward_gate_dense.kernel, block.feedforward_intermediate_dense.kernel]
            _port_fused(plan, parts, prefix + "mlp.gate_up_proj.weight")
            down = block.feedforward_output_dense.kernel
            plan.port(down, prefix + "mlp.down_proj.weight", transposed(tuple(down.shape)))

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        where = f"preset {directory}: {TOKENIZER_MODEL_FILE}"
        proto = asset_files.read_bytes(files.preset_file(directory, TOKENIZER_MODEL_FILE), where)
        return cls(proto=with_added_tokens(proto, added_tokens(directory), where), **arguments)


def _port_fused(plan: WeightPlan, kernels: list, key: str) -> None:
    """Each kernel from its rows of the fused Transformers `(out, in)` matrix `key` (the kernels' rows in order)."""
    sizes = [
        int(kernel.shape[-1]) if len(kernel.shape) == 2 else int(kernel.shape[1] * kernel.shape[2])
        for kernel in kernels
    ]
    total, start = sum(sizes), 0
    for kernel, size in zip(kernels, sizes):
        plan.port(kernel, key, _rows(key, start, size, total, tuple(kernel.shape)))
        start += size


def _rows(key: str, start: int, count: int, total: int, shape: tuple) -> Any:
    """Rows `start ... start + count` of fused matrix `key` (`total` rows), as a kernel of `shape`."""
    reshape = transposed(shape)

    def transform(value: Any) -> Any:
        if value.shape[0] != total:
            raise ValueError(
                f"tensor {key} has {value.shape[0]} rows; the model built from config.json takes {total} "
                f"(its parts' {count} from row {start} among them)"
            )
        return reshape(value[start : start + count])

    return transform


register("phi3", Phi3Converter)
