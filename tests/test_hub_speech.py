"""Speech in tfkit.hub against KerasHub: Whisper and Moonshine presets both ways, features, tokens, decoding, training.

Tiny random presets are made by KerasHub itself (``hub_presets_speech``): a Whisper backbone with its multilingual
tokenizer and audio converter (KerasHub 0.32 has no Whisper task), and a Moonshine speech-to-text task. tfkit
loads them with KerasHub's outputs, weight paths and configs, tokenizes and computes log-mel features
(``tf.signal``) as KerasHub does, saves presets KerasHub loads with the same numbers, decodes Moonshine greedily to
KerasHub's ids, decodes Whisper (its start/language/task/no-timestamps prefix) as an uncached greedy loop does,
and trains one step of each on raw audio and text. KerasHub 0.32 has no Transformers converter for either.
"""

import json
import os
import re

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import keras_hub
from hub_presets_speech import (
    MOONSHINE_ARGUMENTS,
    NUM_MELS,
    WHISPER_ARGUMENTS,
    moonshine_preset,
    whisper_audio_converter,
    whisper_preset,
)

from tfkit.hub.layers.audio_converter import AudioConverter
from tfkit.hub.models.audio_to_text import AudioToText
from tfkit.hub.models.moonshine.moonshine_audio_converter import MoonshineAudioConverter
from tfkit.hub.models.moonshine.moonshine_audio_to_text import MoonshineAudioToText
from tfkit.hub.models.moonshine.moonshine_audio_to_text_preprocessor import MoonshineAudioToTextPreprocessor
from tfkit.hub.models.moonshine.moonshine_tokenizer import MoonshineTokenizer
from tfkit.hub.models.whisper.whisper_audio_converter import WhisperAudioConverter
from tfkit.hub.models.whisper.whisper_audio_to_text import WhisperAudioToText
from tfkit.hub.models.whisper.whisper_audio_to_text_preprocessor import WhisperAudioToTextPreprocessor
from tfkit.hub.models.whisper.whisper_backbone import WhisperBackbone
from tfkit.hub.models.whisper.whisper_tokenizer import WhisperTokenizer

RANDOM = np.random.RandomState(0)
FEATURES = RANDOM.randn(2, 100, NUM_MELS).astype("float32")
TOKENS = RANDOM.randint(0, WHISPER_ARGUMENTS["vocabulary_size"], (2, 7)).astype("int32")
PADDING = np.array([[1] * 7, [1] * 5 + [0] * 2], "int32")
INPUTS = {"encoder_features": FEATURES, "decoder_token_ids": TOKENS, "decoder_padding_mask": PADDING}
TEXTS = [
    "<|startoftranscript|><|en|><|transcribe|><|notimestamps|> the quick brown fox<|endoftext|>",
    "hello über world!",
]


@pytest.fixture(scope="module")
def whisper(tmp_path_factory):
    folder = whisper_preset(str(tmp_path_factory.mktemp("whisper")))
    return folder, keras_hub.models.Backbone.from_preset(folder), WhisperBackbone.from_preset(folder)


def assert_same_outputs(first, second):
    a, b = first(INPUTS), second(INPUTS)
    assert set(a) == set(b) == {"encoder_sequence_output", "decoder_sequence_output"}
    for key in a:
        np.testing.assert_allclose(np.asarray(a[key]), np.asarray(b[key]), atol=1e-5)


def test_a_keras_hub_whisper_preset_loads_with_its_weights_and_config(whisper):
    folder, theirs, ours = whisper
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    trainable = [w.path for w in theirs.trainable_weights]
    assert [w.path for w in ours.trainable_weights] == trainable  # the encoder's positions are fixed
    assert "encoder_position_embedding/embeddings" not in trainable
    assert np.abs(np.asarray(theirs(INPUTS)["decoder_sequence_output"])).max() > 0.1
    assert_same_outputs(theirs, ours)
    their_config, our_config = theirs.get_config(), ours.get_config()
    assert set(our_config) == set(their_config)
    assert {k: our_config[k] for k in WHISPER_ARGUMENTS} == {k: their_config[k] for k in WHISPER_ARGUMENTS}


def test_a_tfkit_whisper_preset_loads_in_keras_hub(whisper, tmp_path):
    folder, theirs, ours = whisper
    ours.save_to_preset(str(tmp_path))
    WhisperTokenizer.from_preset(folder).save_to_preset(str(tmp_path))
    WhisperAudioConverter.from_preset(folder).save_to_preset(str(tmp_path))
    assert json.loads((tmp_path / "config.json").read_text())["registered_name"] == "keras_hub>WhisperBackbone"
    assert {"audio_converter.json", "tokenizer.json", "model.weights.h5"} <= set(os.listdir(tmp_path))
    assert_same_outputs(keras_hub.models.Backbone.from_preset(str(tmp_path)), ours)
    tokenizer = keras_hub.models.WhisperTokenizer.from_preset(str(tmp_path))
    assert tokenizer(TEXTS) == keras_hub.models.WhisperTokenizer.from_preset(folder)(TEXTS)
    converter = keras_hub.layers.AudioConverter.from_preset(str(tmp_path))
    assert type(converter).__name__ == "WhisperAudioConverter" and converter.num_mels == NUM_MELS


