"""The seq2seq task kind (``Seq2SeqLM``, ``Seq2SeqLMPreprocessor``) and BART, side by side with KerasHub 0.32.

One tiny BART preset made by KerasHub (``hub_presets_bart``) for the module: it loads in tfkit with KerasHub's
numbers and weight paths, generates KerasHub's ids and texts (greedy, padded batches, decoder prompts, stop
tokens) with the encoder run once and the cross-attention cache computed once, saves a preset KerasHub loads,
converts from a Transformers folder both libraries read, and trains one step with KerasHub's loss.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras, keras_hub
from hub_presets_bart import bart_preset, bart_transformers_checkpoint

import tfkit
import tfkit.hub as tk_hub

LENGTHS = {"encoder_sequence_length": 12, "decoder_sequence_length": 10}
PAIRS = {"encoder_text": TEXTS, "decoder_text": ["a lazy", "", "the", "hello world"]}


def _with_lengths(task):
    # KerasHub 0.32's Seq2SeqLMPreprocessor has no get_config for its lengths: its presets reload with 1024
    task.preprocessor.encoder_sequence_length = LENGTHS["encoder_sequence_length"]
    task.preprocessor.decoder_sequence_length = LENGTHS["decoder_sequence_length"]
    return task


@pytest.fixture(scope="module")
def preset(tmp_path_factory) -> str:
    return bart_preset(str(tmp_path_factory.mktemp("bart")), **LENGTHS)


@pytest.fixture(scope="module")
def pair(preset):
    ours = _with_lengths(tk_hub.models.Seq2SeqLM.from_preset(preset))
    theirs = _with_lengths(keras_hub.models.Seq2SeqLM.from_preset(preset))
    ours.compile(sampler="greedy", run_eagerly=True)  # test_generation_compiles_with_xla compiles it once
    theirs.compile(sampler="greedy", run_eagerly=True)
    return ours, theirs


@pytest.fixture(scope="module")
def inputs(pair):
    packed = pair[1].preprocessor.generate_preprocess(dict(PAIRS))
    return {key: np.asarray(value) for key, value in packed.items()}  # as generate's preprocessing gives them


def _close(ours, theirs, atol=1e-5):
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs)
        for key in theirs:
            np.testing.assert_allclose(np.asarray(ours[key]), np.asarray(theirs[key]), atol=atol, err_msg=key)
    else:
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), atol=atol)


def _paths(model) -> tuple[list[str], list[str]]:
    """The weight paths, and the order of the layers holding them. Within a decoder block tfkit's
    TransformerDecoder lists its cross-attention's weights before its self-attention's (its constructor sets
    `_cross_attention_layer` first); KerasHub lists them the other way round. Weight files key sub-layers by
    name, so both load each other's."""
    paths = [weight.path for weight in model.weights]
    layers = list(dict.fromkeys(path.split("/")[0] for path in paths))
    return sorted(paths), layers


def test_a_keras_hub_bart_preset_loads_with_keras_hubs_numbers_config_and_weight_paths(preset, pair, inputs):
    ours, theirs = pair
    assert type(ours).__name__ == "BartSeq2SeqLM" and type(ours.preprocessor).__name__ == "BartSeq2SeqLMPreprocessor"
    backbone = tk_hub.models.Backbone.from_preset(preset)
    assert type(backbone).__name__ == "BartBackbone"
    their_config = {k: v for k, v in theirs.backbone.get_config().items() if k not in ("name", "dtype")}
    assert {k: v for k, v in backbone.get_config().items() if k in their_config} == their_config
    _close(backbone(inputs), theirs.backbone(inputs))
    _close(ours(inputs), theirs(inputs))
    assert _paths(backbone) == _paths(theirs.backbone)
    assert _paths(ours) == _paths(theirs)
    preprocessed = ours.preprocessor(dict(PAIRS))
    for mine, reference in zip(preprocessed, theirs.preprocessor(dict(PAIRS))):
        _close(mine, reference, atol=0)


