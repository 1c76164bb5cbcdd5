"""A tiny random KerasHub Mistral preset for tfkit.hub's tests, made by KerasHub itself (no downloads).

    folder = mistral_preset(tmp_path)        # a MistralCausalLM preset: config, weights, SentencePiece model, task
    folder = llama_preset(tmp_path)          # a LlamaCausalLM (Llama 2) preset of the same shape
    reference = keras_hub.models.CausalLM.from_preset(folder)

The SentencePiece model (BPE, ``<unk>`` 0, ``<s>`` 1, ``</s>`` 2, as Mistral's) is trained here on a few
sentences that cover the test texts' characters.
"""

from __future__ import annotations

import pytest
from hub_presets import TEXTS, keras, keras_hub
from tiny_sentence_piece import train_sentence_piece

sentencepiece = pytest.importorskip("sentencepiece")

CORPUS = TEXTS + [
    "the quick brown fox jumps over the lazy dog",
    "hello tiny world, models talk and foxes jump!",
    "a dog, a fox and a world of small models",
]


def sentence_piece_model(vocab_size: int = 80) -> bytes:
    """A serialized BPE SentencePiece model of ``vocab_size`` pieces trained on ``CORPUS``."""
    return train_sentence_piece(CORPUS * 4, vocab_size=vocab_size, model_type="bpe", character_coverage=1.0)


def mistral_preset(folder: str, sequence_length: int = 16, sliding_window: int = 5) -> str:
    """A random MistralCausalLM preset (2 layers, hidden 16, 4 query and 2 key/value heads, a sliding window of
    ``sliding_window`` tokens) saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.MistralTokenizer(proto=sentence_piece_model())
    backbone = keras_hub.models.MistralBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_query_heads=4,
        hidden_dim=16,
        intermediate_dim=32,
        num_key_value_heads=2,
        sliding_window=sliding_window,
    )
    preprocessor = keras_hub.models.MistralCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.MistralCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def llama_preset(folder: str, sequence_length: int = 16) -> str:
    """A random LlamaCausalLM (Llama 2: a SentencePiece tokenizer) preset, the Mistral preset's shape without its
    sliding window, saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.LlamaTokenizer(proto=sentence_piece_model())
    backbone = keras_hub.models.LlamaBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_query_heads=4,
        hidden_dim=16,
        intermediate_dim=32,
        num_key_value_heads=2,
    )
    preprocessor = keras_hub.models.LlamaCausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.LlamaCausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder
