"""ResNet and MobileNet in tfkit.hub against KerasHub: presets both ways, weight files, batch norm statistics, one training step.

Tiny random ResNet image classifier presets (v1 and v2 blocks, basic and bottleneck, plain and ``_vd``) are made
by KerasHub itself (``hub_presets_vision2``), with random batch norm statistics; tfkit loads them and must
compute KerasHub's logits in inference mode, keep KerasHub's weight paths and config, save presets and weight
files KerasHub loads with the same numbers, and train on raw images. KerasHub 0.32 has no Transformers
converter for ResNet or MobileNet (only timm ones), so neither has tfkit. A tiny MobileNet classifier preset
(depthwise and inverted residual blocks, squeeze and excite, KerasHub's own head) is checked the same way.
"""

import json
import os

import numpy as np
import pytest
from hub_presets import keras_hub
from hub_presets_vision2 import (
    MOBILENET_ARGUMENTS,
    NUM_CLASSES,
    RESNET_VARIANTS,
    mobilenet_preset,
    resnet_backbone_arguments,
    resnet_preset,
)

import tfkit.hub as tk_hub
from tfkit.hub.models.mobilenet.mobilenet_image_converter import MobileNetImageConverter
from tfkit.hub.models.resnet.resnet_image_converter import ResNetImageConverter

RANDOM = np.random.RandomState(0)
IMAGES = RANDOM.uniform(-1, 1, size=(3, 32, 32, 3)).astype("float32")  # what the backbone takes
RAW = RANDOM.randint(0, 256, size=(4, 40, 36, 3)).astype("uint8")  # what the preprocessor takes
LABELS = np.array([0, 2, 1, 2])


@pytest.fixture(scope="module", params=sorted(RESNET_VARIANTS))
def variant(request, tmp_path_factory):
    folder = resnet_preset(str(tmp_path_factory.mktemp(f"resnet_{request.param}")), request.param)
    theirs = keras_hub.models.ImageClassifier.from_preset(folder)
    ours = tk_hub.models.ImageClassifier.from_preset(folder)
    return request.param, folder, theirs, ours


def test_a_keras_hub_preset_loads_with_its_weights_statistics_and_config(variant):
    name, folder, theirs, ours = variant
    assert isinstance(ours, tk_hub.models.ResNetImageClassifier) and ours.num_classes == NUM_CLASSES
    assert type(ours.preprocessor) is tk_hub.models.ResNetImageClassifierPreprocessor
    assert type(ours.preprocessor.image_converter) is ResNetImageConverter
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    for mine, their in zip(ours.weights, theirs.weights):  # moving means and variances too
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(their))
    expected = np.asarray(theirs(IMAGES))
    assert np.abs(expected).max() > 0.1  # not a degenerate network
    np.testing.assert_allclose(np.asarray(ours(IMAGES)), expected, atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours.backbone(IMAGES)), np.asarray(theirs.backbone(IMAGES)), atol=1e-5)
    predicted = ours.predict(RAW, batch_size=3, verbose=0)  # raw images, converted in tf.data
    np.testing.assert_allclose(predicted, theirs.predict(RAW, batch_size=3, verbose=0), atol=1e-5)
    their_config, our_config = theirs.backbone.get_config(), ours.backbone.get_config()
    assert set(our_config) == set(their_config) | {"data_format"}  # tfkit keeps the data format, as ViT's
    assert json.loads(json.dumps({k: our_config[k] for k in their_config})) == json.loads(json.dumps(their_config))
    assert sorted(ours.backbone.pyramid_outputs) == sorted(theirs.backbone.pyramid_outputs) == ["P2", "P3"]


