"""A tiny random KerasHub Mixtral preset for tfkit.hub's tests, made by KerasHub itself, and its Transformers twin.

    folder = mixtral_preset(tmp_path)                        # a MixtralCausalLM preset saved by KerasHub
    checkpoint = mixtral_transformers_checkpoint(backbone, tokenizer_proto, tmp_path / "hf")

The preset has 2 layers of 4 experts, 2 chosen a token, a sliding window of 5 and the Mistral tests'
SentencePiece model; KerasHub 0.32 has no Mixtral exporter, so the Transformers folder is written here from
KerasHub's weights in ``MixtralForCausalLM``'s names and layouts.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import keras, keras_hub
from hub_presets_mistral import sentence_piece_model

WINDOW = 5


def mixtral_preset(folder: str, sequence_length: int = 16) -> str:
    """A random MixtralCausalLM preset (2 layers, hidden 16, 4 query and 2 key/value heads, 4 experts, top 2)."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.MixtralTokenizer(proto=sentence_piece_model())
    backbone = keras_hub.models.MixtralBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_query_heads=4,
        hidden_dim=16,
        intermediate_dim=24,
        num_key_value_heads=2,
        num_experts=4,
        top_k=2,
        sliding_window=WINDOW,
    )
    preprocessor = keras_hub.models.MixtralCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.MixtralCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def mixtral_transformers_checkpoint(preset: str, theirs, folder: str) -> str:
    """``theirs``' (a KerasHub MixtralCausalLM) weights, config and tokenizer as a Transformers Mixtral folder."""
    from safetensors.numpy import save_file

    backbone = theirs.backbone
    tensors = {
        "model.embed_tokens.weight": np.asarray(backbone.token_embedding.embeddings),
        "lm_head.weight": np.asarray(backbone.token_embedding.reverse_embeddings).T,
        "model.norm.weight": np.asarray(backbone.layer_norm.scale),
    }
    for i, block in enumerate(backbone.transformer_layers):
        prefix = f"model.layers.{i}."
        attention = block._self_attention_layer
        tensors[prefix + "input_layernorm.weight"] = np.asarray(block._self_attention_layernorm.scale)
        tensors[prefix + "post_attention_layernorm.weight"] = np.asarray(block._feedforward_layernorm.scale)
        for dense, name in (
            (attention.query_dense, "q_proj"),
            (attention.key_dense, "k_proj"),
            (attention.value_dense, "v_proj"),
        ):
            kernel = np.asarray(dense.kernel)  # (hidden, heads, head_dim)
            tensors[f"{prefix}self_attn.{name}.weight"] = kernel.reshape(kernel.shape[0], -1).T
        output = np.asarray(attention.output_dense.kernel)  # (heads, head_dim, hidden)
        tensors[prefix + "self_attn.o_proj.weight"] = output.reshape(-1, output.shape[-1]).T
        moe = block._sparse_moe_block
        tensors[prefix + "block_sparse_moe.gate.weight"] = np.asarray(moe._sparse_feedforward_gate_dense.kernel).T
        bank = moe.expert_bank
        for name, weight in (
            ("w1", bank._expert_feedforward_gate_dense),
            ("w3", bank._expert_feedforward_intermediate_dense),
            ("w2", bank._expert_feedforward_output_dense),
        ):
            for expert, kernel in enumerate(np.asarray(weight)):
                tensors[f"{prefix}block_sparse_moe.experts.{expert}.{name}.weight"] = np.ascontiguousarray(kernel.T)
    config = {
        "model_type": "mixtral",
        "architectures": ["MixtralForCausalLM"],
        "vocab_size": backbone.vocabulary_size,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_query_heads,
        "num_key_value_heads": backbone.num_key_value_heads,
        "hidden_size": backbone.hidden_dim,
        "intermediate_size": backbone.intermediate_dim,
        "num_local_experts": backbone.num_experts,
        "num_experts_per_tok": backbone.top_k,
        "rope_theta": backbone.rope_max_wavelength,
        "rms_norm_eps": backbone.layer_norm_epsilon,
        "sliding_window": backbone.sliding_window,
        "output_router_logits": False,
        "router_aux_loss_coef": backbone.router_aux_loss_coef,
        "tie_word_embeddings": False,
    }
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    save_file(
        {key: np.ascontiguousarray(value) for key, value in tensors.items()}, os.path.join(folder, "model.safetensors")
    )
    with open(os.path.join(folder, "tokenizer.model"), "wb") as handle:
        handle.write(theirs.preprocessor.tokenizer.proto)
    return folder
