"""Phi-3 in tfkit.hub against KerasHub: presets both ways, the long-rope scaling, greedy ids, Transformers checkpoints.

A tiny random Phi-3 preset with long-rope ("su") scaling, pretrained length 8 and maximum 32, is made by KerasHub
itself (``hub_presets_phi3``); tfkit loads it and must compute KerasHub's numbers with KerasHub's weight paths and
file layout, generate KerasHub's greedy ids and texts while the rotary factors switch from short to long, save
presets KerasHub loads, and read the same weights as a Transformers ``Phi3ForCausalLM`` folder (fused
``qkv_proj`` and ``gate_up_proj``, the tokenizer's added tokens after ``tokenizer.model``'s pieces).
"""

import json

import h5py
import numpy as np
import pytest
from hub_presets import TEXTS
from hub_presets_phi3 import (
    BASE_PIECES,
    LONG_FACTOR,
    SHORT_FACTOR,
    keras,
    keras_hub,
    phi3_preset,
    phi3_transformers_checkpoint,
)

import tfkit
import tfkit.hub as tk_hub
from tfkit.hub.models.phi3.phi3_rotary_embedding import Phi3SuScaledRotaryEmbedding

# two prompts of 5 and 4 tokens, 12 long: the prompt pass reaches past the pretraining length (8), the first
# decoding steps do not, the last ones do; 4 prompt tokens keep 3 positions of the prompt pass in the cache
PROMPTS = {
    "token_ids": np.array([[1, 9, 30, 2, 17] + [0] * 7, [1, 8, 40, 41] + [0] * 8], "int32"),
    "padding_mask": np.array([[1] * 5 + [0] * 7, [1] * 4 + [0] * 8], "int32"),
}


@pytest.fixture(scope="module")
def presets(tmp_path_factory):
    """The preset and its sharpened twin, both made before any tfkit tokenizer: KerasHub's helper seeds the
    random generators (``tf.random.set_seed``), which clears TensorFlow's eager kernel cache and with it the
    SentencePiece models TensorFlow Text's kernels own, so a tfkit SentencePiece tokenizer made earlier fails."""
    folder = str(tmp_path_factory.mktemp("phi3_preset"))
    return phi3_preset(folder), phi3_preset(f"{folder}_sharpened", sharpened=True)


@pytest.fixture(scope="module")
def preset(presets):
    return presets[0]


@pytest.fixture(scope="module")
def models(preset):
    ours = tk_hub.models.CausalLM.from_preset(preset)
    theirs = keras_hub.models.CausalLM.from_preset(preset)
    for model in (ours, theirs):
        model.compile(sampler="greedy")
    return ours, theirs


def _weight_keys(path) -> list[str]:
    keys = []
    with h5py.File(path, "r") as handle:
        handle.visititems(lambda name, item: keys.append(name) if isinstance(item, h5py.Dataset) else None)
    return sorted(keys)


def test_a_keras_hub_preset_loads_with_keras_hubs_numbers_weight_paths_and_config(models):
    ours, theirs = models
    assert type(ours).__name__ == "Phi3CausalLM" and type(ours.preprocessor).__name__ == "Phi3CausalLMPreprocessor"
    np.testing.assert_allclose(np.asarray(ours.backbone(PROMPTS)), np.asarray(theirs.backbone(PROMPTS)), atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours(PROMPTS)), np.asarray(theirs(PROMPTS)), atol=1e-5)
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    config = json.loads(json.dumps(ours.backbone.get_config()))
    reference = json.loads(json.dumps(theirs.backbone.get_config()))
    assert {k: v for k, v in config.items() if k != "dtype"} == {k: v for k, v in reference.items() if k != "dtype"}
    block, their_block = ours.backbone.transformer_layers[0], theirs.backbone.transformer_layers[0]
    # one GatedDecoderBlock for every Llama-style family: KerasHub's keys plus the ones it declares
    extra = set(block.get_config()) - set(their_block.get_config())
    assert set(their_block.get_config()) <= set(block.get_config())
    assert extra <= {"head_dim", "rope_scaling_factor", "sliding_window", "attention_window", "attention_bias"}
    rope, their_rope = block.attention.rotary_embedding_layer, their_block.attention.rotary_embedding_layer
    assert type(rope).__name__ == type(their_rope).__name__ == "Phi3SuScaledRotaryEmbedding"
    assert sorted(rope.get_config()) == sorted(their_rope.get_config())