def test_a_tfkit_preset_loads_in_keras_hub_with_the_same_numbers(variant, tmp_path):
    name, folder, theirs, ours = variant
    ours.save_to_preset(str(tmp_path))
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == "keras_hub>ResNetBackbone"
    converter = json.loads((tmp_path / "image_converter.json").read_text())
    assert converter["registered_name"] == "keras_hub>ResNetImageConverter"
    assert {"preprocessor.json", "task.json", "task.weights.h5", "model.weights.h5"} <= set(os.listdir(tmp_path))
    reloaded = keras_hub.models.ImageClassifier.from_preset(str(tmp_path))
    assert type(reloaded).__name__ == "ResNetImageClassifier"
    np.testing.assert_allclose(np.asarray(reloaded(IMAGES)), np.asarray(ours(IMAGES)), atol=1e-5)
    np.testing.assert_allclose(
        reloaded.predict(RAW, verbose=0), ours.predict(RAW, verbose=0), atol=1e-5
    )  # the converter's config survives the trip


def test_weight_files_pass_both_ways_with_keras_hub(variant, tmp_path):
    name, folder, theirs, ours = variant
    fresh = tk_hub.models.ResNetImageClassifier(
        tk_hub.models.ResNetBackbone(**resnet_backbone_arguments(name)), num_classes=NUM_CLASSES, pooling="max"
    )
    their_max = keras_hub.models.ResNetImageClassifier(
        keras_hub.models.ResNetBackbone.from_preset(folder), num_classes=NUM_CLASSES, pooling="max"
    )
    their_max.save_weights(str(tmp_path / "theirs.weights.h5"))
    fresh.load_weights(str(tmp_path / "theirs.weights.h5"))
    np.testing.assert_allclose(np.asarray(fresh(IMAGES)), np.asarray(their_max(IMAGES)), atol=1e-5)
    fresh.output_dense.bias.assign([1.0, 2.0, 3.0])
    fresh.save_weights(str(tmp_path / "ours.weights.h5"))
    their_max.load_weights(str(tmp_path / "ours.weights.h5"))
    np.testing.assert_allclose(np.asarray(their_max(IMAGES)), np.asarray(fresh(IMAGES)), atol=1e-5)


def test_one_training_step_on_raw_images_changes_the_weights_and_the_statistics(variant):
    name, folder, theirs, ours = variant
    if name != "v2_bottleneck":
        pytest.skip("one variant is enough for training")
    classifier = tk_hub.models.ImageClassifier.from_preset(folder)
    assert type(classifier.loss).__name__ == "SparseCategoricalCrossentropy" and classifier.loss.from_logits
    assert type(classifier.optimizer).__name__ == "Adam"
    assert np.isclose(float(np.asarray(classifier.optimizer.learning_rate)), 5e-5)
    before = [np.asarray(w).copy() for w in classifier.weights]
    history = classifier.fit(RAW, LABELS, batch_size=4, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    changed = {w.path for w, old in zip(classifier.weights, before) if not np.array_equal(np.asarray(w), old)}
    assert "predictions/kernel" in changed and "conv1_conv/kernel" in changed
    assert "post_bn/moving_mean" in changed  # batch norm runs in training mode in fit


def test_a_channels_first_backbone_computes_as_keras_hubs():
    arguments = {**resnet_backbone_arguments("v1_basic"), "image_shape": (3, 32, 32), "data_format": "channels_first"}
    theirs = keras_hub.models.ResNetBackbone(**arguments)
    ours = tk_hub.models.ResNetBackbone(**arguments)
    ours.set_weights([np.asarray(w) for w in theirs.weights])
    images = IMAGES.transpose(0, 3, 1, 2)
    np.testing.assert_allclose(np.asarray(ours(images)), np.asarray(theirs(images)), atol=1e-5)
    assert tk_hub.models.ResNetBackbone.from_config(ours.get_config()).data_format == "channels_first"


def test_bad_arguments_are_refused():
    arguments = resnet_backbone_arguments("v1_basic")
    with pytest.raises(ValueError, match=r"must start with 64"):
        tk_hub.models.ResNetBackbone(**{**arguments, "stackwise_num_filters": [32, 8]})
    with pytest.raises(ValueError, match=r"block_type must be one of"):
        tk_hub.models.ResNetBackbone(**{**arguments, "block_type": "basic"})
    with pytest.raises(ValueError, match=r"must have the same length"):
        tk_hub.models.ResNetBackbone(**{**arguments, "stackwise_num_blocks": [1]})
    with pytest.raises(ValueError, match=r"input_conv_filters and input_conv_kernel_sizes"):
        tk_hub.models.ResNetBackbone(**{**arguments, "input_conv_kernel_sizes": [3, 3]})


@pytest.fixture(scope="module")
def mobilenet(tmp_path_factory):
    folder = mobilenet_preset(str(tmp_path_factory.mktemp("mobilenet")))
    return (
        folder,
        keras_hub.models.ImageClassifier.from_preset(folder),
        tk_hub.models.ImageClassifier.from_preset(folder),
    )


def test_a_keras_hub_mobilenet_preset_loads_with_its_head_statistics_and_config(mobilenet):
    folder, theirs, ours = mobilenet
    assert isinstance(ours, tk_hub.models.MobileNetImageClassifier) and ours.num_features == 16
    assert type(ours.preprocessor.image_converter) is MobileNetImageConverter
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    for mine, their in zip(ours.weights, theirs.weights):
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(their))
    expected = np.asarray(theirs(IMAGES))
    assert np.abs(expected).max() > 0.1
    np.testing.assert_allclose(np.asarray(ours(IMAGES)), expected, atol=1e-5)
    predicted = ours.predict(RAW, batch_size=3, verbose=0)
    np.testing.assert_allclose(predicted, theirs.predict(RAW, batch_size=3, verbose=0), atol=1e-5)
    their_config, our_config = theirs.backbone.get_config(), ours.backbone.get_config()
    assert json.loads(json.dumps(our_config)) == json.loads(json.dumps(their_config))  # input_num_filters rounded
    assert set(ours.get_config()) == set(theirs.get_config())


