"""A tiny random KerasHub Phi-3 preset for tfkit.hub's tests, made by KerasHub itself, and its Transformers twin.

    folder = phi3_preset(tmp_path)                             # a Phi3CausalLM preset with long-rope scaling
    checkpoint = phi3_transformers_checkpoint(folder, theirs, tmp_path / "hf")   # Phi3ForCausalLM's layout

The preset's rotary embedding is Phi-3's long-rope ("su") scaling with a pretraining length of 8 tokens and a
maximum of 32, so 12-token prompts cross from the short factors to the long ones while generating. Its
SentencePiece model is Llama-style BPE (``<unk>`` 0, ``<s>`` 1, ``</s>`` 2) with Phi-3's added tokens
``<|endoftext|>`` and ``<|end|>`` appended as user-defined pieces, the way Transformers adds them after
``tokenizer.model``'s pieces. KerasHub 0.32 has no Phi-3 exporter or converter, so the Transformers folder is
written here from KerasHub's weights in ``Phi3ForCausalLM``'s names and fused layouts (``qkv_proj``,
``gate_up_proj``), with the tokenizer files Transformers' Llama tokenizer writes.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hub_presets import keras, keras_hub
from hub_presets_mistral import CORPUS
from tiny_sentence_piece import train_sentence_piece

sentencepiece = pytest.importorskip("sentencepiece")

ADDED_TOKENS = ["<|endoftext|>", "<|end|>"]
BASE_PIECES = 78  # the BPE model's own pieces; the added tokens follow (78, 79)
PRETRAINING_LENGTH = 8
SHORT_FACTOR = [1.0, 1.1, 1.3, 1.7]
LONG_FACTOR = [2.0, 3.0, 5.0, 8.0]


def base_sentence_piece_model() -> bytes:
    """A serialized BPE SentencePiece model of ``BASE_PIECES`` pieces trained on ``CORPUS`` (no added tokens)."""
    return train_sentence_piece(CORPUS * 4, vocab_size=BASE_PIECES, model_type="bpe", character_coverage=1.0)


def phi3_sentence_piece_model() -> bytes:
    """The base model with ``ADDED_TOKENS`` appended as user-defined pieces: Phi-3's vocabulary in one model."""
    from sentencepiece import sentencepiece_model_pb2

    model = sentencepiece_model_pb2.ModelProto()
    model.ParseFromString(base_sentence_piece_model())
    for token in ADDED_TOKENS:
        piece = model.pieces.add()
        piece.piece, piece.score = token, 0.0
        piece.type = sentencepiece_model_pb2.ModelProto.SentencePiece.USER_DEFINED
    return model.SerializeToString()


def phi3_preset(folder: str, sequence_length: int = 16, long_rope: bool = True, sharpened: bool = False) -> str:
    """A random Phi3CausalLM preset (2 layers, hidden 32, 4 query and 2 key/value heads of 8) saved by KerasHub,
    with long-rope scaling (``long_rope``) or plain rotary embeddings.

    ``sharpened`` multiplies the query and key kernels by 10 and the output embedding by 300: the attention then
    depends on the positions' rotations and the logits on small changes of the hidden states, so greedy ids tell
    apart a cache filled with other rotary factors (random weights of KerasHub's scale attend almost uniformly).
    """
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.Phi3Tokenizer(proto=phi3_sentence_piece_model())
    scaling = {}
    if long_rope:
        scaling = {
            "rope_scaling_type": "su",
            "rope_scaling_short_factor": SHORT_FACTOR,
            "rope_scaling_long_factor": LONG_FACTOR,
        }
    backbone = keras_hub.models.Phi3Backbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        hidden_dim=32,
        intermediate_dim=48,
        num_query_heads=4,
        num_key_value_heads=2,
        max_sequence_length=32,
        pretraining_sequence_length=PRETRAINING_LENGTH,
        rope_max_wavelength=500,
        **scaling,
    )
    if sharpened:
        for block in backbone.transformer_layers:
            for dense in (block.attention.query_dense, block.attention.key_dense):
                dense.kernel.assign(dense.kernel * 10.0)
        embedding = backbone.token_embedding
        embedding.reverse_embeddings.assign(embedding.reverse_embeddings * 300.0)
    preprocessor = keras_hub.models.Phi3CausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.Phi3CausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def transformers_tensors(backbone) -> dict[str, np.ndarray]:
    """A KerasHub Phi3Backbone's weights under ``Phi3ForCausalLM``'s names, in its ``(out, in)`` fused layouts."""

    def rows(kernel) -> np.ndarray:  # (hidden, heads, head_dim) or (in, out) -> (out, in)
        kernel = np.asarray(kernel)
        return kernel.reshape(kernel.shape[0], -1).T

    tensors = {
        "model.embed_tokens.weight": np.asarray(backbone.token_embedding.embeddings),
        "lm_head.weight": np.asarray(backbone.token_embedding.reverse_embeddings).T,
        "model.norm.weight": np.asarray(backbone.layer_norm.scale),
    }
    for i, block in enumerate(backbone.transformer_layers):
        prefix = f"model.layers.{i}."
        attention = block.attention
        tensors[prefix + "input_layernorm.weight"] = np.asarray(block.pre_attention_layernorm.scale)
        tensors[prefix + "post_attention_layernorm.weight"] = np.asarray(block.post_attention_layernorm.scale)
        tensors[prefix + "self_attn.qkv_proj.weight"] = np.concatenate(
            [rows(attention.query_dense.kernel), rows(attention.key_dense.kernel), rows(attention.value_dense.kernel)]
        )
        output = np.asarray(attention.output_dense.kernel)  # (heads, head_dim, hidden)
        tensors[prefix + "self_attn.o_proj.weight"] = output.reshape(-1, output.shape[-1]).T
        tensors[prefix + "mlp.gate_up_proj.weight"] = np.concatenate(
            [rows(block.feedforward_gate_dense.kernel), rows(block.feedforward_intermediate_dense.kernel)]
        )
        tensors[prefix + "mlp.down_proj.weight"] = rows(block.feedforward_output_dense.kernel)
    return {key: np.ascontiguousarray(value) for key, value in tensors.items()}


