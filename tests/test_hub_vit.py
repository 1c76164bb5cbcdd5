"""ViT in tfkit.hub against KerasHub: presets both ways, weight files, the image converter, a Transformers checkpoint.

A tiny random ViT image classifier preset is made by KerasHub itself (``hub_presets_vit``); tfkit loads it and
must compute KerasHub's logits on the same random images, convert images exactly as KerasHub's ImageConverter
does (eagerly and in tf.data), save presets and weight files KerasHub loads with the same numbers, read the
Transformers checkpoint of the same weights, and train on raw images.
"""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import keras, keras_hub
from hub_presets_vit import NUM_CLASSES, vit_converter, vit_preset, vit_transformers_checkpoint

import tfkit
import tfkit.hub as tk_hub

RANDOM = np.random.RandomState(0)
IMAGES = RANDOM.uniform(-1, 1, size=(3, 16, 16, 3)).astype("float32")  # what the backbone takes
RAW = RANDOM.randint(0, 256, size=(4, 20, 28, 3)).astype("uint8")  # what the preprocessor takes
LABELS = np.array([0, 2, 1, 2])


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return vit_preset(str(tmp_path_factory.mktemp("vit_preset")))


@pytest.fixture(scope="module")
def reference(preset):
    return keras_hub.models.ImageClassifier.from_preset(preset)


@pytest.fixture(scope="module")
def classifier(preset):
    return tk_hub.models.ImageClassifier.from_preset(preset)


def test_the_preset_brings_its_head_and_converter_and_predicts_raw_images_as_keras_hub(preset, reference, classifier):
    assert isinstance(classifier, tk_hub.models.ViTImageClassifier) and classifier.num_classes == NUM_CLASSES
    assert type(classifier.preprocessor) is tk_hub.models.ViTImageClassifierPreprocessor
    assert type(classifier.preprocessor.image_converter) is tk_hub.layers.ViTImageConverter
    np.testing.assert_allclose(classifier.output_dense.bias.numpy(), [0.3, -0.2, 0.1])  # the head from task.weights.h5
    predicted = classifier.predict(RAW, batch_size=3, verbose=0)  # raw images, converted in tf.data
    np.testing.assert_allclose(predicted, reference.predict(RAW, batch_size=3, verbose=0), atol=1e-4)
    fresh = tk_hub.models.ImageClassifier.from_preset(preset, num_classes=5)  # a new head, as in KerasHub
    assert fresh.output_dense.kernel.shape == (16, 5)


def _in_tf_data(layer, images):
    """``layer`` mapped over ``images`` in batches of 2 inside ``tf.data`` (graph mode), concatenated."""
    dataset = tf.data.Dataset.from_tensor_slices(images).batch(2).map(layer)
    return np.concatenate([np.asarray(batch) for batch in dataset])


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"crop_to_aspect_ratio": False, "interpolation": "nearest"},
        {"pad_to_aspect_ratio": True, "crop_to_aspect_ratio": False, "interpolation": "bicubic"},
        {"image_size": None, "scale": 2.0, "offset": None},
        {"data_format": "channels_first", "crop_to_aspect_ratio": False},
    ],
)
def test_the_image_converter_converts_as_keras_hubs(arguments):
    config = {**vit_converter().get_config(), **arguments}
    theirs = keras_hub.layers.ImageConverter.from_config(config)
    ours = tk_hub.layers.ImageConverter.from_config(config)
    raw = RAW.transpose(0, 3, 1, 2) if arguments.get("data_format") == "channels_first" else RAW
    # uint8 images: KerasHub's tf.data path (its fit, evaluate, predict) resizes in float32, as tfkit always does
    expected = _in_tf_data(theirs, raw)
    np.testing.assert_allclose(np.asarray(ours(raw)), expected, atol=1e-5)  # a batch, eagerly
    np.testing.assert_allclose(_in_tf_data(ours, raw), expected, atol=1e-5)  # in tf.data
    np.testing.assert_allclose(np.asarray(ours(raw[1])), expected[1], atol=1e-5)  # one image
    floats = raw.astype("float32")  # float images: KerasHub's eager path computes the same
    np.testing.assert_allclose(np.asarray(ours(floats)), np.asarray(theirs(floats)), atol=1e-5)