def test_the_long_rope_embedding_equals_keras_hubs_on_both_sides_of_the_pretraining_length():
    from keras_hub.src.models.phi3.phi3_rotary_embedding import Phi3SuScaledRotaryEmbedding as Reference

    arguments = {"max_sequence_length": 32, "pretraining_sequence_length": 8, "max_wavelength": 500}
    ours = Phi3SuScaledRotaryEmbedding(SHORT_FACTOR, LONG_FACTOR, **arguments)
    theirs = Reference(SHORT_FACTOR, LONG_FACTOR, **arguments)
    x = np.random.RandomState(0).normal(size=(2, 6, 3, 8)).astype("float32")
    for start in (0, 2, 3, 7, 20):  # 0 + 6 and 2 + 6 within 8 positions: the short factors; the rest the long
        np.testing.assert_allclose(
            np.asarray(ours(x, start_index=start)), np.asarray(theirs(x, start_index=start)), atol=1e-6
        )
    short = ours(x, start_index=2)[:, 1]  # position 3, by the short factors and by the long ones
    assert np.abs(np.asarray(short) - np.asarray(ours(x[:, 1:2], start_index=10)[:, 0])).max() > 1e-2
    assert ours.embedding_scaling_factor == pytest.approx(np.sqrt(1 + np.log(4) / np.log(8)))
    again = Phi3SuScaledRotaryEmbedding.from_config(ours.get_config())
    np.testing.assert_array_equal(np.asarray(again(x, start_index=7)), np.asarray(ours(x, start_index=7)))


def test_greedy_ids_equal_keras_hubs_as_the_rotary_factors_switch(presets):
    folder = presets[1]  # attention and logits sharp enough to tell the factors apart
    ours = tk_hub.models.CausalLM.from_preset(folder, preprocessor=None)
    theirs = keras_hub.models.CausalLM.from_preset(folder, preprocessor=None)
    for model in (ours, theirs):
        model.compile(sampler="greedy")
    # KerasHub's prompt pass covers all 12 positions (the long factors) and decoding steps rewrite the positions
    # from the shortest prompt's end on (the short factors up to 8, then the long ones): tfkit does the same
    assert not ours.prefill_buckets and not ours.first_logits_from_prompt_pass
    generated = ours.generate(dict(PROMPTS), stop_token_ids=None)["token_ids"]
    np.testing.assert_array_equal(generated, theirs.generate(dict(PROMPTS), stop_token_ids=None)["token_ids"])
    stop = (int(generated[0, 7]),)
    stopped = ours.generate(dict(PROMPTS), stop_token_ids=stop)
    reference = theirs.generate(dict(PROMPTS), stop_token_ids=stop)
    np.testing.assert_array_equal(stopped["padding_mask"], reference["padding_mask"])


def test_text_generation_stops_at_keras_hubs_tokens_and_gives_its_texts(models):
    ours, theirs = models
    assert ours._stop_token_ids("auto") == (BASE_PIECES, BASE_PIECES + 1)  # <|endoftext|> and <|end|>
    for text in TEXTS + ["hello<|end|> world<|endoftext|>"]:
        np.testing.assert_array_equal(ours.preprocessor.tokenizer(text), theirs.preprocessor.tokenizer(text))
    assert ours.generate(TEXTS, max_length=16) == theirs.generate(TEXTS, max_length=16)
    x, y, weights = ours.preprocessor(TEXTS)
    x_ref, y_ref, weights_ref = theirs.preprocessor(TEXTS)
    np.testing.assert_array_equal(x["token_ids"], x_ref["token_ids"])
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(weights, weights_ref)