def transformers_config(backbone) -> dict:
    """``Phi3Config`` of a KerasHub Phi3Backbone, as Transformers writes it (``longrope`` for ``"su"``)."""
    config = {
        "model_type": "phi3",
        "architectures": ["Phi3ForCausalLM"],
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": backbone.hidden_dim,
        "intermediate_size": backbone.intermediate_dim,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_query_heads,
        "num_key_value_heads": backbone.num_key_value_heads,
        "hidden_act": "silu",
        "max_position_embeddings": backbone.max_sequence_length,
        "original_max_position_embeddings": backbone.pretraining_sequence_length,
        "rms_norm_eps": backbone.layer_norm_epsilon,
        "rope_theta": float(backbone.rope_max_wavelength),
        "rope_scaling": None,
        "partial_rotary_factor": 1.0,
        "sliding_window": None,
        "tie_word_embeddings": False,
        "bos_token_id": 1,
        "eos_token_id": BASE_PIECES,
        "pad_token_id": BASE_PIECES,
        "torch_dtype": "float32",
    }
    if backbone.rope_scaling_type == "su":
        config["rope_scaling"] = {
            "type": "longrope",
            "short_factor": list(backbone.rope_scaling_short_factor),
            "long_factor": list(backbone.rope_scaling_long_factor),
        }
    return config


def write_tokenizer_files(folder: str) -> None:
    """The files Transformers' Llama tokenizer writes for Phi-3: the base SentencePiece model and the added tokens."""
    with open(os.path.join(folder, "tokenizer.model"), "wb") as handle:
        handle.write(base_sentence_piece_model())
    special = {0: "<unk>", 1: "<s>", 2: "</s>"}
    special.update({BASE_PIECES + i: token for i, token in enumerate(ADDED_TOKENS)})
    tokenizer_config = {
        "add_bos_token": True,
        "add_eos_token": False,
        "added_tokens_decoder": {
            str(index): {
                "content": token,
                "lstrip": False,
                "normalized": False,
                "rstrip": False,
                "single_word": False,
                "special": True,
            }
            for index, token in special.items()
        },
        "bos_token": "<s>",
        "eos_token": "<|endoftext|>",
        "pad_token": "<|endoftext|>",
        "unk_token": "<unk>",
        "legacy": False,
        "model_max_length": 32,
        "sp_model_kwargs": {},
        "tokenizer_class": "LlamaTokenizer",
    }
    written = {
        "tokenizer_config.json": tokenizer_config,
        "added_tokens.json": {token: BASE_PIECES + i for i, token in enumerate(ADDED_TOKENS)},
        "special_tokens_map.json": {
            "bos_token": "<s>",
            "eos_token": "<|endoftext|>",
            "pad_token": "<|endoftext|>",
            "unk_token": "<unk>",
        },
    }
    for name, content in written.items():
        with open(os.path.join(folder, name), "w") as handle:
            json.dump(content, handle, indent=2)


def phi3_transformers_checkpoint(preset: str, theirs, folder: str) -> str:
    """``theirs``' (a KerasHub Phi3CausalLM) weights, config and tokenizer files as a Transformers Phi-3 folder."""
    from safetensors.numpy import save_file

    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(transformers_config(theirs.backbone), handle, indent=2)
    save_file(transformers_tensors(theirs.backbone), os.path.join(folder, "model.safetensors"))
    write_tokenizer_files(folder)
    return folder
