"""GPT-OSS from a Hugging Face Transformers checkpoint (``model_type: gpt_oss``): config, weights and tokenizer.

    backbone = GptOssBackbone.from_preset("./gpt-oss-hf")    # config.json, model*.safetensors, tokenizer.json

The experts come as OpenAI released them, MXFP4 (``gate_up_proj_blocks``: 4-bit E2M1
values packed two a byte, low nibble first, 32 a block; ``gate_up_proj_scales``: one
E8M0 power of two a block), or dequantized (``gate_up_proj``, ``(experts, in, out)``,
KerasHub's layout); both load, one layer at a time. Transformers' windowed layers and
window differ from KerasHub's rule (it windows the even-numbered layers, each token
seeing ``sliding_window`` tokens itself included; KerasHub windows the odd-numbered
ones with one token more): this converter gives the backbone the checkpoint's
``layer_types`` and ``sliding_window - 1``, so its numbers are the checkpoint's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.gpt_oss.gpt_oss_backbone import GptOssBackbone
from tfkit.hub.presets.decoder_conversion import (
    byte_pair_tokenizer,
    plan_decoder_attention,
    plan_embeddings,
    rope_theta,
)
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

# E2M1: sign, two exponent bits, one mantissa bit; the 16 codes' values
_FP4_VALUES = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], np.float32)
# what KerasHub's GptOssAttention fixes (and tfkit's): a checkpoint asking for other YaRN settings is refused
_YARN = {"beta_fast": 32.0, "beta_slow": 1.0, "original_max_position_embeddings": 4096, "truncate": False}


def dequantized_mxfp4(blocks: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """MXFP4 kernels as float32 `(experts, in, out)`: each byte two E2M1 values (low nibble first), each block
    of 32 times `2 ** (scale - 127)`.

    Args:
        blocks: uint8 `(experts, out, num_blocks, 16)`.
        scales: uint8 `(experts, out, num_blocks)`.

    Returns:
        float32 `(experts, num_blocks * 32, out)`.

    Example:
        >>> from tfkit.hub.models.gpt_oss.gpt_oss_converter import dequantized_mxfp4
        >>> blocks = np.zeros((1, 1, 1, 16), np.uint8); blocks[0, 0, 0, 0] = 0x2F   # codes 15 (-6) then 2 (1)
        >>> dequantized_mxfp4(blocks, np.full((1, 1, 1), 128, np.uint8))[0, :3, 0].tolist()
        [-12.0, 2.0, 0.0]
    """
    blocks = np.asarray(blocks, np.uint8)
    codes = np.stack([blocks & 0x0F, blocks >> 4], axis=-1).reshape(blocks.shape[:3] + (-1,))
    values = _FP4_VALUES[codes] * np.exp2(np.asarray(scales, np.float32) - 127.0)[..., None]
    return np.ascontiguousarray(values.reshape(values.shape[0], values.shape[1], -1).transpose(0, 2, 1))


def _rope_scaling(hf: dict) -> float:
    """YaRN's factor, after checking the other YaRN settings are KerasHub's."""
    scaling = hf.get("rope_scaling") or hf.get("rope_parameters") or {}
    if not scaling or scaling.get("rope_type", scaling.get("type", "yarn")) != "yarn":
        return 1.0 if not scaling.get("factor") else float(scaling["factor"])
    for field, value in _YARN.items():
        if field in scaling and scaling[field] != value:
            raise ValueError(
                f"config.json (model_type gpt_oss): rope_scaling.{field}={scaling[field]!r}; KerasHub's GptOssBackbone "
                f"(and tfkit's) fixes {field}={value!r}"
            )
    return float(scaling.get("factor", 1.0))


class GptOssConverter:
    """How a Transformers GPT-OSS checkpoint becomes a `GptOssBackbone` and a `GptOssTokenizer`."""

    backbone_cls = GptOssBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        for field, expected in (("swiglu_limit", 7.0), ("attention_bias", True), ("tie_word_embeddings", False)):
            if hf.get(field, expected) != expected:
                raise ValueError(
                    f"config.json (model_type gpt_oss): {field}={hf[field]!r}; KerasHub's GptOssBackbone (and "
                    f"tfkit's) builds {field}={expected!r}"
                )
        layers = hf["num_hidden_layers"]
        window = hf.get("sliding_window")
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": layers,
            "num_query_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "num_key_value_heads": hf["num_key_value_heads"],
            "num_experts": hf["num_local_experts"],
            "top_k": hf["num_experts_per_tok"],
            "rope_max_wavelength": rope_theta(hf),
            "rope_scaling_factor": _rope_scaling(hf),
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "sliding_window": window - 1 if window else None,
            "head_dim": hf.get("head_dim"),
            "layer_types": hf.get("layer_types")
            or ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)],
        }

    @staticmethod
    def plan_weights(backbone: GptOssBackbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            plan_decoder_attention(block, prefix, plan)
            attention = block.self_attention_layer
            for dense, name in (
                (attention.query_dense, "q_proj"),
                (attention.key_dense, "k_proj"),
                (attention.value_dense, "v_proj"),
                (attention.output_dense, "o_proj"),
            ):
                plan.port(
                    dense.bias, f"{prefix}self_attn.{name}.bias", lambda t, s=tuple(dense.bias.shape): t.reshape(s)
                )
            plan.port(attention.sinks, prefix + "self_attn.sinks")
            moe = block.sparse_moe_block
            plan.port(moe.router.router_dense.kernel, prefix + "mlp.router.weight", np.transpose)
            plan.port(moe.router.router_dense.bias, prefix + "mlp.router.bias")
            experts = moe.experts
            for kernel, name in ((experts.gate_up_proj, "gate_up_proj"), (experts.down_proj, "down_proj")):
                key = f"{prefix}mlp.experts.{name}"
                if _mxfp4(hf):
                    plan.port_combined(kernel, (key + "_blocks", key + "_scales"), dequantized_mxfp4)
                else:
                    plan.port(kernel, key)
            plan.port(experts.gate_up_proj_bias, f"{prefix}mlp.experts.gate_up_proj_bias")
            plan.port(experts.down_proj_bias, f"{prefix}mlp.experts.down_proj_bias")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


def _mxfp4(hf: dict) -> bool:
    """Whether the checkpoint stores the experts MXFP4-quantized (its config's `quantization_config` says so)."""
    quantization = hf.get("quantization_config") or {}
    return quantization.get("quant_method") == "mxfp4"


register("gpt_oss", GptOssConverter)
