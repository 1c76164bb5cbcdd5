"""Mistral from a Hugging Face Transformers checkpoint (``model_type: mistral``): config, weights and tokenizer.

    backbone = MistralBackbone.from_preset("./mistral-hf")    # config.json, model.safetensors, tokenizer.model

Transformers keeps each projection as one ``(out, in)`` matrix (``q_proj``:
``num_heads * head_dim`` by ``hidden``); tfkit's are ``(in, heads, head_dim)``
einsum kernels, so each is transposed and reshaped. KerasHub 0.32 rounds every
tensor to float16 on the way in; tfkit assigns them at the checkpoint's
precision, so a float32 checkpoint gives the float32 model's numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.mistral.mistral_backbone import MistralBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


def transposed(shape: tuple) -> Any:
    """A transform that transposes a Transformers ``(out, in)`` matrix and reshapes it to ``shape``.

    Args:
        shape: The variable's shape, such as `(hidden, heads, head_dim)`.

    Returns:
        A function of a NumPy array.

    Example:
        >>> from tfkit.hub.models.mistral.mistral_checkpoint import transposed
        >>> transposed((3, 2, 2))(np.zeros((4, 3))).shape
        (3, 2, 2)
    """

    def transform(value: np.ndarray) -> np.ndarray:
        return np.reshape(np.transpose(value), shape)

    return transform


def rope_theta(hf: dict) -> float:
    """The rotary base of a Transformers config (``rope_parameters.rope_theta``, else ``rope_theta``).

    Args:
        hf: The checkpoint's `config.json`.

    Returns:
        The base (Transformers' default, `10000.0`, when neither is given).

    Example:
        >>> from tfkit.hub.models.mistral.mistral_checkpoint import rope_theta
        >>> rope_theta({"rope_parameters": {"rope_theta": 1e6}}), rope_theta({"rope_theta": 500.0})
        (1000000.0, 500.0)
    """
    parameters = hf.get("rope_parameters") or {}
    theta = parameters.get("rope_theta") if isinstance(parameters, dict) else None
    return theta if theta is not None else hf.get("rope_theta", 10000.0)


def plan_decoder_block(block: Any, prefix: str, plan: WeightPlan) -> None:
    """The weights of a gated decoder block (Mistral's, Qwen's) from Transformers' ``model.layers.<i>.`` tensors.

    Args:
        block: A built `GatedDecoderBlock`.
        prefix: The block's key prefix, `"model.layers.<i>."`.
        plan: The `WeightPlan` to add to.
    """
    attention = block._self_attention_layer
    plan.port(block._self_attention_layernorm.scale, prefix + "input_layernorm.weight")
    plan.port(block._feedforward_layernorm.scale, prefix + "post_attention_layernorm.weight")
    for dense, name in (
        (attention._query_dense, "q_proj"),
        (attention._key_dense, "k_proj"),
        (attention._value_dense, "v_proj"),
        (attention._output_dense, "o_proj"),
    ):
        plan.port(dense.kernel, f"{prefix}self_attn.{name}.weight", transposed(tuple(dense.kernel.shape)))
    for dense, name in (
        (block._feedforward_gate_dense, "gate_proj"),
        (block._feedforward_intermediate_dense, "up_proj"),
        (block._feedforward_output_dense, "down_proj"),
    ):
        plan.port(dense.kernel, f"{prefix}mlp.{name}.weight", transposed(tuple(dense.kernel.shape)))


def plan_embeddings(backbone: Any, hf: dict, plan: WeightPlan) -> None:
    """The token embedding, the final norm and, for an untied model, the output embedding (``lm_head``).

    Args:
        backbone: A backbone with `token_embedding` and `layer_norm`.
        hf: The checkpoint's `config.json` (`tie_word_embeddings`).
        plan: The `WeightPlan` to add to.
    """
    embedding = backbone.token_embedding
    plan.port(embedding.embeddings, "model.embed_tokens.weight")
    if not embedding.tie_weights:
        head = "model.embed_tokens.weight" if hf.get("tie_word_embeddings") else "lm_head.weight"
        plan.port(embedding.reverse_embeddings, head, transposed(tuple(embedding.reverse_embeddings.shape)))
    plan.port(backbone.layer_norm.scale, "model.norm.weight")


class MistralConverter:
    """How a Transformers Mistral checkpoint becomes a `MistralBackbone` and a `MistralTokenizer`."""

    backbone_cls = MistralBackbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        return {
            "vocabulary_size": hf["vocab_size"],
            "num_layers": hf["num_hidden_layers"],
            "num_query_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "num_key_value_heads": hf["num_key_value_heads"],
            "rope_max_wavelength": rope_theta(hf),
            "layer_norm_epsilon": hf["rms_norm_eps"],
            "sliding_window": hf.get("sliding_window"),
            "head_dim": hf.get("head_dim"),
        }

    @staticmethod
    def plan_weights(backbone: MistralBackbone, hf: dict, plan: WeightPlan) -> None:
        plan_embeddings(backbone, hf, plan)
        for i, block in enumerate(backbone.transformer_layers):
            plan_decoder_block(block, f"model.layers.{i}.", plan)

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        if not files.has_file(directory, "tokenizer.model") and files.has_file(directory, "tekken.json"):
            raise ValueError(
                f"{directory}: a Tekken tokenizer (tekken.json); tfkit.hub reads Mistral's SentencePiece "
                "tokenizer.model only"
            )
        return cls(proto=files.preset_file(directory, "tokenizer.model"), **arguments)


register("mistral", MistralConverter)
