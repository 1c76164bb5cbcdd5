"""GPT-2 from a Hugging Face Transformers checkpoint (``model_type: gpt2``): config, weights and tokenizer.

    backbone = GPT2Backbone.from_preset("./gpt2-hf")       # config.json, model.safetensors, vocab.json, merges.txt

Transformers' GPT-2 keeps each block's query, key and value in one
``c_attn`` matrix (``Conv1D``: input by output), split here by thirds and
reshaped to the heads of the attention's three dense layers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.gpt2.gpt2_backbone import GPT2Backbone
from tfkit.hub.presets import files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


def _reshaped(shape: tuple, part: slice | None = None, axis: int = -1) -> Any:
    def transform(value: np.ndarray) -> np.ndarray:
        if part is not None:
            value = value[..., part] if axis == -1 else value[part]
        return np.reshape(value, shape)

    return transform


class GPT2Converter:
    """How a Transformers GPT-2 checkpoint becomes a `GPT2Backbone` and a `GPT2Tokenizer`."""

    backbone_cls = GPT2Backbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        hidden = hf["n_embd"]
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["n_layer"],
            "num_heads": hf["n_head"],
            "hidden_dim": hidden,
            "intermediate_dim": hf.get("n_inner") or 4 * hidden,
            "dropout": hf.get("resid_pdrop", 0.1),
            "max_sequence_length": hf["n_positions"],
        }

    @staticmethod
    def plan_weights(backbone: GPT2Backbone, hf: dict, plan: WeightPlan) -> None:
        hidden = hf["n_embd"]
        plan.port(backbone.token_embedding.embeddings, "wte.weight")
        plan.port(backbone.position_embedding.position_embeddings, "wpe.weight")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"h.{i}."
            attention = block._self_attention_layer
            plan.port(block._self_attention_layer_norm.gamma, prefix + "ln_1.weight")
            plan.port(block._self_attention_layer_norm.beta, prefix + "ln_1.bias")
            plan.port(block._feedforward_layer_norm.gamma, prefix + "ln_2.weight")
            plan.port(block._feedforward_layer_norm.beta, prefix + "ln_2.bias")
            for third, dense in enumerate((attention._query_dense, attention._key_dense, attention._value_dense)):
                part = slice(third * hidden, (third + 1) * hidden)
                plan.port(dense.kernel, prefix + "attn.c_attn.weight", _reshaped(tuple(dense.kernel.shape), part))
                plan.port(dense.bias, prefix + "attn.c_attn.bias", _reshaped(tuple(dense.bias.shape), part))
            output = attention._output_dense
            plan.port(output.kernel, prefix + "attn.c_proj.weight", _reshaped(tuple(output.kernel.shape)))
            plan.port(output.bias, prefix + "attn.c_proj.bias")
            plan.port(block._feedforward_intermediate_dense.kernel, prefix + "mlp.c_fc.weight")
            plan.port(block._feedforward_intermediate_dense.bias, prefix + "mlp.c_fc.bias")
            plan.port(block._feedforward_output_dense.kernel, prefix + "mlp.c_proj.weight")
            plan.port(block._feedforward_output_dense.bias, prefix + "mlp.c_proj.bias")
        plan.port(backbone.layer_norm.gamma, "ln_f.weight")
        plan.port(backbone.layer_norm.beta, "ln_f.bias")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return cls(
            vocabulary=files.preset_file(directory, "vocab.json"),
            merges=files.preset_file(directory, "merges.txt"),
            **arguments,
        )


register("gpt2", GPT2Converter)