def test_the_whisper_tokenizer_tokenizes_as_keras_hubs(whisper):
    folder = whisper[0]
    theirs = keras_hub.tokenizers.Tokenizer.from_preset(folder)
    ours = WhisperTokenizer.from_preset(folder)
    assert [list(row) for row in ours(TEXTS)] == [list(row) for row in theirs(TEXTS)]
    assert ours.detokenize(ours(TEXTS)) == TEXTS
    for name in ("bos", "eos", "pad", "no_timestamps", "translate", "transcribe"):
        assert getattr(ours, f"{name}_token_id") == getattr(theirs, f"{name}_token_id")
    assert ours.special_token_ids == theirs.special_token_ids
    assert ours.vocabulary_size() == theirs.vocabulary_size()
    assert ours.token_to_id("<|de|>") == theirs.token_to_id("<|de|>")
    with pytest.raises(ValueError, match="<|notimestamps|>"):
        WhisperTokenizer(special_tokens={"<|endoftext|>": 0, "<|startoftranscript|>": 1})


@pytest.mark.parametrize("length", [16000, 7001, 23456, 400])
def test_the_whisper_audio_converter_computes_keras_hubs_features(length):
    theirs, ours = whisper_audio_converter(), WhisperAudioConverter(num_mels=NUM_MELS, max_audio_length=1)
    audio = RANDOM.uniform(-1, 1, (3, length)).astype("float32")
    expected = np.asarray(theirs(audio))
    assert expected.shape == (3, 100, NUM_MELS)
    np.testing.assert_allclose(np.asarray(ours(audio)), expected, atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours(audio[1])), expected[1], atol=1e-5)  # one clip, not batched


def test_the_whisper_audio_converter_takes_clips_of_different_lengths_and_loads_from_presets(whisper):
    clips = [RANDOM.uniform(-1, 1, n).astype("float32") for n in (5000, 12000, 16500)]
    expected = np.asarray(whisper_audio_converter()(tf.ragged.stack(clips)))
    converter = AudioConverter.from_preset(whisper[0])
    assert type(converter) is WhisperAudioConverter
    keys = ("num_mels", "num_fft_bins", "stride", "sampling_rate", "max_audio_length")
    their_config, our_config = whisper_audio_converter().get_config(), converter.get_config()
    assert {k: our_config[k] for k in keys} == {k: their_config[k] for k in keys}
    np.testing.assert_allclose(np.asarray(converter(clips)), expected, atol=1e-5)
    dataset = tf.data.Dataset.from_tensor_slices(np.stack([clips[0][:4000]] * 2)).batch(2).map(converter)
    expected = np.asarray(converter(np.stack([clips[0][:4000]] * 2)))
    np.testing.assert_allclose(next(iter(dataset)).numpy(), expected, atol=1e-6)
    assert converter.audio_shape() == (1, NUM_MELS)


# ---- Moonshine -------------------------------------------------------------------------------------------------

AUDIO = RANDOM.uniform(-1, 1, (2, 3200)).astype("float32")
AUDIO[1, 2400:] = 0.0  # a shorter clip, padded with silence
TRANSCRIPTS = ["the quick brown fox", "hello world"]


def normalized_paths(model):
    """Weight paths with automatic layer names' counters dropped (they count what the process built before)."""
    return [
        re.sub(r"(layer_normalization|moonshine_multi_head_attention|moonshine_mlp)(_\d+)?/", r"\1/", w.path)
        for w in model.weights
    ]


@pytest.fixture(scope="module")
def moonshine(tmp_path_factory):
    folder = moonshine_preset(str(tmp_path_factory.mktemp("moonshine")))
    theirs = keras_hub.models.MoonshineAudioToText.from_preset(folder, dtype="float32")  # KerasHub needs the dtype
    ours = AudioToText.from_preset(folder)
    theirs.compile(sampler="greedy")
    ours.compile(sampler="greedy")
    return folder, theirs, ours


