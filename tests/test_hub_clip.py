"""CLIP and SigLIP in tfkit.hub against KerasHub: presets both ways, preprocessors on prompts and images, training.

For each, a tiny random preset (backbone and preprocessor) is made by KerasHub itself (``hub_presets_clip``,
``hub_presets_siglip``); tfkit loads it with KerasHub's weight paths and config keys, and must give KerasHub's token ids, images and logits;
tfkit's own preset loads back in KerasHub with the same numbers; a contrastive ``fit`` step on raw prompts and
images (CLIP: cross-entropy on both logits; SigLIP: its own loss and KerasHub's compile defaults) changes the
weights.
"""

import re

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import keras_hub
from hub_presets_clip import CLIP_TEXTS, clip_images, clip_preset, clip_vocabulary
from hub_presets_siglip import SIGLIP_TEXTS, siglip_images, siglip_preset

import tfkit
import tfkit.hub as tk_hub
from tfkit.hub.models.siglip.siglip_image_converter import SigLIPImageConverter
from tfkit.hub.models.siglip.siglip_loss import SigLIPLoss

INPUTS = {"prompts": CLIP_TEXTS, "images": clip_images(len(CLIP_TEXTS))}


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """The preset folder, KerasHub's backbone and preprocessor from it, tfkit's backbone and preprocessor."""
    folder = clip_preset(str(tmp_path_factory.mktemp("clip_preset")))
    return (
        folder,
        keras_hub.models.CLIPBackbone.from_preset(folder),
        keras_hub.models.CLIPPreprocessor.from_preset(folder),
        tk_hub.models.CLIPBackbone.from_preset(folder),
        tk_hub.models.CLIPPreprocessor.from_preset(folder),
    )


def _model_inputs(x):
    return {"images": x["images"], "token_ids": x["token_ids"]}


def _assert_same_outputs(reference, backbone, x, atol=1e-5):
    expected, actual = reference(_model_inputs(x)), backbone(_model_inputs(x))
    for key in ("vision_logits", "text_logits"):
        np.testing.assert_allclose(np.asarray(actual[key]), np.asarray(expected[key]), atol=atol)


def test_a_keras_hub_clip_preset_loads_with_its_weight_paths_config_and_logits(clip):
    _, reference, reference_preprocessor, backbone, preprocessor = clip
    assert type(preprocessor) is tk_hub.models.CLIPPreprocessor
    assert type(preprocessor.tokenizer) is tk_hub.models.CLIPTokenizer
    assert [w.path for w in backbone.weights] == [w.path for w in reference.weights]
    assert sorted(backbone.get_config()) == sorted(reference.get_config())
    for name in ("vision_encoder", "text_encoder"):
        assert sorted(getattr(backbone, name).get_config()) == sorted(getattr(reference, name).get_config())
    expected, actual = reference_preprocessor(INPUTS), preprocessor(INPUTS)
    for key in ("token_ids", "padding_mask", "images"):
        np.testing.assert_allclose(np.asarray(actual[key]), np.asarray(expected[key]), atol=1e-5)
    _assert_same_outputs(reference, backbone, expected)
    image_embeddings = backbone.get_vision_embeddings(expected["images"])  # zero-shot: each image over the prompts
    text_embeddings = backbone.get_text_embeddings(expected["token_ids"])
    np.testing.assert_allclose(
        image_embeddings, reference.get_vision_embeddings(np.asarray(expected["images"])), atol=1e-5
    )
    np.testing.assert_allclose(text_embeddings, reference.get_text_embeddings(expected["token_ids"]), atol=1e-5)


def test_the_tokenizer_gives_keras_hubs_tf_data_ids():
    """KerasHub's ids in tf.data (its TensorFlow path), recorded: tracing KerasHub's tokenizer takes 5 s. Words are
    stripped and whitespace runs vanish; a character the vocabulary lacks (",", "!") gives -1, as there."""
    texts = ["a photo of a cat", "  a   cat\n\n dog ", "<|startoftext|>a cat<|endoftext|>", "cats,dogs!", ""]
    expected = [[26, 57, 14, 31, 26, 59], [26, 59, 73], [78, 26, 59, 79], [77, -1, 72, 6, 44, -1], []]
    vocabulary, merges = clip_vocabulary()
    tokenizer = tk_hub.models.CLIPTokenizer(vocabulary=vocabulary, merges=merges)
    assert tokenizer(texts) == expected
    assert tokenizer.detokenize(tokenizer(CLIP_TEXTS[:2])) == CLIP_TEXTS[:2]


def test_tfkits_clip_preset_loads_in_keras_hub(clip, tmp_path):
    _, reference, reference_preprocessor, backbone, preprocessor = clip
    backbone.save_to_preset(str(tmp_path))
    preprocessor.save_to_preset(str(tmp_path))
    reloaded = keras_hub.models.CLIPBackbone.from_preset(str(tmp_path))
    reloaded_preprocessor = keras_hub.models.CLIPPreprocessor.from_preset(str(tmp_path))
    x = reference_preprocessor(INPUTS)
    for key, value in reloaded_preprocessor(INPUTS).items():
        np.testing.assert_array_equal(np.asarray(value), np.asarray(x[key]))
    _assert_same_outputs(reference, reloaded, x, atol=0)


