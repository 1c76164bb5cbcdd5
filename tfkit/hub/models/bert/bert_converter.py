"""BERT from a Hugging Face Transformers checkpoint (``model_type: bert``): config, weights and tokenizer.

    backbone = BertBackbone.from_preset("./bert-hf")     # config.json, model.safetensors, vocab.txt

Transformers' ``nn.Linear`` weights are stored output by input, so kernels
are transposed, and the attention's are reshaped to Keras's per-head layout
(``(hidden, heads, head_dim)`` for query, key and value, ``(heads, head_dim,
hidden)`` for the output). Layer norms are ``LayerNorm.weight``/``bias``, or
``gamma``/``beta`` in checkpoints converted from TensorFlow; keys may carry
the ``bert.`` prefix of ``BertFor...`` models.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.bert.bert_backbone import BertBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

TOKENIZER_CONFIG_FILE = "tokenizer_config.json"


def _transposed(shape: tuple) -> Any:
    return lambda value: np.reshape(np.transpose(value), shape)


def _reshaped(shape: tuple) -> Any:
    return lambda value: np.reshape(value, shape)


def _port_layer_norm(plan: WeightPlan, layer_norm: Any, prefix: str) -> None:
    plan.port(layer_norm.gamma, prefix + ".weight", fallback=prefix + ".gamma")
    plan.port(layer_norm.beta, prefix + ".bias", fallback=prefix + ".beta")


class BertConverter:
    """How a Transformers BERT checkpoint becomes a `BertBackbone` and a `BertTokenizer`."""

    backbone_cls = BertBackbone
    reads_sentence_bert_config = True  # its max_seq_length is every preprocessor's sequence_length, as in KerasHub

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        # num_segments from type_vocab_size: KerasHub 0.32 leaves the default (2), so a checkpoint with
        # another number of token types does not load there
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "max_sequence_length": hf["max_position_embeddings"],
            "num_segments": hf.get("type_vocab_size", 2),
        }

    @staticmethod
    def plan_weights(backbone: BertBackbone, hf: dict, plan: WeightPlan) -> None:
        plan.port(backbone.token_embedding.embeddings, "embeddings.word_embeddings.weight")
        plan.port(backbone.position_embedding.position_embeddings, "embeddings.position_embeddings.weight")
        plan.port(backbone.segment_embedding.embeddings, "embeddings.token_type_embeddings.weight")
        _port_layer_norm(plan, backbone.embeddings_layer_norm, "embeddings.LayerNorm")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"encoder.layer.{i}."
            attention = block._self_attention_layer
            for dense, name in (
                (attention._query_dense, "attention.self.query"),
                (attention._key_dense, "attention.self.key"),
                (attention._value_dense, "attention.self.value"),
                (attention._output_dense, "attention.output.dense"),
            ):
                plan.port(dense.kernel, prefix + name + ".weight", _transposed(tuple(dense.kernel.shape)))
                plan.port(dense.bias, prefix + name + ".bias", _reshaped(tuple(dense.bias.shape)))
            _port_layer_norm(plan, block._self_attention_layer_norm, prefix + "attention.output.LayerNorm")
            for dense, name in (
                (block._feedforward_intermediate_dense, "intermediate.dense"),
                (block._feedforward_output_dense, "output.dense"),
            ):
                plan.port(dense.kernel, prefix + name + ".weight", np.transpose)
                plan.port(dense.bias, prefix + name + ".bias")
            _port_layer_norm(plan, block._feedforward_layer_norm, prefix + "output.LayerNorm")
        plan.port(backbone.pooled_dense.kernel, "pooler.dense.weight", np.transpose)
        plan.port(backbone.pooled_dense.bias, "pooler.dense.bias")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        config = (
            files.read_json(directory, TOKENIZER_CONFIG_FILE)
            if files.has_file(directory, TOKENIZER_CONFIG_FILE)
            else {}
        )
        tokenizer_class = str(config.get("tokenizer_class") or "")
        if "XLMRoberta" in tokenizer_class:
            raise ValueError(
                f"{directory}: {TOKENIZER_CONFIG_FILE} names {tokenizer_class} (a SentencePiece vocabulary); "
                f"tfkit.hub reads BERT checkpoints with a WordPiece vocab.txt"
            )
        arguments.setdefault("lowercase", bool(config.get("do_lower_case", True)))  # Transformers' default
        return cls(vocabulary=files.preset_file(directory, "vocab.txt"), **arguments)


register("bert", BertConverter)
