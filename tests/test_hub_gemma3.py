"""Gemma 3 (text) in tfkit.hub against KerasHub: presets both ways, Hugging Face checkpoints, logits, greedy ids.

A tiny random text-only Gemma 3 preset (query/key norms, five sliding-window layers then a global one with
its own rotary wavelength and scaling) is made by KerasHub itself (``hub_presets_gemma``). tfkit loads it
and must compute KerasHub's numbers, generate its greedy ids and texts (prompts of different lengths as
strings or ``{"prompts": ...}``, a row stopping at a stop token; ``"auto"`` stops at ``<eos>`` and
``<end_of_turn>``), train on prompts and responses, save presets KerasHub loads and read the
``gemma3_text`` checkpoint KerasHub exports (and the text model of a multimodal ``gemma3`` checkpoint). The vision encoder is
tested in ``test_hub_gemma3_vision.py``.
"""

import json

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras, keras_hub
from hub_presets_gemma import gemma3_preset

import tfkit
import tfkit.hub as tk_hub
from tfkit.hub.models.gemma3.gemma3_decoder_block import Gemma3DecoderBlock

PROMPTS = {
    "token_ids": np.array([[5, 9, 30, 2, 0, 0, 0, 0, 0, 0], [7, 8, 0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
}
CHAT = {"prompts": ["<start_of_turn>user the quick", "hello"], "responses": ["brown fox<end_of_turn>", "world!"]}


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return gemma3_preset(str(tmp_path_factory.mktemp("gemma3_preset")))


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


def test_five_local_layers_then_a_global_one_with_its_own_rotary_wavelength(causal_lm):
    waves = [(b.use_sliding_window_attention, b.rope_wavelength) for b in causal_lm.backbone.transformer_layers]
    assert waves == [(True, 10_000.0)] * 5 + [(False, 1_000_000.0)]  # (KerasHub's numbers: test_hub_families)


def test_greedy_generation_gives_keras_hubs_ids_and_texts(reference, causal_lm):
    tokenizer = causal_lm.preprocessor.tokenizer
    for text in TEXTS + CHAT["prompts"] + ["ünïcödé 😀<img>"]:
        np.testing.assert_array_equal(tokenizer(text), reference.preprocessor.tokenizer(text))
    assert tokenizer.image_placeholder_id == reference.preprocessor.tokenizer.image_placeholder_id
    prompts, stop = CHAT["prompts"], (210,)  # prompts of 8 and 4 tokens; row 1 stops at 210, row 0 runs on
    ours = causal_lm.make_generate_function()(
        tf.nest.map_structure(
            tf.convert_to_tensor, causal_lm.preprocessor.generate_preprocess(prompts, sequence_length=14)
        ),
        stop,
    )
    # KerasHub's Gemma3CausalLM.generate without a preprocessor fails on the None "images" it returns: call
    # its compiled generate_step directly
    theirs = reference.make_generate_function()(
        reference.preprocessor.generate_preprocess(prompts, sequence_length=14), stop
    )
    mask = np.asarray(theirs["padding_mask"], bool)
    assert mask.tolist() == [[True] * 14, [True] * 8 + [False] * 6]
    np.testing.assert_array_equal(np.asarray(ours["padding_mask"], bool), mask)
    np.testing.assert_array_equal(np.where(mask, ours["token_ids"], -1), np.where(mask, theirs["token_ids"], -1))

    # the same from strings and {"prompts": ...} dicts, through the generate functions traced above
    generated = reference.generate({"prompts": prompts}, max_length=14, stop_token_ids=stop)
    assert causal_lm.generate({"prompts": prompts}, max_length=14, stop_token_ids=stop) == generated
    stripped = reference.generate(prompts, max_length=14, stop_token_ids=stop, strip_prompt=True)
    assert causal_lm.generate(prompts, max_length=14, stop_token_ids=stop, strip_prompt=True) == stripped


def test_auto_stop_tokens_are_eos_and_end_of_turn_and_one_prompt_gives_one_string(reference, causal_lm):
    seen, compiled = [], causal_lm.make_generate_function()

    def echo(inputs, stop_token_ids=None):  # records the stop tokens and returns the prompt: no new trace
        seen.append(stop_token_ids)
        return inputs

    causal_lm.generate_function = echo
    try:
        assert causal_lm.generate(["hello"], max_length=8) == ["hello"]
        assert causal_lm.generate({"prompts": "hello"}, max_length=8) == "hello"  # as KerasHub's Gemma 3
    finally:
        causal_lm.generate_function = compiled
    tokenizer = reference.preprocessor.tokenizer  # KerasHub's "auto" for Gemma 3
    assert seen == [(tokenizer.end_token_id, tokenizer.token_to_id("<end_of_turn>"))] * 2 == [(1, 5)] * 2
    assert causal_lm.generate_step.__defaults__[0] == (106,)  # KerasHub's default: <end_of_turn> in Gemma 3


def test_xla_generation_with_a_cache_equals_the_full_forward_pass(causal_lm):
    causal_lm = tk_hub.models.Gemma3CausalLM(causal_lm.backbone)  # not compiled: generate uses XLA
    generated = causal_lm.generate(dict(PROMPTS), stop_token_ids=None)["token_ids"]
    logits = np.asarray(causal_lm({"token_ids": generated, "padding_mask": np.ones_like(generated)}))
    for row, start in ((0, 4), (1, 2)):  # each new token is the argmax after the tokens before it
        np.testing.assert_array_equal(generated[row, start:], logits[row, start - 1 : -1].argmax(-1))


def test_training_takes_prompts_and_responses_and_learns_only_the_responses(reference, causal_lm):
    x, y, sample_weight = causal_lm.preprocessor(CHAT)
    theirs = reference.preprocessor(CHAT)
    for ours_value, their_value in zip(
        (x["token_ids"], x["padding_mask"], y, sample_weight),
        (theirs[0]["token_ids"], theirs[0]["padding_mask"], theirs[1], theirs[2]),
    ):
        np.testing.assert_array_equal(np.asarray(ours_value), np.asarray(their_value))
    # one batch: evaluate's loss is Keras's weighted crossentropy of KerasHub's logits (as its evaluate gives)
    crossentropy = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    their_loss = crossentropy(theirs[1], reference(theirs[0]), sample_weight=theirs[2])
    np.testing.assert_allclose(
        causal_lm.evaluate(CHAT, batch_size=2, verbose=0, return_dict=True)["loss"], np.asarray(their_loss), rtol=1e-5
    )
    # trains the module's model: the tests below compare it only with what it holds itself
    trained = causal_lm
    trained.compile(optimizer=tfkit.optimizers.Adam(1e-2), jit_compile=False)
    history = trained.fit(CHAT, batch_size=2, epochs=2, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]
    assert history.history["loss"][-1] < history.history["loss"][0]
    # plain strings are responses with empty prompts (KerasHub needs the dict): every token is learned
    _, y, sample_weight = causal_lm.preprocessor(["the quick brown fox"])
    assert np.asarray(sample_weight).sum() == np.asarray(y != 0).sum()
    assert np.isfinite(trained.fit(TEXTS, batch_size=2, epochs=1, verbose=0).history["loss"][0])


def test_a_whole_task_saved_to_a_preset_loads_in_keras_hub_with_the_same_numbers(causal_lm, tmp_path):
    # after the training test, causal_lm's weights are no longer the preset's: the saved ones must be its own
    causal_lm.save_to_preset(str(tmp_path))
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == "keras_hub>Gemma3Backbone" and config["config"]["vision_encoder"] is None
    assert json.loads((tmp_path / "metadata.json").read_text())["tasks"] == ["CausalLM", "TextEmbedder"]
    theirs = keras_hub.models.CausalLM.from_preset(str(tmp_path))
    assert type(theirs).__name__ == "Gemma3CausalLM"
    np.testing.assert_allclose(np.asarray(theirs(PROMPTS)), np.asarray(causal_lm(PROMPTS)), atol=1e-4)
    for text in TEXTS[:2]:  # the tokenizer came through too
        np.testing.assert_array_equal(theirs.preprocessor.tokenizer(text), causal_lm.preprocessor.tokenizer(text))


def test_the_checkpoint_keras_hub_exports_loads_with_the_same_numbers_and_text(reference, causal_lm, tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    text_only = tmp_path / "gemma3_text"
    reference.export_to_transformers(str(text_only))
    assert json.loads((text_only / "config.json").read_text())["model_type"] == "gemma3_text"
    ours = tk_hub.models.CausalLM.from_preset(str(text_only))  # the tokenizer from tokenizer.model
    assert ours.preprocessor.tokenizer.has_vision_tokens
    np.testing.assert_allclose(np.asarray(ours(PROMPTS)), np.asarray(reference(PROMPTS)), atol=1e-4)
    for key, value in ours.preprocessor.generate_preprocess(TEXTS, sequence_length=14).items():  # same prompts
        np.testing.assert_array_equal(value, causal_lm.preprocessor.generate_preprocess(TEXTS, sequence_length=14)[key])

    # a multimodal gemma3 checkpoint: the decoder under model.language_model., a vision tower beside it
    multimodal = tmp_path / "gemma3"
    multimodal.mkdir()
    text_config = json.loads((text_only / "config.json").read_text())
    hf_config = {"model_type": "gemma3", "text_config": text_config, "vision_config": {"image_size": 16}}
    (multimodal / "config.json").write_text(json.dumps(hf_config))
    with safetensors_numpy.safe_open(str(text_only / "model.safetensors"), framework="np") as exported:
        tensors = {
            key.replace("model.", "model.language_model.", 1): exported.get_tensor(key) for key in exported.keys()
        }
    tensors["model.vision_tower.vision_model.embeddings.patch_embedding.weight"] = np.zeros((4, 3, 2, 2), "float32")
    safetensors_numpy.save_file(tensors, str(multimodal / "model.safetensors"))
    backbone = tk_hub.models.Backbone.from_preset(str(multimodal))
    np.testing.assert_allclose(np.asarray(backbone(PROMPTS)), np.asarray(reference.backbone(PROMPTS)), atol=1e-5)


def test_the_embedding_model_and_image_masks_equal_keras_hubs(tmp_path):
    keras.utils.set_random_seed(4)
    arguments = dict(
        vocabulary_size=40,
        image_size=None,
        num_layers=2,
        num_query_heads=2,
        num_key_value_heads=1,
        hidden_dim=8,
        intermediate_dim=16,
        head_dim=4,
        use_sliding_window_attention=True,
        sliding_window_size=4,
        use_bidirectional_attention=True,
        is_embedding_model=True,
        pooling_intermediate_dim=12,
        embedding_dim=6,
    )
    theirs = keras_hub.models.Gemma3Backbone(**arguments)
    theirs.save_weights(str(tmp_path / "embedding.weights.h5"))
    ours = tk_hub.models.Gemma3Backbone(**arguments)
    ours.load_weights(str(tmp_path / "embedding.weights.h5"))
    inputs = {"token_ids": PROMPTS["token_ids"] % 40, "padding_mask": PROMPTS["padding_mask"]}
    for key, value in theirs(inputs).items():
        np.testing.assert_allclose(np.asarray(ours(inputs)[key]), np.asarray(value), atol=1e-5, err_msg=key)

    # a decoder block with image tokens (bidirectional within an image), weights through Keras's file
    block_arguments = dict(
        hidden_dim=8,
        intermediate_dim=16,
        head_dim=4,
        num_query_heads=2,
        num_key_value_heads=1,
        use_query_key_norm=True,
        gate_dim_reduction=1,
        name="block",
    )

    def wrapped(block, layers):
        x = layers.Input((6, 8))
        padding, vision = layers.Input((6,), dtype="int32"), layers.Input((6,), dtype="int32")
        return [x, padding, vision], block(x, padding_mask=padding, vision_mask=vision)

    keras_inputs, keras_outputs = wrapped(
        keras_hub.src.models.gemma3.gemma3_decoder_block.Gemma3DecoderBlock(**block_arguments), keras.layers
    )
    keras_model = keras.Model(keras_inputs, keras_outputs)
    keras_model.save_weights(str(tmp_path / "block.weights.h5"))
    our_inputs, our_outputs = wrapped(Gemma3DecoderBlock(**block_arguments), tfkit.layers)
    our_model = tfkit.Model(our_inputs, our_outputs)
    our_model.load_weights(str(tmp_path / "block.weights.h5"))
    x = np.random.default_rng(0).normal(size=(2, 6, 8)).astype("float32")
    padding = np.array([[1] * 6, [1] * 4 + [0] * 2], "int32")
    vision = np.array([[0, 1, 1, 0, 1, 1], [0, 0, 1, 1, 1, 0]], "int32")
    np.testing.assert_allclose(
        np.asarray(our_model([x, padding, vision])), np.asarray(keras_model([x, padding, vision])), atol=1e-5
    )