def test_a_contrastive_fit_step_on_prompts_and_images_changes_the_weights(clip):
    folder = clip[0]
    backbone = tk_hub.models.CLIPBackbone.from_preset(folder)
    preprocessor = tk_hub.models.CLIPPreprocessor.from_preset(folder)
    matches = np.eye(len(CLIP_TEXTS), dtype="float32")  # image i goes with prompt i
    x = _model_inputs(preprocessor(INPUTS))  # raw prompts and images, preprocessed eagerly (tracing costs seconds)
    loss = tfkit.losses.CategoricalCrossentropy(from_logits=True)
    backbone.compile(
        optimizer=tfkit.optimizers.Adam(1e-2), loss={"vision_logits": loss, "text_logits": loss}, jit_compile=False
    )
    before = [w.numpy().copy() for w in backbone.trainable_weights]
    history = backbone.fit(x, {"vision_logits": matches, "text_logits": matches}, batch_size=len(matches), verbose=0)
    assert np.isfinite(history.history["loss"][0])
    changed = [not np.array_equal(b, w.numpy()) for b, w in zip(before, backbone.trainable_weights)]
    assert all(changed), [w.path for w, c in zip(backbone.trainable_weights, changed) if not c]


# ------------------------------------------------------------------------------------------------------ SigLIP

SIGLIP_INPUTS = {"prompts": SIGLIP_TEXTS, "images": siglip_images(len(SIGLIP_TEXTS))}


def _unnumbered(path):
    """A weight path without Keras's process-wide counter on unnamed weights (SigLIP's probe: ``variable_3``)."""
    return re.sub(r"/variable(_\d+)?$", "/variable", path)


@pytest.fixture(scope="module")
def siglip(tmp_path_factory):
    """The preset folder, KerasHub's backbone and preprocessor from it, tfkit's backbone and preprocessor."""
    folder = siglip_preset(str(tmp_path_factory.mktemp("siglip_preset")))
    return (
        folder,
        keras_hub.models.SigLIPBackbone.from_preset(folder),
        keras_hub.models.SigLIPPreprocessor.from_preset(folder),
        tk_hub.models.SigLIPBackbone.from_preset(folder),
        tk_hub.models.SigLIPPreprocessor.from_preset(folder),
    )


def test_a_keras_hub_siglip_preset_loads_with_its_weight_paths_config_and_logits(siglip):
    _, reference, reference_preprocessor, backbone, preprocessor = siglip
    assert type(preprocessor.tokenizer) is tk_hub.models.SigLIPTokenizer
    assert type(preprocessor.image_converter) is SigLIPImageConverter
    assert [_unnumbered(w.path) for w in backbone.weights] == [_unnumbered(w.path) for w in reference.weights]
    assert sorted(backbone.get_config()) == sorted(reference.get_config())
    for name in ("vision_encoder", "text_encoder"):
        assert getattr(backbone, name).get_config().keys() == getattr(reference, name).get_config().keys()
    expected, actual = reference_preprocessor(SIGLIP_INPUTS), preprocessor(SIGLIP_INPUTS)  # canonicalized text
    for key in ("token_ids", "padding_mask", "images"):
        np.testing.assert_allclose(np.asarray(actual[key]), np.asarray(expected[key]), atol=1e-5)
    _assert_same_outputs(reference, backbone, expected)


def test_tfkits_siglip_preset_loads_in_keras_hub(siglip, tmp_path):
    _, reference, reference_preprocessor, backbone, preprocessor = siglip
    backbone.save_to_preset(str(tmp_path))
    preprocessor.save_to_preset(str(tmp_path))
    reloaded = keras_hub.models.SigLIPBackbone.from_preset(str(tmp_path))
    reloaded_preprocessor = keras_hub.models.SigLIPPreprocessor.from_preset(str(tmp_path))
    x = reference_preprocessor(SIGLIP_INPUTS)
    for key, value in reloaded_preprocessor(SIGLIP_INPUTS).items():
        np.testing.assert_array_equal(np.asarray(value), np.asarray(x[key]))
    _assert_same_outputs(reference, reloaded, x, atol=0)


def test_the_siglip_loss_is_keras_hubs():
    from keras_hub.src.models.siglip.siglip_loss import SigLIPLoss as KerasHubSigLIPLoss

    logits = np.random.default_rng(1).normal(size=(3, 3)).astype("float32") * 4
    targets = 2 * np.eye(3, dtype="float32") - 1
    expected = float(KerasHubSigLIPLoss()(targets, logits))
    np.testing.assert_allclose(float(SigLIPLoss()(targets, logits)), expected, rtol=1e-6)


def test_siglip_compiles_with_keras_hubs_defaults_and_fits_prompts_and_images_without_labels(siglip):
    folder = siglip[0]
    backbone = tk_hub.models.SigLIPBackbone.from_preset(folder)
    preprocessor = tk_hub.models.SigLIPPreprocessor.from_preset(folder)
    backbone.compile(jit_compile=False)  # XLA would add seconds to one step
    assert isinstance(backbone.optimizer, tfkit.optimizers.AdamW)
    assert isinstance(backbone.loss["text_logits"], SigLIPLoss) and backbone.loss["vision_logits"] is None
    dataset = tf.data.Dataset.from_tensor_slices(SIGLIP_INPUTS).batch(len(SIGLIP_TEXTS))
    dataset = dataset.map(lambda x: _model_inputs(preprocessor(x)))
    before = [w.numpy().copy() for w in backbone.trainable_weights]
    history = backbone.fit(dataset, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    changed = [not np.array_equal(b, w.numpy()) for b, w in zip(before, backbone.trainable_weights)]
    assert all(changed), [w.path for w, c in zip(backbone.trainable_weights, changed) if not c]
