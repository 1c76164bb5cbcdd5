"""A tiny random PaliGemma preset for tfkit.hub's tests, made by KerasHub itself (no downloads).

    folder = pali_gemma_preset(tmp_path)     # a PaliGemmaCausalLM preset: 16x16 images, 4x4 patches, hidden 8
    folder = pali_gemma_transformers_checkpoint(backbone, gemma_proto(), tmp_path)   # as Transformers'

The tokenizer is Gemma's test SentencePiece model (``hub_presets_gemma.gemma_proto``); the image converter
maps pixel values to ``[-1, 1]`` at 16 x 16, as PaliGemma's presets do at 224 to 896.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import keras, keras_hub
from hub_presets_gemma import gemma_proto, randomize_norms

IMAGE_SIZE = 16


def pali_gemma_preset(folder: str, sequence_length: int = 8) -> str:
    """A random PaliGemmaCausalLM preset (a 1-layer ViT of width 8 on 4 x 4 patches: 16 image tokens; a 2-layer
    Gemma decoder of width 8 with grouped queries) saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.PaliGemmaTokenizer(proto=gemma_proto())
    backbone = keras_hub.models.PaliGemmaBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        image_size=IMAGE_SIZE,
        num_layers=2,
        num_query_heads=2,
        num_key_value_heads=1,
        hidden_dim=8,
        intermediate_dim=16,
        head_dim=4,
        vit_patch_size=4,
        vit_num_heads=2,
        vit_hidden_dim=8,
        vit_num_layers=1,
        vit_intermediate_dim=16,
    )
    randomize_norms(backbone)
    converter = keras_hub.layers.PaliGemmaImageConverter(
        image_size=(IMAGE_SIZE, IMAGE_SIZE), scale=1 / 127.5, offset=-1.0
    )
    preprocessor = keras_hub.models.PaliGemmaCausalLMPreprocessor(
        tokenizer, image_converter=converter, sequence_length=sequence_length
    )
    keras_hub.models.PaliGemmaCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def _heads_in(kernel: np.ndarray) -> np.ndarray:
    """A KerasHub ``(heads, hidden, head_dim)`` kernel as Transformers' ``(heads * head_dim, hidden)`` matrix."""
    return np.transpose(kernel, (0, 2, 1)).reshape(-1, kernel.shape[1])


