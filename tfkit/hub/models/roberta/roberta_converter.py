"""RoBERTa from a Hugging Face Transformers checkpoint (``model_type: roberta``): config, weights and tokenizer.

    backbone = RobertaBackbone.from_preset("./roberta-hf")   # config.json, model.safetensors, vocab.json, merges.txt

The encoder blocks have BERT's tensor names (``encoder.layer.N.attention.self.query.weight``...), with
Transformers' ``nn.Linear`` weights stored output by input: kernels are transposed, and the attention's
reshaped to Keras's per-head layout. Keys may carry the ``roberta.`` prefix of ``RobertaFor...`` models; layer norms are ``LayerNorm.weight``/``bias``,
or ``gamma``/``beta`` in checkpoints converted from TensorFlow.

Two differences from the KerasHub layout. Transformers' position embedding keeps ``pad_token_id + 1`` rows
(2) before the first position, so ``max_position_embeddings`` is ``max_sequence_length + 2`` and the first
rows are dropped. And Transformers adds a token type embedding (one row: RoBERTa has no segments) to every
token; the backbone has none, so that row is added to every position row, which is exact (both are summed
before the layer norm). KerasHub 0.32's converter drops the row, which is right only where it is zero (as in
the original fairseq weights); a fine-tuned checkpoint's is not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.roberta.roberta_backbone import RobertaBackbone
from tfkit.hub.presets import decoder_conversion
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


def port_layer_norm(plan: WeightPlan, layer_norm: Any, key: str) -> None:
    """A layer norm from ``<key>.weight`` and ``<key>.bias`` (``gamma``/``beta`` in checkpoints converted from
    TensorFlow)."""
    plan.port(layer_norm.gamma, key + ".weight", fallback=key + ".gamma")
    plan.port(layer_norm.beta, key + ".bias", fallback=key + ".beta")


def plan_encoder_layers(backbone: Any, plan: WeightPlan) -> None:
    """The backbone's `TransformerEncoder` blocks from Transformers' BERT-style ``encoder.layer.N.`` tensors.

    Args:
        backbone: A backbone with `transformer_layers` (`RobertaBackbone`, `XLMRobertaBackbone`).
        plan: The weight plan to add to.
    """
    for i, block in enumerate(backbone.transformer_layers):
        prefix = f"encoder.layer.{i}."
        attention = block._self_attention_layer
        for dense, name in (
            (attention._query_dense, "attention.self.query"),
            (attention._key_dense, "attention.self.key"),
            (attention._value_dense, "attention.self.value"),
            (attention._output_dense, "attention.output.dense"),
        ):
            plan.port(dense.kernel, prefix + name + ".weight", decoder_conversion.transposed(tuple(dense.kernel.shape)))
            plan.port(
                dense.bias, prefix + name + ".bias", lambda value, shape=tuple(dense.bias.shape): value.reshape(shape)
            )
        for dense, name in (
            (block._feedforward_intermediate_dense, "intermediate.dense"),
            (block._feedforward_output_dense, "output.dense"),
        ):
            plan.port(dense.kernel, prefix + name + ".weight", np.transpose)
            plan.port(dense.bias, prefix + name + ".bias")
        for norm, name in (
            (block._self_attention_layer_norm, "attention.output.LayerNorm"),
            (block._feedforward_layer_norm, "output.LayerNorm"),
        ):
            port_layer_norm(plan, norm, prefix + name)


class _TokenTypeRow:
    """Transforms of two plan steps that fill the position embedding with the checkpoint's position rows plus
    its token type row. The plan applies steps in order: the first reads the token type row (filling the
    variable with it for the moment), the second the position rows, from `offset` on, adding the row."""

    def __init__(self, shape: tuple, offset: int) -> None:
        self.shape, self.offset, self.row = shape, offset, None

    def keep(self, value: np.ndarray) -> np.ndarray:
        if value.ndim != 2 or value.shape[0] != 1:
            raise ValueError(
                f"embeddings.token_type_embeddings.weight has shape {value.shape}; RoBERTa's has one row "
                f"(type_vocab_size 1), which the backbone folds into its position embedding"
            )
        self.row = value[0]
        return np.broadcast_to(self.row, self.shape)

    def positions(self, value: np.ndarray) -> np.ndarray:
        return value[self.offset : self.offset + self.shape[0]] + self.row


class RobertaConverter:
    """How a Transformers RoBERTa checkpoint becomes a `RobertaBackbone` and a `RobertaTokenizer`."""

    backbone_cls = RobertaBackbone

    @staticmethod
    def position_offset(hf: dict) -> int:
        """The position rows Transformers keeps before the first position: `pad_token_id + 1`."""
        return int(hf.get("pad_token_id", 1)) + 1

    @classmethod
    def backbone_config(cls, hf: dict) -> dict[str, Any]:
        if hf.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"hidden_act {hf.get('hidden_act')!r}; {cls.backbone_cls.__name__}'s blocks use 'gelu'")
        if hf.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(
                f"position_embedding_type {hf.get('position_embedding_type')!r}; {cls.backbone_cls.__name__} has "
                f"absolute position embeddings"
            )
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "dropout": hf.get("hidden_dropout_prob", 0.1),
            "max_sequence_length": hf["max_position_embeddings"] - cls.position_offset(hf),
        }

    @classmethod
    def plan_weights(cls, backbone: RobertaBackbone, hf: dict, plan: WeightPlan) -> None:
        embeddings = backbone.embeddings
        plan.port(embeddings.token_embedding.embeddings, "embeddings.word_embeddings.weight")
        positions = embeddings.position_embedding.position_embeddings
        fold = _TokenTypeRow(tuple(positions.shape), cls.position_offset(hf))
        plan.port(positions, "embeddings.token_type_embeddings.weight", fold.keep)
        plan.port(positions, "embeddings.position_embeddings.weight", fold.positions)
        port_layer_norm(plan, backbone.embeddings_layer_norm, "embeddings.LayerNorm")
        plan_encoder_layers(backbone, plan)

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return decoder_conversion.byte_pair_tokenizer(cls, directory, **arguments)


register("roberta", RobertaConverter)
