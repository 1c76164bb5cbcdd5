"""Tiny random KerasHub presets of OPT (and the second round's other decoders) for tfkit.hub's tests, made by
KerasHub itself, and their Transformers twins.

    folder = opt_preset(tmp_path)                                   # an OPTCausalLM preset
    checkpoint = opt_transformers_checkpoint(theirs, tmp_path / "hf")   # OPTForCausalLM's names and layouts

KerasHub 0.32 has no OPT converter, so the Transformers folder is written here from KerasHub's weights in
``OPTForCausalLM``'s tensor names (``(out, in)`` matrices, two extra rows at the top of the position table:
Transformers' learned positions start at offset 2), with the tokenizer files Transformers' GPT-2 tokenizer
writes for OPT (``vocab.json``, ``merges.txt``: ``<s>`` 0, ``<pad>`` 1, ``</s>`` 2, ``<unk>`` 3 first).
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import byte_level_alphabet, keras, keras_hub

OPT_SPECIAL = ["<s>", "<pad>", "</s>", "<unk>"]


def opt_vocabulary() -> tuple[dict[str, int], list[str]]:
    """OPT's special tokens first (as in its vocabulary), then every byte and a few merges of the test texts."""
    vocabulary = {token: i for i, token in enumerate(OPT_SPECIAL)}
    for character in byte_level_alphabet():
        vocabulary.setdefault(character, len(vocabulary))
    merges = ["Ġ t", "h e", "Ġt he", "o r", "Ġ a", "e r", "Ġ o", "v er", "Ġo ver"]
    for merge in merges:
        vocabulary.setdefault(merge.replace(" ", ""), len(vocabulary))
    return vocabulary, merges


def opt_preset(folder: str, sequence_length: int = 16, sharpened: bool = False) -> str:
    """A random OPTCausalLM preset (2 layers, hidden 16, 2 heads, 40 positions) saved by KerasHub.

    ``sharpened`` multiplies the blocks' kernels and the position table by 10: with random weights of KerasHub's
    scale the residual stream is the token's own embedding, and greedy decoding repeats the last prompt token.
    """
    keras.utils.set_random_seed(0)
    vocabulary, merges = opt_vocabulary()
    tokenizer = keras_hub.models.OPTTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.OPTBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        max_sequence_length=40,
    )
    if sharpened:
        for block in backbone.transformer_layers:
            attention = block._self_attention_layer
            for dense in (
                attention._query_dense,
                attention._key_dense,
                attention._value_dense,
                attention._output_dense,
                block._feedforward_intermediate_dense,
                block._feedforward_output_dense,
            ):
                dense.kernel.assign(dense.kernel * 10.0)
        positions = backbone.embeddings.position_embedding.position_embeddings
        positions.assign(positions * 10.0)
    preprocessor = keras_hub.models.OPTCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.OPTCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def opt_transformers_tensors(backbone) -> dict[str, np.ndarray]:
    """A KerasHub OPTBackbone's weights under ``OPTForCausalLM``'s names and ``(out, in)`` layouts."""

    def rows(kernel) -> np.ndarray:  # (hidden, heads, head_dim) or (in, out) -> (out, in)
        kernel = np.asarray(kernel)
        return kernel.reshape(kernel.shape[0], -1).T

    embeddings = backbone.embeddings
    positions = np.asarray(embeddings.position_embedding.position_embeddings)
    offset_rows = np.random.RandomState(1).normal(size=(2, positions.shape[1])).astype(positions.dtype)
    tokens = np.asarray(embeddings.token_embedding.embeddings)
    tensors = {
        "model.decoder.embed_tokens.weight": tokens,
        "model.decoder.embed_positions.weight": np.concatenate([offset_rows, positions]),
        "model.decoder.final_layer_norm.weight": np.asarray(backbone.layer_norm.gamma),
        "model.decoder.final_layer_norm.bias": np.asarray(backbone.layer_norm.beta),
        "lm_head.weight": tokens,
    }
    for i, block in enumerate(backbone.transformer_layers):
        prefix = f"model.decoder.layers.{i}."
        attention = block._self_attention_layer
        for dense, name in (
            (attention._query_dense, "q_proj"),
            (attention._key_dense, "k_proj"),
            (attention._value_dense, "v_proj"),
        ):
            tensors[f"{prefix}self_attn.{name}.weight"] = rows(dense.kernel)
            tensors[f"{prefix}self_attn.{name}.bias"] = np.asarray(dense.bias).reshape(-1)
        output = np.asarray(attention._output_dense.kernel)  # (heads, head_dim, hidden)
        tensors[prefix + "self_attn.out_proj.weight"] = output.reshape(-1, output.shape[-1]).T
        tensors[prefix + "self_attn.out_proj.bias"] = np.asarray(attention._output_dense.bias)
        for norm, name in (
            (block._self_attention_layer_norm, "self_attn_layer_norm"),
            (block._feedforward_layer_norm, "final_layer_norm"),
        ):
            tensors[f"{prefix}{name}.weight"] = np.asarray(norm.gamma)
            tensors[f"{prefix}{name}.bias"] = np.asarray(norm.beta)
        for dense, name in ((block._feedforward_intermediate_dense, "fc1"), (block._feedforward_output_dense, "fc2")):
            tensors[f"{prefix}{name}.weight"] = rows(dense.kernel)
            tensors[f"{prefix}{name}.bias"] = np.asarray(dense.bias)
    return {key: np.ascontiguousarray(value) for key, value in tensors.items()}


