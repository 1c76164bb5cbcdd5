"""ALBERT from a Hugging Face Transformers checkpoint (``model_type: albert``): config, weights and tokenizer.

    backbone = AlbertBackbone.from_preset("./albert-hf")     # config.json, model.safetensors, spiece.model

Transformers keeps one block a group member, ``encoder.albert_layer_groups.G.albert_layers.I.`` (attention
``query``/``key``/``value``/``dense`` and ``LayerNorm``, then ``ffn``, ``ffn_output`` and
``full_layer_layer_norm``), the projection of the embeddings as ``encoder.embedding_hidden_mapping_in`` and the
pooler as ``pooler``; ``nn.Linear`` weights are stored output by input, so kernels are transposed, and the
attention's reshaped to Keras's per-head layout. Keys may carry the ``albert.`` prefix of ``AlbertFor...``
models. The blocks use the tanh-approximated GELU (``gelu_new``, ALBERT v2's); a checkpoint with another
activation (v1's exact ``gelu``) is refused rather than read with other numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.albert.albert_backbone import AlbertBackbone
from tfkit.hub.models.roberta.roberta_converter import port_layer_norm
from tfkit.hub.presets import decoder_conversion, files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

SENTENCE_PIECE_FILE = "spiece.model"
TANH_GELU = ("gelu_new", "gelu_pytorch_tanh")


def _plan_block(block: Any, prefix: str, plan: WeightPlan) -> None:
    attention = block._self_attention_layer
    for dense, name in (
        (attention._query_dense, "attention.query"),
        (attention._key_dense, "attention.key"),
        (attention._value_dense, "attention.value"),
        (attention._output_dense, "attention.dense"),
    ):
        plan.port(dense.kernel, prefix + name + ".weight", decoder_conversion.transposed(tuple(dense.kernel.shape)))
        plan.port(
            dense.bias, prefix + name + ".bias", lambda value, shape=tuple(dense.bias.shape): value.reshape(shape)
        )
    port_layer_norm(plan, block._self_attention_layer_norm, prefix + "attention.LayerNorm")
    for dense, name in (
        (block._feedforward_intermediate_dense, "ffn"),
        (block._feedforward_output_dense, "ffn_output"),
    ):
        plan.port(dense.kernel, prefix + name + ".weight", np.transpose)
        plan.port(dense.bias, prefix + name + ".bias")
    port_layer_norm(plan, block._feedforward_layer_norm, prefix + "full_layer_layer_norm")


class AlbertConverter:
    """How a Transformers ALBERT checkpoint becomes an `AlbertBackbone` and an `AlbertTokenizer`."""

    backbone_cls = AlbertBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        if hf.get("hidden_act", "gelu_new") not in TANH_GELU:
            raise ValueError(
                f"hidden_act {hf.get('hidden_act')!r}; AlbertBackbone's blocks use the tanh-approximated GELU "
                f"({' or '.join(map(repr, TANH_GELU))})"
            )
        if hf.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(
                f"position_embedding_type {hf.get('position_embedding_type')!r}; AlbertBackbone has absolute "
                f"position embeddings"
            )
        return {  # dropout from attention_probs_dropout_prob, as KerasHub 0.32's converter reads it
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_heads": hf["num_attention_heads"],
            "embedding_dim": hf["embedding_size"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "num_groups": hf.get("num_hidden_groups", 1),
            "num_inner_repetitions": hf.get("inner_group_num", 1),
            "dropout": hf.get("attention_probs_dropout_prob", 0.0),
            "max_sequence_length": hf["max_position_embeddings"],
            "num_segments": hf.get("type_vocab_size", 2),
        }

    @staticmethod
    def plan_weights(backbone: AlbertBackbone, hf: dict, plan: WeightPlan) -> None:
        plan.port(backbone.token_embedding.embeddings, "embeddings.word_embeddings.weight")
        plan.port(backbone.position_embedding.position_embeddings, "embeddings.position_embeddings.weight")
        plan.port(backbone.segment_embedding.embeddings, "embeddings.token_type_embeddings.weight")
        port_layer_norm(plan, backbone.embeddings_layer_norm, "embeddings.LayerNorm")
        projection = backbone.embeddings_projection
        plan.port(projection.kernel, "encoder.embedding_hidden_mapping_in.weight", np.transpose)
        plan.port(projection.bias, "encoder.embedding_hidden_mapping_in.bias")
        for g, group in enumerate(backbone.transformer_layers):
            for i, block in enumerate(group):
                _plan_block(block, f"encoder.albert_layer_groups.{g}.albert_layers.{i}.", plan)
        plan.port(backbone.pooled_dense.kernel, "pooler.weight", np.transpose)
        plan.port(backbone.pooled_dense.bias, "pooler.bias")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        if not files.has_file(directory, SENTENCE_PIECE_FILE):
            raise ValueError(
                f"{directory} has no {SENTENCE_PIECE_FILE}: AlbertTokenizer reads ALBERT's SentencePiece model "
                f"(a tokenizer.json alone is not read)"
            )
        return cls(proto=files.preset_file(directory, SENTENCE_PIECE_FILE), **arguments)


register("albert", AlbertConverter)