def pali_gemma_transformers_checkpoint(backbone, proto: bytes, folder: str, extra_rows: int = 3) -> str:
    """A PaliGemma KerasHub backbone's weights as a Transformers ``PaliGemmaForConditionalGeneration`` folder
    (Transformers' tensor names and ``(out, in)`` layouts before 4.52, ``config.json`` with ``text_config`` and
    ``vision_config``, the SentencePiece model ``proto`` as ``tokenizer.model``). The embedding gets ``extra_rows``
    rows past the vocabulary (the image token and the others Transformers' vocabulary adds), which the converters
    drop."""
    from safetensors.numpy import save_file

    os.makedirs(folder, exist_ok=True)
    vocabulary = backbone.vocabulary_size
    encoder = backbone.vit_encoder.get_layer("image_encoder")
    tensors = {}
    vision = "vision_tower.vision_model."
    conv = encoder.vision_embeddings.patch_embedding
    tensors[f"{vision}embeddings.patch_embedding.weight"] = np.transpose(conv.kernel.numpy(), (3, 2, 0, 1))
    tensors[f"{vision}embeddings.patch_embedding.bias"] = conv.bias.numpy()
    position = encoder.vision_embeddings.position_embedding.embeddings.numpy()
    tensors[f"{vision}embeddings.position_embedding.weight"] = position
    for i, block in enumerate(encoder.resblocks):
        key = f"{vision}encoder.layers.{i}."
        dense_layers = [(getattr(block.attn, f"{n}_proj"), f"self_attn.{n[0]}_proj") for n in ("query", "key", "value")]
        dense_layers += [(block.attn.out_proj, "self_attn.out_proj"), (block.mlp_dense_1, "mlp.fc1")]
        for dense, name in dense_layers + [(block.mlp_dense_2, "mlp.fc2")]:
            tensors[f"{key}{name}.weight"] = np.transpose(dense.kernel.numpy())
            tensors[f"{key}{name}.bias"] = dense.bias.numpy()
        for norm, name in ((block.layer_norm_1, "layer_norm1"), (block.layer_norm_2, "layer_norm2")):
            tensors[f"{key}{name}.weight"] = norm.gamma.numpy()
            tensors[f"{key}{name}.bias"] = norm.beta.numpy()
    tensors[f"{vision}post_layernorm.weight"] = encoder.encoder_layer_norm.gamma.numpy()
    tensors[f"{vision}post_layernorm.bias"] = encoder.encoder_layer_norm.beta.numpy()
    projection = backbone.vit_encoder.get_layer("image_classifier")
    tensors["multi_modal_projector.linear.weight"] = np.transpose(projection.kernel.numpy())
    tensors["multi_modal_projector.linear.bias"] = projection.bias.numpy()
    embeddings = backbone.token_embedding.embeddings.numpy()
    extra = np.random.RandomState(0).normal(size=(extra_rows, embeddings.shape[1])).astype("float32")
    tensors["language_model.model.embed_tokens.weight"] = np.concatenate([embeddings, extra])
    for i, block in enumerate(backbone.transformer_layers):
        key = f"language_model.model.layers.{i}."
        attention = block.attention
        for name, dense in (("q", attention.query_dense), ("k", attention.key_dense), ("v", attention.value_dense)):
            tensors[f"{key}self_attn.{name}_proj.weight"] = _heads_in(dense.kernel.numpy())
        output = attention.output_dense.kernel.numpy()  # (heads, head_dim, hidden)
        tensors[f"{key}self_attn.o_proj.weight"] = np.transpose(output, (2, 0, 1)).reshape(output.shape[2], -1)
        for name, dense in (("gate", block.gating_ffw), ("up", block.gating_ffw_2), ("down", block.ffw_linear)):
            tensors[f"{key}mlp.{name}_proj.weight"] = np.transpose(dense.kernel.numpy())
        tensors[f"{key}input_layernorm.weight"] = block.pre_attention_norm.scale.numpy()
        tensors[f"{key}post_attention_layernorm.weight"] = block.pre_ffw_norm.scale.numpy()
    tensors["language_model.model.norm.weight"] = backbone.layer_norm.scale.numpy()
    save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, os.path.join(folder, "model.safetensors"))
    config = {
        "model_type": "paligemma",
        "architectures": ["PaliGemmaForConditionalGeneration"],
        "image_token_index": vocabulary,
        "vocab_size": vocabulary + extra_rows,
        "projection_dim": backbone.hidden_dim,
        "hidden_size": backbone.hidden_dim,
        "text_config": {
            "model_type": "gemma",
            "hidden_size": backbone.hidden_dim,
            "intermediate_size": backbone.intermediate_dim // 2,
            "num_attention_heads": backbone.num_query_heads,
            "num_hidden_layers": backbone.num_layers,
            "num_key_value_heads": backbone.num_key_value_heads,
            "num_image_tokens": backbone.image_sequence_length,
            "head_dim": backbone.head_dim,
            "vocab_size": vocabulary + extra_rows,
        },
        "vision_config": {
            "model_type": "siglip_vision_model",
            "image_size": backbone.image_size,
            "patch_size": backbone.vit_patch_size,
            "hidden_size": backbone.vit_hidden_dim,
            "intermediate_size": backbone.vit_intermediate_dim,
            "num_attention_heads": backbone.vit_num_heads,
            "num_hidden_layers": backbone.vit_num_layers,
            "num_image_tokens": backbone.image_sequence_length,
            "projection_dim": backbone.hidden_dim,
        },
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    with open(os.path.join(folder, "tokenizer.model"), "wb") as handle:
        handle.write(proto)
    return folder
