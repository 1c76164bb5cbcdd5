"""BART from a Hugging Face Transformers checkpoint (``model_type: bart``): config, weights and tokenizer.

    seq_2_seq_lm = BartSeq2SeqLM.from_preset("./bart-hf")   # config.json, model.safetensors, vocab.json, merges.txt

Transformers' ``BartModel`` names (``shared.weight``, ``encoder.layers.N.self_attn.q_proj.weight``,
``decoder.layers.N.encoder_attn.out_proj.weight``, ``*.layernorm_embedding``...), with the ``model.`` prefix of
``BartForConditionalGeneration``; ``nn.Linear`` weights are stored output by input, so kernels are transposed
and the attention's reshaped to Keras's per-head layout. Transformers' learned positions keep 2 rows before the
first position (``max_position_embeddings`` positions follow them), dropped here as KerasHub 0.32's converter
drops them. ``lm_head.weight`` is the shared embedding (tied) and ``final_logits_bias`` zeros in BART's
checkpoints: the backbone has neither, as KerasHub's has not. Configurations the backbone cannot express
(different encoder and decoder depths, widths or heads, scaled embeddings, pre-norm mBART blocks, another
activation) are refused.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.bart.bart_backbone import BartBackbone
from tfkit.hub.models.roberta.roberta_converter import port_layer_norm
from tfkit.hub.presets import decoder_conversion
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

# Transformers' BartLearnedPositionalEmbedding keeps this many rows before the first position
POSITION_OFFSET = 2


def _port_attention(plan: WeightPlan, attention: Any, key: str) -> None:
    """The four projections of one attention layer from ``<key>.{q,k,v,out}_proj.{weight,bias}``."""
    for dense, name in (
        (attention._query_dense, "q_proj"),
        (attention._key_dense, "k_proj"),
        (attention._value_dense, "v_proj"),
        (attention._output_dense, "out_proj"),
    ):
        plan.port(dense.kernel, f"{key}.{name}.weight", decoder_conversion.transposed(tuple(dense.kernel.shape)))
        plan.port(dense.bias, f"{key}.{name}.bias", lambda value, shape=tuple(dense.bias.shape): value.reshape(shape))


def _port_block(plan: WeightPlan, block: Any, prefix: str) -> None:
    """One encoder or decoder block: its attention layers, their norms and the feedforward network."""
    _port_attention(plan, block._self_attention_layer, prefix + "self_attn")
    port_layer_norm(plan, block._self_attention_layer_norm, prefix + "self_attn_layer_norm")
    if getattr(block, "_cross_attention_layer", None) is not None:
        _port_attention(plan, block._cross_attention_layer, prefix + "encoder_attn")
        port_layer_norm(plan, block._cross_attention_layer_norm, prefix + "encoder_attn_layer_norm")
    for dense, name in ((block._feedforward_intermediate_dense, "fc1"), (block._feedforward_output_dense, "fc2")):
        plan.port(dense.kernel, f"{prefix}{name}.weight", decoder_conversion.transposed(tuple(dense.kernel.shape)))
        plan.port(dense.bias, f"{prefix}{name}.bias")
    port_layer_norm(plan, block._feedforward_layer_norm, prefix + "final_layer_norm")


class BartConverter:
    """How a Transformers BART checkpoint becomes a `BartBackbone` and a `BartTokenizer`."""

    backbone_cls = BartBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        pairs = (("encoder_layers", "decoder_layers"), ("encoder_attention_heads", "decoder_attention_heads"))
        pairs += (("encoder_ffn_dim", "decoder_ffn_dim"),)
        for encoder_key, decoder_key in pairs:
            if hf[encoder_key] != hf[decoder_key]:
                raise ValueError(
                    f"{encoder_key} {hf[encoder_key]} and {decoder_key} {hf[decoder_key]} differ; BartBackbone's "
                    f"encoder and decoder have the same size"
                )
        refused = {
            "activation_function": (hf.get("activation_function", "gelu"), "gelu"),
            "scale_embedding": (bool(hf.get("scale_embedding", False)), False),
            "normalize_before": (bool(hf.get("normalize_before", False)), False),
            "add_final_layer_norm": (bool(hf.get("add_final_layer_norm", False)), False),
        }
        for key, (value, supported) in refused.items():
            if value != supported:
                raise ValueError(f"{key} {value!r}; BartBackbone has {supported!r} (BART's, not mBART's)")
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["encoder_layers"],
            "num_heads": hf["encoder_attention_heads"],
            "hidden_dim": hf["d_model"],
            "intermediate_dim": hf["encoder_ffn_dim"],
            "dropout": hf.get("dropout", 0.1),
            "max_sequence_length": hf["max_position_embeddings"],
        }

    @staticmethod
    def plan_weights(backbone: BartBackbone, hf: dict, plan: WeightPlan) -> None:
        plan.port(backbone.token_embedding.embeddings, "shared.weight")
        for side in ("encoder", "decoder"):
            positions = getattr(backbone, f"{side}_position_embedding").position_embeddings
            plan.port(positions, f"{side}.embed_positions.weight", lambda value: value[POSITION_OFFSET:])
            port_layer_norm(plan, getattr(backbone, f"{side}_embeddings_layer_norm"), f"{side}.layernorm_embedding")
            for i, block in enumerate(getattr(backbone, f"{side}_transformer_layers")):
                _port_block(plan, block, f"{side}.layers.{i}.")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return decoder_conversion.byte_pair_tokenizer(cls, directory, **arguments)


register("bart", BartConverter)
