"""OPT from a Hugging Face Transformers checkpoint (``model_type: opt``): config, weights and tokenizer.

    backbone = OPTBackbone.from_preset("./opt-hf")       # config.json, model.safetensors, vocab.json, merges.txt

Transformers' OPT keeps two extra rows at the top of its position table (its
learned positions start at offset 2); KerasHub's position ``i`` is row
``i + 2`` there, so the first two rows are dropped. Each projection is one
``(out, in)`` matrix, reshaped to the heads of the attention's dense layers.
KerasHub 0.32 has no OPT converter; the variants KerasHub's backbone cannot
express (OPT-350m's post-norm blocks and embedding projections) are refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.opt.opt_backbone import OPTBackbone
from tfkit.hub.models.roberta.roberta_converter import port_layer_norm
from tfkit.hub.presets.decoder_conversion import byte_pair_tokenizer, transposed
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

POSITION_OFFSET = 2  # Transformers' OPTLearnedPositionalEmbedding.offset


def _refuse_variants(hf: dict) -> None:
    """``ValueError`` naming the field of an OPT variant KerasHub's `OPTBackbone` does not build."""
    hidden = hf["hidden_size"]
    differences = {
        "do_layer_norm_before": (hf.get("do_layer_norm_before", True), True),
        "word_embed_proj_dim": (hf.get("word_embed_proj_dim") or hidden, hidden),
        "activation_function": (hf.get("activation_function", "relu"), "relu"),
        "enable_bias": (hf.get("enable_bias", True), True),
        "layer_norm_elementwise_affine": (hf.get("layer_norm_elementwise_affine", True), True),
        "_remove_final_layer_norm": (hf.get("_remove_final_layer_norm", False), False),
    }
    for field, (value, expected) in differences.items():
        if value != expected:
            raise ValueError(
                f"config.json (model_type opt): {field}={value!r}; KerasHub's OPTBackbone (and tfkit's) "
                f"builds only {field}={expected!r}"
            )


class OPTConverter:
    """How a Transformers OPT checkpoint becomes an `OPTBackbone` and an `OPTTokenizer`."""

    backbone_cls = OPTBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        _refuse_variants(hf)
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["ffn_dim"],
            "dropout": hf.get("dropout", 0.1),
            "max_sequence_length": hf["max_position_embeddings"],
        }

    @staticmethod
    def plan_weights(backbone: OPTBackbone, hf: dict, plan: WeightPlan) -> None:
        embeddings = backbone.embeddings
        plan.port(embeddings.token_embedding.embeddings, "decoder.embed_tokens.weight")
        plan.port(
            embeddings.position_embedding.position_embeddings,
            "decoder.embed_positions.weight",
            lambda value: value[POSITION_OFFSET:],
        )
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"decoder.layers.{i}."
            attention = block._self_attention_layer
            for dense, name in (
                (attention._query_dense, "q_proj"),
                (attention._key_dense, "k_proj"),
                (attention._value_dense, "v_proj"),
                (attention._output_dense, "out_proj"),
            ):
                key = f"{prefix}self_attn.{name}."
                plan.port(dense.kernel, key + "weight", transposed(tuple(dense.kernel.shape)))
                plan.port(dense.bias, key + "bias", lambda value, shape=tuple(dense.bias.shape): value.reshape(shape))
            port_layer_norm(plan, block._self_attention_layer_norm, prefix + "self_attn_layer_norm")
            port_layer_norm(plan, block._feedforward_layer_norm, prefix + "final_layer_norm")
            for dense, name in (
                (block._feedforward_intermediate_dense, "fc1"),
                (block._feedforward_output_dense, "fc2"),
            ):
                plan.port(dense.kernel, prefix + name + ".weight", np.transpose)
                plan.port(dense.bias, prefix + name + ".bias")
        port_layer_norm(plan, backbone.layer_norm, "decoder.final_layer_norm")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("opt", OPTConverter)
