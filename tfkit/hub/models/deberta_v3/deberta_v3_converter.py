"""DeBERTa-v3 from a Hugging Face Transformers checkpoint (``model_type: deberta-v2``): config, weights, tokenizer.

    backbone = DebertaV3Backbone.from_preset("./deberta-v3-hf")    # config.json, model.safetensors, spm.model

DeBERTa-v3 checkpoints are Transformers' ``DebertaV2`` models (keys may carry the ``deberta.`` prefix of
``DebertaV2For...`` models): BERT-style blocks whose attention projections are ``query_proj``, ``key_proj`` and
``value_proj``, shared by the content and the relative position terms (``share_att_key``), a relative embedding
table of ``2 * position_buckets`` rows (``encoder.rel_embeddings``) with its layer norm
(``encoder.LayerNorm``), and no absolute positions or token types. Configurations the backbone does not
compute (absolute positions, a convolution layer, other attention terms, unshared keys) are refused. The
logarithmic buckets reach ``max_relative_positions`` (``max_position_embeddings`` when it is not set), the
backbone's ``max_sequence_length``. KerasHub 0.32 has no DeBERTa converter.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.deberta_v3.deberta_v3_backbone import DebertaV3Backbone
from tfkit.hub.models.roberta.roberta_converter import port_layer_norm
from tfkit.hub.presets import decoder_conversion, files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

SENTENCE_PIECE_FILE = "spm.model"

# config fields the backbone has one way of computing: (field, Transformers' default, the value it computes)
_FIXED = (
    ("relative_attention", False, True),
    ("position_biased_input", True, False),
    ("share_att_key", False, True),
    ("norm_rel_ebd", "none", "layer_norm"),
    ("hidden_act", "gelu", "gelu"),
    ("conv_kernel_size", 0, 0),
    ("type_vocab_size", 0, 0),
    ("layer_norm_eps", 1e-7, 1e-7),
)


def _check(hf: dict) -> None:
    for field, default, computed in _FIXED:
        if hf.get(field, default) != computed:
            raise ValueError(f"{field} {hf.get(field, default)!r}; DebertaV3Backbone computes {field}={computed!r}")
    terms = hf.get("pos_att_type") or []
    terms = terms.split("|") if isinstance(terms, str) else list(terms)
    if sorted(terms) != ["c2p", "p2c"]:
        raise ValueError(f"pos_att_type {terms!r}; DebertaV3Backbone adds the 'c2p' and 'p2c' terms")
    if hf.get("position_buckets", -1) <= 0:
        raise ValueError("position_buckets is not set; DebertaV3Backbone buckets relative positions")
    if hf.get("embedding_size", hf["hidden_size"]) != hf["hidden_size"]:
        raise ValueError(f"embedding_size {hf['embedding_size']} differs from hidden_size {hf['hidden_size']}")


class DebertaV3Converter:
    """How a Transformers DeBERTa-v2/v3 checkpoint becomes a `DebertaV3Backbone` and a `DebertaV3Tokenizer`."""

    backbone_cls = DebertaV3Backbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        _check(hf)
        max_relative = hf.get("max_relative_positions", -1)
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "dropout": hf.get("hidden_dropout_prob", 0.1),
            "max_sequence_length": max_relative if max_relative >= 1 else hf["max_position_embeddings"],
            "bucket_size": hf["position_buckets"],
        }

    @staticmethod
    def plan_weights(backbone: DebertaV3Backbone, hf: dict, plan: WeightPlan) -> None:
        plan.port(backbone.token_embedding.embeddings, "embeddings.word_embeddings.weight")
        port_layer_norm(plan, backbone.embeddings_layer_norm, "embeddings.LayerNorm")
        relative = backbone.relative_embeddings
        plan.port(relative.rel_embeddings, "encoder.rel_embeddings.weight")
        port_layer_norm(plan, relative.layer_norm, "encoder.LayerNorm")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"encoder.layer.{i}."
            attention = block._self_attention_layer
            for dense, name in (
                (attention._query_dense, "attention.self.query_proj"),
                (attention._key_dense, "attention.self.key_proj"),
                (attention._value_dense, "attention.self.value_proj"),
                (attention._output_dense, "attention.output.dense"),
                (block._feedforward_intermediate_dense, "intermediate.dense"),
                (block._feedforward_output_dense, "output.dense"),
            ):
                shape = tuple(dense.kernel.shape)
                plan.port(dense.kernel, prefix + name + ".weight", decoder_conversion.transposed(shape))
                plan.port(
                    dense.bias, prefix + name + ".bias", lambda value, s=tuple(dense.bias.shape): value.reshape(s)
                )
            port_layer_norm(plan, block._self_attention_layer_norm, prefix + "attention.output.LayerNorm")
            port_layer_norm(plan, block._feedforward_layer_norm, prefix + "output.LayerNorm")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        if not files.has_file(directory, SENTENCE_PIECE_FILE):
            raise ValueError(
                f"{directory} has no {SENTENCE_PIECE_FILE}: DebertaV3Tokenizer reads DeBERTa-v3's SentencePiece "
                f"model (a tokenizer.json alone is not read)"
            )
        return cls(proto=files.preset_file(directory, SENTENCE_PIECE_FILE), **arguments)


register("deberta-v2", DebertaV3Converter)
