"""GPT-NeoX from a Hugging Face Transformers checkpoint (``model_type: gpt_neox``): config, weights and tokenizer.

    backbone = GPTNeoXBackbone.from_preset("./pythia-hf")     # config.json, model.safetensors, tokenizer.json

Transformers' ``query_key_value`` matrix is ``(heads * 3 * head_dim, hidden)``
with each head's query, key and value side by side: KerasHub's fused kernel
``(hidden, heads, 3 * head_dim)`` transposed, so it is transposed and reshaped.
KerasHub 0.32 has no GPT-NeoX converter, and its backbone has a tanh-approximated
GELU and one embedding for input and output; checkpoints that differ (the
exact GELU of Pythia, a separate ``embed_out``, sequential residuals) are
refused, naming the field or the tensor, rather than loaded with other numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.gpt_neo_x.gpt_neo_x_backbone import GPTNeoXBackbone
from tfkit.hub.models.roberta.roberta_converter import port_layer_norm
from tfkit.hub.presets.decoder_conversion import byte_pair_tokenizer, rope_theta, transposed
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

TANH_GELUS = ("gelu_new", "gelu_pytorch_tanh")  # Transformers' names of the GELU KerasHub's backbone computes


def _rotary_percentage(hf: dict) -> float:
    """``rotary_pct`` (Transformers 4) or ``partial_rotary_factor`` (``rope_parameters`` in Transformers 5)."""
    parameters = hf.get("rope_parameters") or {}
    rope_type = parameters.get("rope_type", "default")
    scaling = hf.get("rope_scaling")
    if rope_type != "default" or scaling:
        raise ValueError(
            f"config.json (model_type gpt_neox): rope scaling {scaling or parameters}; KerasHub's GPTNeoXBackbone "
            "(and tfkit's) rotates by plain positions"
        )
    return parameters.get("partial_rotary_factor", hf.get("partial_rotary_factor", hf.get("rotary_pct", 0.25)))


def _refuse_variants(hf: dict) -> None:
    """``ValueError`` naming the field of a GPT-NeoX variant KerasHub's backbone does not compute."""
    activation = hf.get("hidden_act", "gelu")
    if activation not in TANH_GELUS:
        raise ValueError(
            f"config.json (model_type gpt_neox): hidden_act={activation!r}; KerasHub's GPTNeoXBackbone (and "
            f"tfkit's) computes the tanh-approximated GELU ({' or '.join(TANH_GELUS)}), which gives other numbers"
        )
    # (field, its Transformers default, what KerasHub's backbone builds)
    for field, default, expected in (
        ("use_parallel_residual", True, True),
        ("attention_bias", True, True),
        ("tie_word_embeddings", False, True),  # one matrix for embed_in and embed_out
    ):
        value = hf.get(field, default)
        if value != expected:
            raise ValueError(
                f"config.json (model_type gpt_neox): {field}={value!r}; KerasHub's GPTNeoXBackbone (and tfkit's) "
                f"builds only {field}={expected!r}"
            )


class GPTNeoXConverter:
    """How a Transformers GPT-NeoX checkpoint becomes a `GPTNeoXBackbone` and a `GPTNeoXTokenizer`."""

    backbone_cls = GPTNeoXBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        _refuse_variants(hf)
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "dropout": hf.get("hidden_dropout", 0.0),
            "rotary_percentage": _rotary_percentage(hf),
            "rotary_max_wavelength": rope_theta({"rope_theta": hf.get("rotary_emb_base", 10000), **hf}),
            "layer_norm_epsilon": hf.get("layer_norm_eps", 1e-5),
            "max_sequence_length": hf["max_position_embeddings"],
        }

    @staticmethod
    def plan_weights(backbone: GPTNeoXBackbone, hf: dict, plan: WeightPlan) -> None:
        plan.port(backbone.token_embedding.embeddings, "embed_in.weight")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"layers.{i}."
            attention = block._self_attention_layer
            fused = attention._qkv_dense
            plan.port(fused.kernel, prefix + "attention.query_key_value.weight", transposed(tuple(fused.kernel.shape)))
            plan.port(
                fused.bias,
                prefix + "attention.query_key_value.bias",
                lambda value, shape=tuple(fused.bias.shape): value.reshape(shape),
            )
            plan.port(attention._output_dense.kernel, prefix + "attention.dense.weight", np.transpose)
            plan.port(attention._output_dense.bias, prefix + "attention.dense.bias")
            port_layer_norm(plan, block._self_attention_layer_norm, prefix + "input_layernorm")
            port_layer_norm(plan, block._feedforward_layer_norm, prefix + "post_attention_layernorm")
            for dense, name in (
                (block._feedforward_intermediate_dense, "mlp.dense_h_to_4h"),
                (block._feedforward_output_dense, "mlp.dense_4h_to_h"),
            ):
                plan.port(dense.kernel, prefix + name + ".weight", np.transpose)
                plan.port(dense.bias, prefix + name + ".bias")
        port_layer_norm(plan, backbone.layer_norm, "final_layer_norm")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("gpt_neox", GPTNeoXConverter)
