"""A tiny random KerasHub GPT-OSS preset for tfkit.hub's tests, made by KerasHub itself, and its Transformers twin.

    folder = gpt_oss_preset(tmp_path)                                    # a GptOssCausalLM preset
    checkpoint = gpt_oss_transformers_checkpoint(preset, theirs, tmp_path / "hf")   # GptOssForCausalLM's layout

The preset's biases, sinks and norm scales are drawn away from their initial zeros and ones, so that every
weight counts in the outputs. The Transformers folder describes the same model in Transformers' terms: its
``layer_types`` list KerasHub's windowed layers (the odd-numbered ones) and its ``sliding_window`` is one more
than KerasHub's (Transformers counts the token itself in the window). ``mxfp4=True`` stores the experts as
OpenAI released them: 4-bit E2M1 blocks and E8M0 scales, of kernels first rounded to MXFP4's grid.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import keras, keras_hub
from hub_presets_decoders2 import gpt_neo_x_vocabulary

WINDOW = 3
_FP4 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)


def gpt_oss_preset(folder: str, sequence_length: int = 16, hidden_dim: int = 16, intermediate_dim: int = 8) -> str:
    """A random GptOssCausalLM preset (2 layers, hidden 16, 4 query and 2 key/value heads, 4 experts, top 2)."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = gpt_neo_x_vocabulary()
    tokenizer = keras_hub.models.GptOssTokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.GptOssBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_query_heads=4,
        hidden_dim=hidden_dim,
        intermediate_dim=intermediate_dim,
        num_key_value_heads=2,
        num_experts=4,
        top_k=2,
        sliding_window=WINDOW,
    )
    random = np.random.RandomState(1)
    for weight in backbone.weights:
        if weight.path.endswith(("bias", "sinks", "scale")):
            offset = 1.0 if weight.path.endswith("scale") else 0.0
            weight.assign(offset + 0.3 * random.normal(size=weight.shape).astype("float32"))
    preprocessor = keras_hub.models.GptOssCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.GptOssCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def mxfp4_rounded(kernel: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(experts, in, out)`` kernels as MXFP4 ``(blocks, scales)`` and the float kernels they hold: blocks of 32
    inputs share a power of two, each value the nearest E2M1 code (two a byte, low nibble first)."""
    values = np.ascontiguousarray(np.transpose(kernel, (0, 2, 1)))  # (experts, out, in)
    experts, out, inputs = values.shape
    grouped = values.reshape(experts, out, inputs // 32, 32)
    exponent = np.ceil(np.log2(np.maximum(np.abs(grouped).max(-1), 1e-30) / 6.0))
    scaled = grouped / np.exp2(exponent)[..., None]
    magnitude = np.abs(np.abs(scaled)[..., None] - _FP4).argmin(-1)
    codes = (magnitude | np.where(scaled < 0, 8, 0)).astype(np.uint8)
    blocks = codes[..., 0::2] | (codes[..., 1::2] << 4)
    rounded = np.sign(scaled) * _FP4[magnitude] * np.exp2(exponent)[..., None]
    return blocks, (exponent + 127).astype(np.uint8), np.transpose(rounded.reshape(values.shape), (0, 2, 1))


def gpt_oss_transformers_checkpoint(preset: str, theirs, folder: str, mxfp4: bool = False) -> str:
    """``theirs``' (a KerasHub GptOssCausalLM) weights, config and ``tokenizer.json`` as a Transformers folder."""
    from safetensors.numpy import save_file

    backbone = theirs.backbone
    tensors = {
        "model.embed_tokens.weight": np.asarray(backbone.token_embedding.embeddings),
        "lm_head.weight": np.asarray(backbone.token_embedding.reverse_embeddings).T,
        "model.norm.weight": np.asarray(backbone.layer_norm.scale),
    }
    for i, block in enumerate(backbone.transformer_layers):
        prefix = f"model.layers.{i}."
        attention = block.self_attention_layer
        tensors[prefix + "input_layernorm.weight"] = np.asarray(block.input_layernorm.scale)
        tensors[prefix + "post_attention_layernorm.weight"] = np.asarray(block.post_attention_layernorm.scale)
        for dense, name in (
            (attention.query_dense, "q_proj"),
            (attention.key_dense, "k_proj"),
            (attention.value_dense, "v_proj"),
        ):
            kernel = np.asarray(dense.kernel)  # (hidden, heads, head_dim)
            tensors[f"{prefix}self_attn.{name}.weight"] = kernel.reshape(kernel.shape[0], -1).T
            tensors[f"{prefix}self_attn.{name}.bias"] = np.asarray(dense.bias).reshape(-1)
        output = np.asarray(attention.output_dense.kernel)  # (heads, head_dim, hidden)
        tensors[prefix + "self_attn.o_proj.weight"] = output.reshape(-1, output.shape[-1]).T
        tensors[prefix + "self_attn.o_proj.bias"] = np.asarray(attention.output_dense.bias)
        tensors[prefix + "self_attn.sinks"] = np.asarray(attention.sinks)
        moe = block.sparse_moe_block
        tensors[prefix + "mlp.router.weight"] = np.asarray(moe.router.router_dense.kernel).T
        tensors[prefix + "mlp.router.bias"] = np.asarray(moe.router.router_dense.bias)
        for name in ("gate_up_proj", "down_proj"):
            kernel = np.asarray(getattr(moe.experts, name))
            if mxfp4:
                blocks, scales, _ = mxfp4_rounded(kernel)
                tensors[f"{prefix}mlp.experts.{name}_blocks"] = blocks.reshape(blocks.shape[:3] + (16,))
                tensors[f"{prefix}mlp.experts.{name}_scales"] = scales
            else:
                tensors[f"{prefix}mlp.experts.{name}"] = kernel
            tensors[f"{prefix}mlp.experts.{name}_bias"] = np.asarray(getattr(moe.experts, name + "_bias"))
    config = {
        "model_type": "gpt_oss",
        "architectures": ["GptOssForCausalLM"],
        "vocab_size": backbone.vocabulary_size,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_query_heads,
        "num_key_value_heads": backbone.num_key_value_heads,
        "hidden_size": backbone.hidden_dim,
        "intermediate_size": backbone.intermediate_dim,
        "head_dim": backbone.hidden_dim // backbone.num_query_heads,
        "num_local_experts": backbone.num_experts,
        "num_experts_per_tok": backbone.top_k,
        "rope_theta": backbone.rope_max_wavelength,
        "rms_norm_eps": backbone.layer_norm_epsilon,
        "sliding_window": backbone.sliding_window + 1,
        "layer_types": ["sliding_attention" if i % 2 else "full_attention" for i in range(backbone.num_layers)],
        "attention_bias": True,
        "swiglu_limit": 7.0,
        "tie_word_embeddings": False,
        "torch_dtype": "float32",
    }
    if mxfp4:
        config["quantization_config"] = {
            "quant_method": "mxfp4",
            "modules_to_not_convert": ["model.layers.*.self_attn"],
        }
    os.makedirs(folder, exist_ok=True)
    vocabulary, merges = gpt_neo_x_vocabulary()
    special = {"id": 0, "content": "<|endoftext|>", "single_word": False, "lstrip": False, "rstrip": False}
    written = {
        "config.json": config,
        "tokenizer.json": {
            "version": "1.0",
            "added_tokens": [{**special, "normalized": False, "special": True}],
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "vocab": vocabulary, "merges": merges},
        },
    }
    for name, content in written.items():
        with open(os.path.join(folder, name), "w") as handle:
            json.dump(content, handle, indent=2)
    # safetensors 0.8 writes a transposed view's buffer as it lies in memory: contiguous copies first
    save_file(
        {key: np.ascontiguousarray(value) for key, value in tensors.items()}, os.path.join(folder, "model.safetensors")
    )
    return folder