def test_a_keras_hub_moonshine_preset_loads_with_its_weights_config_and_numbers(moonshine):
    folder, theirs, ours = moonshine
    assert isinstance(ours, MoonshineAudioToText)  # (a functional subclass of it, as every tfkit task)
    assert type(ours.preprocessor) is MoonshineAudioToTextPreprocessor
    assert type(ours.preprocessor.audio_converter) is MoonshineAudioConverter
    assert type(ours.preprocessor.tokenizer) is MoonshineTokenizer
    assert normalized_paths(ours.backbone) == normalized_paths(theirs.backbone)
    their_config, our_config = theirs.backbone.get_config(), ours.backbone.get_config()
    assert set(our_config) == set(their_config)
    assert {k: our_config[k] for k in MOONSHINE_ARGUMENTS} == {k: their_config[k] for k in MOONSHINE_ARGUMENTS}
    x, y, sample_weight = theirs.preprocessor({"audio": AUDIO, "text": TRANSCRIPTS})
    ours_x, ours_y, ours_weight = ours.preprocessor({"audio": AUDIO, "text": TRANSCRIPTS})
    for key in x:
        np.testing.assert_array_equal(np.asarray(ours_x[key]), np.asarray(x[key]))
    np.testing.assert_array_equal(np.asarray(ours_y), np.asarray(y))
    np.testing.assert_array_equal(np.asarray(ours_weight), np.asarray(sample_weight))
    expected = theirs.backbone(x)
    assert not np.asarray(expected["encoder_attention_mask"]).all()  # the shorter clip's last frames are masked
    for key, value in ours.backbone(x).items():
        np.testing.assert_allclose(np.asarray(value), np.asarray(expected[key]), atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), atol=1e-5)


def test_moonshine_greedy_decoding_gives_keras_hubs_ids(moonshine):
    folder, theirs, ours = moonshine
    no_prompt = theirs.preprocessor.generate_preprocess({"audio": AUDIO}, sequence_length=10)
    for key, value in ours.preprocessor.generate_preprocess({"audio": AUDIO}, sequence_length=10).items():
        np.testing.assert_array_equal(np.asarray(value), np.asarray(no_prompt[key]))  # two start tokens, as KerasHub's
    prompt = {"audio": AUDIO, "text": ["the", "hello world"]}  # decoder prompts of different lengths
    expected = theirs.generate_step(theirs.preprocessor.generate_preprocess(prompt, sequence_length=10))
    assert len(set(np.asarray(expected["decoder_token_ids"])[:, 3:].ravel().tolist())) > 2  # not degenerate
    inputs = ours.preprocessor.generate_preprocess(prompt, sequence_length=10)
    generated = ours.generate_step({k: tf.convert_to_tensor(v) for k, v in inputs.items()})  # eagerly
    np.testing.assert_array_equal(np.asarray(generated["decoder_token_ids"]), np.asarray(expected["decoder_token_ids"]))
    texts = theirs.preprocessor.generate_postprocess(expected)
    assert ours.preprocessor.generate_postprocess(generated) == texts


def test_a_tfkit_moonshine_preset_loads_in_keras_hub(moonshine, tmp_path):
    folder, theirs, ours = moonshine
    ours.save_to_preset(str(tmp_path))
    assert json.loads((tmp_path / "task.json").read_text())["registered_name"] == "keras_hub>MoonshineAudioToText"
    reloaded = keras_hub.models.MoonshineAudioToText.from_preset(str(tmp_path), dtype="float32")
    x, _, _ = ours.preprocessor({"audio": AUDIO, "text": TRANSCRIPTS})
    np.testing.assert_allclose(np.asarray(reloaded(x)), np.asarray(ours(x)), atol=1e-5)
    assert type(reloaded.preprocessor.audio_converter).__name__ == "MoonshineAudioConverter"
    assert reloaded.preprocessor.tokenizer(TRANSCRIPTS) == theirs.preprocessor.tokenizer(TRANSCRIPTS)