def test_greedy_generation_gives_keras_hubs_ids_and_texts(pair, inputs):
    ours, theirs = pair
    preprocessor, ours.preprocessor = ours.preprocessor, None  # token ids in, token ids out
    try:
        generated = ours.generate(dict(inputs), stop_token_ids=None)
        reference = theirs.make_generate_function()(tf.nest.map_structure(tf.convert_to_tensor, inputs), None)
        np.testing.assert_array_equal(generated["decoder_token_ids"], reference["decoder_token_ids"])
        stop = (int(reference["decoder_token_ids"][0, 8]),)  # a token row 0 generates: it stops there
        stopped = ours.generate(dict(inputs), stop_token_ids=stop)
        their_stopped = theirs.make_generate_function()(tf.nest.map_structure(tf.convert_to_tensor, inputs), stop)
        mask = np.asarray(their_stopped["decoder_padding_mask"], bool)
        np.testing.assert_array_equal(np.asarray(stopped["decoder_padding_mask"], bool), mask)
        np.testing.assert_array_equal(
            np.where(mask, stopped["decoder_token_ids"], -1), np.where(mask, their_stopped["decoder_token_ids"], -1)
        )
    finally:
        ours.preprocessor = preprocessor
    ids = generated["decoder_token_ids"]  # the cached steps equal the full pass: each new token its argmax
    logits = np.asarray(ours({**inputs, "decoder_token_ids": ids, "decoder_padding_mask": np.ones_like(ids)}))
    for row, start in enumerate(inputs["decoder_padding_mask"].sum(axis=1)):
        np.testing.assert_array_equal(ids[row, start:], logits[row, start - 1 : -1].argmax(-1))

    texts = ours.generate(dict(PAIRS), stop_token_ids=None)
    assert texts == theirs.generate(dict(PAIRS), stop_token_ids=None)
    completions = ours.generate(dict(PAIRS), stop_token_ids=None, strip_prompt=True)
    assert [text.endswith(completion) for text, completion in zip(texts, completions)] == [True] * len(TEXTS)
    assert [len(c) < len(t) for c, t in zip(completions, texts) if PAIRS["decoder_text"][texts.index(t)]]


def test_generation_compiles_with_xla_to_the_same_ids(preset, pair, inputs):
    model = tk_hub.models.BartSeq2SeqLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy")  # XLA: tfkit's default for generation
    pair[0].preprocessor, preprocessor = None, pair[0].preprocessor
    try:
        eager = pair[0].generate(dict(inputs), stop_token_ids=(2,))
    finally:
        pair[0].preprocessor = preprocessor
    compiled = model.generate(dict(inputs), stop_token_ids=(2,))
    np.testing.assert_array_equal(compiled["decoder_padding_mask"], eager["decoder_padding_mask"])
    mask = eager["decoder_padding_mask"]
    np.testing.assert_array_equal(
        np.where(mask, compiled["decoder_token_ids"], -1), np.where(mask, eager["decoder_token_ids"], -1)
    )


def test_generate_runs_the_encoder_and_the_cross_attention_projections_once(preset, inputs):
    model = tk_hub.models.BartSeq2SeqLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy", run_eagerly=True)
    calls = {"encoder": 0, "cross_keys": 0}
    encoder_block = model.backbone.encoder_transformer_layers[0]
    cross_keys = model.backbone.decoder_transformer_layers[0]._cross_attention_layer._key_dense
    for name, layer in (("encoder", encoder_block), ("cross_keys", cross_keys)):
        call = layer.call

        def counted(*args, _call=call, _name=name, **kwargs):
            calls[_name] += 1
            return _call(*args, **kwargs)

        layer.call = counted
    generated = model.generate(dict(inputs), stop_token_ids=None)
    assert calls == {"encoder": 1, "cross_keys": 1}
    assert generated["decoder_token_ids"].shape == inputs["decoder_token_ids"].shape
    model.compile(sampler=tk_hub.samplers.BeamSampler(num_beams=2), run_eagerly=True)  # every cache part per beam
    assert model.generate(dict(inputs), stop_token_ids=None)["decoder_token_ids"].shape == (4, 10)


