"""Tiny random KerasHub Qwen 2 and Qwen 3 presets for tfkit.hub's tests, made by KerasHub itself (no downloads).

    folder = qwen_preset(tmp_path)           # a QwenCausalLM preset (untied output embedding, a sliding window)
    folder = qwen3_preset(tmp_path)          # a Qwen3CausalLM preset (head_dim apart from hidden_dim, a window)
    hf_folder = qwen3_transformers_checkpoint(keras_hub_backbone, tokenizer, tmp_path)

Both use GPT-2's byte-level test vocabulary with Qwen's special tokens. KerasHub 0.32 has no Transformers
exporter for Qwen 3, so ``qwen3_transformers_checkpoint`` writes one by Transformers' documented layout.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import gpt2_vocabulary, keras, keras_hub

WINDOW = 6


def qwen_vocabulary(*special: str) -> tuple[dict[str, int], list[str]]:
    """GPT-2's byte-level test vocabulary and merges (``<|endoftext|>`` last) plus ``special`` tokens after it."""
    vocabulary, merges = gpt2_vocabulary()
    for token in special:
        vocabulary.setdefault(token, len(vocabulary))
    return vocabulary, merges


def qwen_preset(folder: str, sequence_length: int = 16) -> str:
    """A random QwenCausalLM preset (2 layers, hidden 16, 4 query and 2 key/value heads, an output embedding of
    its own, a sliding window of ``WINDOW`` tokens) saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = qwen_vocabulary()
    tokenizer = keras_hub.models.QwenTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.QwenBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_query_heads=4,
        num_key_value_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        tie_word_embeddings=False,
        use_sliding_window_attention=True,
        sliding_window_size=WINDOW,
    )
    randomize_weights(backbone)
    preprocessor = keras_hub.models.QwenCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.QwenCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def qwen3_preset(folder: str, sequence_length: int = 16) -> str:
    """A random Qwen3CausalLM preset (2 layers, hidden 16, 4 query heads of size 8 and 2 key/value heads, tied
    embeddings, a sliding window of ``WINDOW`` tokens) saved by KerasHub in ``folder``. Its epsilon is 1e-5, the
    one KerasHub's query and key norms use whatever the backbone's."""
    keras.utils.set_random_seed(1)
    vocabulary, merges = qwen_vocabulary("<|im_end|>")
    tokenizer = keras_hub.models.Qwen3Tokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.Qwen3Backbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_query_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        hidden_dim=16,
        intermediate_dim=32,
        layer_norm_epsilon=1e-5,
        sliding_window_size=WINDOW,
    )
    randomize_weights(backbone)
    preprocessor = keras_hub.models.Qwen3CausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.Qwen3CausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def randomize_weights(backbone) -> None:
    """Gives every RMS norm scale random values around 1 (KerasHub starts them at ones) and every kernel 8 times
    KerasHub's initial spread, so that each weight matters to the outputs and a tied-embedding model does not just
    repeat its last token (with small blocks, a token's own embedding dominates its logits)."""
    rng = np.random.default_rng(0)
    for variable in backbone.weights:
        if variable.path.endswith("scale"):
            variable.assign(rng.uniform(0.5, 2.0, tuple(variable.shape)).astype("float32"))
        elif variable.path.endswith("kernel"):
            variable.assign(keras.ops.convert_to_numpy(variable) * 8.0)


def _projection(kernel: np.ndarray) -> np.ndarray:
    """An einsum kernel ``(hidden, heads, head_dim)`` as Transformers' ``(heads * head_dim, hidden)`` weight."""
    return np.ascontiguousarray(kernel.reshape(kernel.shape[0], -1).T)


def qwen3_transformers_checkpoint(backbone, tokenizer, folder: str) -> str:
    """Writes KerasHub Qwen 3 ``backbone``'s weights and ``tokenizer`` as a Transformers checkpoint (``config.json``,
    ``model.safetensors``, ``tokenizer.json``) in ``folder``, by Transformers' Qwen3ForCausalLM layout."""
    from safetensors.numpy import save_file

    def value(variable):
        return np.asarray(keras.ops.convert_to_numpy(variable))

    tensors = {"model.embed_tokens.weight": value(backbone.token_embedding.embeddings)}
    if not backbone.tie_word_embeddings:
        tensors["lm_head.weight"] = np.ascontiguousarray(value(backbone.token_embedding.reverse_embeddings).T)
    for i, block in enumerate(backbone.transformer_layers):
        prefix, attention = f"model.layers.{i}.", block._self_attention_layer
        tensors[prefix + "input_layernorm.weight"] = value(block._self_attention_layernorm.scale)
        tensors[prefix + "post_attention_layernorm.weight"] = value(block._feedforward_layernorm.scale)
        for name, dense in (("q", attention._query_dense), ("k", attention._key_dense), ("v", attention._value_dense)):
            tensors[f"{prefix}self_attn.{name}_proj.weight"] = _projection(value(dense.kernel))
        output = value(attention._output_dense.kernel)
        tensors[prefix + "self_attn.o_proj.weight"] = np.ascontiguousarray(output.reshape(-1, output.shape[-1]).T)
        tensors[prefix + "self_attn.q_norm.weight"] = value(attention._query_dense_layer_norm.scale)
        tensors[prefix + "self_attn.k_norm.weight"] = value(attention._key_dense_layer_norm.scale)
        for name, dense in (
            ("gate", block._feedforward_gate_dense),
            ("up", block._feedforward_intermediate_dense),
            ("down", block._feedforward_output_dense),
        ):
            tensors[f"{prefix}mlp.{name}_proj.weight"] = np.ascontiguousarray(value(dense.kernel).T)
    tensors["model.norm.weight"] = value(backbone.layer_norm.scale)
    os.makedirs(folder, exist_ok=True)
    save_file(tensors, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    config = {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": backbone.hidden_dim,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_query_heads,
        "num_key_value_heads": backbone.num_key_value_heads,
        "head_dim": backbone.head_dim,
        "intermediate_size": backbone.intermediate_dim,
        "rms_norm_eps": backbone.layer_norm_epsilon,
        "rope_theta": backbone.rope_max_wavelength,
        "use_sliding_window": backbone.sliding_window_size is not None,
        "sliding_window": backbone.sliding_window_size,
        "max_window_layers": 0,
        "tie_word_embeddings": backbone.tie_word_embeddings,
        "hidden_act": "silu",
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    write_bpe_tokenizer_json(tokenizer, folder)
    return folder


def write_bpe_tokenizer_json(tokenizer, folder: str) -> None:
    """A KerasHub byte-pair ``tokenizer`` as the ``tokenizer.json`` Transformers writes (vocabulary, merges and
    special tokens)."""
    special = {token: tokenizer.token_to_id(token) for token in tokenizer.special_tokens}
    vocabulary = {token: i for token, i in tokenizer.vocabulary.items() if token not in special}
    content = {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": token, "special": True} for token, i in special.items()],
        "model": {"type": "BPE", "vocab": vocabulary, "merges": [m.split(" ") for m in tokenizer.merges]},
    }
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as handle:
        json.dump(content, handle, ensure_ascii=False)
