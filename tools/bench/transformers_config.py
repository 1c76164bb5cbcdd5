"""A KerasHub backbone's ``config.json`` as the Hugging Face Transformers model that computes the same thing.

    model = transformers_config.model_for("GPT2Backbone", config, task="causal_lm")
    model.model_class, model.config_class    # 'GPT2LMHeadModel', 'GPT2Config'
    model.arguments["n_embd"]                # 768

Plain data (no torch, no transformers): ``bench.peer_transformers`` builds the
model from these names and arguments in the Transformers peer's process. Each
family keeps KerasHub's numerics: GPT-2's tanh GELU (``gelu_new``) and 1e-5
layer norms, Llama's RMS norm epsilon, rotary wavelength, SiLU gate and untied
output embedding, BERT's exact GELU and 1e-12 layer norms. No model here has
a stop or start token (the bench generates every new token; pad id 0).
"""

from __future__ import annotations

import dataclasses
from typing import Any

NUM_LABELS = 2  # bench.pretrained.NUM_CLASSES (this module stays importable on its own)
LLAMA_POSITIONS = 2048  # Llama's rotary embedding has no table: any length above the bench's sequences


@dataclasses.dataclass(frozen=True)
class TransformersModel:
    """Which Transformers classes to build, with which config arguments."""

    model_class: str
    config_class: str
    arguments: dict[str, Any]


_NO_SPECIAL_TOKENS = {"bos_token_id": None, "eos_token_id": None, "pad_token_id": 0}


def model_for(backbone: str, config: dict[str, Any], task: str) -> TransformersModel:
    """The Transformers model of a KerasHub backbone's config.

    Args:
        backbone: The preset's ``class_name`` (``GPT2Backbone``, ``Llama3Backbone`` or ``BertBackbone``).
        config: The preset's ``config`` (the backbone's constructor arguments).
        task: ``"causal_lm"`` (GPT-2, Llama) or ``"classifier"`` (BERT).

    Returns:
        The classes and config arguments.

    Raises:
        ValueError: A backbone, task or setting this mapping does not cover.
    """
    dropout = float(config.get("dropout", 0.0))
    if backbone == "GPT2Backbone" and task == "causal_lm":
        return TransformersModel(
            "GPT2LMHeadModel",
            "GPT2Config",
            {
                "vocab_size": config["vocabulary_size"],
                "n_positions": config["max_sequence_length"],
                "n_embd": config["hidden_dim"],
                "n_layer": config["num_layers"],
                "n_head": config["num_heads"],
                "n_inner": config["intermediate_dim"],
                "activation_function": "gelu_new",
                "layer_norm_epsilon": 1e-5,
                "resid_pdrop": dropout,
                "embd_pdrop": dropout,
                "attn_pdrop": dropout,
                "tie_word_embeddings": True,
                **_NO_SPECIAL_TOKENS,
            },
        )
    if backbone == "Llama3Backbone" and task == "causal_lm":
        _check_plain_rope(config)
        return TransformersModel(
            "LlamaForCausalLM",
            "LlamaConfig",
            {
                "vocab_size": config["vocabulary_size"],
                "hidden_size": config["hidden_dim"],
                "intermediate_size": config["intermediate_dim"],
                "num_hidden_layers": config["num_layers"],
                "num_attention_heads": config["num_query_heads"],
                "num_key_value_heads": config["num_key_value_heads"],
                "rms_norm_eps": config.get("layer_norm_epsilon", 1e-6),
                "rope_theta": float(config.get("rope_max_wavelength", 10000)),
                "max_position_embeddings": LLAMA_POSITIONS,
                "hidden_act": "silu",
                "attention_bias": False,
                "mlp_bias": False,
                "attention_dropout": dropout,
                "tie_word_embeddings": bool(config.get("tie_word_embeddings", False)),
                **_NO_SPECIAL_TOKENS,
            },
        )
    if backbone == "BertBackbone" and task == "classifier":
        return TransformersModel(
            "BertForSequenceClassification",
            "BertConfig",
            {
                "vocab_size": config["vocabulary_size"],
                "hidden_size": config["hidden_dim"],
                "num_hidden_layers": config["num_layers"],
                "num_attention_heads": config["num_heads"],
                "intermediate_size": config["intermediate_dim"],
                "max_position_embeddings": config["max_sequence_length"],
                "type_vocab_size": config.get("num_segments", 2),
                "hidden_act": "gelu",
                "layer_norm_eps": 1e-12,
                "hidden_dropout_prob": dropout,
                "attention_probs_dropout_prob": dropout,
                "num_labels": NUM_LABELS,
                "pad_token_id": 0,
            },
        )
    raise ValueError(f"no Transformers model for a {backbone} as a {task!r} task in the bench's mapping")


def _check_plain_rope(config: dict[str, Any]) -> None:
    """Refuse rotary scaling the mapping does not carry over (the bench's Llama-style model has none)."""
    scaled = config.get("rope_position_scaling_factor", 1.0) not in (None, 1.0)
    adjusted = config.get("rope_frequency_adjustment_factor") is not None
    if scaled or adjusted:
        raise ValueError(
            "Llama3Backbone with rotary scaling: the bench's Transformers mapping covers plain rotary only"
        )
