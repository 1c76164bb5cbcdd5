"""Gemma 3 with its vision encoder in tfkit.hub against KerasHub: images and text in, greedy ids, training, presets.

A tiny random multimodal Gemma 3 preset (a 16-pixel ViT, 4 soft tokens an image, a 2-layer decoder) is made
by KerasHub itself (``hub_presets_gemma3_vision``). tfkit loads it with KerasHub's weight paths and config,
preprocesses prompts with images as KerasHub does (placeholders, images padded to ``max_images_per_prompt``,
vision indices), computes KerasHub's numbers, generates its greedy ids from images and prompts, trains on
them with KerasHub's loss, saves a preset KerasHub loads with the same numbers, and reads the Transformers
``gemma3`` checkpoint of the same weights with its vision tower.
"""

import json

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import keras, keras_hub
from hub_presets_gemma3_vision import gemma3_vision_preset, transformers_checkpoint

import tfkit
import tfkit.hub as tk_hub

RNG = np.random.default_rng(0)
IMAGES = [  # prompt 0: one image; prompt 1: two, of other sizes (resized and cropped by the converter)
    [RNG.uniform(0, 255, (20, 24, 3)).astype("float32")],
    [RNG.uniform(0, 255, (16, 16, 3)).astype("float32"), RNG.uniform(0, 255, (30, 16, 3)).astype("float32")],
]
PROMPTS = {"prompts": ["the quick <start_of_image> fox", "<start_of_image> a <start_of_image>"], "images": IMAGES}
CHAT = {  # one image a prompt, as one array (fit slices its batches)
    "prompts": ["the quick <start_of_image> fox", "<start_of_image> a"],
    "responses": ["brown dog", "lazy"],
    "images": RNG.uniform(0, 255, (2, 1, 20, 24, 3)).astype("float32"),
}


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return gemma3_vision_preset(str(tmp_path_factory.mktemp("gemma3_vision_preset")))


@pytest.fixture(scope="module")
def reference(preset):
    model = keras_hub.models.Gemma3CausalLM.from_preset(preset)
    model.compile(sampler="greedy", jit_compile=False)
    return model


@pytest.fixture(scope="module")
def causal_lm(preset):
    model = tk_hub.models.CausalLM.from_preset(preset)
    model.compile(sampler="greedy", jit_compile=False)
    return model


def _numpy(structure):
    return {key: np.asarray(value) for key, value in structure.items()}


def test_the_preset_loads_with_keras_hubs_layout_inputs_and_outputs(reference, causal_lm):
    ours, theirs = causal_lm.backbone, reference.backbone
    assert type(ours.vision_encoder).__name__ == "Gemma3VisionEncoder" and not ours.text_only_model
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    our_config, their_config = ours.get_config(), theirs.get_config()
    assert set(our_config) == set(their_config)
    assert our_config["vision_encoder"]["config"] == their_config["vision_encoder"]["config"]
    assert ours.num_vision_tokens_per_image == theirs.num_vision_tokens_per_image == 4
    assert type(causal_lm.preprocessor.image_converter).__name__ == "Gemma3ImageConverter"

    # prompts with images: placeholders, converted images padded with zero images, vision indices
    our_inputs = _numpy(causal_lm.preprocessor.generate_preprocess(PROMPTS, sequence_length=40))
    their_inputs = _numpy(reference.preprocessor.generate_preprocess(PROMPTS, sequence_length=40))
    assert list(our_inputs) == list(their_inputs)
    for key, value in their_inputs.items():
        np.testing.assert_allclose(our_inputs[key], value, atol=1e-6, err_msg=key)
    assert our_inputs["images"].shape == (2, 2, 16, 16, 3) and our_inputs["vision_mask"].sum() == 12
    np.testing.assert_allclose(np.asarray(ours(our_inputs)), np.asarray(theirs(their_inputs)), atol=1e-5)
    images = our_inputs["images"]
    np.testing.assert_allclose(
        np.asarray(ours.vision_encoder(images)), np.asarray(theirs.vision_encoder(images)), atol=1e-5
    )

    # a text-only batch of a multimodal model: zero images (KerasHub's backbone fails on them in TensorFlow, its
    # Conv2D adding the bias to the empty convolution's wrong shape: its cached pass, which skips the encoder)
    our_text = _numpy(causal_lm.preprocessor.generate_preprocess(["the quick fox"], sequence_length=12))
    their_text = _numpy(reference.preprocessor.generate_preprocess(["the quick fox"], sequence_length=12))
    assert {key: value.shape for key, value in our_text.items()} == {k: v.shape for k, v in their_text.items()}
    assert our_text["images"].shape == (1, 0, 16, 16, 3)
    cache = tuple((np.zeros((1, 12, 1, 8), "float32"),) * 2 for _ in range(2))
    their_logits = reference.call_with_cache(
        their_text["token_ids"], cache, 0, padding_mask=their_text["padding_mask"]
    )[0]
    np.testing.assert_allclose(np.asarray(causal_lm(our_text)), np.asarray(their_logits), atol=1e-5)


