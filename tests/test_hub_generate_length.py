"""``generate`` refuses sequences longer than a learned position embedding by name, before anything is traced."""

from __future__ import annotations

import numpy as np
import pytest

import tfkit.hub as keras_hub

SMALL = dict(vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16)


def _prompt(prefix: str, length: int) -> dict:
    return {
        f"{prefix}token_ids": np.zeros((1, length), "int32"),
        f"{prefix}padding_mask": np.array([[1] + [0] * (length - 1)]),
    }


def test_a_causal_lm_names_max_sequence_length():
    causal_lm = keras_hub.models.GPT2CausalLM(keras_hub.models.GPT2Backbone(**SMALL, max_sequence_length=6))
    with pytest.raises(ValueError, match=r"GPT2CausalLM .*10 tokens long.*max_sequence_length=6.*max_length=6 or less"):
        causal_lm.generate(_prompt("", 10), stop_token_ids=None)
    assert causal_lm.generate_function is not None and not causal_lm.generate_function.experimental_get_tracing_count()


def test_a_speech_model_names_max_decoder_sequence_length():
    backbone = keras_hub.models.WhisperBackbone(
        **SMALL, num_mels=4, max_encoder_sequence_length=12, max_decoder_sequence_length=6
    )
    model = keras_hub.models.WhisperAudioToText(backbone)
    inputs = {"encoder_features": np.zeros((1, 12, 4), "float32"), **_prompt("decoder_", 7)}
    with pytest.raises(ValueError, match=r"WhisperAudioToText .*7 tokens.*max_decoder_sequence_length=6"):
        model.generate(inputs, stop_token_ids=None)
    model.compile(sampler="greedy", jit_compile=False)
    assert model.generate({**inputs, **_prompt("decoder_", 6)}, stop_token_ids=None)["decoder_token_ids"].shape == (
        1,
        6,
    )


def test_rotary_and_relative_positions_have_no_bound():
    assert keras_hub.models.LlamaBackbone.positions_argument is None
    assert keras_hub.models.T5Backbone.positions_argument is None
    assert keras_hub.models.BartBackbone.positions_argument == "max_sequence_length"
