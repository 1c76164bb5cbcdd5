"""DeBERTa-v3 and SmolLM3 on tfkit.hub, against KerasHub 0.32 itself: what their rows in test_hub_families.py
do not check.

DeBERTa-v3: the masked LM (KerasHub's numbers, weight paths and presets both ways, training), the tokenizer's
``[MASK]`` past the SentencePiece model, the preprocessors' packing and masks, the relative position buckets,
the Transformers checkpoint's tokenizer and the configurations its converter refuses.
SmolLM3: the layers without rotary embeddings ("NoPE"), the Transformers checkpoint read by KerasHub's own
converter with the same numbers, the special tokens, the layers' configs and KerasHub's ``SmolLM*`` aliases.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras, keras_hub
from hub_presets_deberta_smollm3 import (
    DEBERTA_V3_INPUTS,
    deberta_v3_presets,
    deberta_v3_transformers_checkpoint,
    smollm3_preset,
    smollm3_transformers_checkpoint,
)

import tfkit
import tfkit.hub as tk_hub
from tfkit.hub.models.deberta_v3.disentangled_attention_encoder import DisentangledAttentionEncoder
from tfkit.hub.models.deberta_v3.disentangled_self_attention import log_bucket_positions
from tfkit.hub.models.smollm3.smollm3_decoder import SmolLM3DecoderLayer

MASKED_INPUTS = {**DEBERTA_V3_INPUTS, "mask_positions": np.array([[1, 3, 5, 0], [1, 2, 0, 0]], "int32")}
PAIRS = (["the fox", "hi"], ["a", "the"])
TOKENS = {"token_ids": np.array([[5, 9, 30, 2, 17, 4], [7, 8, 3, 0, 0, 0]], "int32")}
TOKENS["padding_mask"] = (TOKENS["token_ids"] > 0).astype("int32")


@pytest.fixture(scope="module")
def deberta(tmp_path_factory) -> tuple:
    """The two presets KerasHub saved, and their masked LMs and classifiers loaded by tfkit and by KerasHub."""
    presets = deberta_v3_presets(str(tmp_path_factory.mktemp("deberta_v3")))
    masked_lms = (tk_hub.models.MaskedLM.from_preset(presets[1]), keras_hub.models.MaskedLM.from_preset(presets[1]))
    classifiers = (
        tk_hub.models.TextClassifier.from_preset(presets[0]),
        keras_hub.models.TextClassifier.from_preset(presets[0]),
    )
    return presets, masked_lms, classifiers


def test_deberta_masked_lm_gives_keras_hubs_numbers_and_its_presets_load_both_ways(deberta, tmp_path):
    _, (ours, theirs), _ = deberta
    assert isinstance(ours, tk_hub.models.DebertaV3MaskedLM) and type(ours).__name__ == "DebertaV3MaskedLM"
    np.testing.assert_allclose(ours(MASKED_INPUTS), theirs(MASKED_INPUTS), atol=1e-5)
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    ours.save_to_preset(str(tmp_path))
    reference = keras_hub.models.MaskedLM.from_preset(str(tmp_path))
    assert type(reference).__name__ == "DebertaV3MaskedLM"
    np.testing.assert_allclose(reference(MASKED_INPUTS), ours(MASKED_INPUTS), atol=1e-5)


def test_deberta_tokenizer_puts_mask_after_the_models_pieces_as_keras_hub(deberta):
    _, (ours, theirs), _ = deberta
    tokenizer, reference = ours.preprocessor.tokenizer, theirs.preprocessor.tokenizer
    assert (tokenizer.mask_token_id, tokenizer.vocabulary_size()) == (41, 42)
    assert (reference.mask_token_id, reference.vocabulary_size()) == (41, 42)
    assert tokenizer.get_vocabulary() == reference.get_vocabulary()
    assert tokenizer.id_to_token(41) == "[MASK]" and tokenizer.token_to_id("[MASK]") == 41
    assert sorted(tokenizer.special_token_ids) == sorted(set(reference.special_token_ids))
    for text in TEXTS:
        np.testing.assert_array_equal(tokenizer(text), reference(text))
    ids = [[1, 25, 41, 31, 2], [1, 22, 41, 2, 0]]
    assert tokenizer.detokenize(ids) == [t.decode() if isinstance(t, bytes) else t for t in reference.detokenize(ids)]


def test_deberta_preprocessors_pack_and_mask_as_keras_hub(deberta):
    _, (masked_lm, reference_lm), (classifier, reference) = deberta
    packed, expected = classifier.preprocessor(x=PAIRS), reference.preprocessor(x=PAIRS)
    assert sorted(packed) == sorted(expected) == ["padding_mask", "token_ids"]
    for key in expected:
        np.testing.assert_array_equal(packed[key], expected[key])
    options = {"mask_selection_rate": 1.0, "mask_selection_length": 8, "mask_token_rate": 1.0, "random_token_rate": 0.0}
    ours = tk_hub.models.DebertaV3MaskedLMPreprocessor(masked_lm.preprocessor.tokenizer, sequence_length=8, **options)
    theirs = keras_hub.models.DebertaV3MaskedLMPreprocessor(
        reference_lm.preprocessor.tokenizer, sequence_length=8, **options
    )
    (x, y, weights), (x_ref, y_ref, weights_ref) = ours(TEXTS[:2]), theirs(TEXTS[:2])
    assert sorted(x) == sorted(x_ref) == ["mask_positions", "padding_mask", "token_ids"]
    for key in x_ref:
        np.testing.assert_array_equal(x[key], x_ref[key])
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(weights, weights_ref)


def test_deberta_relative_buckets_are_keras_hubs():
    from keras_hub.src.models.deberta_v3.disentangled_self_attention import DisentangledSelfAttention

    reference = DisentangledSelfAttention(num_heads=2, hidden_dim=8, max_position_embeddings=512, bucket_size=256)
    distances = np.arange(-600, 601)
    expected = keras.ops.convert_to_numpy(reference._make_log_bucket_position(keras.ops.convert_to_tensor(distances)))
    np.testing.assert_array_equal(log_bucket_positions(tf.constant(distances), 256, 512), expected)
    block = DisentangledAttentionEncoder(intermediate_dim=16, num_heads=2, max_position_embeddings=16, bucket_size=4)
    assert DisentangledAttentionEncoder.from_config(block.get_config()).get_config() == block.get_config()


def test_deberta_masked_lm_evaluates_to_keras_hubs_loss_and_trains_on_raw_strings(deberta):
    presets, (ours, theirs), _ = deberta
    x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(theirs.preprocessor(TEXTS))
    expected = float(theirs.loss(y, theirs(x), sample_weight=sample_weight))
    trained = tk_hub.models.MaskedLM.from_preset(presets[1])  # the fixture's stays as loaded
    trained.compile(run_eagerly=True)
    assert type(trained.optimizer).__name__ == type(theirs.optimizer).__name__ == "Adam"
    np.testing.assert_allclose(float(trained.optimizer.learning_rate), float(theirs.optimizer.learning_rate))
    preprocessor, trained.preprocessor = trained.preprocessor, None  # KerasHub's masks, packed once
    loss = trained.evaluate(x, y, sample_weight=sample_weight, batch_size=len(TEXTS), verbose=0, return_dict=True)
    np.testing.assert_allclose(loss["loss"], expected, rtol=1e-5)
    trained.preprocessor = preprocessor
    trained.compile(optimizer=tfkit.optimizers.Adam(1e-2), run_eagerly=True)
    before = [np.array(w) for w in trained.trainable_weights]
    trained.fit(TEXTS, batch_size=len(TEXTS), epochs=1, verbose=0)
    changed = [not np.array_equal(np.asarray(w), b) for w, b in zip(trained.trainable_weights, before)]
    assert sum(changed) > len(changed) // 2, f"{sum(changed)} of {len(changed)} weights changed"


def test_deberta_checkpoint_tokenizer_and_refused_configs(deberta, tmp_path):
    pytest.importorskip("safetensors")
    _, _, (_, reference) = deberta
    folder = deberta_v3_transformers_checkpoint(
        reference.backbone, reference.preprocessor.tokenizer, str(tmp_path / "a"), prefix=""
    )
    classifier = tk_hub.models.TextClassifier.from_preset(folder, num_classes=2)  # a DebertaV2Model's names
    assert isinstance(classifier.preprocessor.tokenizer, tk_hub.models.DebertaV3Tokenizer)
    np.testing.assert_allclose(classifier.backbone(DEBERTA_V3_INPUTS), reference.backbone(DEBERTA_V3_INPUTS), atol=1e-5)
    for text in TEXTS:
        np.testing.assert_array_equal(classifier.preprocessor.tokenizer(text), reference.preprocessor.tokenizer(text))
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    for field, value in (("pos_att_type", ["c2p"]), ("share_att_key", False), ("position_biased_input", True)):
        (tmp_path / "a" / "config.json").write_text(json.dumps({**config, field: value}))
        with pytest.raises(ValueError, match=field):
            tk_hub.models.Backbone.from_preset(folder)


@pytest.fixture(scope="module")
def smollm3(tmp_path_factory) -> tuple:
    """The preset KerasHub saved, and the causal LM loaded from it by tfkit and by KerasHub (once per module)."""
    preset = smollm3_preset(str(tmp_path_factory.mktemp("smollm3")))
    return (
        preset,
        tk_hub.models.SmolLM3CausalLM.from_preset(preset),
        keras_hub.models.SmolLM3CausalLM.from_preset(preset),
    )


def test_smollm3_rotates_only_in_the_layers_its_list_enables(smollm3):
    _, ours, _ = smollm3
    rotary, nope = (block.self_attn for block in ours.backbone.transformer_layers)
    assert (rotary.use_rope, nope.use_rope) == (True, False)
    x = tf.random.stateless_normal((1, 3, 16), seed=(1, 2))
    for attention, moved in ((rotary, True), (nope, False)):
        at_0, at_5 = attention._project_query(x, 0), attention._project_query(x, 5)
        assert (not np.allclose(at_0, at_5)) == moved  # a NoPE layer's queries do not depend on position
    # the rotary layer's frequencies are the non-trainable weight KerasHub keeps (and saves)
    assert [w.path for w in ours.backbone.non_trainable_weights] == ["rotary_emb/inv_freq"] * 2


def test_smollm3_checkpoint_loads_in_keras_hub_and_tfkit_with_the_same_numbers(smollm3, tmp_path):
    pytest.importorskip("safetensors")
    _, _, theirs = smollm3
    folder = smollm3_transformers_checkpoint(theirs.backbone, theirs.preprocessor.tokenizer, str(tmp_path))
    reference = keras_hub.models.SmolLM3CausalLM.from_preset(folder)  # KerasHub's convert_smollm3
    ours = tk_hub.models.SmolLM3CausalLM.from_preset(folder)
    assert ours.backbone.get_config() | {"name": None} == {
        **reference.backbone.get_config(),
        "name": None,
        "dtype": ours.backbone.get_config()["dtype"],
    }
    np.testing.assert_allclose(ours(TOKENS), reference(TOKENS), atol=1e-5)
    text = "<think>hello</think> world<|end_of_text|>"
    np.testing.assert_array_equal(ours.preprocessor.tokenizer(text), reference.preprocessor.tokenizer(text))


def test_smollm3_refuses_checkpoints_it_cannot_compute(smollm3, tmp_path):
    _, _, theirs = smollm3
    folder = smollm3_transformers_checkpoint(theirs.backbone, theirs.preprocessor.tokenizer, str(tmp_path))
    config = json.loads((tmp_path / "config.json").read_text())
    for field, value in (("tie_word_embeddings", False), ("use_sliding_window", True)):
        (tmp_path / "config.json").write_text(json.dumps({**config, field: value}))
        with pytest.raises(ValueError, match=field):
            tk_hub.models.SmolLM3Backbone.from_preset(folder)


def test_smollm3_special_tokens_and_aliases(smollm3):
    _, ours, theirs = smollm3
    tokenizer, reference = ours.preprocessor.tokenizer, theirs.preprocessor.tokenizer
    for name in ("end_token_id", "bos_token_id", "start_think_token_id", "end_think_token_id", "pad_token_id"):
        assert getattr(tokenizer, name) == getattr(reference, name), name
    assert tokenizer.start_token_id is None
    models = tk_hub.models
    assert (models.SmolLMBackbone, models.SmolLMTokenizer) == (models.SmolLM3Backbone, models.SmolLM3Tokenizer)
    assert models.SmolLMCausalLM is models.SmolLM3CausalLM
    assert models.SmolLMCausalLMPreprocessor is models.SmolLM3CausalLMPreprocessor


def test_smollm3_decoder_layer_rebuilds_from_its_config(smollm3):
    _, ours, _ = smollm3
    block = ours.backbone.transformer_layers[1]
    config = block.get_config()
    assert config["layer_idx"] == 1 and "num_query_heads" not in config
    again = SmolLM3DecoderLayer.from_config(config)
    assert again.get_config() == config and not again.self_attn.use_rope