def test_greedy_generation_from_images_and_prompts_gives_keras_hubs_ids(reference, causal_lm):
    inputs = reference.preprocessor.generate_preprocess(PROMPTS, sequence_length=36)
    theirs = reference.make_generate_function()(inputs, (210,))
    ours = causal_lm.make_generate_function()(
        tf.nest.map_structure(
            tf.convert_to_tensor, causal_lm.preprocessor.generate_preprocess(PROMPTS, sequence_length=36)
        ),
        (210,),
    )
    mask = np.asarray(theirs["padding_mask"], bool)
    np.testing.assert_array_equal(np.asarray(ours["padding_mask"], bool), mask)
    np.testing.assert_array_equal(np.where(mask, ours["token_ids"], -1), np.where(mask, theirs["token_ids"], -1))
    assert (np.asarray(ours["token_ids"]) != np.asarray(inputs["token_ids"])).any()  # it generated something

    # generate takes one prompt with its one image (unbatched, as KerasHub's) and gives one string
    seen, compiled = [], causal_lm.make_generate_function()

    def echo(inputs, stop_token_ids=None):  # records the batch and returns the prompt: no new trace
        seen.append(inputs)
        return {"token_ids": inputs["token_ids"], "padding_mask": inputs["padding_mask"]}

    causal_lm.generate_function = echo
    try:
        text = causal_lm.generate({"prompts": PROMPTS["prompts"][0], "images": IMAGES[0][0]}, max_length=36)
    finally:
        causal_lm.generate_function = compiled
    assert text == "the quick <start_of_image> fox"  # the placeholders are special tokens: stripped (as KerasHub)
    assert seen[0]["images"].shape == (1, 2, 16, 16, 3) and np.asarray(seen[0]["vision_mask"]).sum() == 4


def test_one_training_step_on_images_uses_keras_hubs_loss_and_changes_the_weights(reference, causal_lm):
    x, y, sample_weight = causal_lm.preprocessor(CHAT)
    theirs = reference.preprocessor(CHAT)
    for key, value in theirs[0].items():
        np.testing.assert_allclose(np.asarray(x[key]), np.asarray(value), atol=1e-6, err_msg=key)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(theirs[1]))
    np.testing.assert_array_equal(np.asarray(sample_weight), np.asarray(theirs[2]))
    crossentropy = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    their_loss = float(crossentropy(theirs[1], reference(theirs[0]), sample_weight=theirs[2]))

    # trains the module's model: the test below compares it only with what it holds itself
    causal_lm.compile(jit_compile=False)  # KerasHub's defaults: Adam 2e-5, crossentropy, accuracy
    before = [w.numpy().copy() for w in causal_lm.backbone.weights]
    history = causal_lm.fit(CHAT, batch_size=2, epochs=1, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]
    np.testing.assert_allclose(history.history["loss"][0], their_loss, rtol=1e-5)  # one batch: before the step
    assert all(not np.array_equal(a, np.asarray(b)) for a, b in zip(before, causal_lm.backbone.weights))


def test_a_saved_preset_loads_in_keras_hub_with_the_same_numbers(reference, causal_lm, tmp_path):
    causal_lm.save_to_preset(str(tmp_path))
    config = json.loads((tmp_path / "config.json").read_text())["config"]
    assert config["vision_encoder"]["registered_name"] == "keras_hub>Gemma3VisionEncoder"
    theirs = keras_hub.models.CausalLM.from_preset(str(tmp_path))
    assert [w.path for w in theirs.backbone.weights] == [w.path for w in reference.backbone.weights]
    inputs = _numpy(reference.preprocessor.generate_preprocess(PROMPTS, sequence_length=40))
    np.testing.assert_allclose(np.asarray(theirs(inputs)), np.asarray(causal_lm(inputs)), atol=1e-5)
    assert type(theirs.preprocessor.image_converter).__name__ == "Gemma3ImageConverter"
    np.testing.assert_allclose(
        np.asarray(theirs.preprocessor.generate_preprocess(PROMPTS, sequence_length=40)["images"]),
        inputs["images"],
        atol=1e-6,
    )
    ours_again = tk_hub.models.CausalLM.from_preset(str(tmp_path))
    np.testing.assert_allclose(np.asarray(ours_again(inputs)), np.asarray(causal_lm(inputs)), atol=1e-6)


def test_images_for_a_text_model_are_refused_by_name(causal_lm):
    text_only = tk_hub.models.Gemma3CausalLMPreprocessor(causal_lm.preprocessor.tokenizer, sequence_length=8)
    with pytest.raises(ValueError, match=r"text model.*images"):
        text_only.generate_preprocess({"prompts": ["hello"], "images": [IMAGES[0]]})
    with pytest.raises(ValueError, match=r"sequence_length must be greater"):
        tk_hub.models.Gemma3CausalLMPreprocessor(
            causal_lm.preprocessor.tokenizer, causal_lm.preprocessor.image_converter, sequence_length=8
        )
    assert tfkit.saving.get_registered_object("keras_hub>Gemma3ImageConverter") is type(
        causal_lm.preprocessor.image_converter
    )


def test_a_transformers_gemma3_checkpoint_loads_with_its_vision_tower(reference, tmp_path):
    pytest.importorskip("safetensors.numpy")
    folder = transformers_checkpoint(reference, str(tmp_path / "gemma3"))
    backbone = tk_hub.models.Backbone.from_preset(folder)
    assert backbone.vision_encoder.num_vision_tokens_per_image == 4
    inputs = _numpy(reference.preprocessor.generate_preprocess(PROMPTS, sequence_length=40))
    np.testing.assert_allclose(np.asarray(backbone(inputs)), np.asarray(reference.backbone(inputs)), atol=1e-5)
    converter = tk_hub.layers.ImageConverter.from_preset(folder)  # pixel values to [-1, 1], as the preset's
    assert type(converter).__name__ == "Gemma3ImageConverter"
    image = IMAGES[0][0][None, :16, :16]
    np.testing.assert_allclose(
        np.asarray(converter(image)), np.asarray(reference.preprocessor.image_converter(image)), atol=1e-6
    )
