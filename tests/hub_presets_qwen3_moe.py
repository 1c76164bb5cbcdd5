"""A tiny random KerasHub Qwen 3 MoE preset for tfkit.hub's tests, made by KerasHub itself, and its Transformers twin.

    folder = qwen3_moe_preset(tmp_path)                          # a Qwen3MoeCausalLM preset saved by KerasHub
    checkpoint = qwen3_moe_transformers_checkpoint(preset, theirs, tmp_path / "hf")

3 layers: experts (4, top 2, renormalized) in layers 0 and 2, a dense MLP in layer 1 (``mlp_only_layers``), the
Qwen tests' byte-pair vocabulary and window. KerasHub 0.32 has no Qwen 3 MoE exporter, so the Transformers folder
is written here from KerasHub's weights in ``Qwen3MoeForCausalLM``'s names and layouts.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import keras, keras_hub
from hub_presets_qwen import WINDOW, qwen_vocabulary, randomize_weights, write_bpe_tokenizer_json


def qwen3_moe_preset(folder: str, sequence_length: int = 16) -> str:
    """A random Qwen3MoeCausalLM preset (3 layers, hidden 16, 4 query heads of size 8, 2 key/value heads)."""
    keras.utils.set_random_seed(2)
    vocabulary, merges = qwen_vocabulary("<|im_end|>")
    tokenizer = keras_hub.models.Qwen3MoeTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.Qwen3MoeBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=3,
        num_query_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        hidden_dim=16,
        intermediate_dim=32,
        moe_intermediate_dim=12,
        num_experts=4,
        top_k=2,
        norm_top_k_prob=True,
        mlp_only_layers=[1],
        sliding_window_size=WINDOW,
    )
    randomize_weights(backbone)
    preprocessor = keras_hub.models.Qwen3MoeCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.Qwen3MoeCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def qwen3_moe_transformers_checkpoint(preset: str, theirs, folder: str, query_key_norms: bool = True) -> str:
    """``theirs``' (a KerasHub Qwen3MoeCausalLM) weights, config and tokenizer as a Transformers Qwen 3 MoE folder:
    Qwen 3's attention and norms, each expert's ``gate_proj``/``up_proj``/``down_proj`` apart (``query_key_norms``
    False: a model without them, Qwen MoE's)."""
    from safetensors.numpy import save_file

    backbone, tokenizer = theirs.backbone, theirs.preprocessor.tokenizer
    tensors = {"model.embed_tokens.weight": _value(backbone.token_embedding.embeddings)}
    tensors["lm_head.weight"] = _value(backbone.token_embedding.reverse_embeddings).T
    tensors["model.norm.weight"] = _value(backbone.layer_norm.scale)
    for i, block in enumerate(backbone.transformer_layers):
        prefix, attention = f"model.layers.{i}.", block._self_attention_layer
        tensors[prefix + "input_layernorm.weight"] = _value(block._self_attention_layernorm.scale)
        tensors[prefix + "post_attention_layernorm.weight"] = _value(block._feedforward_layernorm.scale)
        for name, dense in (
            ("q", _sub(attention, "query")),
            ("k", _sub(attention, "key")),
            ("v", _sub(attention, "value")),
        ):
            kernel = _value(dense.kernel)
            tensors[f"{prefix}self_attn.{name}_proj.weight"] = kernel.reshape(kernel.shape[0], -1).T
        output = _value(attention._output_dense.kernel)
        tensors[prefix + "self_attn.o_proj.weight"] = output.reshape(-1, output.shape[-1]).T
        if query_key_norms:
            tensors[prefix + "self_attn.q_norm.weight"] = _value(attention._query_dense_layer_norm.scale)
            tensors[prefix + "self_attn.k_norm.weight"] = _value(attention._key_dense_layer_norm.scale)
        if not _is_sparse(block):
            mlp = block.mlp
            for name, dense in (
                ("gate", mlp._feedforward_gate_dense),
                ("up", mlp._feedforward_intermediate_dense),
                ("down", mlp._feedforward_output_dense),
            ):
                tensors[f"{prefix}mlp.{name}_proj.weight"] = _value(dense.kernel).T
            continue
        moe = block.mlp
        tensors[prefix + "mlp.gate.weight"] = _value(moe._sparse_feedforward_gate_dense.kernel).T
        gate_up = _value(moe.expert_bank._expert_feedforward_gate_dense)
        down = _value(moe.expert_bank._expert_feedforward_output_dense)
        half = gate_up.shape[-1] // 2
        for expert in range(gate_up.shape[0]):
            name = f"{prefix}mlp.experts.{expert}."
            tensors[name + "gate_proj.weight"] = gate_up[expert, :, :half].T
            tensors[name + "up_proj.weight"] = gate_up[expert, :, half:].T
            tensors[name + "down_proj.weight"] = down[expert].T
    os.makedirs(folder, exist_ok=True)
    tensors = {key: np.ascontiguousarray(value) for key, value in tensors.items()}
    save_file(tensors, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    config = {
        "architectures": ["Qwen3MoeForCausalLM"],
        "model_type": "qwen3_moe",
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": backbone.hidden_dim,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_query_heads,
        "num_key_value_heads": backbone.num_key_value_heads,
        "head_dim": getattr(backbone, "head_dim", None),
        "intermediate_size": backbone.intermediate_dim,
        "moe_intermediate_size": backbone.moe_intermediate_dim,
        "num_experts": backbone.num_experts,
        "num_experts_per_tok": backbone.top_k,
        "norm_topk_prob": backbone.norm_top_k_prob,
        "decoder_sparse_step": backbone.decoder_sparse_step,
        "mlp_only_layers": list(backbone.mlp_only_layers or []),
        "router_aux_loss_coef": backbone.router_aux_loss_coefficient,
        "rms_norm_eps": backbone.layer_norm_epsilon,
        "rope_theta": backbone.rope_max_wavelength,
        "use_sliding_window": True,
        "sliding_window": backbone.sliding_window_size,
        "max_window_layers": 0,
        "tie_word_embeddings": False,
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    write_bpe_tokenizer_json(tokenizer, folder)
    return folder


def _value(variable) -> np.ndarray:
    return np.asarray(keras.ops.convert_to_numpy(variable))


def _sub(attention, kind: str):
    """An attention layer's projection: KerasHub's Qwen MoE names it ``query_dense``, the others ``_query_dense``."""
    return getattr(attention, f"_{kind}_dense", None) or getattr(attention, f"{kind}_dense")


def _is_sparse(block) -> bool:
    return hasattr(block.mlp, "expert_bank")


def qwen_moe_preset(folder: str, sequence_length: int = 16) -> str:
    """A random QwenMoeCausalLM (Qwen1.5-MoE) preset: 2 layers, hidden 16, 4 query and 2 key/value heads with biases,
    4 experts (top 2, not renormalized) and a shared expert in each layer. (KerasHub 0.32 never passes a block its
    layer index, so its Qwen MoE gives every layer the first layer's kind: its presets cannot hold a dense layer.)"""
    keras.utils.set_random_seed(3)
    vocabulary, merges = qwen_vocabulary()
    tokenizer = keras_hub.models.QwenMoeTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.QwenMoeBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_query_heads=4,
        num_key_value_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        moe_intermediate_dim=12,
        shared_expert_intermediate_dim=20,
        num_experts=4,
        top_k=2,
    )
    randomize_weights(backbone)
    for variable in backbone.weights:  # KerasHub starts the attention biases at zero: make them matter
        if variable.path.endswith("bias"):
            variable.assign(np.random.default_rng(4).normal(0, 0.5, tuple(variable.shape)).astype("float32"))
    preprocessor = keras_hub.models.QwenMoeCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.QwenMoeCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def qwen_moe_transformers_checkpoint(preset: str, theirs, folder: str) -> str:
    """``theirs``' (a KerasHub QwenMoeCausalLM) weights as a Transformers ``Qwen2MoeForCausalLM`` folder: Qwen 3 MoE's
    writer without query/key norms, plus the attention biases and the shared expert."""
    from safetensors.numpy import load_file, save_file

    backbone = theirs.backbone
    qwen3_moe_transformers_checkpoint(preset, theirs, folder, query_key_norms=False)
    path = os.path.join(folder, "model.safetensors")
    tensors = load_file(path)
    for i, block in enumerate(backbone.transformer_layers):
        prefix, attention = f"model.layers.{i}.", block._self_attention_layer
        for name, dense in (
            ("q", _sub(attention, "query")),
            ("k", _sub(attention, "key")),
            ("v", _sub(attention, "value")),
        ):
            tensors[f"{prefix}self_attn.{name}_proj.bias"] = _value(dense.bias).reshape(-1)
        if _is_sparse(block):
            shared = block.mlp.shared_expert_dense
            for name, dense in (
                ("gate", shared._feedforward_gate_dense),
                ("up", shared._feedforward_intermediate_dense),
                ("down", shared._feedforward_output_dense),
            ):
                tensors[f"{prefix}mlp.shared_expert.{name}_proj.weight"] = _value(dense.kernel).T
            tensors[prefix + "mlp.shared_expert_gate.weight"] = _value(block.mlp.shared_expert_gate_dense.kernel).T
    save_file({key: np.ascontiguousarray(value) for key, value in tensors.items()}, path, metadata={"format": "pt"})
    config_path = os.path.join(folder, "config.json")
    config = json.loads(open(config_path).read())
    config.update(
        architectures=["Qwen2MoeForCausalLM"],
        model_type="qwen2_moe",
        shared_expert_intermediate_size=backbone.shared_expert_intermediate_dim,
        use_sliding_window=False,
        output_router_logits=False,
    )
    config.pop("head_dim")
    with open(config_path, "w") as handle:
        json.dump(config, handle)
    return folder
