"""Mistral from a Hugging Face Transformers checkpoint (``model_type: mistral``): config, weights and tokenizer.

    backbone = MistralBackbone.from_preset("./mistral-hf")    # config.json, model.safetensors, tokenizer.model

Transformers keeps each projection as one ``(out, in)`` matrix (``q_proj``:
``num_heads * head_dim`` by ``hidden``); tfkit's are ``(in, heads, head_dim)``
einsum kernels, so each is transposed and reshaped. KerasHub 0.32 rounds every
tensor to float16 on the way in; tfkit assigns them at the checkpoint's
precision, so a float32 checkpoint gives the float32 model's numbers.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.mistral.mistral_backbone import MistralBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.decoder_conversion import plan_decoder_block, plan_embeddings, rope_theta
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class MistralConverter:
    """How a Transformers Mistral checkpoint becomes a `MistralBackbone` and a `MistralTokenizer`."""

    backbone_cls = MistralBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_query_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "num_key_value_heads": hf["num_key_value_heads"],
            "rope_max_wavelength": rope_theta(hf),
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "sliding_window": hf.get("sliding_window"),
            "head_dim": hf.get("head_dim"),
        }

    @staticmethod
    def plan_weights(backbone: MistralBackbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            plan_decoder_block(block, f"model.layers.{i}.", plan)

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        if not files.has_file(directory, "tokenizer.model") and files.has_file(directory, "tekken.json"):
            raise ValueError(
                f"{directory}: a Tekken tokenizer (tekken.json); tfkit.hub reads Mistral's SentencePiece "
                "tokenizer.model only"
            )
        return cls(proto=files.preset_file(directory, "tokenizer.model"), **arguments)


register("mistral", MistralConverter)
