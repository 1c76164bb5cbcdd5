"""Falcon from a Hugging Face Transformers checkpoint (``model_type: falcon``): config, weights and tokenizer.

    backbone = FalconBackbone.from_preset("./falcon-rw-hf")      # config.json, model.safetensors, tokenizer.json

KerasHub's ``FalconBackbone`` is Falcon-RW's architecture: ALiBi, one key and
value head per query head, sequential residuals, biases. Its fused
``query_key_value`` matrix keeps each head's query, key and value rows
together, as Bloom's (``bloom_converter``). KerasHub 0.32 has no Falcon
converter; the rotary, multi-query and parallel-attention Falcons (7B, 40B,
180B) are refused, naming the field.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.bloom.bloom_converter import fused_part
from tfkit.hub.models.falcon.falcon_backbone import FalconBackbone
from tfkit.hub.models.roberta.roberta_converter import port_layer_norm
from tfkit.hub.presets.decoder_conversion import byte_pair_tokenizer
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


def _refuse_variants(hf: dict) -> None:
    """``ValueError`` naming the field of a Falcon KerasHub's `FalconBackbone` does not build."""
    # (field, its Transformers default, what KerasHub's backbone builds)
    for field, default, expected in (
        ("alibi", False, True),
        ("new_decoder_architecture", False, False),
        ("multi_query", True, False),
        ("parallel_attn", True, False),
        ("bias", False, True),
        ("activation", "gelu", "gelu"),
    ):
        value = hf.get(field, default)
        if value != expected:
            raise ValueError(
                f"config.json (model_type falcon): {field}={value!r}; KerasHub's FalconBackbone (and tfkit's) "
                f"builds only {field}={expected!r} (Falcon-RW's architecture)"
            )


def _check_epsilon(hf: dict) -> None:
    """KerasHub's `FalconBackbone` gives `layer_norm_epsilon` to its final norm only (its blocks keep `1e-5`)."""
    epsilon = hf.get("layer_norm_epsilon", 1e-5)
    if epsilon != 1e-5:
        raise ValueError(
            f"config.json (model_type falcon): layer_norm_epsilon={epsilon}; KerasHub's FalconBackbone (and tfkit's) "
            "passes it to the final norm only, its blocks' norms keep 1e-5, so only 1e-5 gives the checkpoint's numbers"
        )


class FalconConverter:
    """How a Transformers Falcon-RW checkpoint becomes a `FalconBackbone` and a `FalconTokenizer`."""

    backbone_cls = FalconBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        _refuse_variants(hf)
        _check_epsilon(hf)
        hidden = hf["hidden_size"]
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_attention_heads": hf["num_attention_heads"],
            "hidden_dim": hidden,
            "intermediate_dim": hf.get("ffn_hidden_size") or 4 * hidden,
            "layer_norm_epsilon": hf.get("layer_norm_epsilon", 1e-5),
            "attention_dropout_rate": hf.get("attention_dropout", 0.0),
            "feedforward_dropout_rate": hf.get("hidden_dropout", 0.0),
        }

    @staticmethod
    def plan_weights(backbone: FalconBackbone, hf: dict, plan: WeightPlan) -> None:
        heads = backbone.num_attention_heads
        plan.port(backbone.token_embedding.embeddings, "word_embeddings.weight")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"h.{i}."
            attention = block.attention_layer
            fused = prefix + "self_attention.query_key_value."
            for part, dense in enumerate((attention.query_dense, attention.key_dense, attention.value_dense)):
                plan.port(dense.kernel, fused + "weight", fused_part(part, heads))
                plan.port(dense.bias, fused + "bias", fused_part(part, heads))
            for dense, name in (
                (attention.output_dense, "self_attention.dense"),
                (block.dense_h_to_4h, "mlp.dense_h_to_4h"),
                (block.dense_4h_to_h, "mlp.dense_4h_to_h"),
            ):
                plan.port(dense.kernel, prefix + name + ".weight", np.transpose)
                plan.port(dense.bias, prefix + name + ".bias")
            port_layer_norm(plan, block.input_layernorm, prefix + "input_layernorm")
            port_layer_norm(plan, block.post_attention_layernorm, prefix + "post_attention_layernorm")
        port_layer_norm(plan, backbone.final_layernorm, "ln_f")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("falcon", FalconConverter)