def opt_transformers_config(backbone) -> dict:
    """``OPTConfig`` of a KerasHub OPTBackbone, as Transformers writes it."""
    return {
        "model_type": "opt",
        "architectures": ["OPTForCausalLM"],
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": backbone.hidden_dim,
        "ffn_dim": backbone.intermediate_dim,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_heads,
        "max_position_embeddings": backbone.max_sequence_length,
        "word_embed_proj_dim": backbone.hidden_dim,
        "do_layer_norm_before": True,
        "activation_function": "relu",
        "dropout": backbone.dropout,
        "attention_dropout": 0.0,
        "enable_bias": True,
        "layer_norm_elementwise_affine": True,
        "bos_token_id": 2,
        "eos_token_id": 2,
        "pad_token_id": 1,
        "torch_dtype": "float32",
    }


def opt_transformers_checkpoint(theirs, folder: str) -> str:
    """``theirs``' (a KerasHub OPTCausalLM) weights, config and tokenizer files as a Transformers OPT folder."""
    from safetensors.numpy import save_file

    os.makedirs(folder, exist_ok=True)
    vocabulary, merges = opt_vocabulary()
    written = {
        "config.json": opt_transformers_config(theirs.backbone),
        "vocab.json": vocabulary,
        "special_tokens_map.json": {
            "bos_token": "</s>",
            "eos_token": "</s>",
            "pad_token": "<pad>",
            "unk_token": "</s>",
        },
        "tokenizer_config.json": {
            "add_bos_token": True,
            "add_prefix_space": False,
            "bos_token": "</s>",
            "eos_token": "</s>",
            "pad_token": "<pad>",
            "unk_token": "</s>",
            "model_max_length": 1000000000000000019884624838656,
            "tokenizer_class": "GPT2Tokenizer",
        },
    }
    for name, content in written.items():
        with open(os.path.join(folder, name), "w") as handle:
            json.dump(content, handle, indent=2)
    with open(os.path.join(folder, "merges.txt"), "w") as handle:
        handle.write("#version: 0.2\n" + "\n".join(merges) + "\n")
    save_file(opt_transformers_tensors(theirs.backbone), os.path.join(folder, "model.safetensors"))
    return folder


# ---------------------------------------------------------------------------------------------------- GPT-NeoX


def gpt_neo_x_vocabulary() -> tuple[dict[str, int], list[str]]:
    """``<|endoftext|>`` first (id 0, as in GPT-NeoX's vocabulary), then every byte and a few merges."""
    vocabulary = {"<|endoftext|>": 0}
    for character in byte_level_alphabet():
        vocabulary.setdefault(character, len(vocabulary))
    merges = ["Ġ t", "h e", "Ġt he", "o r", "Ġ a", "e r", "Ġ o", "v er", "Ġo ver"]
    for merge in merges:
        vocabulary.setdefault(merge.replace(" ", ""), len(vocabulary))
    return vocabulary, merges