def test_one_moonshine_training_step_on_raw_audio_changes_the_weights(moonshine):
    model = moonshine[2]  # the last test to use it
    assert type(model.loss).__name__ == "SparseCategoricalCrossentropy" and model.loss.from_logits
    assert type(model.optimizer).__name__ == "Adam"
    model.compile(run_eagerly=True)  # KerasHub's defaults still; one step needs no compiled program
    before = [np.asarray(w).copy() for w in model.trainable_weights]
    history = model.fit({"audio": AUDIO, "text": TRANSCRIPTS}, batch_size=2, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    changed = [not np.array_equal(np.asarray(w), old) for w, old in zip(model.trainable_weights, before)]
    assert sum(changed) > len(changed) // 2


def test_the_moonshine_audio_converter_pads_cuts_and_normalizes_as_keras_hubs():
    theirs, ours = (
        keras_hub.layers.MoonshineAudioConverter(do_normalize=True),
        MoonshineAudioConverter(do_normalize=True),
    )
    for options in (
        {},
        {"padding": "longest", "pad_to_multiple_of": 640},
        {"padding": "max_length", "max_length": 2000},
    ):
        expected = np.asarray(theirs(AUDIO, **options))
        np.testing.assert_allclose(np.asarray(ours(AUDIO, **options)), expected, atol=1e-5)
    with pytest.raises(ValueError, match="sampling_rate"):
        ours(AUDIO, sampling_rate=8000)


# ---- Whisper's task (KerasHub 0.32 has none: checked against an uncached greedy loop) ----------------------------


@pytest.fixture(scope="module")
def whisper_task(whisper):
    preprocessor = WhisperAudioToTextPreprocessor.from_preset(whisper[0], language="en", decoder_sequence_length=10)
    model = WhisperAudioToText.from_preset(whisper[0], preprocessor=preprocessor)
    random = np.random.RandomState(1)
    for variable in model.backbone.weights:  # larger random weights, so that greedy decoding picks varied tokens
        scale, center = (0.2, 1.0) if variable.path.endswith("gamma") else (0.5, 0.0)
        variable.assign(random.normal(center, scale, variable.shape).astype("float32"))
    model.compile(sampler="greedy")
    return model


def test_whisper_packs_its_decoder_prefix_and_generates_as_an_uncached_greedy_loop(whisper_task):
    model, preprocessor = whisper_task, whisper_task.preprocessor
    tokenizer = preprocessor.tokenizer
    prefix = [tokenizer.bos_token_id, tokenizer.token_to_id("<|en|>"), tokenizer.transcribe_token_id]
    assert preprocessor.prefix_ids() == prefix + [tokenizer.no_timestamps_token_id]
    x, y, weights = preprocessor({"audio": AUDIO, "text": [" the fox", " hello"]})
    assert x["encoder_features"].shape == (2, 100, NUM_MELS)
    assert x["decoder_token_ids"].numpy()[:, :4].tolist() == [preprocessor.prefix_ids()] * 2
    np.testing.assert_array_equal(y.numpy()[:, :-1], x["decoder_token_ids"].numpy()[:, 1:])
    inputs = preprocessor.generate_preprocess({"audio": AUDIO})
    generated = model.generate_step({k: tf.convert_to_tensor(v) for k, v in inputs.items()})["decoder_token_ids"]
    expected = inputs["decoder_token_ids"].numpy().copy()
    for index in range(4, expected.shape[1]):  # every step from a full forward pass, no cache
        logits = model({**inputs, "decoder_token_ids": expected, "decoder_padding_mask": np.ones_like(expected)})
        expected[:, index] = np.argmax(np.asarray(logits)[:, index - 1], axis=-1)
    assert len(set(expected[:, 4:].ravel().tolist())) > 1  # the steps depend on what came before
    np.testing.assert_array_equal(generated.numpy(), expected)
    texts = preprocessor.generate_postprocess({"decoder_token_ids": generated, "decoder_padding_mask": generated >= 0})
    assert texts == tokenizer.detokenize(expected[:, 4:])  # the prefix (language token too) stripped
    model.compile(sampler="greedy", run_eagerly=True)
    assert model.generate({"audio": AUDIO}) == texts
    assert model.generate(AUDIO[1]) == texts[1]  # one rank-1 clip in, one string out
    with pytest.raises(ValueError, match="language"):
        WhisperAudioToTextPreprocessor(preprocessor.audio_converter, tokenizer, language="fr").prefix_ids()


def test_one_whisper_training_step_changes_the_weights(whisper_task, tmp_path):
    model = whisper_task
    assert type(model.loss).__name__ == "SparseCategoricalCrossentropy"
    model.compile(sampler="greedy", run_eagerly=True)  # one step needs no compiled program
    before = {w.path: np.asarray(w).copy() for w in model.weights}
    model.fit({"audio": AUDIO, "text": [" the fox", " hello"]}, batch_size=2, epochs=1, verbose=0)
    changed = {w.path for w in model.weights if not np.array_equal(np.asarray(w), before[w.path])}
    assert "encoder_token_embedding_conv_layer_1/kernel" in changed
    assert "encoder_position_embedding/embeddings" not in changed  # fixed
    model.save_to_preset(str(tmp_path))  # a task preset: reloads with its preprocessor's prefix
    reloaded = AudioToText.from_preset(str(tmp_path))
    assert isinstance(reloaded, WhisperAudioToText) and reloaded.preprocessor.language == "en"
    x, _, _ = model.preprocessor({"audio": AUDIO, "text": [" the fox", " hello"]})
    np.testing.assert_allclose(np.asarray(reloaded(x)), np.asarray(model(x)), atol=1e-5)
