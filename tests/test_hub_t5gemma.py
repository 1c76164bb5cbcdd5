"""T5Gemma in tfkit.hub against KerasHub: what its conformance row does not check.

    python -m pytest tests/test_hub_t5gemma.py

A tiny random preset made by KerasHub itself (``hub_presets_t5gemma``: an encoder and a decoder of different
widths, grouped queries, sliding windows, soft caps, a query scale of its own). Its row in ``hub_family_table``
checks the preset both ways with KerasHub's numbers, weight paths and config, greedy ids and texts, the
Transformers checkpoint, evaluate and fit. Here: KerasHub's own converter reads the same Transformers folder with
the same numbers, traced decoding gives KerasHub's ids, the preprocessors pack as KerasHub's, an untied head and
attention biases convert (KerasHub's converter reads neither), the converter refuses what the backbone cannot
hold, and the task compiles with KerasHub's defaults.
"""

import json

import numpy as np
import pytest
import tensorflow as tf
from hub_family_table import FAMILIES, PAIRS, T5GEMMA_INPUTS, Built, _close, _loaded
from hub_presets import keras_hub
from hub_presets_t5gemma import t5gemma_transformers_checkpoint

import tfkit.hub as tk_hub

UNTIED = dict(  # one block a side, for the converter's untied head and biases
    vocabulary_size=41,
    encoder_hidden_dim=8,
    encoder_intermediate_dim=16,
    encoder_num_layers=1,
    encoder_num_attention_heads=2,
    encoder_num_key_value_heads=1,
    encoder_head_dim=4,
    encoder_layer_types=["full_attention"],
    decoder_hidden_dim=8,
    decoder_intermediate_dim=16,
    decoder_num_layers=1,
    decoder_num_attention_heads=2,
    decoder_num_key_value_heads=1,
    decoder_head_dim=4,
    decoder_layer_types=["full_attention"],
)
FAMILY = next(family for family in FAMILIES if family.name == "t5gemma")  # its conformance row


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Built:
    preset = FAMILY.make(str(tmp_path_factory.mktemp(FAMILY.name)))
    ours = _loaded(tk_hub.models, FAMILY, preset)
    theirs = _loaded(keras_hub.models, FAMILY, preset)
    ours.compile(sampler="greedy", run_eagerly=True)
    theirs.compile(sampler="greedy", run_eagerly=True)
    return Built(FAMILY, preset, ours, theirs)


def test_keras_hubs_own_converter_reads_the_transformers_folder_with_the_same_numbers(built, tmp_path):
    pytest.importorskip("safetensors")
    folder = t5gemma_transformers_checkpoint(built.preset, built.theirs, str(tmp_path))
    ours = tk_hub.models.Seq2SeqLM.from_preset(folder)
    theirs = keras_hub.models.Seq2SeqLM.from_preset(folder)
    assert type(ours).__name__ == type(theirs).__name__ == "T5GemmaSeq2SeqLM"
    _close(ours.backbone(T5GEMMA_INPUTS), theirs.backbone(T5GEMMA_INPUTS), atol=1e-5)
    _close(ours(T5GEMMA_INPUTS), theirs(T5GEMMA_INPUTS), atol=1e-5)
    mine, reference = (
        {k: v for k, v in model.backbone.get_config().items() if k not in ("name", "dtype")} for model in (ours, theirs)
    )
    assert mine == reference


def test_an_untied_head_and_attention_biases_load_from_a_transformers_folder(tmp_path):
    """Read by tfkit's converter with the numbers of the KerasHub model written (KerasHub 0.32's converter reads
    neither ``lm_head.out_proj`` nor the biases)."""
    pytest.importorskip("safetensors")
    keras_hub_backbone = keras_hub.models.T5GemmaBackbone(
        **{**UNTIED, "tie_word_embeddings": False, "attention_bias": True, "final_logit_softcapping": 3.0}
    )
    for weight in keras_hub_backbone.weights:  # biases start at zero: random ones show a misplaced one
        if weight.path.endswith("/bias"):
            weight.assign(np.random.RandomState(0).normal(size=weight.shape).astype("float32") * 0.1)
    theirs = keras_hub.models.T5GemmaSeq2SeqLM(keras_hub_backbone)
    folder = t5gemma_transformers_checkpoint(None, theirs, str(tmp_path))
    ours = tk_hub.models.T5GemmaSeq2SeqLM.from_preset(folder, preprocessor=None)
    assert not ours.backbone.tie_word_embeddings and ours.backbone.attention_bias
    _close(ours(T5GEMMA_INPUTS), theirs(T5GEMMA_INPUTS), atol=1e-5)


