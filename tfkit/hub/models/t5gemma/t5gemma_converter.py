"""T5Gemma from a Hugging Face Transformers checkpoint (``model_type: t5gemma``): config, weights and tokenizer.

    seq_2_seq_lm = T5GemmaSeq2SeqLM.from_preset("./t5gemma-hf")   # config.json, model.safetensors, tokenizer.model

Transformers' ``T5GemmaForConditionalGeneration`` keeps an ``encoder`` and a ``decoder`` config in its
``config.json`` and its tensors under ``model.encoder.*`` and ``model.decoder.*``: each side's ``embed_tokens``,
``layers.N.self_attn.{q,k,v,o}_proj`` (the decoder's ``cross_attn`` too), ``layers.N.mlp.{gate,up,down}_proj``,
the four (decoder: six) RMS norms a layer and the final ``norm``; ``nn.Linear`` weights are stored output by input,
so kernels are transposed and reshaped to KerasHub's ``(in, heads, head_dim)`` and ``(heads, head_dim, out)``. The
head ``lm_head.out_proj`` is the decoder's embedding when tied (else the backbone's reverse embedding, which
KerasHub 0.32's converter leaves unread). As KerasHub's converter, the shared settings (norm epsilon, query scale,
soft caps, window, rotary base, dropout) are the decoder config's; a checkpoint whose encoder config says
otherwise is refused rather than read with the decoder's numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.t5gemma.t5gemma_backbone import T5GemmaBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.decoder_conversion import TOKENIZER_MODEL_FILE, rope_theta, transposed
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, check_fields, register

# decoder-config fields the backbone reads for both sides: the encoder config must agree
SHARED_FIELDS = ("vocab_size", "rms_norm_eps", "query_pre_attn_scalar", "attention_bias", "hidden_activation")
SHARED_FIELDS += ("sliding_window", "attn_logit_softcapping", "dropout_rate", "attention_dropout")
ENCODER_NORMS = ("pre_self_attn_layernorm", "post_self_attn_layernorm")
DECODER_NORMS = ENCODER_NORMS + ("pre_cross_attn_layernorm", "post_cross_attn_layernorm")
FEEDFORWARD_NORMS = ("pre_feedforward_layernorm", "post_feedforward_layernorm")


def _activation(name: str) -> str:
    """Transformers' tanh GELU (``gelu_pytorch_tanh``) under KerasHub's name; other names as they are."""
    return "gelu_approximate" if name == "gelu_pytorch_tanh" else name


def _port_attention(plan: WeightPlan, attention: Any, key: str) -> None:
    """The four projections of one attention layer from ``<key>.{q,k,v,o}_proj.weight`` (and biases)."""
    for dense, name in (
        (attention.query_dense, "q_proj"),
        (attention.key_dense, "k_proj"),
        (attention.value_dense, "v_proj"),
        (attention.output_dense, "o_proj"),
    ):
        plan.port(dense.kernel, f"{key}.{name}.weight", transposed(tuple(dense.kernel.shape)))
        if attention.attention_bias:
            plan.port(
                dense.bias, f"{key}.{name}.bias", lambda value, shape=tuple(dense.bias.shape): value.reshape(shape)
            )


def _port_layer(plan: WeightPlan, layer: Any, prefix: str, norms: tuple[str, ...]) -> None:
    """One encoder or decoder block: its attention layers, feedforward network and RMS norms."""
    _port_attention(plan, layer.self_attn, prefix + "self_attn")
    if hasattr(layer, "cross_attn"):
        _port_attention(plan, layer.cross_attn, prefix + "cross_attn")
    for name in ("gate_proj", "up_proj", "down_proj"):
        plan.port(getattr(layer.mlp, name).kernel, f"{prefix}mlp.{name}.weight", np.transpose)
    for name in norms + FEEDFORWARD_NORMS:
        plan.port(getattr(layer, name).scale, f"{prefix}{name}.weight")


class T5GemmaConverter:
    """How a Transformers T5Gemma checkpoint becomes a `T5GemmaBackbone` and a `T5GemmaTokenizer`."""

    backbone_cls = T5GemmaBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        encoder, decoder = hf["encoder"], hf["decoder"]
        for side, settings in (("encoder", encoder), ("decoder", decoder)):  # counts and sizes: positive integers
            check_fields(settings, f"{side} config")
        for field in SHARED_FIELDS:
            if field in encoder and field in decoder and encoder[field] != decoder[field]:
                raise ValueError(
                    f"encoder.{field} {encoder[field]!r} and decoder.{field} {decoder[field]!r} differ; "
                    f"T5GemmaBackbone has one {field} for both"
                )
        if rope_theta(encoder) != rope_theta(decoder):
            raise ValueError("the encoder's and the decoder's rope_theta differ; T5GemmaBackbone has one for both")
        config = {"vocabulary_size": decoder["vocab_size"]}
        for side, settings in (("encoder", encoder), ("decoder", decoder)):
            config.update(
                {
                    f"{side}_hidden_dim": settings["hidden_size"],
                    f"{side}_intermediate_dim": settings["intermediate_size"],
                    f"{side}_num_layers": settings["num_hidden_layers"],
                    f"{side}_num_attention_heads": settings["num_attention_heads"],
                    f"{side}_num_key_value_heads": settings["num_key_value_heads"],
                    f"{side}_head_dim": settings["head_dim"],
                    f"{side}_layer_types": list(settings["layer_types"]),
                }
            )
        config.update(
            dropout_rate=decoder["dropout_rate"],
            rms_norm_eps=decoder["rms_norm_eps"],
            query_pre_attn_scalar=decoder["query_pre_attn_scalar"],
            tie_word_embeddings=bool(hf.get("tie_word_embeddings", True)),
            attention_bias=decoder["attention_bias"],
            hidden_activation=_activation(decoder["hidden_activation"]),
            initializer_range=decoder["initializer_range"],
            attention_dropout=decoder["attention_dropout"],
            sliding_window=decoder["sliding_window"],
            cross_attention_hidden_size=encoder["hidden_size"],
            attn_logit_softcapping=decoder["attn_logit_softcapping"],
            final_logit_softcapping=decoder["final_logit_softcapping"],
            rope_max_wavelength=rope_theta(decoder),
        )
        return config

    @staticmethod
    def plan_weights(backbone: T5GemmaBackbone, hf: dict, plan: WeightPlan) -> None:
        plan.port(backbone.token_embedding.embeddings, "encoder.embed_tokens.weight")
        decoder_embedding = backbone.decoder_token_embedding
        plan.port(decoder_embedding.embeddings, "decoder.embed_tokens.weight", fallback="lm_head.out_proj.weight")
        if not backbone.tie_word_embeddings:
            plan.port(decoder_embedding.reverse_embeddings, "lm_head.out_proj.weight", np.transpose)
        for side, norms in (("encoder", ENCODER_NORMS), ("decoder", DECODER_NORMS)):
            for i, layer in enumerate(getattr(backbone, f"{side}_layers")):
                _port_layer(plan, layer, f"{side}.layers.{i}.", norms)
            plan.port(getattr(backbone, f"{side}_norm").scale, f"{side}.norm.weight")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return cls(proto=files.preset_file(directory, TOKENIZER_MODEL_FILE), **arguments)


register("t5gemma", T5GemmaConverter)