def test_without_long_rope_the_cached_steps_equal_the_full_pass_and_keras_hubs_ids(models):
    ours, theirs = models
    config = {**ours.backbone.get_config(), "rope_scaling_type": None}
    plain = tk_hub.models.Phi3Backbone.from_config(config)
    plain.set_weights(ours.backbone.get_weights())
    reference = keras_hub.models.Phi3Backbone.from_config({**theirs.backbone.get_config(), "rope_scaling_type": None})
    reference.set_weights(theirs.backbone.get_weights())
    causal_lm, their_lm = tk_hub.models.Phi3CausalLM(plain), keras_hub.models.Phi3CausalLM(reference)
    for model in (causal_lm, their_lm):
        model.compile(sampler="greedy")
    assert causal_lm.prefill_buckets and causal_lm.first_logits_from_prompt_pass
    generated = causal_lm.generate(dict(PROMPTS), stop_token_ids=None)["token_ids"]
    np.testing.assert_array_equal(generated, their_lm.generate(dict(PROMPTS), stop_token_ids=None)["token_ids"])
    logits = np.asarray(causal_lm({"token_ids": generated, "padding_mask": np.ones_like(generated)}))
    for row, start in enumerate(PROMPTS["padding_mask"].sum(axis=1)):
        np.testing.assert_array_equal(generated[row, start:], logits[row, start - 1 : -1].argmax(-1))


def test_a_preset_tfkit_saves_loads_in_keras_hub_with_the_same_numbers_and_file_layout(models, preset, tmp_path):
    ours, _ = models
    ours.save_to_preset(str(tmp_path))
    assert _weight_keys(tmp_path / "model.weights.h5") == _weight_keys(f"{preset}/model.weights.h5")
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == "keras_hub>Phi3Backbone" and config["config"]["rope_scaling_type"] == "su"
    theirs = keras_hub.models.CausalLM.from_preset(str(tmp_path))
    assert type(theirs).__name__ == "Phi3CausalLM"
    np.testing.assert_allclose(np.asarray(theirs(PROMPTS)), np.asarray(ours(PROMPTS)), atol=1e-5)
    np.testing.assert_array_equal(theirs.preprocessor.tokenizer(TEXTS[0]), ours.preprocessor.tokenizer(TEXTS[0]))


def test_a_transformers_checkpoint_of_the_same_weights_loads_with_the_same_numbers(models, preset, tmp_path):
    pytest.importorskip("safetensors")
    ours, theirs = models
    folder = phi3_transformers_checkpoint(preset, theirs, str(tmp_path / "hf"))  # (KerasHub 0.32 reads none)
    causal_lm = tk_hub.models.CausalLM.from_preset(folder)
    assert isinstance(causal_lm, tk_hub.models.Phi3CausalLM)
    backbone = causal_lm.backbone
    assert (backbone.rope_scaling_type, backbone.pretraining_sequence_length, backbone.max_sequence_length) == (
        "su",
        8,
        32,
    )
    np.testing.assert_allclose(np.asarray(backbone(PROMPTS)), np.asarray(theirs.backbone(PROMPTS)), atol=1e-5)
    np.testing.assert_allclose(np.asarray(causal_lm(PROMPTS)), np.asarray(theirs(PROMPTS)), atol=1e-5)
    tokenizer = causal_lm.preprocessor.tokenizer  # tokenizer.model's 78 pieces, then <|endoftext|> and <|end|>
    assert tokenizer.vocabulary_size() == BASE_PIECES + 2 and tokenizer.end_token_id == BASE_PIECES
    for text in TEXTS + ["hello<|end|> world<|endoftext|>"]:
        np.testing.assert_array_equal(tokenizer(text), theirs.preprocessor.tokenizer(text))


def _checkpoint(tmp_path, theirs, **changes) -> str:
    folder = phi3_transformers_checkpoint("", theirs, str(tmp_path))
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))
    return folder


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"partial_rotary_factor": 0.75}, "partial_rotary_factor"),
        ({"rope_scaling": {"type": "yarn", "factor": 4.0}}, "rope_scaling type 'yarn'"),
        ({"num_key_value_heads": 1}, r"qkv_proj.weight has 64 rows; the model built from config.json takes 48"),
    ],
)
def test_checkpoints_tfkit_cannot_reproduce_are_refused_naming_the_field(models, tmp_path, changes, message):
    pytest.importorskip("safetensors")
    folder = _checkpoint(tmp_path, models[1], **changes)
    with pytest.raises(ValueError, match=message):
        tk_hub.models.Backbone.from_preset(folder)


