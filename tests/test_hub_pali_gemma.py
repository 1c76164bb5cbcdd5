"""PaliGemma in tfkit.hub against KerasHub: a KerasHub preset both ways, greedy ids from images, one training step.

A tiny random PaliGemma preset (a 1-layer ViT on 16 image tokens, a 2-layer Gemma decoder) is made by KerasHub
itself (``hub_presets_pali_gemma``); tfkit loads it and must compute KerasHub's numbers with KerasHub's weight
paths, save a preset KerasHub loads with the same numbers, generate KerasHub's greedy ids and texts from images
and prompts, and take one training step on images, prompts and responses from KerasHub's loss. KerasHub runs
without XLA; one tfkit generation runs XLA-compiled (tfkit's default).
"""

import json
import re
import shutil

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import keras, keras_hub
from hub_presets_gemma import gemma_proto, randomize_norms
from hub_presets_pali_gemma import pali_gemma_preset, pali_gemma_transformers_checkpoint

import tfkit
import tfkit.hub as tk_hub

_RANDOM = np.random.RandomState(0)
RAW_IMAGES = _RANDOM.randint(0, 256, size=(2, 20, 24, 3)).astype("float32")  # what the preprocessor takes
TRAINING = {"images": RAW_IMAGES, "prompts": ["caption the fox", "hello"], "responses": ["a lazy dog", "world!"]}
PROMPTS = {"images": RAW_IMAGES, "prompts": ["the quick", "hello"]}


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return pali_gemma_preset(str(tmp_path_factory.mktemp("pali_gemma_preset")))


@pytest.fixture(scope="module")
def models(preset):
    ours = tk_hub.models.CausalLM.from_preset(preset)
    theirs = keras_hub.models.CausalLM.from_preset(preset)
    for model in (ours, theirs):  # eager: faster here than tracing such small models
        model.compile(sampler="greedy", run_eagerly=True)
    return ours, theirs


@pytest.fixture(scope="module")
def packed(models):
    """KerasHub's preprocessing of the training batch: ``(x, y, sample_weight)``."""
    return keras.utils.unpack_x_y_sample_weight(models[1].preprocessor(TRAINING))


def test_a_keras_hub_preset_loads_with_keras_hubs_numbers_config_and_weight_paths(models, packed, preset):
    ours, theirs = models
    assert [type(m).__name__ for m in (ours, ours.preprocessor, ours.preprocessor.image_converter)] == [
        "PaliGemmaCausalLM",
        "PaliGemmaCausalLMPreprocessor",
        "PaliGemmaImageConverter",
    ]
    x, y, sample_weight = packed
    x_ours, y_ours, sample_weight_ours = ours.preprocessor(TRAINING)
    for key in x:
        np.testing.assert_allclose(np.asarray(x_ours[key], "float32"), np.asarray(x[key], "float32"), err_msg=key)
    np.testing.assert_array_equal(y_ours, y)
    np.testing.assert_array_equal(sample_weight_ours, sample_weight)
    backbone = tk_hub.models.Backbone.from_preset(preset)
    assert type(backbone).__name__ == "PaliGemmaBackbone" and backbone.image_sequence_length == 16
    np.testing.assert_allclose(np.asarray(backbone(x)), np.asarray(theirs.backbone(x)), atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), atol=1e-5)
    their_config = {k: v for k, v in theirs.backbone.get_config().items() if k not in ("name", "dtype")}
    assert {k: v for k, v in json.loads(json.dumps(backbone.get_config())).items() if k in their_config} == (
        their_config
    )
    assert [w.path for w in backbone.weights] == [w.path for w in theirs.backbone.weights]
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]


def test_a_preset_tfkit_saves_loads_in_keras_hub_with_the_same_numbers(models, packed, tmp_path):
    ours = models[0]
    x = packed[0]
    ours.save_to_preset(str(tmp_path))
    theirs = keras_hub.models.CausalLM.from_preset(str(tmp_path))
    assert type(theirs.preprocessor.image_converter).__name__ == "PaliGemmaImageConverter"
    np.testing.assert_allclose(np.asarray(theirs(x)), np.asarray(ours(x)), atol=1e-5)
    their_x = keras.utils.unpack_x_y_sample_weight(theirs.preprocessor(TRAINING))[0]
    for key in x:  # the tokenizer and the image converter came through
        np.testing.assert_allclose(np.asarray(their_x[key], "float32"), np.asarray(x[key], "float32"), err_msg=key)
    again = tk_hub.models.CausalLM.from_preset(str(tmp_path))
    np.testing.assert_allclose(np.asarray(again(x)), np.asarray(ours(x)), atol=0)
    assert again.preprocessor.get_config() == ours.preprocessor.get_config()


