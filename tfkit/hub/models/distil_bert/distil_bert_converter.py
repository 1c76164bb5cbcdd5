"""DistilBERT from a Hugging Face Transformers checkpoint (``model_type: distilbert``): config, weights, tokenizer.

    backbone = DistilBertBackbone.from_preset("./distilbert-hf")     # config.json, model.safetensors, vocab.txt

Transformers' DistilBERT names its config fields after the paper (``dim`` the hidden size, ``hidden_dim`` the
feedforward's) and its tensors ``transformer.layer.N.attention.{q,k,v,out}_lin``, ``sa_layer_norm``,
``ffn.lin1``/``lin2`` and ``output_layer_norm``. Its ``nn.Linear`` weights are stored output by input, so
kernels are transposed, and the attention's reshaped to Keras's per-head layout. Keys may carry the
``distilbert.`` prefix of ``DistilBertFor...`` models. The tokenizer is BERT's: ``vocab.txt``, and
``do_lower_case`` from ``tokenizer_config.json``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.bert.bert_converter import BertConverter
from tfkit.hub.models.distil_bert.distil_bert_backbone import DistilBertBackbone
from tfkit.hub.models.roberta.roberta_converter import port_layer_norm
from tfkit.hub.presets import decoder_conversion
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class DistilBertConverter:
    """How a Transformers DistilBERT checkpoint becomes a `DistilBertBackbone` and a `DistilBertTokenizer`."""

    backbone_cls = DistilBertBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        if hf.get("activation", "gelu") != "gelu":
            raise ValueError(f"activation {hf.get('activation')!r}; DistilBertBackbone's blocks use 'gelu'")
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["n_layers"],
            "num_heads": hf["n_heads"],
            "hidden_dim": hf["dim"],
            "intermediate_dim": hf["hidden_dim"],
            "dropout": hf.get("dropout", 0.1),
            "max_sequence_length": hf["max_position_embeddings"],
        }

    @staticmethod
    def plan_weights(backbone: DistilBertBackbone, hf: dict, plan: WeightPlan) -> None:
        embeddings = backbone.embeddings
        plan.port(embeddings.token_embedding.embeddings, "embeddings.word_embeddings.weight")
        plan.port(embeddings.position_embedding.position_embeddings, "embeddings.position_embeddings.weight")
        port_layer_norm(plan, backbone.embeddings_layer_norm, "embeddings.LayerNorm")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"transformer.layer.{i}."
            attention = block._self_attention_layer
            for dense, name in (
                (attention._query_dense, "q_lin"),
                (attention._key_dense, "k_lin"),
                (attention._value_dense, "v_lin"),
                (attention._output_dense, "out_lin"),
            ):
                key = f"{prefix}attention.{name}."
                plan.port(dense.kernel, key + "weight", decoder_conversion.transposed(tuple(dense.kernel.shape)))
                plan.port(dense.bias, key + "bias", lambda value, shape=tuple(dense.bias.shape): value.reshape(shape))
            for dense, name in (
                (block._feedforward_intermediate_dense, "lin1"),
                (block._feedforward_output_dense, "lin2"),
            ):
                plan.port(dense.kernel, f"{prefix}ffn.{name}.weight", np.transpose)
                plan.port(dense.bias, f"{prefix}ffn.{name}.bias")
            port_layer_norm(plan, block._self_attention_layer_norm, prefix + "sa_layer_norm")
            port_layer_norm(plan, block._feedforward_layer_norm, prefix + "output_layer_norm")

    tokenizer = staticmethod(BertConverter.tokenizer)  # BERT's WordPiece files


register("distilbert", DistilBertConverter)
