"""Tiny random KerasHub presets for tfkit.hub's tests, made by KerasHub itself (no downloads).

    folder = gpt2_preset(tmp_path)           # a GPT2CausalLM preset: config, weights, tokenizer, task
    reference = keras_hub.models.CausalLM.from_preset(folder)

Each family's preset has random weights and a small vocabulary that still
covers every byte (byte-level BPE) or every character the tests use, so the
tokenizers see real text. KerasHub (and Keras) are imported here, by the tests;
tfkit never imports them.
"""

from __future__ import annotations

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import pytest  # noqa: E402

keras_hub = pytest.importorskip("keras_hub")
keras = pytest.importorskip("keras")

TEXTS = ["the quick brown fox", "a lazy dog jumps over", "hello world!", "tiny models talk"]


def byte_level_alphabet() -> list[str]:
    """The 256 characters GPT-2's byte-level BPE writes bytes as (printable bytes as themselves, others shifted)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    printable += list(range(ord("®"), ord("ÿ") + 1))
    shifted, characters = 0, {}
    for byte in range(256):
        if byte in printable:
            characters[byte] = chr(byte)
        else:
            characters[byte] = chr(256 + shifted)
            shifted += 1
    return [characters[b] for b in range(256)]


def gpt2_vocabulary() -> tuple[dict[str, int], list[str]]:
    """A byte-level vocabulary (every byte a token) with a few merges of the test texts' common pairs, and
    ``<|endoftext|>`` last, as in GPT-2's (its padding id, 0, is then another token, as in real presets)."""
    vocabulary = {}
    for character in byte_level_alphabet():
        vocabulary.setdefault(character, len(vocabulary))
    merges = ["Ġ t", "h e", "Ġt he", "o r", "Ġ a", "e r", "Ġ o", "v er", "Ġo ver"]
    for merge in merges:
        vocabulary.setdefault(merge.replace(" ", ""), len(vocabulary))
    vocabulary["<|endoftext|>"] = len(vocabulary)
    return vocabulary, merges


def gpt2_preset(folder: str, sequence_length: int = 16) -> str:
    """A random GPT2CausalLM preset (2 layers, hidden 16) saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = gpt2_vocabulary()
    tokenizer = keras_hub.models.GPT2Tokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.GPT2Backbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
        max_sequence_length=64,
    )
    preprocessor = keras_hub.models.GPT2CausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.GPT2CausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder
