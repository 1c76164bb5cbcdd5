"""Tiny random SigLIP presets for tfkit.hub's tests, made by KerasHub itself (no downloads).

    folder = siglip_preset(tmp_path)            # a SigLIPBackbone preset with its SigLIPPreprocessor
    reference = keras_hub.models.SigLIPBackbone.from_preset(folder)

The SentencePiece model (about 40 pieces) has SigLIP's layout: ``<pad>`` 0, ``</s>`` 1 (the end and padding
token), ``<unk>`` 2, no start token; it is trained on ``SIGLIP_TEXTS``.
"""

from __future__ import annotations

import numpy as np
from hub_presets import keras, keras_hub
from tiny_sentence_piece import train_sentence_piece

SIGLIP_TEXTS = ["A photo of a cat!", "the quick brown fox", "a dog, two dogs", "Two cats."]
IMAGE_SIZE = 8


def siglip_proto() -> bytes:
    """A small unigram SentencePiece model with SigLIP's special pieces."""
    return train_sentence_piece(
        [text.lower().rstrip("!.") for text in SIGLIP_TEXTS] * 20,
        model_type="unigram",
        vocab_size=40,
        hard_vocab_limit=False,
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
    )


def siglip_images(batch: int = 2, seed: int = 0) -> np.ndarray:
    """Random uint8-valued float images larger than the preset's size (the converter resizes)."""
    return np.random.default_rng(seed).integers(0, 256, (batch, 2 * IMAGE_SIZE, 2 * IMAGE_SIZE, 3)).astype("float32")


def siglip_preset(folder: str, sequence_length: int = 10) -> str:
    """A random SigLIPBackbone (2-layer encoders, hidden 16) and its SigLIPPreprocessor, saved by KerasHub in
    ``folder``, with a logit scale and bias that show; returns the folder."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.SigLIPTokenizer(proto=siglip_proto())
    vision_encoder = keras_hub.models.SigLIPVisionEncoder(
        patch_size=4, hidden_dim=16, num_layers=2, num_heads=2, intermediate_dim=32, image_shape=(8, 8, 3)
    )
    text_encoder = keras_hub.models.SigLIPTextEncoder(
        vocabulary_size=tokenizer.vocabulary_size(),
        embedding_dim=16,
        hidden_dim=16,
        num_layers=2,
        num_heads=2,
        intermediate_dim=32,
        max_sequence_length=sequence_length,
    )
    backbone = keras_hub.models.SigLIPBackbone(vision_encoder, text_encoder)
    backbone.siglip_head.logit_scale.assign(1.5)
    backbone.siglip_head.logit_bias.assign(-2.0)
    converter = keras_hub.layers.SigLIPImageConverter(
        image_size=(IMAGE_SIZE, IMAGE_SIZE), scale=1 / 127.5, offset=-1.0, interpolation="bilinear"
    )
    preprocessor = keras_hub.models.SigLIPPreprocessor(tokenizer, converter, sequence_length=sequence_length)
    backbone.save_to_preset(folder)
    preprocessor.save_to_preset(folder)
    return folder