def test_a_preset_tfkit_saves_loads_in_keras_hub_with_the_same_numbers(pair, inputs, tmp_path):
    ours = pair[0]
    ours.save_to_preset(str(tmp_path))
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == "keras_hub>BartBackbone"
    assert {"config.json", "metadata.json", "model.weights.h5", "preprocessor.json", "task.json"} <= set(
        os.listdir(tmp_path)
    )
    theirs = keras_hub.models.Seq2SeqLM.from_preset(str(tmp_path))
    assert type(theirs).__name__ == "BartSeq2SeqLM"
    assert theirs.preprocessor.decoder_sequence_length == LENGTHS["decoder_sequence_length"]
    _close(theirs.backbone(inputs), ours.backbone(inputs))
    _close(theirs(inputs), ours(inputs))
    for text in TEXTS:
        np.testing.assert_array_equal(theirs.preprocessor.tokenizer(text), ours.preprocessor.tokenizer(text))
    again = tk_hub.models.Seq2SeqLM.from_preset(str(tmp_path))
    _close(again(inputs), ours(inputs), atol=0)
    assert again.preprocessor.get_config() == ours.preprocessor.get_config()


def test_a_transformers_checkpoint_loads_in_tfkit_and_keras_hub_with_the_same_numbers(pair, inputs, tmp_path):
    pytest.importorskip("safetensors")
    theirs = pair[1]
    folder = bart_transformers_checkpoint(theirs.backbone, str(tmp_path / "hf"))  # BartForConditionalGeneration's
    bare = bart_transformers_checkpoint(theirs.backbone, str(tmp_path / "bare"), prefix="")  # BartModel's
    _close(tk_hub.models.Backbone.from_preset(bare)(inputs), theirs.backbone(inputs))
    their_converted = keras_hub.models.Seq2SeqLM.from_preset(folder)  # KerasHub 0.32's convert_bart
    assert type(their_converted).__name__ == "BartSeq2SeqLM"
    _close(their_converted(inputs), theirs(inputs))
    ours = _with_lengths(tk_hub.models.Seq2SeqLM.from_preset(folder))
    assert type(ours).__name__ == "BartSeq2SeqLM" and type(ours.backbone).__name__ == "BartBackbone"
    _close(ours.backbone(inputs), theirs.backbone(inputs))
    _close(ours(inputs), theirs(inputs))
    for text in TEXTS:
        np.testing.assert_array_equal(ours.preprocessor.tokenizer(text), their_converted.preprocessor.tokenizer(text))


def test_a_transformers_config_the_backbone_cannot_express_is_refused(pair, tmp_path):
    folder = bart_transformers_checkpoint(pair[1].backbone, str(tmp_path / "hf"))
    config = json.loads((tmp_path / "hf" / "config.json").read_text())
    (tmp_path / "hf" / "config.json").write_text(json.dumps({**config, "scale_embedding": True}))
    with pytest.raises(ValueError, match="scale_embedding"):
        tk_hub.models.Backbone.from_preset(folder)


def test_evaluate_gives_keras_hubs_loss_and_one_fit_step_on_raw_pairs_changes_the_weights(preset, pair):
    theirs = pair[1]
    x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(theirs.preprocessor(dict(PAIRS)))
    expected = float(theirs.loss(y, theirs(x), sample_weight=sample_weight))
    trained = _with_lengths(tk_hub.models.Seq2SeqLM.from_preset(preset))
    trained.compile(optimizer=tfkit.optimizers.Adam(1e-2), run_eagerly=True)
    # the packed batch (test 1 checks the packing): raw strings would trace the tokenizer into a tf.data graph again
    x, y, sample_weight = trained.preprocessor(dict(PAIRS))
    preprocessor, trained.preprocessor = trained.preprocessor, None
    try:
        loss = trained.evaluate(x, y, sample_weight=sample_weight, batch_size=len(TEXTS), verbose=0, return_dict=True)
    finally:
        trained.preprocessor = preprocessor
    np.testing.assert_allclose(loss["loss"], expected, rtol=1e-5)
    before = [np.array(w) for w in trained.trainable_weights]
    history = trained.fit(dict(PAIRS), batch_size=len(TEXTS), epochs=1, verbose=0)
    assert list(history.history) == ["loss", "sparse_categorical_accuracy"]
    changed = [not np.array_equal(np.asarray(w), b) for w, b in zip(trained.trainable_weights, before)]
    assert sum(changed) > len(changed) // 2, f"{sum(changed)} of {len(changed)} weights changed"