def test_the_image_converter_takes_lists_of_images_of_different_sizes_and_keeps_its_config():
    ours = tk_hub.layers.ImageConverter.from_config(vit_converter().get_config())
    images = [RAW[0], RAW[1, :12, :9]]
    outputs = ours(images)
    assert isinstance(outputs, list) and [o.shape for o in outputs] == [(16, 16, 3), (16, 16, 3)]
    expected = vit_converter()(images[1].astype("float32"))
    np.testing.assert_allclose(np.asarray(outputs[1]), np.asarray(expected), atol=1e-5)
    theirs = {**vit_converter().get_config(), "data_format": "channels_last"}  # tfkit keeps data_format too
    assert {k: v for k, v in theirs.items() if k not in ("name", "dtype")} == {
        k: v for k, v in ours.get_config().items() if k not in ("name", "dtype")
    }
    ours.image_size = (8, 4)  # settable, as KerasHub's
    assert ours(RAW).shape == (4, 8, 4, 3) and ours.get_config()["image_size"] == (8, 4)
    with pytest.raises(ValueError, match=r"only one of crop_to_aspect_ratio and pad_to_aspect_ratio"):
        tk_hub.layers.ImageConverter(image_size=(4, 4), pad_to_aspect_ratio=True)


def test_the_image_converter_runs_inside_an_exported_saved_model(tmp_path):
    converter = tk_hub.layers.ImageConverter.from_config(vit_converter().get_config())
    module = tf.Module()
    module.convert = tf.function(converter, input_signature=[tf.TensorSpec([None, None, None, 3], tf.uint8)])
    tf.saved_model.save(module, str(tmp_path))
    served = tf.saved_model.load(str(tmp_path)).convert(RAW)  # any image size: resized inside the graph
    np.testing.assert_allclose(served.numpy(), np.asarray(converter(RAW)), atol=1e-6)


def test_weight_files_pass_both_ways_with_keras_hub(preset, tmp_path):
    for arguments in ({}, {"intermediate_dim": 8, "pooling": "gap"}):
        theirs = keras_hub.models.ViTImageClassifier(
            backbone=keras_hub.models.ViTBackbone.from_preset(preset), num_classes=NUM_CLASSES, **arguments
        )
        theirs.save_weights(str(tmp_path / "theirs.weights.h5"))
        ours = tk_hub.models.ViTImageClassifier(
            tk_hub.models.ViTBackbone.from_preset(preset, load_weights=False), num_classes=NUM_CLASSES, **arguments
        )
        ours.load_weights(str(tmp_path / "theirs.weights.h5"))
        np.testing.assert_allclose(np.asarray(ours(IMAGES)), np.asarray(theirs(IMAGES)), atol=1e-5)

        ours.output_dense.bias.assign([1.0, 2.0, 3.0])
        ours.save_weights(str(tmp_path / "ours.weights.h5"))
        theirs.load_weights(str(tmp_path / "ours.weights.h5"))
        np.testing.assert_allclose(np.asarray(theirs(IMAGES)), np.asarray(ours(IMAGES)), atol=1e-5)


def test_a_saved_preset_loads_in_keras_hub_with_the_same_numbers(classifier, tmp_path):
    classifier.save_to_preset(str(tmp_path))
    assert {"config.json", "image_converter.json", "preprocessor.json", "task.json", "task.weights.h5"} <= set(
        os.listdir(tmp_path)
    )
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == "keras_hub>ViTBackbone" and config["config"]["patch_size"] == [4, 4]
    assert json.loads((tmp_path / "metadata.json").read_text())["tasks"] == ["ImageClassifier"]
    converter = json.loads((tmp_path / "image_converter.json").read_text())
    assert converter["registered_name"] == "keras_hub>ViTImageConverter"
    theirs = keras_hub.models.ImageClassifier.from_preset(str(tmp_path))
    assert type(theirs).__name__ == "ViTImageClassifier"
    np.testing.assert_allclose(np.asarray(theirs(IMAGES)), np.asarray(classifier(IMAGES)), atol=1e-5)
    theirs_converted = _in_tf_data(keras_hub.layers.ImageConverter.from_preset(str(tmp_path)), RAW)
    np.testing.assert_allclose(np.asarray(classifier.preprocessor(RAW)), theirs_converted, atol=1e-5)


