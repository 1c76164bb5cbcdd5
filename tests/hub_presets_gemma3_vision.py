"""A tiny random Gemma 3 preset with its vision encoder for tfkit.hub's tests, made by KerasHub itself.

    folder = gemma3_vision_preset(tmp_path)   # a Gemma3CausalLM preset: a 16-pixel ViT, 4 tokens an image
    folder = transformers_checkpoint(keras_causal_lm, tmp_path)     # the same as a Transformers gemma3 checkpoint

The vision encoder cuts 16x16 images into 16 patches of 4 pixels, runs one
transformer layer of width 8 and pools 2x2, so each image is 4 soft tokens of
the decoder's width 16; the decoder has 2 layers (a sliding-window one and a
global one). The tokenizer is Gemma's test SentencePiece model
(``hub_presets_gemma``), with the image tokens.
"""

from __future__ import annotations

import json
import os

from hub_presets import keras, keras_hub
from hub_presets_gemma import gemma_proto, randomize_norms

IMAGE_SIZE = 16
SEQUENCE_LENGTH = 20


def gemma3_vision_causal_lm() -> object:
    """A random KerasHub ``Gemma3CausalLM`` with a ``Gemma3VisionEncoder`` and a ``Gemma3ImageConverter``."""
    keras.utils.set_random_seed(3)
    tokenizer = keras_hub.models.Gemma3Tokenizer(proto=gemma_proto())
    vision_encoder = keras_hub.models.Gemma3VisionEncoder(
        image_size=IMAGE_SIZE,
        patch_size=4,
        num_heads=2,
        hidden_dim=8,
        num_layers=1,
        intermediate_dim=16,
        output_dim=16,
        pool_size=2,
    )
    backbone = keras_hub.models.Gemma3Backbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        image_size=IMAGE_SIZE,
        num_layers=2,
        num_query_heads=2,
        num_key_value_heads=1,
        hidden_dim=16,
        intermediate_dim=32,
        head_dim=8,
        use_post_ffw_norm=True,
        use_post_attention_norm=True,
        use_sliding_window_attention=True,
        sliding_window_size=3,
        vision_encoder=vision_encoder,
    )
    randomize_norms(backbone)
    image_converter = keras_hub.layers.Gemma3ImageConverter(
        image_size=(IMAGE_SIZE, IMAGE_SIZE), scale=1 / 127.5, offset=-1.0
    )
    preprocessor = keras_hub.models.Gemma3CausalLMPreprocessor(
        tokenizer,
        image_converter=image_converter,
        sequence_length=SEQUENCE_LENGTH,
        max_images_per_prompt=2,
        num_vision_tokens_per_image=vision_encoder.num_vision_tokens_per_image,
    )
    return keras_hub.models.Gemma3CausalLM(backbone=backbone, preprocessor=preprocessor)


def gemma3_vision_preset(folder: str) -> str:
    """The model of ``gemma3_vision_causal_lm`` saved by KerasHub in ``folder``."""
    gemma3_vision_causal_lm().save_to_preset(folder)
    return folder


def transformers_checkpoint(causal_lm: object, folder: str) -> str:
    """``causal_lm`` exported by KerasHub as a Transformers ``gemma3`` checkpoint in ``folder``, its vision tower's
    tensors renamed to Transformers' layout (KerasHub 0.32 writes ``model.vision_tower.<name>`` where
    Transformers has ``model.vision_tower.vision_model.<name>``) and ``mm_tokens_per_image`` also at the top level
    of ``config.json``, where Transformers keeps it."""
    from safetensors import numpy as safetensors_numpy  # an optional dependency: the tests that need it skip

    causal_lm.export_to_transformers(folder)
    path = os.path.join(folder, "model.safetensors")
    tower = "model.vision_tower."
    tensors = {
        (f"{tower}vision_model.{key[len(tower) :]}" if key.startswith(tower) else key): value
        for key, value in safetensors_numpy.load_file(path).items()
    }
    safetensors_numpy.save_file(tensors, path)
    config_path = os.path.join(folder, "config.json")
    with open(config_path) as file:
        config = json.load(file)
    config["mm_tokens_per_image"] = config["vision_config"]["mm_tokens_per_image"]
    with open(config_path, "w") as file:
        json.dump(config, file)
    return folder
