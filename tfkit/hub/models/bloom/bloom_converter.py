"""Bloom from a Hugging Face Transformers checkpoint (``model_type: bloom``): config, weights and tokenizer.

    backbone = BloomBackbone.from_preset("./bloom-hf")       # config.json, model.safetensors, tokenizer.json

Transformers' ``query_key_value`` matrix is ``(heads * 3 * head_dim, hidden)``,
each head's query, key and value rows together; each third of every head goes to
KerasHub's ``(hidden, heads, head_dim)`` query, key or value kernel. KerasHub 0.32
has no Bloom converter; Transformers' feedforward is always four times the hidden
size, and a checkpoint with post-norm residuals is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.bloom.bloom_backbone import BloomBackbone
from tfkit.hub.models.roberta.roberta_converter import port_layer_norm
from tfkit.hub.presets.decoder_conversion import byte_pair_tokenizer
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


def fused_part(part: int, heads: int) -> Any:
    """A transform taking one third of every head out of a fused ``query_key_value`` matrix or bias.

    Bloom and Falcon keep each head's query, key and value rows together:
    ``(heads * 3 * head_dim, hidden)``.

    Args:
        part: `0` for the query, `1` the key, `2` the value.
        heads: The number of heads.

    Returns:
        A function of a NumPy array: a `(hidden, heads, head_dim)` kernel from
        the matrix, or a `(heads, head_dim)` bias from the bias.

    Example:
        >>> from tfkit.hub.models.bloom.bloom_converter import fused_part
        >>> fused_part(1, heads=2)(np.arange(12.0)).tolist()
        [[2.0, 3.0], [8.0, 9.0]]
    """

    def transform(value: np.ndarray) -> np.ndarray:
        head_dim = value.shape[0] // (3 * heads)
        split = np.reshape(value, (heads, 3, head_dim) + value.shape[1:])[:, part]  # (heads, head_dim[, hidden])
        return split if value.ndim == 1 else np.transpose(split, (2, 0, 1))  # kernel: (hidden, heads, head_dim)

    return transform


class BloomConverter:
    """How a Transformers Bloom checkpoint becomes a `BloomBackbone` and a `BloomTokenizer`."""

    backbone_cls = BloomBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        if hf.get("apply_residual_connection_post_layernorm", False):
            raise ValueError(
                "config.json (model_type bloom): apply_residual_connection_post_layernorm=True; KerasHub's "
                "BloomBackbone (and tfkit's) adds the residual before the layer norm"
            )
        hidden = hf.get("hidden_size", hf.get("n_embed"))
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["n_layer"],
            "num_heads": hf["n_head"],
            "hidden_dim": hidden,
            "intermediate_dim": 4 * hidden,
            "dropout": hf.get("hidden_dropout", 0.0),
            "layer_norm_epsilon": hf.get("layer_norm_epsilon", 1e-5),
        }

    @staticmethod
    def plan_weights(backbone: BloomBackbone, hf: dict, plan: WeightPlan) -> None:
        heads = backbone.num_heads
        plan.port(backbone.token_embedding.embeddings, "word_embeddings.weight")
        port_layer_norm(plan, backbone.embeddings_layer_norm, "word_embeddings_layernorm")
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"h.{i}."
            attention = block._self_attention_layer
            fused = prefix + "self_attention.query_key_value."
            for part, dense in enumerate((attention._query_dense, attention._key_dense, attention._value_dense)):
                plan.port(dense.kernel, fused + "weight", fused_part(part, heads))
                plan.port(dense.bias, fused + "bias", fused_part(part, heads))
            for dense, name in (
                (attention._output_dense, "self_attention.dense"),
                (block._mlp_intermediate_dense, "mlp.dense_h_to_4h"),
                (block._mlp_output_dense, "mlp.dense_4h_to_h"),
            ):
                plan.port(dense.kernel, prefix + name + ".weight", np.transpose)
                plan.port(dense.bias, prefix + name + ".bias")
            port_layer_norm(plan, block._pre_attention_layernorm, prefix + "input_layernorm")
            port_layer_norm(plan, block._post_attention_layernorm, prefix + "post_attention_layernorm")
        port_layer_norm(plan, backbone.layer_norm, "ln_f")

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("bloom", BloomConverter)
