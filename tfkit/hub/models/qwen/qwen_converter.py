"""Qwen 2 from a Hugging Face Transformers checkpoint (``model_type: qwen2``): config, weights and tokenizer.

    backbone = QwenBackbone.from_preset("./qwen2-hf")    # config.json, model.safetensors, tokenizer.json

The weights are Mistral's layout plus the query, key and value biases; the
output embedding is read only when the checkpoint does not tie it
(``tie_word_embeddings``). Where KerasHub 0.32's converter breaks, tfkit reads
the checkpoint as Transformers does: the sliding window is
``use_sliding_window`` (absent means off; KerasHub needs the key and passes it
on under a name its backbone does not take) applied to the layers from
``max_window_layers`` on (or as ``layer_types`` lists them), and the tokenizer
is ``tokenizer.json``, or ``vocab.json`` and ``merges.txt`` (what KerasHub's
own exporter writes, which KerasHub cannot read back).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.qwen.qwen_backbone import QwenBackbone
from tfkit.hub.presets.decoder_conversion import (
    byte_pair_tokenizer,
    plan_decoder_block,
    plan_embeddings,
    rope_theta,
    sliding_window_config,
)
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


def _reshaped(shape: tuple) -> Any:
    def transform(value: np.ndarray) -> np.ndarray:
        return np.reshape(value, shape)

    return transform


class QwenConverter:
    """How a Transformers Qwen 2 checkpoint becomes a `QwenBackbone` and a `QwenTokenizer`."""

    backbone_cls = QwenBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        config = {
            "vocabulary_size": hf["vocab_size"],
            "hidden_dim": hf["hidden_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_query_heads": hf["num_attention_heads"],
            "num_key_value_heads": hf["num_key_value_heads"],
            "intermediate_dim": hf["intermediate_size"],
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "rope_max_wavelength": rope_theta(hf),
            "use_sliding_window_attention": sliding_window_config(hf),
            "tie_word_embeddings": hf.get("tie_word_embeddings", False),
        }
        if hf.get("sliding_window") is not None:
            config["sliding_window_size"] = hf["sliding_window"]
        return config

    @staticmethod
    def plan_weights(backbone: QwenBackbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            plan_decoder_block(block, prefix, plan)
            attention = block._self_attention_layer
            for dense, name in (
                (attention._query_dense, "q"),
                (attention._key_dense, "k"),
                (attention._value_dense, "v"),
            ):
                plan.port(dense.bias, f"{prefix}self_attn.{name}_proj.bias", _reshaped(tuple(dense.bias.shape)))

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("qwen2", QwenConverter)
