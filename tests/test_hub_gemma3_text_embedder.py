"""Gemma3TextEmbedder and its preprocessor on tfkit.hub, against KerasHub 0.32's.

A KerasHub Gemma3TextEmbedder preset (a 2-layer random Gemma 3 with ``hub_presets_gemma``'s tokenizer, last-token pooling)
must load in tfkit with KerasHub's embeddings (on raw strings too) and weight paths, and tfkit's save must load in
KerasHub; the preprocessor must give KerasHub's tensors (``<bos>``, segments ended by ``<eos>``, ``<pad>``); both
pooling modes must give KerasHub's numbers; a sentence-transformers ``gemma3_text`` checkpoint must load as
KerasHub's converter reads it (its pooling rule, no ``sentence_bert_config.json``); one training step must run.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras, keras_hub
from hub_presets_gemma import gemma_proto, randomize_norms

import tfkit.hub as tk_hub

PAIRS = (["the fox", "hello world!"], ["a lazy dog", "tiny"])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(folder, KerasHub's embedder, tfkit's embedder, KerasHub's embeddings of TEXTS), built once: a random
    2-layer Gemma 3 (hidden 8, query/key norms and post-norms as Gemma 3's checkpoints have, random norm scales) with Gemma's test tokenizer, saved by KerasHub."""
    keras.utils.set_random_seed(3)
    tokenizer = keras_hub.models.Gemma3Tokenizer(proto=gemma_proto())
    backbone = keras_hub.models.Gemma3Backbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        image_size=None,
        num_layers=2,
        num_query_heads=2,
        num_key_value_heads=1,
        hidden_dim=8,
        intermediate_dim=16,
        head_dim=4,
        use_post_ffw_norm=True,
        use_post_attention_norm=True,
    )
    randomize_norms(backbone)
    preprocessor = keras_hub.models.Gemma3TextEmbedderPreprocessor(tokenizer, sequence_length=12)
    folder = str(tmp_path_factory.mktemp("gemma3_text_embedder") / "embedder")
    keras_hub.models.Gemma3TextEmbedder(backbone, preprocessor=preprocessor).save_to_preset(folder)
    reference = keras_hub.models.TextEmbedder.from_preset(folder)
    ours = tk_hub.models.TextEmbedder.from_preset(folder)
    expected = np.asarray(reference(reference.preprocessor(TEXTS)))
    return folder, reference, ours, expected


def test_keras_hub_preset_loads_and_predicts_its_embeddings_on_strings(built):
    _, reference, ours, expected = built
    assert type(ours).__name__ == type(reference).__name__ == "Gemma3TextEmbedder"
    assert type(ours.preprocessor).__name__ == "Gemma3TextEmbedderPreprocessor"
    assert [w.path for w in ours.weights] == [w.path for w in reference.weights]
    assert (ours.pooling_mode, ours.normalize) == ("last", True)
    np.testing.assert_allclose(ours.encode_text(TEXTS, verbose=0), expected, atol=1e-5)


def test_preprocessor_gives_keras_hub_tensors(built):
    folder, reference, _, _ = built
    ours = tk_hub.models.TextEmbedderPreprocessor.from_preset(folder)
    assert type(ours).__name__ == "Gemma3TextEmbedderPreprocessor"
    assert ours.get_config()["sequence_length"] == reference.preprocessor.get_config()["sequence_length"] == 12
    for x in (TEXTS, TEXTS[0], (tf.constant(PAIRS[0]), tf.constant(PAIRS[1]))):
        expected = {key: np.asarray(value) for key, value in reference.preprocessor(x=x).items()}
        actual = {key: np.asarray(value) for key, value in ours(x=x).items()}
        assert sorted(actual) == sorted(expected) == ["padding_mask", "token_ids"]
        for key in expected:
            np.testing.assert_array_equal(actual[key], expected[key], err_msg=key)


def test_both_pooling_modes_give_keras_hub_numbers(built):
    _, reference, ours, _ = built
    inputs = reference.preprocessor(TEXTS)
    for mode, normalize in (("mean", True), ("last", False)):  # the default, ("last", True), is tested above
        theirs = type(reference)(reference.backbone, pooling_mode=mode, normalize=normalize)
        mine = type(ours)(ours.backbone, pooling_mode=mode, normalize=normalize, compile=False)
        np.testing.assert_allclose(mine(inputs), theirs(inputs), atol=1e-5, err_msg=mode)
    with pytest.raises(ValueError, match="Expected one of 'last' or 'mean'"):
        type(ours)(ours.backbone, pooling_mode="cls")


def test_saved_preset_loads_in_keras_hub(built, tmp_path):
    _, reference, ours, expected = built
    folder = str(tmp_path / "saved")
    ours.save_to_preset(folder)
    reloaded = keras_hub.models.TextEmbedder.from_preset(folder)
    assert type(reloaded) is type(reference)
    assert [w.path for w in reloaded.weights] == [w.path for w in reference.weights]
    np.testing.assert_allclose(reloaded(reloaded.preprocessor(TEXTS)), expected, atol=1e-5)


def test_a_sentence_transformers_checkpoint_loads_as_keras_hub_reads_it(built, tmp_path):
    _, reference, _, _ = built
    folder = tmp_path / "checkpoint"
    preprocessor = keras_hub.models.Gemma3CausalLMPreprocessor(reference.preprocessor.tokenizer)
    causal_lm = keras_hub.models.Gemma3CausalLM(backbone=reference.backbone, preprocessor=preprocessor)
    causal_lm.export_to_transformers(str(folder))  # a gemma3_text checkpoint with its tokenizer
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}]
    modules.append({"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"})
    (folder / "1_Pooling").mkdir()
    (folder / "modules.json").write_text(json.dumps(modules))  # no Normalize module
    pooling = {"word_embedding_dimension": 8, "pooling_mode_mean_tokens": True, "pooling_mode_lasttoken": False}
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 7}))
    theirs = keras_hub.models.TextEmbedder.from_preset(str(folder))
    ours = tk_hub.models.TextEmbedder.from_preset(str(folder))
    assert type(ours).__name__ == type(theirs).__name__ == "Gemma3TextEmbedder"
    assert (ours.pooling_mode, ours.normalize) == (theirs.pooling_mode, theirs.normalize) == ("mean", False)
    assert ours.preprocessor.sequence_length == theirs.preprocessor.sequence_length == 256  # max_seq_length unread
    inputs = reference.preprocessor(TEXTS)
    np.testing.assert_allclose(ours(inputs), theirs(inputs), atol=1e-5)


def test_one_training_step_changes_the_weights(built):  # the last test: it trains tfkit's embedder
    _, reference, ours, _ = built
    assert ours.loss is None and type(ours.optimizer).__name__ == type(reference.optimizer).__name__ == "Adam"
    ours.compile(loss="mean_squared_error")
    targets = np.eye(len(TEXTS), ours.backbone.hidden_dim, dtype="float32")
    before = [np.array(w) for w in ours.trainable_weights]
    history = ours.fit(TEXTS, targets, batch_size=len(TEXTS), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert any(not np.array_equal(b, np.array(w)) for b, w in zip(before, ours.trainable_weights))