def gpt_neo_x_preset(folder: str, sequence_length: int = 16, sharpened: bool = False) -> str:
    """A random GPTNeoXCausalLM preset (2 layers, hidden 32, 2 heads of 16, a quarter of each rotated) saved by
    KerasHub; ``sharpened`` multiplies the blocks' kernels by 10 so that greedy ids depend on positions."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = gpt_neo_x_vocabulary()
    tokenizer = keras_hub.models.GPTNeoXTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.GPTNeoXBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_heads=2,
        hidden_dim=32,
        intermediate_dim=48,
        rotary_max_wavelength=100,
        max_sequence_length=40,
    )
    if sharpened:
        for block in backbone.transformer_layers:
            attention = block._self_attention_layer
            for dense in (
                attention._qkv_dense,
                attention._output_dense,
                block._feedforward_intermediate_dense,
                block._feedforward_output_dense,
            ):
                dense.kernel.assign(dense.kernel * 10.0)
    preprocessor = keras_hub.models.GPTNeoXCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.GPTNeoXCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def gpt_neo_x_transformers_tensors(backbone) -> dict[str, np.ndarray]:
    """A KerasHub GPTNeoXBackbone's weights under ``GPTNeoXForCausalLM``'s names and ``(out, in)`` layouts."""
    tokens = np.asarray(backbone.token_embedding.embeddings)
    tensors = {
        "gpt_neox.embed_in.weight": tokens,
        "gpt_neox.final_layer_norm.weight": np.asarray(backbone.layer_norm.gamma),
        "gpt_neox.final_layer_norm.bias": np.asarray(backbone.layer_norm.beta),
        "embed_out.weight": tokens,
    }
    for i, block in enumerate(backbone.transformer_layers):
        prefix = f"gpt_neox.layers.{i}."
        attention = block._self_attention_layer
        fused = np.asarray(attention._qkv_dense.kernel)  # (hidden, heads, 3 * head_dim)
        tensors[prefix + "attention.query_key_value.weight"] = fused.reshape(fused.shape[0], -1).T
        tensors[prefix + "attention.query_key_value.bias"] = np.asarray(attention._qkv_dense.bias).reshape(-1)
        tensors[prefix + "attention.dense.weight"] = np.asarray(attention._output_dense.kernel).T
        tensors[prefix + "attention.dense.bias"] = np.asarray(attention._output_dense.bias)
        for norm, name in (
            (block._self_attention_layer_norm, "input_layernorm"),
            (block._feedforward_layer_norm, "post_attention_layernorm"),
        ):
            tensors[f"{prefix}{name}.weight"] = np.asarray(norm.gamma)
            tensors[f"{prefix}{name}.bias"] = np.asarray(norm.beta)
        for dense, name in (
            (block._feedforward_intermediate_dense, "mlp.dense_h_to_4h"),
            (block._feedforward_output_dense, "mlp.dense_4h_to_h"),
        ):
            tensors[f"{prefix}{name}.weight"] = np.asarray(dense.kernel).T
            tensors[f"{prefix}{name}.bias"] = np.asarray(dense.bias)
    return {key: np.ascontiguousarray(value) for key, value in tensors.items()}


def gpt_neo_x_transformers_config(backbone) -> dict:
    """``GPTNeoXConfig`` of a KerasHub GPTNeoXBackbone, as Transformers 4 writes it (the tanh GELU, tied
    embeddings: what KerasHub's backbone computes)."""
    return {
        "model_type": "gpt_neox",
        "architectures": ["GPTNeoXForCausalLM"],
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": backbone.hidden_dim,
        "intermediate_size": backbone.intermediate_dim,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_heads,
        "max_position_embeddings": backbone.max_sequence_length,
        "rotary_pct": backbone.rotary_percentage,
        "rotary_emb_base": backbone.rotary_max_wavelength,
        "layer_norm_eps": backbone.layer_norm_epsilon,
        "hidden_act": "gelu_new",
        "use_parallel_residual": True,
        "attention_bias": True,
        "tie_word_embeddings": True,
        "hidden_dropout": 0.0,
        "attention_dropout": 0.0,
        "bos_token_id": 0,
        "eos_token_id": 0,
        "torch_dtype": "float32",
    }


def gpt_neo_x_transformers_checkpoint(theirs, folder: str) -> str:
    """``theirs``' (a KerasHub GPTNeoXCausalLM) weights, config and ``tokenizer.json`` as a Transformers folder."""
    from safetensors.numpy import save_file

    os.makedirs(folder, exist_ok=True)
    vocabulary, merges = gpt_neo_x_vocabulary()
    special = {"content": "<|endoftext|>", "single_word": False, "lstrip": False, "rstrip": False}
    written = {
        "config.json": gpt_neo_x_transformers_config(theirs.backbone),
        "tokenizer.json": {
            "version": "1.0",
            "added_tokens": [{"id": 0, **special, "normalized": False, "special": True}],
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True},
            "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "vocab": vocabulary, "merges": merges},
        },
        "tokenizer_config.json": {
            "add_bos_token": False,
            "add_eos_token": False,
            "bos_token": "<|endoftext|>",
            "eos_token": "<|endoftext|>",
            "unk_token": "<|endoftext|>",
            "tokenizer_class": "GPTNeoXTokenizer",
        },
    }
    for name, content in written.items():
        with open(os.path.join(folder, name), "w") as handle:
            json.dump(content, handle, indent=2)
    save_file(gpt_neo_x_transformers_tensors(theirs.backbone), os.path.join(folder, "model.safetensors"))
    return folder


