"""T5 from a Hugging Face Transformers checkpoint (``model_type: t5``): config, weights and tokenizer.

    seq_2_seq_lm = T5Seq2SeqLM.from_preset("./t5-hf")     # config.json, model.safetensors, spiece.model

Transformers keeps the token embedding as ``shared`` and each block's parts as ``layer.N``: the
self-attention (``SelfAttention.q/k/v/o``, the first block's ``relative_attention_bias``) and its
``layer_norm``, in the decoder the cross-attention (``EncDecAttention``), then the feedforward network
(``DenseReluDense.wi`` and ``wo``; ``wi_0``, the activated branch, and ``wi_1`` when gated). ``nn.Linear``
weights are stored output by input, so kernels are transposed; an untied ``lm_head`` is the backbone's reverse
embedding. KerasHub 0.32 has no T5 converter; its T5 fixes the relative position buckets at 32 and their
largest distance at 128, so a checkpoint with others is refused rather than read with other numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.t5.t5_backbone import T5Backbone
from tfkit.hub.presets import files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

SENTENCE_PIECE_FILE = "spiece.model"
# the tanh GELU as KerasHub's T5 configs write a function (keras.activations.get reads no registered name)
GELU_APPROXIMATE = {
    "module": "builtins",
    "class_name": "function",
    "config": "keras_hub>gelu_approximate",
    "registered_name": "function",
}
ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "gelu_new": GELU_APPROXIMATE, "silu": "silu"}


def _activation(feed_forward_proj: str) -> tuple[Any, bool]:
    """`(activation, gated)` of Transformers' `feed_forward_proj` (`"relu"`, `"gated-gelu"`, ...)."""
    parts = str(feed_forward_proj).split("-")
    gated = len(parts) == 2 and parts[0] == "gated"
    name = "gelu_new" if feed_forward_proj == "gated-gelu" else parts[-1]  # as Transformers reads it
    if len(parts) > 2 or (len(parts) == 2 and not gated) or name not in ACTIVATIONS:
        raise ValueError(
            f"feed_forward_proj {feed_forward_proj!r}; T5Backbone reads 'ACT' or 'gated-ACT' with ACT one of "
            f"{sorted(ACTIVATIONS)}"
        )
    return ACTIVATIONS[name], gated


def _port_attention(plan: WeightPlan, attention: Any, prefix: str) -> None:
    for dense, name in (
        (attention.query_projector, "q"),
        (attention.key_projector, "k"),
        (attention.value_projector, "v"),
        (attention.output_projector, "o"),
    ):
        plan.port(dense.kernel, f"{prefix}.{name}.weight", np.transpose)
    if attention.use_relative_attention_bias:
        plan.port(attention.relative_attention_bias, f"{prefix}.relative_attention_bias.weight")


def _port_layer(plan: WeightPlan, layer: Any, prefix: str) -> None:
    _port_attention(plan, layer.self_attention, f"{prefix}.layer.0.SelfAttention")
    plan.port(layer.self_attention_layer_norm.weight, f"{prefix}.layer.0.layer_norm.weight")
    feedforward = 1
    if layer.is_decoder:
        _port_attention(plan, layer.cross_attention, f"{prefix}.layer.1.EncDecAttention")
        plan.port(layer.cross_attention_layer_norm.weight, f"{prefix}.layer.1.layer_norm.weight")
        feedforward = 2
    dense = f"{prefix}.layer.{feedforward}.DenseReluDense"
    if layer.use_gated_activation:
        plan.port(layer.input_projector.kernel, f"{dense}.wi_0.weight", np.transpose)
        plan.port(layer.gate_projector.kernel, f"{dense}.wi_1.weight", np.transpose)
    else:
        plan.port(layer.input_projector.kernel, f"{dense}.wi.weight", np.transpose)
    plan.port(layer.output_projector.kernel, f"{dense}.wo.weight", np.transpose)
    plan.port(layer.layer_norm.weight, f"{prefix}.layer.{feedforward}.layer_norm.weight")


class T5Converter:
    """How a Transformers T5 checkpoint becomes a `T5Backbone` and a `T5Tokenizer`."""

    backbone_cls = T5Backbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        num_layers = hf["num_layers"]
        if hf.get("num_decoder_layers", num_layers) != num_layers:
            raise ValueError(
                f"num_decoder_layers {hf.get('num_decoder_layers')} with num_layers {num_layers}; T5Backbone has "
                f"as many decoder layers as encoder layers"
            )
        buckets = (hf.get("relative_attention_num_buckets", 32), hf.get("relative_attention_max_distance", 128))
        if buckets != (32, 128):
            raise ValueError(
                f"relative_attention_num_buckets {buckets[0]} and relative_attention_max_distance {buckets[1]}; "
                f"T5Backbone's relative position buckets are 32, up to a distance of 128"
            )
        activation, gated = _activation(hf.get("feed_forward_proj", "relu"))
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": num_layers,
            "num_heads": hf["num_heads"],
            "hidden_dim": hf["d_model"],
            "intermediate_dim": hf["d_ff"],
            "key_value_dim": hf["d_kv"],
            "dropout": hf.get("dropout_rate", 0.1),
            "activation": activation,
            "use_gated_activation": gated,
            "layer_norm_epsilon": hf.get("layer_norm_epsilon", 1e-6),
            "tie_embedding_weights": bool(hf.get("tie_word_embeddings", True)),
        }

    @staticmethod
    def plan_weights(backbone: T5Backbone, hf: dict, plan: WeightPlan) -> None:
        embedding = backbone.token_embedding
        plan.port(embedding.embeddings, "shared.weight", fallback="encoder.embed_tokens.weight")
        for i, layer in enumerate(backbone.encoder_transformer_layers):
            _port_layer(plan, layer, f"encoder.block.{i}")
        plan.port(backbone.encoder_layer_norm.weight, "encoder.final_layer_norm.weight")
        for i, layer in enumerate(backbone.decoder_transformer_layers):
            _port_layer(plan, layer, f"decoder.block.{i}")
        plan.port(backbone.decoder_layer_norm.weight, "decoder.final_layer_norm.weight")
        if not backbone.tie_embedding_weights:
            plan.port(embedding.reverse_embeddings, "lm_head.weight", np.transpose)

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        if not files.has_file(directory, SENTENCE_PIECE_FILE):
            raise ValueError(
                f"{directory} has no {SENTENCE_PIECE_FILE}: T5Tokenizer reads T5's SentencePiece model "
                f"(a tokenizer.json alone is not read)"
            )
        return cls(proto=files.preset_file(directory, SENTENCE_PIECE_FILE), **arguments)


register("t5", T5Converter)