def test_the_converter_reads_long_rope_from_transformers_4_and_5_configs():
    from tfkit.hub.models.phi3.phi3_converter import Phi3Converter

    base = {
        "vocab_size": 32064,
        "num_hidden_layers": 32,
        "hidden_size": 3072,
        "intermediate_size": 8192,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "rms_norm_eps": 1e-5,
        "max_position_embeddings": 131072,
        "sliding_window": 262144,
    }
    factors = {"short_factor": [1.0] * 48, "long_factor": [2.0] * 48}
    version_4 = {**base, "original_max_position_embeddings": 4096, "rope_theta": 10000.0}
    version_4["rope_scaling"] = {"type": "longrope", **factors}
    scale = float(np.sqrt(1 + np.log(32) / np.log(4096)))
    version_5 = {**base, "rope_parameters": {"rope_type": "longrope", "rope_theta": 10000.0, **factors}}
    version_5["rope_parameters"].update(original_max_position_embeddings=4096, attention_factor=scale)
    expected = {
        "max_sequence_length": 131072,
        "pretraining_sequence_length": 4096,
        "rope_max_wavelength": 10000.0,
        "rope_scaling_type": "su",
        "rope_scaling_short_factor": factors["short_factor"],
        "rope_scaling_long_factor": factors["long_factor"],
    }
    for config in (version_4, version_5):
        converted = Phi3Converter.backbone_config(config)
        assert {key: converted[key] for key in expected} == expected
    mini_4k = {**base, "max_position_embeddings": 4096, "original_max_position_embeddings": 4096, "rope_scaling": None}
    converted = Phi3Converter.backbone_config(mini_4k)
    assert (converted["rope_scaling_type"], converted["pretraining_sequence_length"]) == (None, 4096)
    version_5["rope_parameters"]["attention_factor"] = 1.0
    with pytest.raises(ValueError, match="attention_factor"):
        Phi3Converter.backbone_config(version_5)


def test_evaluate_gives_keras_hubs_loss_and_one_fit_step_on_raw_strings_changes_the_weights(models, preset):
    _, theirs = models
    x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(theirs.preprocessor(TEXTS))
    expected = float(theirs.loss(y, theirs(x), sample_weight=sample_weight))
    trained = tk_hub.models.CausalLM.from_preset(preset)
    trained.compile(optimizer=tfkit.optimizers.Adam(1e-2))
    loss = trained.evaluate(TEXTS, batch_size=len(TEXTS), verbose=0, return_dict=True)["loss"]
    np.testing.assert_allclose(loss, expected, rtol=1e-5)
    before = [np.array(w) for w in trained.trainable_weights]
    history = trained.fit(TEXTS, batch_size=len(TEXTS), epochs=1, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]
    changed = [not np.array_equal(np.asarray(w), b) for w, b in zip(trained.trainable_weights, before)]
    assert all(changed), f"{sum(changed)} of {len(changed)} weights changed"


def test_a_tiny_keras_hub_preset_with_the_default_max_sequence_length_loads(tmp_path):
    backbone = keras_hub.models.Phi3Backbone(
        vocabulary_size=16, num_layers=1, hidden_dim=8, intermediate_dim=16, num_query_heads=2, num_key_value_heads=1
    )
    backbone.save_to_preset(str(tmp_path))
    inputs = {"token_ids": np.ones((1, 3), "int32"), "padding_mask": np.ones((1, 3), "int32")}
    loaded = tk_hub.models.Backbone.from_preset(str(tmp_path))
    np.testing.assert_allclose(np.asarray(loaded(inputs)), np.asarray(backbone(inputs)), atol=1e-5)


def test_a_rope_factor_list_of_the_wrong_length_is_refused_naming_the_layer():
    backbone = {"vocabulary_size": 10, "num_layers": 1, "hidden_dim": 8, "intermediate_dim": 16}
    with pytest.raises(ValueError, match=r"rope_scaling_short_factor.* 2 factors"):
        tk_hub.models.Phi3Backbone(
            **backbone,
            num_query_heads=2,
            num_key_value_heads=1,
            rope_scaling_type="su",
            rope_scaling_short_factor=[1.0],
            rope_scaling_long_factor=[1.0, 2.0],
        )
    with pytest.raises(ValueError, match="rope_scaling_type"):
        tk_hub.models.Phi3Backbone(**backbone, num_query_heads=2, num_key_value_heads=1, rope_scaling_type="yarn")
    plain = tk_hub.models.Phi3Backbone(**backbone, num_query_heads=2, num_key_value_heads=1)  # no factors needed
    assert type(plain.transformer_layers[0].attention.rotary_embedding_layer).__name__ == "RotaryEmbedding"
