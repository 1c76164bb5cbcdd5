"""PaliGemma from Hugging Face Transformers checkpoints (``model_type: paligemma``).

    causal_lm = PaliGemmaCausalLM.from_preset("./paligemma-3b-mix-224")   # config.json, model.safetensors, ...

A ``PaliGemmaForConditionalGeneration`` checkpoint holds a SigLIP vision tower
(``vision_tower.vision_model.``), the projection into the decoder
(``multi_modal_projector.linear``) and a Gemma decoder
(``language_model.model.``); Transformers 4.52 and later write the same tensors
under ``model.vision_tower.``, ``model.multi_modal_projector.`` and
``model.language_model.``, which are read too. Projections are ``(out, in)``
matrices, the patch convolution ``(out, in, height, width)``. The decoder's
layout is Gemma's (``presets/decoder_conversion.py``); its vocabulary stops
before the image token (``image_token_index``), as KerasHub's converter has it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.pali_gemma.pali_gemma_backbone import PaliGemmaBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.decoder_conversion import TOKENIZER_MODEL_FILE, port_attention, port_feedforward, port_norms
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

# Transformers 4.52's names for the same tensors
_NEWER_PREFIXES = (
    ("language_model.model.", "model.language_model."),
    ("vision_tower.", "model.vision_tower."),
    ("multi_modal_projector.", "model.multi_modal_projector."),
)
GEMMA_HEAD_DIM = 256  # Transformers' GemmaConfig default: PaliGemma's text configs leave head_dim out


def _plan_vision_tower(plan: WeightPlan, encoder: Any) -> None:
    """The SigLIP tower: patch and position embeddings, the layers, the final layer norm."""
    prefix = "vision_tower.vision_model."
    embeddings = encoder.vision_embeddings
    conv = embeddings.patch_embedding
    plan.port(conv.kernel, f"{prefix}embeddings.patch_embedding.weight", lambda w: np.transpose(w, (2, 3, 1, 0)))
    plan.port(conv.bias, f"{prefix}embeddings.patch_embedding.bias")
    plan.port(embeddings.position_embedding.embeddings, f"{prefix}embeddings.position_embedding.weight")
    for i, block in enumerate(encoder.resblocks):
        key = f"{prefix}encoder.layers.{i}."
        dense_layers = [(getattr(block.attn, f"{n}_proj"), f"self_attn.{n[0]}_proj") for n in ("query", "key", "value")]
        dense_layers += [
            (block.attn.out_proj, "self_attn.out_proj"),
            (block.mlp_dense_1, "mlp.fc1"),
            (block.mlp_dense_2, "mlp.fc2"),
        ]
        for dense, name in dense_layers:
            plan.port(dense.kernel, f"{key}{name}.weight", np.transpose)
            plan.port(dense.bias, f"{key}{name}.bias")
        for norm, name in ((block.layer_norm_1, "layer_norm1"), (block.layer_norm_2, "layer_norm2")):
            plan.port(norm.gamma, f"{key}{name}.weight")
            plan.port(norm.beta, f"{key}{name}.bias")
    plan.port(encoder.encoder_layer_norm.gamma, f"{prefix}post_layernorm.weight")
    plan.port(encoder.encoder_layer_norm.beta, f"{prefix}post_layernorm.bias")


class PaliGemmaConverter:
    """How a Transformers PaliGemma checkpoint becomes a `PaliGemmaBackbone` and a `PaliGemmaTokenizer`."""

    backbone_cls = PaliGemmaBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        text, vision = hf["text_config"], hf["vision_config"]
        heads = text["num_attention_heads"]
        # KerasHub's converter takes head_dim from text_config["num_image_tokens"] (right for the 224-pixel
        # checkpoints only, where both are 256); tfkit reads head_dim, with Transformers' default
        return {
            "vocabulary_size": hf["image_token_index"],
            "image_size": vision.get("image_size", 224),
            "num_layers": text["num_hidden_layers"],
            "num_query_heads": heads,
            "num_key_value_heads": text.get("num_key_value_heads", heads),
            "hidden_dim": text["hidden_size"],
            "intermediate_dim": text["intermediate_size"] * 2,
            "head_dim": text.get("head_dim") or GEMMA_HEAD_DIM,
            "vit_patch_size": vision["patch_size"],
            "vit_num_heads": vision["num_attention_heads"],
            "vit_hidden_dim": vision["hidden_size"],
            "vit_num_layers": vision["num_hidden_layers"],
            "vit_intermediate_dim": vision["intermediate_size"],
            "layer_norm_epsilon": text.get("rms_norm_eps", 1e-6),
        }

    @staticmethod
    def plan_weights(backbone: PaliGemmaBackbone, hf: dict, plan: WeightPlan) -> None:
        _plan_vision_tower(plan, backbone.vit_encoder.get_layer("image_encoder"))
        projection = backbone.vit_encoder.get_layer("image_classifier")
        plan.port(projection.kernel, "multi_modal_projector.linear.weight", np.transpose)
        plan.port(projection.bias, "multi_modal_projector.linear.bias")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"language_model.model.layers.{i}."
            port_norms(plan, block, prefix, "post_attention_layernorm")
            port_attention(plan, block.attention, prefix)
            port_feedforward(plan, block, prefix)
        plan.port(backbone.layer_norm.scale, "language_model.model.norm.weight")
        rows = backbone.vocabulary_size  # the embedding's rows past the image token are not the model's
        plan.port(backbone.token_embedding.embeddings, "language_model.model.embed_tokens.weight", lambda w: w[:rows])
        for _, key, _ in plan.steps:
            for old, new in _NEWER_PREFIXES:
                if key.startswith(old):
                    plan.fallbacks[key] = new + key[len(old) :]

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return cls(proto=files.preset_file(directory, TOKENIZER_MODEL_FILE), **arguments)

    @staticmethod
    def image_converter_config(directory: str, hf: dict) -> dict[str, Any]:
        """`PaliGemmaImageConverter` arguments: the vision tower's image size, pixel values to `[-1, 1]`."""
        size = hf["vision_config"].get("image_size", 224)
        return {"image_size": (size, size), "scale": 1 / 127.5, "offset": -1.0}


register("paligemma", PaliGemmaConverter)
