"""What the Transformers converters of decoder-only families share: tensor layouts, block plans, configs.

    plan.port(dense.kernel, "model.layers.0.self_attn.q_proj.weight", transposed(tuple(dense.kernel.shape)))
    plan_decoder_block(block, "model.layers.0.", plan)      # a gated decoder block (Mistral, Qwen, Qwen 3)
    port_attention(plan, block.attention, "model.layers.0.")  # Gemma's heads-first kernels (Gemma, Gemma 3)

Transformers keeps each projection as one ``(out, in)`` matrix (``q_proj``:
``num_heads * head_dim`` by ``hidden``). The Llama-style families' kernels are
``(in, heads, head_dim)`` einsum kernels, so each is transposed and reshaped
(``transposed``); Gemma's are heads-first, ``(heads, hidden, head_dim)`` and
``(heads, head_dim, hidden)`` (``heads_in_kernel``, ``heads_out_kernel``), and
its feedforward kernels ``(in, out)``. A family's converter
(``models/<family>/<family>_converter.py``) keeps only its own table: which
``config.json`` field is which backbone argument, and its special cases.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.presets import files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan

TOKENIZER_MODEL_FILE = "tokenizer.model"  # a SentencePiece model, as Transformers' Llama-era checkpoints ship it


def transposed(shape: tuple) -> Any:
    """A transform that transposes a Transformers ``(out, in)`` matrix and reshapes it to ``shape``.

    Args:
        shape: The variable's shape, such as `(hidden, heads, head_dim)`.

    Returns:
        A function of a NumPy array.

    Example:
        >>> from tfkit.hub.presets.decoder_conversion import transposed
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
        >>> from tfkit.hub.presets.decoder_conversion import rope_theta
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
    plan_decoder_attention(block, prefix, plan)
    plan_gated_mlp(block, prefix + "mlp.", plan)


def plan_gated_mlp(layer: Any, prefix: str, plan: WeightPlan) -> None:
    """A gated feedforward network's three kernels (`_feedforward_gate_dense`, `_feedforward_intermediate_dense`,
    `_feedforward_output_dense`) from Transformers' ``<prefix>gate_proj``, ``up_proj`` and ``down_proj``.

    Args:
        layer: A built block or MLP with those three `Dense` layers.
        prefix: The key prefix, such as `"model.layers.0.mlp."`.
        plan: The `WeightPlan` to add to.
    """
    for dense, name in (
        (layer._feedforward_gate_dense, "gate_proj"),
        (layer._feedforward_intermediate_dense, "up_proj"),
        (layer._feedforward_output_dense, "down_proj"),
    ):
        plan.port(dense.kernel, f"{prefix}{name}.weight", transposed(tuple(dense.kernel.shape)))


def plan_experts(block: Any, prefix: str, num_experts: int, plan: WeightPlan) -> None:
    """A Qwen-style sparse block's router (``<prefix>gate``) and experts (``<prefix>experts.<e>.gate_proj``,
    ``up_proj``, ``down_proj``): each expert's gate and up kernels joined, every expert's stacked.

    Args:
        block: A built `SparseMoeBlock`.
        prefix: The key prefix, such as `"model.layers.0.mlp."`.
        num_experts: The number of experts.
        plan: The `WeightPlan` to add to.
    """
    plan.port(block._sparse_feedforward_gate_dense.kernel, prefix + "gate.weight", np.transpose)
    experts = [f"{prefix}experts.{e}." for e in range(num_experts)]
    plan.port_stacked(
        block.expert_bank._expert_feedforward_gate_dense,
        [(f"{expert}gate_proj.weight", f"{expert}up_proj.weight") for expert in experts],
        np.transpose,
    )
    plan.port_stacked(
        block.expert_bank._expert_feedforward_output_dense,
        [f"{expert}down_proj.weight" for expert in experts],
        np.transpose,
    )


def plan_decoder_attention(block: Any, prefix: str, plan: WeightPlan) -> None:
    """A gated decoder block's two norms and its attention's four projections (what Mixtral's shares with Mistral).

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


def sliding_layers(hf: dict) -> list[bool]:
    """Which layers of a Transformers Qwen checkpoint attend through a sliding window (Transformers' rule).

    Args:
        hf: The checkpoint's `config.json`.

    Returns:
        One bool a layer: `layer_types`' `"sliding_attention"` when listed,
        else `use_sliding_window` from layer `max_window_layers` on.

    Example:
        >>> from tfkit.hub.presets.decoder_conversion import sliding_layers
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
        >>> from tfkit.hub.presets.decoder_conversion import sliding_window_config
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


def heads_in_kernel(shape: tuple) -> Any:
    """``(heads * head_dim, hidden)`` -> the ``(heads, hidden, head_dim)`` kernel of a query/key/value dense."""
    heads, hidden, head_dim = shape

    def transform(value: np.ndarray) -> np.ndarray:
        return np.transpose(np.reshape(value, (heads, head_dim, hidden)), (0, 2, 1))

    return transform


def heads_out_kernel(shape: tuple) -> Any:
    """``(hidden, heads * head_dim)`` -> the ``(heads, head_dim, hidden)`` kernel of the attention output."""
    heads, head_dim, hidden = shape

    def transform(value: np.ndarray) -> np.ndarray:
        return np.transpose(np.reshape(value, (hidden, heads, head_dim)), (1, 2, 0))

    return transform


def port_attention(plan: WeightPlan, attention: Any, prefix: str) -> None:
    """The four projections of a Gemma attention layer from ``<prefix>self_attn.{q,k,v,o}_proj.weight``."""
    for dense, name in (
        (attention.query_dense, "q_proj"),
        (attention.key_dense, "k_proj"),
        (attention.value_dense, "v_proj"),
    ):
        plan.port(dense.kernel, f"{prefix}self_attn.{name}.weight", heads_in_kernel(tuple(dense.kernel.shape)))
    output = attention.output_dense.kernel
    plan.port(output, f"{prefix}self_attn.o_proj.weight", heads_out_kernel(tuple(output.shape)))


def port_feedforward(plan: WeightPlan, block: Any, prefix: str) -> None:
    """The gated feedforward network from ``<prefix>mlp.{gate,up,down}_proj.weight`` (transposed)."""
    for dense, name in (
        (block.gating_ffw, "gate_proj"),
        (block.gating_ffw_2, "up_proj"),
        (block.ffw_linear, "down_proj"),
    ):
        plan.port(dense.kernel, f"{prefix}mlp.{name}.weight", np.transpose)


def port_norms(plan: WeightPlan, block: Any, prefix: str, pre_ffw_key: str) -> None:
    """The block's RMS norms: the two Gemma has, and the post-norms of Gemma 2 and 3 where the block has them."""
    plan.port(block.pre_attention_norm.scale, f"{prefix}input_layernorm.weight")
    plan.port(block.pre_ffw_norm.scale, f"{prefix}{pre_ffw_key}.weight")
    if block.use_post_attention_norm:
        plan.port(block.post_attention_norm.scale, f"{prefix}post_attention_layernorm.weight")
    if block.use_post_ffw_norm:
        plan.port(block.post_ffw_norm.scale, f"{prefix}post_feedforward_layernorm.weight")