# -------------------------------------------------------------------------------------------------------- Bloom

BLOOM_SPECIAL = ["<unk>", "<s>", "</s>", "<pad>"]


def bloom_vocabulary() -> tuple[dict[str, int], list[str]]:
    """Bloom's special tokens first (``<unk>`` 0, ``<s>`` 1, ``</s>`` 2, ``<pad>`` 3), then bytes and merges."""
    vocabulary = {token: i for i, token in enumerate(BLOOM_SPECIAL)}
    for character in byte_level_alphabet():
        vocabulary.setdefault(character, len(vocabulary))
    merges = ["Ġ t", "h e", "Ġt he", "o r", "Ġ a", "e r", "Ġ o", "v er", "Ġo ver"]
    for merge in merges:
        vocabulary.setdefault(merge.replace(" ", ""), len(vocabulary))
    return vocabulary, merges


def bloom_preset(folder: str, sequence_length: int = 16, sharpened: bool = False) -> str:
    """A random BloomCausalLM preset (2 layers, hidden 16, 4 heads: ALiBi slopes of 4 heads) saved by KerasHub;
    ``sharpened`` multiplies the blocks' kernels by 10 (then greedy ids differ from repeating a token)."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = bloom_vocabulary()
    tokenizer = keras_hub.models.BloomTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.BloomBackbone(
        vocabulary_size=len(vocabulary), num_layers=2, num_heads=4, hidden_dim=16, intermediate_dim=64
    )
    if sharpened:
        for block in backbone.transformer_layers:
            attention = block._self_attention_layer
            for dense in (
                attention._query_dense,
                attention._key_dense,
                attention._value_dense,
                attention._output_dense,
                block._mlp_intermediate_dense,
                block._mlp_output_dense,
            ):
                dense.kernel.assign(dense.kernel * 10.0)
    preprocessor = keras_hub.models.BloomCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.BloomCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def bloom_transformers_tensors(backbone) -> dict[str, np.ndarray]:
    """A KerasHub BloomBackbone's weights under ``BloomForCausalLM``'s names, query/key/value fused per head."""
    tokens = np.asarray(backbone.token_embedding.embeddings)
    tensors = {
        "transformer.word_embeddings.weight": tokens,
        "transformer.word_embeddings_layernorm.weight": np.asarray(backbone.embeddings_layer_norm.gamma),
        "transformer.word_embeddings_layernorm.bias": np.asarray(backbone.embeddings_layer_norm.beta),
        "transformer.ln_f.weight": np.asarray(backbone.layer_norm.gamma),
        "transformer.ln_f.bias": np.asarray(backbone.layer_norm.beta),
        "lm_head.weight": tokens,
    }
    for i, block in enumerate(backbone.transformer_layers):
        prefix = f"transformer.h.{i}."
        attention = block._self_attention_layer
        denses = (attention._query_dense, attention._key_dense, attention._value_dense)
        kernels = np.stack([np.asarray(d.kernel) for d in denses], axis=2)  # (hidden, heads, 3, head_dim)
        tensors[prefix + "self_attention.query_key_value.weight"] = kernels.reshape(kernels.shape[0], -1).T
        biases = np.stack([np.asarray(d.bias) for d in denses], axis=1)  # (heads, 3, head_dim)
        tensors[prefix + "self_attention.query_key_value.bias"] = biases.reshape(-1)
        for dense, name in (
            (attention._output_dense, "self_attention.dense"),
            (block._mlp_intermediate_dense, "mlp.dense_h_to_4h"),
            (block._mlp_output_dense, "mlp.dense_4h_to_h"),
        ):
            tensors[f"{prefix}{name}.weight"] = np.asarray(dense.kernel).T
            tensors[f"{prefix}{name}.bias"] = np.asarray(dense.bias)
        for norm, name in (
            (block._pre_attention_layernorm, "input_layernorm"),
            (block._post_attention_layernorm, "post_attention_layernorm"),
        ):
            tensors[f"{prefix}{name}.weight"] = np.asarray(norm.gamma)
            tensors[f"{prefix}{name}.bias"] = np.asarray(norm.beta)
    return {key: np.ascontiguousarray(value) for key, value in tensors.items()}


def bloom_transformers_checkpoint(theirs, folder: str) -> str:
    """``theirs``' (a KerasHub BloomCausalLM) weights, ``BloomConfig`` and ``tokenizer.json`` as Transformers
    writes them (the feedforward is four times the hidden size there: the preset's is)."""
    from safetensors.numpy import save_file

    backbone = theirs.backbone
    assert backbone.intermediate_dim == 4 * backbone.hidden_dim
    os.makedirs(folder, exist_ok=True)
    vocabulary, merges = bloom_vocabulary()
    flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
    written = {
        "config.json": {
            "model_type": "bloom",
            "architectures": ["BloomForCausalLM"],
            "vocab_size": backbone.vocabulary_size,
            "hidden_size": backbone.hidden_dim,
            "n_layer": backbone.num_layers,
            "n_head": backbone.num_heads,
            "layer_norm_epsilon": backbone.layer_norm_epsilon,
            "apply_residual_connection_post_layernorm": False,
            "hidden_dropout": 0.0,
            "attention_dropout": 0.0,
            "bos_token_id": 1,
            "eos_token_id": 2,
            "pad_token_id": 3,
            "torch_dtype": "float32",
        },
        "tokenizer.json": {
            "version": "1.0",
            "added_tokens": [{"id": i, "content": token, **flags} for i, token in enumerate(BLOOM_SPECIAL)],
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "vocab": vocabulary, "merges": merges},
        },
        "tokenizer_config.json": {
            "bos_token": "<s>",
            "eos_token": "</s>",
            "pad_token": "<pad>",
            "unk_token": "<unk>",
            "tokenizer_class": "BloomTokenizer",
        },
    }
    for name, content in written.items():
        with open(os.path.join(folder, name), "w") as handle:
            json.dump(content, handle, indent=2)
    save_file(bloom_transformers_tensors(backbone), os.path.join(folder, "model.safetensors"))
    return folder