def test_traced_greedy_generation_gives_keras_hubs_ids(built):
    """The table decodes eagerly; here the loop traced (sliding-window masks at a traced cache index)."""
    ours, theirs = built.ours, built.theirs
    reference = theirs.make_generate_function()(tf.nest.map_structure(tf.convert_to_tensor, T5GEMMA_INPUTS), None)
    preprocessor, ours.preprocessor = ours.preprocessor, None
    try:
        ours.compile(sampler="greedy", jit_compile=False)
        generated = ours.generate(dict(T5GEMMA_INPUTS), stop_token_ids=None)
        np.testing.assert_array_equal(generated["decoder_token_ids"], reference["decoder_token_ids"])
    finally:
        ours.preprocessor = preprocessor
        ours.compile(sampler="greedy", run_eagerly=True)


def _same(ours, theirs):
    tf.nest.assert_same_structure(ours, theirs)
    for mine, reference in zip(tf.nest.flatten(ours), tf.nest.flatten(theirs)):
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(reference))


def test_the_preprocessors_pack_as_keras_hubs_with_and_without_the_start_and_end_tokens(built):
    tokenizer, reference = built.ours.preprocessor.tokenizer, built.theirs.preprocessor.tokenizer
    assert (tokenizer.pad_token_id, tokenizer.end_token_id, tokenizer.start_token_id) == (0, 1, 2)
    for flags in ({}, {"add_start_token": True, "add_end_token": False}):
        lengths = {"encoder_sequence_length": 7, "decoder_sequence_length": 6}
        mine = tk_hub.models.T5GemmaSeq2SeqLMPreprocessor(tokenizer, **lengths, **flags)
        theirs = keras_hub.models.T5GemmaSeq2SeqLMPreprocessor(reference, **lengths, **flags)
        _same(mine(PAIRS), theirs(PAIRS))
        _same(mine.generate_preprocess(PAIRS), theirs.generate_preprocess(PAIRS))
        _same(mine.generate_preprocess(PAIRS["encoder_text"]), theirs.generate_preprocess(PAIRS["encoder_text"]))
        assert mine.get_config()["add_start_token"] == flags.get("add_start_token", False)


def test_the_converter_refuses_an_encoder_config_the_backbone_cannot_hold(built, tmp_path):
    from tfkit.hub.models.t5gemma.t5gemma_converter import T5GemmaConverter

    folder = t5gemma_transformers_checkpoint(built.preset, built.theirs, str(tmp_path))
    hf = json.loads((tmp_path / "config.json").read_text())
    assert T5GemmaConverter.backbone_config(hf)["hidden_activation"] == "gelu_approximate"
    assert not T5GemmaConverter.backbone_config({**hf, "tie_word_embeddings": False})["tie_word_embeddings"]
    for field, value in (("rms_norm_eps", 1e-5), ("attn_logit_softcapping", 50.0), ("sliding_window", 8)):
        with pytest.raises(ValueError, match=field):
            T5GemmaConverter.backbone_config({**hf, "encoder": {**hf["encoder"], field: value}})
    with pytest.raises(ValueError, match="decoder config: num_hidden_layers=0"):
        T5GemmaConverter.backbone_config({**hf, "decoder": {**hf["decoder"], "num_hidden_layers": 0}})
    hf["encoder"]["rms_norm_eps"] = 1e-5
    (tmp_path / "config.json").write_text(json.dumps(hf))
    with pytest.raises(ValueError, match="rms_norm_eps"):
        tk_hub.models.Backbone.from_preset(folder)


def test_the_task_compiles_with_keras_hubs_defaults(built):
    ours, theirs = built.ours, built.theirs
    try:
        ours.compile()
        theirs.compile()
        assert type(ours.optimizer).__name__ == type(theirs.optimizer).__name__
        assert float(ours.optimizer.learning_rate) == float(theirs.optimizer.learning_rate)
        assert type(ours.loss).__name__ == type(theirs.loss).__name__ and ours.loss.from_logits
    finally:
        ours.compile(sampler="greedy", run_eagerly=True)
        theirs.compile(sampler="greedy", run_eagerly=True)
