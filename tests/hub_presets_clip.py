"""Tiny random CLIP presets for tfkit.hub's tests, made by KerasHub itself (no downloads).

    folder = clip_preset(tmp_path)              # a CLIPBackbone preset with its CLIPPreprocessor
    reference = keras_hub.models.CLIPBackbone.from_preset(folder)

The byte-pair vocabulary holds CLIP's two special tokens (``<|endoftext|>`` last:
CLIP's text pooler takes the position of the largest id), every lowercase letter
as a word piece and as a word end (``a</w>``), and merges that spell the words of
``CLIP_TEXTS`` whole.
"""

from __future__ import annotations

import numpy as np
from hub_presets import keras, keras_hub

CLIP_TEXTS = ["a photo of a cat", "the quick brown fox", "a dog", "two cats."]
CLIP_WORDS = ["photo", "cat", "the", "quick", "brown", "fox", "dog", "two", "cats"]
IMAGE_SIZE = 8


def clip_vocabulary() -> tuple[dict[str, int], list[str]]:
    """A CLIP byte-pair vocabulary and merges: letters, word-end letters, ``CLIP_WORDS`` merged left to right."""
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    tokens = letters + [letter + "</w>" for letter in letters] + [".", ".</w>"]
    merges = []
    for word in CLIP_WORDS:
        merged = word[0]
        for index, character in enumerate(word[1:], start=1):
            right = character + ("</w>" if index == len(word) - 1 else "")
            merges.append(f"{merged} {right}")
            merged += right
            tokens.append(merged)
    tokens = list(dict.fromkeys(tokens)) + ["<|startoftext|>", "<|endoftext|>"]
    merges = list(dict.fromkeys(merges))
    return {token: index for index, token in enumerate(tokens)}, merges


def clip_images(batch: int = 2, seed: int = 0) -> np.ndarray:
    """Random uint8-valued float images of KerasHub's preset size, larger than it (the converter resizes)."""
    return np.random.default_rng(seed).integers(0, 256, (batch, 2 * IMAGE_SIZE, 2 * IMAGE_SIZE, 3)).astype("float32")


def clip_preset(folder: str, sequence_length: int = 12) -> str:
    """A random CLIPBackbone (2-layer encoders, hidden 16, projection 8) and its CLIPPreprocessor, saved by
    KerasHub in ``folder``; returns the folder."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = clip_vocabulary()
    vision_encoder = keras_hub.models.CLIPVisionEncoder(
        patch_size=4,
        hidden_dim=16,
        num_layers=2,
        num_heads=2,
        intermediate_dim=32,
        image_shape=(IMAGE_SIZE, IMAGE_SIZE, 3),
    )
    text_encoder = keras_hub.models.CLIPTextEncoder(
        vocabulary_size=len(vocabulary),
        embedding_dim=16,
        hidden_dim=16,
        num_layers=2,
        num_heads=2,
        intermediate_dim=32,
        max_sequence_length=sequence_length,
    )
    backbone = keras_hub.models.CLIPBackbone(vision_encoder, text_encoder, projection_dim=8)
    embedding = vision_encoder.embedding  # KerasHub initializes the position ids to zeros; presets store a range
    embedding.position_ids.assign(np.arange(embedding.num_positions)[None])
    tokenizer = keras_hub.models.CLIPTokenizer(vocabulary=vocabulary, merges=merges)
    converter = keras_hub.layers.CLIPImageConverter(
        image_size=(IMAGE_SIZE, IMAGE_SIZE),
        scale=[1 / (255 * s) for s in (0.26862954, 0.26130258, 0.27577711)],
        offset=[-m / s for m, s in zip((0.48145466, 0.4578275, 0.40821073), (0.26862954, 0.26130258, 0.27577711))],
        interpolation="bicubic",
    )
    preprocessor = keras_hub.models.CLIPPreprocessor(tokenizer, converter, sequence_length=sequence_length)
    backbone.save_to_preset(folder)
    preprocessor.save_to_preset(folder)
    return folder