def test_greedy_generation_from_images_and_prompts_gives_keras_hubs_ids_and_texts(models, preset):
    ours, theirs = models
    texts = ours.generate(PROMPTS, max_length=12, stop_token_ids=None)
    assert texts == theirs.generate(PROMPTS, max_length=12, stop_token_ids=None)
    served = ours.generate_signature(max_length=12, stop_token_ids=None)  # what export serves as "generate"
    text = served(tf.constant(RAW_IMAGES), tf.constant(PROMPTS["prompts"]))["text"]
    assert [item.decode("utf-8") for item in text.numpy()] == texts
    one = {"images": RAW_IMAGES[1], "prompts": "hello"}  # one image and one string: one string back
    assert ours.generate(one, max_length=10) == theirs.generate(one, max_length=10)

    inputs = theirs.preprocessor.generate_preprocess(PROMPTS, sequence_length=12)
    inputs = {key: inputs[key] for key in ("images", "token_ids", "padding_mask")}
    arrays = {key: np.asarray(value) for key, value in inputs.items()}
    reference = theirs.make_generate_function()(inputs, None)
    stop = (int(reference["token_ids"][0, 5]),)  # a token row 0 generates: it stops there
    expected = theirs.make_generate_function()(inputs, stop)
    preprocessor, ours.preprocessor = ours.preprocessor, None  # token ids in, token ids out
    try:
        stopped = ours.generate(arrays, stop_token_ids=stop)
    finally:
        ours.preprocessor = preprocessor
    mask = np.asarray(expected["padding_mask"], bool)
    np.testing.assert_array_equal(np.asarray(stopped["padding_mask"], bool), mask)
    np.testing.assert_array_equal(np.where(mask, stopped["token_ids"], -1), np.where(mask, expected["token_ids"], -1))
    xla = tk_hub.models.PaliGemmaCausalLM.from_preset(preset, preprocessor=None)  # compiled with XLA (the default)
    np.testing.assert_array_equal(xla.generate(arrays, stop_token_ids=None)["token_ids"], reference["token_ids"])


def test_evaluate_gives_keras_hubs_loss_and_one_fit_step_changes_the_weights(models, packed, preset):
    theirs = models[1]
    x, y, sample_weight = packed
    expected = float(theirs.loss(y, theirs(x), sample_weight=sample_weight))
    trained = tk_hub.models.CausalLM.from_preset(preset)  # a copy: the fixture's stays as loaded
    trained.compile(optimizer=tfkit.optimizers.Adam(1e-2), run_eagerly=True)
    loss = trained.evaluate(TRAINING, batch_size=2, verbose=0, return_dict=True)["loss"]
    np.testing.assert_allclose(loss, expected, rtol=1e-5)
    before = [np.array(w) for w in trained.trainable_weights]
    history = trained.fit(tf.data.Dataset.from_tensor_slices(TRAINING).batch(2), epochs=1, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]
    changed = [not np.array_equal(np.asarray(w), b) for w, b in zip(trained.trainable_weights, before)]
    assert sum(changed) > len(changed) // 2, f"{sum(changed)} of {len(changed)} weights changed"


def test_a_transformers_checkpoint_loads_with_keras_hubs_numbers_as_keras_hubs_converter_reads_it(
    models, packed, tmp_path
):
    pytest.importorskip("safetensors")
    # KerasHub's converter takes head_dim from num_image_tokens (16 here), so its backbone has head_dim 16
    config = {**models[1].backbone.get_config(), "head_dim": 16}
    keras.utils.set_random_seed(4)
    backbone = keras_hub.models.PaliGemmaBackbone.from_config(config)
    randomize_norms(backbone)
    folder = pali_gemma_transformers_checkpoint(backbone, gemma_proto(), str(tmp_path / "checkpoint"))
    x = packed[0]
    ours = tk_hub.models.Backbone.from_preset(folder)
    assert type(ours).__name__ == "PaliGemmaBackbone"
    theirs = keras_hub.models.PaliGemmaBackbone.from_preset(folder)  # KerasHub's own converter
    unnamed = {"name": None, "dtype": None}
    assert {**ours.get_config(), **unnamed} == {**theirs.get_config(), **unnamed}
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(backbone(x)), atol=1e-5)
    causal_lm = tk_hub.models.CausalLM.from_preset(folder)  # the tokenizer and the image converter too
    assert type(causal_lm.preprocessor.tokenizer).__name__ == "PaliGemmaTokenizer"
    x_ours = causal_lm.preprocessor(TRAINING, sequence_length=8)[0]  # the preset's length
    for key in x:
        np.testing.assert_allclose(np.asarray(x_ours[key], "float32"), np.asarray(x[key], "float32"), err_msg=key)
    # Transformers 4.52 and later name the same tensors model.vision_tower..., model.language_model...
    from safetensors.numpy import load_file, save_file

    newer = tmp_path / "newer"
    shutil.copytree(folder, newer)
    renamed = {
        re.sub(r"^(language_model\.model\.|vision_tower\.|multi_modal_projector\.)", _newer_prefix, key): value
        for key, value in load_file(str(newer / "model.safetensors")).items()
    }
    save_file(renamed, str(newer / "model.safetensors"))
    np.testing.assert_allclose(np.asarray(tk_hub.models.Backbone.from_preset(str(newer))(x)), np.asarray(ours(x)))


def _newer_prefix(match):
    prefix = match.group(1)
    return "model.language_model." if prefix.startswith("language_model") else f"model.{prefix}"
