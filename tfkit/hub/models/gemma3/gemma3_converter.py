"""Gemma 3 from Hugging Face Transformers checkpoints (``model_type: gemma3_text``, and ``gemma3`` with its vision).

    backbone = Gemma3Backbone.from_preset("./gemma-3-1b-it")    # config.json, model.safetensors, tokenizer.model
    causal_lm = Gemma3CausalLM.from_preset("./gemma-3-4b-it")     # + the vision tower, preprocessor_config.json

A ``gemma3_text`` checkpoint (``Gemma3ForCausalLM``) keeps the decoder under
``model.``; a multimodal ``gemma3`` checkpoint keeps it under
``model.language_model.`` (or ``language_model.model.``), its text settings in
``text_config``, and beside it a SigLIP vision tower
(``model.vision_tower.vision_model.`` or ``vision_tower.vision_model.``) and
the projection into the decoder (``multi_modal_projector.``): its
``vision_config`` builds a ``Gemma3VisionEncoder`` (a ``vision_config`` without
the tower's sizes, ``patch_size`` among them, gives the text model, with a
warning). The decoder's projections are laid out as Gemma's
(``presets/decoder_conversion.py``), plus the per-head query and key norms; the
tower's are ``(out, in)`` matrices, its patch convolution ``(out, in, height,
width)``.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone
from tfkit.hub.models.gemma3.gemma3_tokenizer import END_OF_IMAGE_TOKEN, IMAGE_PLACEHOLDER_TOKEN, START_OF_IMAGE_TOKEN
from tfkit.hub.models.gemma3.gemma3_vision_encoder import Gemma3VisionEncoder
from tfkit.hub.presets import files
from tfkit.hub.presets.decoder_conversion import TOKENIZER_MODEL_FILE, port_attention, port_feedforward, port_norms
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register
from tfkit.hub.tokenizers import SentencePieceTokenizer

_LOG = logging.getLogger("tfkit.hub")
PREPROCESSOR_CONFIG_FILE = "preprocessor_config.json"
VISION_FIELDS = ("patch_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
# Transformers 4.52's names beside the older ones (the decoder's prefix the checkpoint reader finds itself)
_VISION_PREFIXES = ("model.vision_tower.vision_model.", "vision_tower.vision_model.")
_PROJECTOR_PREFIXES = ("model.multi_modal_projector.", "multi_modal_projector.")


def _vision_encoder(hf: dict, text: dict) -> Gemma3VisionEncoder | None:
    """The vision encoder a ``gemma3`` checkpoint's ``vision_config`` describes (``None`` without the tower's
    sizes); its pooling from ``mm_tokens_per_image`` (top level in Transformers' config, in ``vision_config`` as
    KerasHub exports it; KerasHub's converter always pools 4 a side)."""
    vision = hf.get("vision_config")
    if vision is None:
        return None
    if not all(field in vision for field in VISION_FIELDS):
        _LOG.warning(
            "This gemma3 checkpoint's vision_config lacks the vision tower's sizes (%s): tfkit.hub reads its text "
            "model only",
            ", ".join(VISION_FIELDS),
        )
        return None
    image_size, patch_size = vision.get("image_size", 224), vision["patch_size"]
    tokens = hf.get("mm_tokens_per_image", vision.get("mm_tokens_per_image", 256))
    pool_size = (image_size // patch_size) // max(int(round(tokens**0.5)), 1)
    return Gemma3VisionEncoder(
        image_size=image_size,
        patch_size=patch_size,
        num_heads=vision["num_attention_heads"],
        hidden_dim=vision["hidden_size"],
        num_layers=vision["num_hidden_layers"],
        intermediate_dim=vision["intermediate_size"],
        output_dim=text["hidden_size"],
        pool_size=pool_size,
        layer_norm_epsilon=vision.get("layer_norm_eps", 1e-6),
    )


def _port(plan: WeightPlan, variable: Any, name: str, prefixes: tuple[str, str], transform: Any = None) -> None:
    """Tensor ``name`` under the newer prefix, or the older one where the checkpoint has that."""
    newer, older = prefixes
    plan.port(variable, newer + name, transform, fallback=older + name)


def _plan_vision(plan: WeightPlan, encoder: Gemma3VisionEncoder) -> None:
    """The SigLIP tower (patch and position embeddings, the layers, the final layer norm) and the projector."""
    tower = encoder.get_layer("image_encoder")
    embeddings = tower.vision_embeddings
    conv = embeddings.patch_embedding
    _port(plan, conv.kernel, "embeddings.patch_embedding.weight", _VISION_PREFIXES, lambda w: w.transpose(2, 3, 1, 0))
    _port(plan, conv.bias, "embeddings.patch_embedding.bias", _VISION_PREFIXES)
    _port(plan, embeddings.position_embedding.embeddings, "embeddings.position_embedding.weight", _VISION_PREFIXES)
    for i, block in enumerate(tower.resblocks):
        key = f"encoder.layers.{i}."
        dense_layers = [(getattr(block.attn, f"{n}_proj"), f"self_attn.{n[0]}_proj") for n in ("query", "key", "value")]
        dense_layers += [(block.attn.out_proj, "self_attn.out_proj"), (block.mlp_dense_1, "mlp.fc1")]
        dense_layers += [(block.mlp_dense_2, "mlp.fc2")]
        for dense, name in dense_layers:
            _port(plan, dense.kernel, f"{key}{name}.weight", _VISION_PREFIXES, np.transpose)
            _port(plan, dense.bias, f"{key}{name}.bias", _VISION_PREFIXES)
        for norm, name in ((block.layer_norm_1, "layer_norm1"), (block.layer_norm_2, "layer_norm2")):
            _port(plan, norm.gamma, f"{key}{name}.weight", _VISION_PREFIXES)
            _port(plan, norm.beta, f"{key}{name}.bias", _VISION_PREFIXES)
    _port(plan, tower.encoder_layer_norm.gamma, "post_layernorm.weight", _VISION_PREFIXES)
    _port(plan, tower.encoder_layer_norm.beta, "post_layernorm.bias", _VISION_PREFIXES)
    output = encoder.get_layer("vision_output_encoder")
    _port(plan, output.vision_soft_embedding_norm.scale, "mm_soft_emb_norm.weight", _PROJECTOR_PREFIXES)
    _port(plan, output.vision_input_projection.kernel, "mm_input_projection_weight", _PROJECTOR_PREFIXES)


def _rope_factors(text: dict) -> tuple[float, float]:
    """The (local, global) linear rotary scaling factors: ``rope_scaling`` is the global one where set, else
    ``rope_parameters`` holds both (``sliding_attention`` and ``full_attention``)."""
    parameters = text.get("rope_parameters") or {}
    scaling = text.get("rope_scaling")
    global_config = scaling if scaling is not None else parameters.get("full_attention") or {}
    local_config = parameters.get("sliding_attention") or {}
    return local_config.get("factor", 1.0), global_config.get("factor", 1.0)


class Gemma3Converter:
    """How a Transformers Gemma 3 checkpoint becomes a `Gemma3Backbone` (with its vision encoder), a
    `Gemma3Tokenizer` and a `Gemma3ImageConverter`."""

    backbone_cls = Gemma3Backbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        text, vision_encoder = hf, None
        if hf["model_type"] != "gemma3_text":
            text = hf.get("text_config") or {}
            vision_encoder = _vision_encoder(hf, text)
        if text.get("use_bidirectional_attention"):
            raise ValueError(
                "This Gemma 3 checkpoint is an embedding model (use_bidirectional_attention, EmbeddingGemma with "
                "sentence-transformers heads); tfkit.hub reads Gemma 3's causal language models only"
            )
        head_dim = text["head_dim"]
        layer_types = text.get("layer_types") or []
        sliding_window = text.get("sliding_window")
        if layer_types:
            use_sliding_window = any(kind == "sliding_attention" for kind in layer_types)
        else:
            use_sliding_window = sliding_window not in (None, 0)
        local_factor, global_factor = _rope_factors(text)
        return {
            "vocabulary_size": text.get("vocab_size", 262144 if hf["model_type"] == "gemma3_text" else 262208),
            "image_size": None if vision_encoder is None else vision_encoder.image_size,
            "num_layers": text["num_hidden_layers"],
            "num_query_heads": text.get("num_attention_heads", 8),
            "num_key_value_heads": text.get("num_key_value_heads", 4),
            "hidden_dim": text["hidden_size"],
            "intermediate_dim": text["intermediate_size"],
            "head_dim": head_dim,
            "use_post_ffw_norm": text.get("use_post_ffw_norm", True),
            "use_post_attention_norm": text.get("use_post_attention_norm", True),
            "attention_logit_soft_cap": text.get("attn_logit_softcapping"),
            "final_logit_soft_cap": text.get("final_logit_softcapping"),
            "use_sliding_window_attention": use_sliding_window,
            "query_head_dim_normalize": text.get("query_pre_attn_scalar", head_dim) == head_dim,
            "sliding_window_size": sliding_window or 4096,
            "local_rope_scaling_factor": local_factor,
            "global_rope_scaling_factor": global_factor,
            "layer_norm_epsilon": text.get("rms_norm_eps", 1e-6),
            "use_query_key_norm": text.get("use_query_key_norm", True),
            "vision_encoder": vision_encoder,
        }

    @staticmethod
    def plan_weights(backbone: Gemma3Backbone, hf: dict, plan: WeightPlan) -> None:
        # keys without the decoder's prefix: the checkpoint reader finds "model." or "model.language_model."
        # from the first of them, the embeddings (the vision tower's keys never end like the decoder's)
        plan.port(backbone.token_embedding.embeddings, "embed_tokens.weight")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"layers.{i}."
            port_norms(plan, block, prefix, "pre_feedforward_layernorm")
            port_attention(plan, block.attention, prefix)
            if block.attention.use_query_key_norm:
                plan.port(block.attention.query_norm.scale, f"{prefix}self_attn.q_norm.weight")
                plan.port(block.attention.key_norm.scale, f"{prefix}self_attn.k_norm.weight")
            port_feedforward(plan, block, prefix)
        plan.port(backbone.layer_norm.scale, "norm.weight")
        if backbone.vision_encoder is not None:  # after the decoder: its keys set the reader's decoder prefix
            _plan_vision(plan, backbone.vision_encoder)

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        proto = files.preset_file(directory, TOKENIZER_MODEL_FILE)
        vocabulary = set(SentencePieceTokenizer(proto=proto).get_vocabulary())
        has_vision_tokens = {START_OF_IMAGE_TOKEN, IMAGE_PLACEHOLDER_TOKEN, END_OF_IMAGE_TOKEN} <= vocabulary
        return cls(proto=proto, has_vision_tokens=has_vision_tokens, **arguments)

    @staticmethod
    def image_converter_config(directory: str, hf: dict) -> dict[str, Any] | None:
        """`Gemma3ImageConverter` arguments from `preprocessor_config.json` (pixel values to `[-1, 1]` for
        Gemma 3's), or `None` for a text checkpoint or without that file."""
        if hf.get("model_type") == "gemma3_text" or not files.has_file(directory, PREPROCESSOR_CONFIG_FILE):
            return None
        processor = files.read_json(directory, PREPROCESSOR_CONFIG_FILE)
        mean = np.asarray(processor.get("image_mean", [0.5, 0.5, 0.5]), "float64")
        std = np.asarray(processor.get("image_std", [0.5, 0.5, 0.5]), "float64")
        rescale = processor.get("rescale_factor", 1 / 255)
        size = (hf.get("vision_config") or {}).get("image_size", 224)
        # KerasHub 0.32's converter multiplies by std (scale = std * rescale_factor): its images land in [-1, 0]
        return {"image_size": (size, size), "scale": (rescale / std).tolist(), "offset": (-mean / std).tolist()}


register("gemma3_text", Gemma3Converter)
register("gemma3", Gemma3Converter)