def test_a_tfkit_mobilenet_preset_and_weight_files_load_in_keras_hub(mobilenet, tmp_path):
    folder, theirs, ours = mobilenet
    ours.save_to_preset(str(tmp_path / "preset"))
    reloaded = keras_hub.models.ImageClassifier.from_preset(str(tmp_path / "preset"))
    assert type(reloaded).__name__ == "MobileNetImageClassifier" and reloaded.num_features == 16
    np.testing.assert_allclose(np.asarray(reloaded(IMAGES)), np.asarray(ours(IMAGES)), atol=1e-5)
    fresh = tk_hub.models.MobileNetImageClassifier(
        tk_hub.models.MobileNetBackbone(**MOBILENET_ARGUMENTS), num_classes=NUM_CLASSES, num_features=16
    )
    theirs.save_weights(str(tmp_path / "theirs.weights.h5"))
    fresh.load_weights(str(tmp_path / "theirs.weights.h5"))
    np.testing.assert_allclose(np.asarray(fresh(IMAGES)), np.asarray(theirs(IMAGES)), atol=1e-5)
    fresh.output_dense.bias.assign([1.0, 2.0, 3.0])
    fresh.save_weights(str(tmp_path / "ours.weights.h5"))
    reloaded.load_weights(str(tmp_path / "ours.weights.h5"))
    np.testing.assert_allclose(np.asarray(reloaded(IMAGES)), np.asarray(fresh(IMAGES)), atol=1e-5)


def test_one_mobilenet_training_step_on_raw_images_changes_the_weights(mobilenet):
    classifier = tk_hub.models.ImageClassifier.from_preset(mobilenet[0])
    assert classifier.loss.from_logits and type(classifier.optimizer).__name__ == "Adam"
    before = [np.asarray(w).copy() for w in classifier.weights]
    history = classifier.fit(RAW, LABELS, batch_size=4, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    changed = {w.path for w, old in zip(classifier.weights, before) if not np.array_equal(np.asarray(w), old)}
    assert {"predictions/kernel", "classifier_conv/kernel", "input_conv/kernel"} <= changed
    assert "block_1_1/block_1_1_se/block_1_1_se_conv_reduce/kernel" in changed
    assert "block_0_0/block_0_0_bn1/moving_mean" in changed
