"""Qwen 2 from a Hugging Face Transformers checkpoint (``model_type: qwen2``): config, weights and tokenizer.

    backbone = QwenBackbone.from_preset("./qwen2-hf")    # config.json, model.safetensors, tokenizer.json

The weights are Mistral's layout plus the query, key and value biases; the
output embedding is read only when the checkpoint does not tie it
(``tie_word_embeddings``). Where KerasHub 0.32's converter breaks, tfkit reads
the checkpoint as Transformers does: the sliding window is
``use_sliding_window`` (absent means off; KerasHub needs the key and passes it
on under a name its backbone does not take) applied to the layers from
``max_window_layers`` on (or as ``layer_types`` lists them), and the tokenizer
is ``tokenizer.json``, or ``vocab.json`` and ``merges.txt`` (what KerasHub's
own exporter writes, which KerasHub cannot read back).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.mistral.mistral_checkpoint import plan_decoder_block, plan_embeddings, rope_theta
from tfkit.hub.models.qwen.qwen_backbone import QwenBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


def _reshaped(shape: tuple) -> Any:
    def transform(value: np.ndarray) -> np.ndarray:
        return np.reshape(value, shape)

    return transform


def sliding_layers(hf: dict) -> list[bool]:
    """Which layers of a Transformers Qwen checkpoint attend through a sliding window (Transformers' rule).

    Args:
        hf: The checkpoint's `config.json`.

    Returns:
        One bool a layer: `layer_types`' `"sliding_attention"` when listed,
        else `use_sliding_window` from layer `max_window_layers` on.

    Example:
        >>> from tfkit.hub.models.qwen.qwen_checkpoint import sliding_layers
        >>> sliding_layers({"num_hidden_layers": 3, "use_sliding_window": True, "sliding_window": 8,
        ...     "max_window_layers": 1})
        [False, True, True]
    """
    layer_types = hf.get("layer_types")
    if isinstance(layer_types, list):
        return [kind == "sliding_attention" for kind in layer_types]
    sliding = bool(hf.get("use_sliding_window")) and hf.get("sliding_window") is not None
    first = hf.get("max_window_layers", 0) or 0
    return [sliding and i >= first for i in range(hf["num_hidden_layers"])]


def sliding_window_config(hf: dict) -> bool:
    """Whether every layer has the sliding window (`True`) or none (`False`).

    Args:
        hf: The checkpoint's `config.json`.

    Returns:
        A bool: `use_sliding_window_attention` of the backbone.

    Raises:
        ValueError: If some layers have the window and others not.

    Example:
        >>> from tfkit.hub.models.qwen.qwen_checkpoint import sliding_window_config
        >>> sliding_window_config({"num_hidden_layers": 2, "use_sliding_window": False, "sliding_window": 8})
        False
    """
    layers = sliding_layers(hf)
    if any(layers) and not all(layers):
        raise ValueError(
            f"config.json (model_type {hf.get('model_type')}): a sliding window on layers "
            f"{[i for i, s in enumerate(layers) if s]} only; "
            "KerasHub's Qwen backbones (and tfkit's) apply one to every layer or none"
        )
    return bool(layers) and all(layers)


def byte_pair_tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
    """A byte-level BPE tokenizer of a Transformers checkpoint: ``tokenizer.json`` (its vocabulary, merges and
    added tokens, which are never split), else ``vocab.json`` and ``merges.txt``.

    Args:
        cls: The tokenizer class (`QwenTokenizer`, `Qwen3Tokenizer`).
        directory: The checkpoint folder.
        **arguments: Constructor arguments of the tokenizer.

    Returns:
        The tokenizer.

    Raises:
        ValueError: If `tokenizer.json` holds no BPE vocabulary.
    """
    if not files.has_file(directory, "tokenizer.json"):
        return cls(
            vocabulary=files.preset_file(directory, "vocab.json"),
            merges=files.preset_file(directory, "merges.txt"),
            **arguments,
        )
    content = files.read_json(directory, "tokenizer.json")
    model = content.get("model") if isinstance(content, dict) else None
    if not isinstance(model, dict) or not isinstance(model.get("vocab"), dict):
        raise ValueError(f"{directory}/tokenizer.json: expected a BPE model with a vocab, got {str(model)[:80]}")
    vocabulary = dict(model["vocab"])
    merges = [merge if isinstance(merge, str) else " ".join(merge) for merge in model.get("merges", [])]
    special = []
    for token in content.get("added_tokens", []):
        if not token["content"].startswith("<|reserved_special_token_"):
            vocabulary[token["content"]] = token["id"]
            special.append(token["content"])
    return cls(vocabulary=vocabulary, merges=merges, **{"unsplittable_tokens": special, **arguments})


class QwenConverter:
    """How a Transformers Qwen 2 checkpoint becomes a `QwenBackbone` and a `QwenTokenizer`."""

    backbone_cls = QwenBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        config = {
            "vocabulary_size": hf["vocab_size"],
            "hidden_dim": hf["hidden_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_query_heads": hf["num_attention_heads"],
            "num_key_value_heads": hf["num_key_value_heads"],
            "intermediate_dim": hf["intermediate_size"],
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "rope_max_wavelength": rope_theta(hf),
            "use_sliding_window_attention": sliding_window_config(hf),
            "tie_word_embeddings": hf.get("tie_word_embeddings", False),
        }
        if hf.get("sliding_window") is not None:
            config["sliding_window_size"] = hf["sliding_window"]
        return config

    @staticmethod
    def plan_weights(backbone: QwenBackbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            prefix = f"model.layers.{i}."
            plan_decoder_block(block, prefix, plan)
            attention = block._self_attention_layer
            for dense, name in (
                (attention._query_dense, "q"),
                (attention._key_dense, "k"),
                (attention._value_dense, "v"),
            ):
                plan.port(dense.bias, f"{prefix}self_attn.{name}_proj.bias", _reshaped(tuple(dense.bias.shape)))

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        return byte_pair_tokenizer(cls, directory, **arguments)


register("qwen2", QwenConverter)