def test_a_transformers_checkpoint_of_the_same_weights_loads_with_the_same_numbers(reference, tmp_path):
    pytest.importorskip("safetensors")
    folder = vit_transformers_checkpoint(reference, str(tmp_path))
    theirs = keras_hub.models.ImageClassifier.from_preset(folder)  # KerasHub's converter reads the same layout
    np.testing.assert_allclose(np.asarray(theirs(IMAGES)), np.asarray(reference(IMAGES)), atol=1e-5)

    ours = tk_hub.models.ImageClassifier.from_preset(folder)  # num_classes from id2label, classifier.* as the head
    assert type(ours).__name__ == "ViTImageClassifier" and ours.num_classes == NUM_CLASSES
    np.testing.assert_allclose(np.asarray(ours(IMAGES)), np.asarray(reference(IMAGES)), atol=1e-5)
    backbone = tk_hub.models.Backbone.from_preset(folder)
    np.testing.assert_allclose(np.asarray(backbone(IMAGES)), np.asarray(reference.backbone(IMAGES)), atol=1e-5)
    # tfkit reads preprocessor_config.json (KerasHub makes no converter): resize without crop, ImageNet's normalization
    converter = ours.preprocessor.image_converter
    assert type(converter).__name__ == "ViTImageConverter" and converter.image_size == (16, 16)
    expected = keras_hub.layers.ImageConverter.from_config(
        {**vit_converter().get_config(), "crop_to_aspect_ratio": False, "antialias": True}
    )
    np.testing.assert_allclose(np.asarray(converter(RAW)), _in_tf_data(expected, RAW), atol=1e-5)

    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "layer_norm_eps": 1e-12}))  # Transformers' default
    assert tk_hub.models.Backbone.from_preset(folder, load_weights=False).layer_norm_epsilon == 1e-12  # KerasHub: 1e-6
    (tmp_path / "config.json").write_text(json.dumps({**config, "architectures": ["ViTModel"]}))
    with pytest.raises(ValueError, match=r"without a classification head; pass num_classes"):
        tk_hub.models.ImageClassifier.from_preset(folder)


@pytest.mark.parametrize("pooling", ["avg", "max"])
def test_the_generic_image_classifier_pools_a_feature_map_as_keras_hubs(pooling):
    keras.utils.set_random_seed(2)
    inputs = keras.Input((8, 8, 3))
    their_backbone = keras.Model(inputs, keras.layers.Conv2D(4, 3, strides=2, activation="relu")(inputs))
    theirs = keras_hub.models.ImageClassifier(their_backbone, num_classes=5, pooling=pooling, activation="softmax")
    inputs = tfkit.Input((8, 8, 3))
    our_backbone = tfkit.Model(inputs, tfkit.layers.Conv2D(4, 3, strides=2, activation="relu")(inputs))
    ours = tk_hub.models.ImageClassifier(our_backbone, num_classes=5, pooling=pooling, activation="softmax")
    ours.set_weights([np.asarray(w) for w in theirs.weights])
    np.testing.assert_allclose(np.asarray(ours(IMAGES[:, :8, :8])), np.asarray(theirs(IMAGES[:, :8, :8])), atol=1e-6)
    assert type(ours.loss).__name__ == "SparseCategoricalCrossentropy" and not ours.loss.from_logits  # softmax head
    assert theirs.loss.from_logits  # KerasHub compiles before it sets the activation: probabilities taken as logits
    assert {k: v for k, v in ours.get_config().items() if k not in ("backbone", "name")} == {
        "preprocessor": None,
        "num_classes": 5,
        "pooling": pooling,
        "activation": "softmax",
        "dropout": 0.0,
    }


def test_bad_image_shapes_and_poolings_are_refused():
    arguments = {"patch_size": 4, "num_layers": 1, "num_heads": 2, "hidden_dim": 8, "mlp_dim": 16}
    with pytest.raises(ValueError, match=r"image height 10 must be divisible by the patch height 4"):
        tk_hub.models.ViTBackbone(image_shape=(10, 8, 3), **arguments)
    with pytest.raises(ValueError, match=r"known height and width"):
        tk_hub.models.ViTBackbone(image_shape=(None, None, 3), **arguments)
    backbone = tk_hub.models.ViTBackbone(image_shape=(8, 8, 3), **arguments)
    with pytest.raises(ValueError, match=r"expected `pooling` to be 'token' or 'gap', got 'avg'"):
        tk_hub.models.ViTImageClassifier(backbone, num_classes=2, pooling="avg")


def test_a_channels_first_backbone_computes_as_keras_hubs_and_keeps_its_data_format():
    keras.utils.set_random_seed(1)
    arguments = {"image_shape": (3, 8, 8), "patch_size": 4, "num_layers": 1, "num_heads": 2, "hidden_dim": 8}
    theirs = keras_hub.models.ViTBackbone(mlp_dim=16, data_format="channels_first", **arguments)
    ours = tk_hub.models.ViTBackbone(mlp_dim=16, data_format="channels_first", **arguments)
    ours.set_weights([np.asarray(w) for w in theirs.weights])  # same creation order as KerasHub's
    images = IMAGES[:, :8, :8].transpose(0, 3, 1, 2)
    np.testing.assert_allclose(np.asarray(ours(images)), np.asarray(theirs(images)), atol=1e-5)
    rebuilt = tk_hub.models.ViTBackbone.from_config(ours.get_config())
    assert rebuilt.data_format == "channels_first"  # KerasHub's config drops it and rebuilds channels_last