# ------------------------------------------------------------------------------------------------------- Falcon


def falcon_preset(folder: str, sequence_length: int = 16, sharpened: bool = False) -> str:
    """A random FalconCausalLM preset (2 layers, hidden 16, 4 heads, feedforward 64) saved by KerasHub, with
    GPT-NeoX's test vocabulary (``<|endoftext|>`` 0); ``sharpened`` multiplies the blocks' kernels by 4."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = gpt_neo_x_vocabulary()
    tokenizer = keras_hub.models.FalconTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.FalconBackbone(
        vocabulary_size=len(vocabulary), num_layers=2, num_attention_heads=4, hidden_dim=16, intermediate_dim=64
    )
    if sharpened:
        for block in backbone.transformer_layers:
            attention = block.attention_layer
            for dense in (attention.query_dense, attention.key_dense, block.dense_h_to_4h, block.dense_4h_to_h):
                dense.kernel.assign(dense.kernel * 4.0)
    preprocessor = keras_hub.models.FalconCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.FalconCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def falcon_transformers_checkpoint(theirs, folder: str) -> str:
    """``theirs``' (a KerasHub FalconCausalLM) weights as a Transformers Falcon-RW folder (``alibi``, no
    multi-query, sequential residuals): Bloom's tensor names and fused layout, GPT-NeoX's ``tokenizer.json``."""
    from safetensors.numpy import save_file

    backbone = theirs.backbone
    os.makedirs(folder, exist_ok=True)
    tensors = {}
    tokens = np.asarray(backbone.token_embedding.embeddings)
    tensors["transformer.word_embeddings.weight"] = tokens
    tensors["lm_head.weight"] = tokens
    tensors["transformer.ln_f.weight"] = np.asarray(backbone.final_layernorm.gamma)
    tensors["transformer.ln_f.bias"] = np.asarray(backbone.final_layernorm.beta)
    for i, block in enumerate(backbone.transformer_layers):
        prefix = f"transformer.h.{i}."
        attention = block.attention_layer
        denses = (attention.query_dense, attention.key_dense, attention.value_dense)
        kernels = np.stack([np.asarray(d.kernel) for d in denses], axis=2)  # (hidden, heads, 3, head_dim)
        tensors[prefix + "self_attention.query_key_value.weight"] = kernels.reshape(kernels.shape[0], -1).T
        tensors[prefix + "self_attention.query_key_value.bias"] = np.stack(
            [np.asarray(d.bias) for d in denses], axis=1
        ).reshape(-1)
        for dense, name in (
            (attention.output_dense, "self_attention.dense"),
            (block.dense_h_to_4h, "mlp.dense_h_to_4h"),
            (block.dense_4h_to_h, "mlp.dense_4h_to_h"),
        ):
            tensors[f"{prefix}{name}.weight"] = np.asarray(dense.kernel).T
            tensors[f"{prefix}{name}.bias"] = np.asarray(dense.bias)
        for norm, name in (
            (block.input_layernorm, "input_layernorm"),
            (block.post_attention_layernorm, "post_attention_layernorm"),
        ):
            tensors[f"{prefix}{name}.weight"] = np.asarray(norm.gamma)
            tensors[f"{prefix}{name}.bias"] = np.asarray(norm.beta)
    config = {
        "model_type": "falcon",
        "architectures": ["FalconForCausalLM"],
        "vocab_size": backbone.vocabulary_size,
        "hidden_size": backbone.hidden_dim,
        "ffn_hidden_size": backbone.intermediate_dim,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_attention_heads,
        "layer_norm_epsilon": backbone.layer_norm_epsilon,
        "alibi": True,
        "multi_query": False,
        "new_decoder_architecture": False,
        "parallel_attn": False,
        "bias": True,
        "activation": "gelu",
        "attention_dropout": 0.0,
        "hidden_dropout": 0.0,
        "bos_token_id": 0,
        "eos_token_id": 0,
        "torch_dtype": "float32",
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle, indent=2)
    vocabulary, merges = gpt_neo_x_vocabulary()
    special = {"id": 0, "content": "<|endoftext|>", "single_word": False, "lstrip": False, "rstrip": False}
    tokenizer = {
        "version": "1.0",
        "added_tokens": [{**special, "normalized": False, "special": True}],
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "vocab": vocabulary, "merges": merges},
    }
    with open(os.path.join(folder, "tokenizer.json"), "w") as handle:
        json.dump(tokenizer, handle, indent=2)
    save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, os.path.join(folder, "model.safetensors"))
    return folder
