"""A tiny random Llama 3 preset made by KerasHub itself (no downloads), for tfkit.hub's Llama 3 tests.

    folder = llama3_preset(tmp_path)          # a Llama3CausalLM preset: config, weights, tokenizer, task
    reference = keras_hub.models.CausalLM.from_preset(folder)

The vocabulary covers every byte (byte-level BPE), adds a few merges of the test texts' common pairs, and
ends with Llama 3's special tokens, as Meta's does. The backbone has grouped-query attention (4 query heads,
2 key/value heads), Llama 3.1's rotary frequency smoothing (one head-dim frequency in the interpolated band)
and Llama 3's RMS norm epsilon (1e-5).
"""

from __future__ import annotations

from hub_presets import byte_level_alphabet, keras, keras_hub

SPECIAL_TOKENS = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
BACKBONE_ARGUMENTS = {
    "num_layers": 2,
    "num_query_heads": 4,
    "num_key_value_heads": 2,
    "hidden_dim": 32,
    "intermediate_dim": 48,
    "rope_max_wavelength": 500000,
    "rope_frequency_adjustment_factor": 8.0,
    "rope_low_freq_factor": 1.0,
    "rope_high_freq_factor": 4.0,
    "rope_pretraining_sequence_length": 256,
    "layer_norm_epsilon": 1e-5,
}


def llama3_vocabulary() -> tuple[dict[str, int], list[str]]:
    """Every byte a token, a few merges, then Llama 3's special tokens (the padding id, 0, is a byte's)."""
    vocabulary = {}
    for character in byte_level_alphabet():
        vocabulary.setdefault(character, len(vocabulary))
    merges = ["Ġ t", "h e", "Ġt he", "o r", "Ġ a", "e r", "Ġ o", "v er", "Ġo ver", "o w", "Ġ l"]
    for merge in merges:
        vocabulary.setdefault(merge.replace(" ", ""), len(vocabulary))
    for token in SPECIAL_TOKENS:
        vocabulary[token] = len(vocabulary)
    return vocabulary, merges


def llama3_preset(folder: str, sequence_length: int = 16) -> str:
    """A random Llama3CausalLM preset (2 layers, hidden 32) saved by KerasHub in ``folder``."""
    keras.utils.set_random_seed(0)
    vocabulary, merges = llama3_vocabulary()
    tokenizer = keras_hub.models.Llama3Tokenizer(vocabulary=vocabulary, merges=merges)
    backbone = keras_hub.models.Llama3Backbone(vocabulary_size=len(vocabulary), **BACKBONE_ARGUMENTS)
    preprocessor = keras_hub.models.Llama3CausalLMPreprocessor(tokenizer, sequence_length=sequence_length)
    keras_hub.models.Llama3CausalLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder
