"""What only T5 has in tfkit.hub, against KerasHub: T5 1.0's blocks, the preprocessors, the converter's limits.

T5 1.1's gated feedforward with a tied head is a row of the conformance module (``tests/test_hub_families.py
-k t5``: the preset both ways, greedy ids and texts, the Transformers checkpoint, evaluate and fit). Here a tiny
random preset made by KerasHub itself (``hub_presets_t5``) with the other variant: a plain ReLU feedforward and an
untied head (T5 1.0's blocks, the untied head of T5 1.1), ``key_value_dim`` apart from ``hidden_dim // num_heads``.
tfkit must compute KerasHub's numbers with its weight paths and config, decode its ids (eagerly and traced), read
the variant's Transformers checkpoint, pack as KerasHub's preprocessors, and compile with KerasHub's defaults.
"""

import json
import re

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras_hub
from hub_presets_t5 import t5_proto, t5_seq_2_seq_lm, t5_transformers_checkpoint

import tfkit.hub as tk_hub

INPUTS = {  # decoder prompts of 3 and 2 tokens, room to generate
    "encoder_token_ids": np.array([[5, 9, 21, 7, 30, 1, 0], [11, 4, 1, 0, 0, 0, 0]], "int32"),
    "encoder_padding_mask": np.array([[1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 0, 0, 0, 0]], "int32"),
    "decoder_token_ids": np.array([[0, 12, 8, 0, 0, 0, 0, 0, 0], [0, 6, 0, 0, 0, 0, 0, 0, 0]], "int32"),
    "decoder_padding_mask": np.array([[1, 1, 1, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0]], "int32"),
}
PAIRS = {"encoder_text": ["the quick brown fox", "hello world!"], "decoder_text": ["a lazy dog", "tiny models talk"]}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder, theirs = t5_seq_2_seq_lm(str(tmp_path_factory.mktemp("plain_untied")), gated=False, tied=False)
    ours = tk_hub.models.Seq2SeqLM.from_preset(folder)
    # KerasHub 0.32's Seq2SeqLMPreprocessor writes no sequence lengths in its config: its preset loads with the
    # defaults (1024), in KerasHub as in tfkit; the lengths of the model KerasHub saved are set here
    ours.preprocessor.encoder_sequence_length = theirs.preprocessor.encoder_sequence_length
    ours.preprocessor.decoder_sequence_length = theirs.preprocessor.decoder_sequence_length
    return folder, ours, theirs


def _close(ours, theirs, atol=1e-5):
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs)
        for key in theirs:
            np.testing.assert_allclose(np.asarray(ours[key]), np.asarray(theirs[key]), atol=atol, err_msg=key)
    else:
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), atol=atol)


def _same(ours, theirs):
    """The same structure of the same values (a preprocessor's ``(x, y, sample_weight)``)."""
    tf.nest.assert_same_structure(ours, theirs)
    for mine, reference in zip(tf.nest.flatten(ours), tf.nest.flatten(theirs)):
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(reference))


def _paths(model):
    # KerasHub leaves the layers' norms unnamed, so Keras numbers them by how many the process has made
    return [re.sub(r"t5_layer_norm_\d+/", "t5_layer_norm/", weight.path) for weight in model.weights]


def test_t5_1_0_blocks_with_an_untied_head_load_with_keras_hubs_numbers_weight_paths_and_config(built):
    _, ours, theirs = built
    assert type(ours).__name__ == "T5Seq2SeqLM" and type(ours.preprocessor) is tk_hub.models.T5Seq2SeqLMPreprocessor
    _close(ours.backbone(INPUTS), theirs.backbone(INPUTS))
    _close(ours(INPUTS), theirs(INPUTS))
    assert _paths(ours) == _paths(theirs)
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    their_config = theirs.backbone.get_config()
    their_config = json.loads(json.dumps({k: v for k, v in their_config.items() if k not in ("name", "dtype")}))
    ours_config = json.loads(json.dumps(ours.backbone.get_config()))
    assert {k: v for k, v in ours_config.items() if k in their_config} == their_config


def test_greedy_generation_gives_keras_hubs_ids_eagerly_and_traced(built):
    _, ours, theirs = built
    theirs.compile(sampler="greedy", run_eagerly=True)
    reference = theirs.make_generate_function()(tf.nest.map_structure(tf.convert_to_tensor, INPUTS), None)
    preprocessor, ours.preprocessor = ours.preprocessor, None  # token ids in, token ids out
    try:
        ours.compile(sampler="greedy", run_eagerly=True)
        generated = ours.generate(dict(INPUTS), stop_token_ids=None)
        np.testing.assert_array_equal(generated["decoder_token_ids"], reference["decoder_token_ids"])
        # traced: the relative position bias at a traced decoding index (XLA: the base's tests)
        ours.compile(sampler="greedy", jit_compile=False)
        compiled = ours.generate(dict(INPUTS), stop_token_ids=None)
        np.testing.assert_array_equal(compiled["decoder_token_ids"], reference["decoder_token_ids"])
    finally:
        ours.preprocessor = preprocessor


def test_the_tokenizer_and_the_preprocessors_pack_as_keras_hubs(built):
    _, ours, theirs = built
    tokenizer = ours.preprocessor.tokenizer
    assert (tokenizer.pad_token_id, tokenizer.end_token_id, tokenizer.start_token_id) == (0, 1, 1)
    _same(ours.preprocessor(PAIRS), theirs.preprocessor(PAIRS))
    _same(ours.preprocessor.generate_preprocess(PAIRS), theirs.preprocessor.generate_preprocess(PAIRS))
    mine = tk_hub.models.T5Preprocessor(tokenizer, sequence_length=6)
    reference = keras_hub.models.T5Preprocessor(theirs.preprocessor.tokenizer, sequence_length=6)
    _same(mine(TEXTS), reference(TEXTS))


def test_a_transformers_checkpoint_with_t5_1_0_blocks_and_an_untied_head_loads_with_the_same_numbers(built, tmp_path):
    _, _, theirs = built
    pytest.importorskip("safetensors")
    folder = t5_transformers_checkpoint(theirs.backbone, t5_proto(), str(tmp_path))  # "relu", an lm_head
    ours = tk_hub.models.Seq2SeqLM.from_preset(folder)
    assert isinstance(ours, tk_hub.models.T5Seq2SeqLM) and isinstance(ours.backbone, tk_hub.models.T5Backbone)
    _close(ours.backbone(INPUTS), theirs.backbone(INPUTS))
    _close(ours(INPUTS), theirs(INPUTS))


def test_the_task_compiles_with_keras_hubs_defaults(built):
    _, ours, theirs = built
    theirs.compile()
    ours.compile()
    assert type(ours.optimizer).__name__ == type(theirs.optimizer).__name__
    assert float(ours.optimizer.learning_rate) == float(theirs.optimizer.learning_rate)
    assert type(ours.loss).__name__ == type(theirs.loss).__name__ and ours.loss.from_logits


def test_the_converter_reads_t5_1_0_and_1_1_and_refuses_what_t5_backbone_cannot_hold():
    from tfkit.hub.models.t5.t5_converter import GELU_APPROXIMATE, T5Converter

    hf = {"vocab_size": 40, "d_model": 16, "d_kv": 4, "d_ff": 32, "num_layers": 2, "num_heads": 2}
    assert T5Converter.backbone_config(hf)["activation"] == "relu"  # T5 1.0's default
    assert not T5Converter.backbone_config(hf)["use_gated_activation"]
    flan = T5Converter.backbone_config({**hf, "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False})
    assert flan["activation"] == GELU_APPROXIMATE and flan["use_gated_activation"]  # Transformers' gelu_new
    assert not flan["tie_embedding_weights"]
    for field, value in (
        ("relative_attention_num_buckets", 64),
        ("relative_attention_max_distance", 256),
        ("num_decoder_layers", 3),
        ("feed_forward_proj", "gated-tanh"),
        ("feed_forward_proj", "relu-gelu"),
    ):
        with pytest.raises(ValueError, match=field):
            T5Converter.backbone_config({**hf, field: value})
