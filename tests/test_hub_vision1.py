"""DeiT and DINOv2 in tfkit.hub against KerasHub: presets both ways, weight files, a Transformers checkpoint, a training step.

A tiny random DeiT image classifier preset is made by KerasHub itself (``hub_presets_vision1``); tfkit loads it
and must compute KerasHub's logits on the same images, hold the same weight paths and config keys, save presets
KerasHub loads with the same numbers, read the Transformers checkpoint of the same weights, and train on raw images.
"""

import json

import numpy as np
import pytest
from hub_presets import keras, keras_hub
from hub_presets_vision1 import (
    DINOV2_ARGUMENTS,
    NUM_CLASSES,
    deit_converter,
    deit_preset,
    deit_transformers_checkpoint,
    dinov2_backbone,
    dinov2_preset,
    dinov2_transformers_checkpoint,
)

import tfkit
import tfkit.hub as tk_hub
from tfkit.hub.models.deit.deit_image_converter import DeiTImageConverter
from tfkit.hub.models.dinov2.dinov2_image_converter import DINOV2ImageConverter

RANDOM = np.random.RandomState(0)
IMAGES = RANDOM.uniform(-1, 1, size=(3, 16, 16, 3)).astype("float32")  # what the backbone takes
RAW = RANDOM.randint(0, 256, size=(4, 20, 28, 3)).astype("uint8")  # what the preprocessor takes
LABELS = np.array([0, 2, 1, 2])


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return deit_preset(str(tmp_path_factory.mktemp("deit_preset")))


@pytest.fixture(scope="module")
def reference(preset):
    return keras_hub.models.ImageClassifier.from_preset(preset)


@pytest.fixture(scope="module")
def classifier(preset, reference):
    return tk_hub.models.ImageClassifier.from_preset(preset)


def test_deit_preset_loads_with_keras_hubs_numbers_weight_paths_and_config(preset, reference, classifier):
    assert isinstance(classifier, tk_hub.models.DeiTImageClassifier) and classifier.num_classes == NUM_CLASSES
    assert isinstance(classifier.preprocessor, tk_hub.models.DeiTImageClassifierPreprocessor)
    assert isinstance(classifier.preprocessor.image_converter, DeiTImageConverter)
    assert [w.path for w in classifier.weights] == [w.path for w in reference.weights]
    for ours, theirs in zip(classifier.weights, reference.weights):
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    np.testing.assert_allclose(np.asarray(classifier(IMAGES)), np.asarray(reference(IMAGES)), atol=1e-5)
    backbone, their_backbone = classifier.backbone, reference.backbone
    np.testing.assert_allclose(np.asarray(backbone(IMAGES)), np.asarray(their_backbone(IMAGES)), atol=1e-5)
    assert backbone(IMAGES).shape == (3, 2 + 16, 16)  # class and distillation tokens first
    theirs = set(their_backbone.get_config())
    assert set(backbone.get_config()) == theirs | {"data_format"}  # tfkit keeps the data format
    assert set(classifier.get_config()) == set(reference.get_config())
    predicted = classifier.predict(RAW, batch_size=3, verbose=0)  # raw images, converted in tf.data
    np.testing.assert_allclose(predicted, reference.predict(RAW, batch_size=3, verbose=0), atol=1e-4)


def test_deit_saved_preset_and_weight_files_load_in_keras_hub(classifier, preset, tmp_path):
    classifier.save_to_preset(str(tmp_path))
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == "keras_hub>DeiTBackbone" and config["config"]["patch_size"] == [4, 4]
    converter = json.loads((tmp_path / "image_converter.json").read_text())
    assert converter["registered_name"] == "keras_hub>DeiTImageConverter"
    theirs = keras_hub.models.ImageClassifier.from_preset(str(tmp_path))
    assert type(theirs).__name__ == "DeiTImageClassifier"
    np.testing.assert_allclose(np.asarray(theirs(IMAGES)), np.asarray(classifier(IMAGES)), atol=1e-5)

    for arguments in ({}, {"pooling": "gap"}):
        theirs = keras_hub.models.DeiTImageClassifier(
            backbone=keras_hub.models.DeiTBackbone.from_preset(preset), num_classes=NUM_CLASSES, **arguments
        )
        theirs.save_weights(str(tmp_path / "theirs.weights.h5"))
        ours = tk_hub.models.DeiTImageClassifier(
            tk_hub.models.DeiTBackbone.from_preset(preset, load_weights=False), num_classes=NUM_CLASSES, **arguments
        )
        ours.load_weights(str(tmp_path / "theirs.weights.h5"))
        np.testing.assert_allclose(np.asarray(ours(IMAGES)), np.asarray(theirs(IMAGES)), atol=1e-5)
        ours.output_dense.bias.assign([1.0, 2.0, 3.0])
        ours.save_weights(str(tmp_path / "ours.weights.h5"))
        theirs.load_weights(str(tmp_path / "ours.weights.h5"))
        np.testing.assert_allclose(np.asarray(theirs(IMAGES)), np.asarray(ours(IMAGES)), atol=1e-5)


def test_deit_transformers_checkpoint_loads_with_the_same_numbers(reference, tmp_path):
    pytest.importorskip("safetensors")
    folder = deit_transformers_checkpoint(reference, str(tmp_path))
    theirs = keras_hub.models.ImageClassifier.from_preset(folder)  # KerasHub's converter reads the same layout
    np.testing.assert_allclose(np.asarray(theirs(IMAGES)), np.asarray(reference(IMAGES)), atol=1e-5)
    ours = tk_hub.models.ImageClassifier.from_preset(folder)  # cls_classifier.* as the head
    assert type(ours).__name__ == "DeiTImageClassifier" and ours.num_classes == NUM_CLASSES
    np.testing.assert_allclose(np.asarray(ours(IMAGES)), np.asarray(reference(IMAGES)), atol=1e-5)
    backbone = tk_hub.models.Backbone.from_preset(folder)
    np.testing.assert_allclose(np.asarray(backbone(IMAGES)), np.asarray(reference.backbone(IMAGES)), atol=1e-5)
    converter = ours.preprocessor.image_converter
    assert type(converter).__name__ == "DeiTImageConverter" and converter.image_size == (16, 16)
    expected = keras_hub.layers.ImageConverter.from_config(
        {**deit_converter().get_config(), "crop_to_aspect_ratio": False, "antialias": True}
    )
    np.testing.assert_allclose(np.asarray(converter(RAW)), np.asarray(expected(RAW.astype("float32"))), atol=1e-4)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "architectures": ["DeiTModel"]}))
    with pytest.raises(ValueError, match=r"without a classification head; pass num_classes"):
        tk_hub.models.ImageClassifier.from_preset(folder)


def test_deit_trains_one_step_on_raw_images_with_keras_hubs_compile_defaults(preset):
    classifier = tk_hub.models.ImageClassifier.from_preset(preset)
    theirs = keras_hub.models.ImageClassifier.from_preset(preset)
    assert type(classifier.loss).__name__ == type(theirs.loss).__name__ and classifier.loss.from_logits
    assert type(classifier.optimizer).__name__ == type(theirs.optimizer).__name__
    before = [np.asarray(w).copy() for w in classifier.trainable_weights]
    classifier.fit(RAW, LABELS, batch_size=4, epochs=1, verbose=0)
    after = [np.asarray(w) for w in classifier.trainable_weights]
    assert any(not np.allclose(a, b) for a, b in zip(before, after))


def test_deit_refuses_bad_shapes_and_poolings_and_keeps_channels_first():
    arguments = {"patch_size": 4, "num_layers": 1, "num_heads": 2, "hidden_dim": 8, "intermediate_dim": 16}
    with pytest.raises(ValueError, match=r"image height 10 must be divisible by the patch height 4"):
        tk_hub.models.DeiTBackbone(image_shape=(10, 8, 3), **arguments)
    backbone = tk_hub.models.DeiTBackbone(image_shape=(8, 8, 3), **arguments)
    with pytest.raises(ValueError, match=r"expected `pooling` to be 'token' or 'gap', got 'avg'"):
        tk_hub.models.DeiTImageClassifier(backbone, num_classes=2, pooling="avg")
    keras.utils.set_random_seed(1)
    theirs = keras_hub.models.DeiTBackbone(image_shape=(3, 8, 8), data_format="channels_first", **arguments)
    ours = tk_hub.models.DeiTBackbone(image_shape=(3, 8, 8), data_format="channels_first", **arguments)
    ours.set_weights([np.random.RandomState(3).normal(0, 0.2, w.shape) for w in theirs.weights])
    theirs.set_weights([np.asarray(w) for w in ours.weights])
    images = IMAGES[:, :8, :8].transpose(0, 3, 1, 2)
    np.testing.assert_allclose(np.asarray(ours(images)), np.asarray(theirs(images)), atol=1e-5)
    assert tk_hub.models.DeiTBackbone.from_config(ours.get_config()).data_format == "channels_first"


# --- DINOv2 ---


@pytest.fixture(scope="module")
def dinov2_folder(tmp_path_factory):
    return dinov2_preset(str(tmp_path_factory.mktemp("dinov2_preset")))


def test_dinov2_preset_loads_with_keras_hubs_numbers_weight_paths_and_config(dinov2_folder, tmp_path):
    theirs = keras_hub.models.Backbone.from_preset(dinov2_folder)
    ours = tk_hub.models.Backbone.from_preset(dinov2_folder)
    assert isinstance(ours, tk_hub.models.DINOV2Backbone)
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    for mine, their in zip(ours.weights, theirs.weights):
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(their))
    np.testing.assert_allclose(np.asarray(ours({"images": IMAGES})), np.asarray(theirs({"images": IMAGES})), atol=1e-5)
    assert ours({"images": IMAGES}).shape == (3, 1 + 1 + 16, 16)  # class token, one register, 4x4 patches
    assert set(ours.get_config()) == set(theirs.get_config()) | {"data_format"}  # tfkit keeps the data format
    assert sorted(ours.pyramid_outputs) == sorted(theirs.pyramid_outputs) == ["stage1", "stage2", "stem"]
    fresh = tk_hub.models.DINOV2Backbone.from_config(ours.get_config())  # interpolated at build, as KerasHub
    np.testing.assert_allclose(
        np.asarray(fresh.embeddings.interpolated_position_embeddings),
        np.asarray(
            theirs.embeddings._interpolate_position_embeddings(
                fresh.embeddings.position_embeddings, 4, (32, 32), (16, 16)
            )
        ),
        atol=1e-6,
    )

    ours.save_to_preset(str(tmp_path))
    again = keras_hub.models.Backbone.from_preset(str(tmp_path))
    assert type(again).__name__ == "DINOV2Backbone"
    np.testing.assert_allclose(np.asarray(again({"images": IMAGES})), np.asarray(ours({"images": IMAGES})), atol=1e-5)


def test_dinov2_image_converter_matches_keras_hubs():
    config = {"image_size": (16, 16), "scale": 1 / 255, "offset": -0.5, "crop_to_aspect_ratio": False}
    ours, theirs = DINOV2ImageConverter(**config), keras_hub.layers.DINOV2ImageConverter(**config)
    floats = RAW.astype("float32")
    np.testing.assert_allclose(np.asarray(ours(floats)), np.asarray(theirs(floats)), atol=1e-5)
    drop = ("name", "dtype")
    assert {k: v for k, v in ours.get_config().items() if k not in drop} == {
        k: v for k, v in theirs.get_config().items() if k not in drop
    } | {"data_format": "channels_last"}


@pytest.mark.parametrize(
    "model_type, arguments",
    [("dinov2", {"use_swiglu_ffn": True}), ("dinov2_with_registers", {"num_register_tokens": 2})],
)
def test_dinov2_transformers_checkpoint_loads_with_the_same_numbers(model_type, arguments, tmp_path):
    pytest.importorskip("safetensors")
    source = dinov2_backbone(position_size=16, **arguments)
    folder = dinov2_transformers_checkpoint(source, str(tmp_path), model_type)
    theirs = keras_hub.models.Backbone.from_preset(folder)  # KerasHub's converter reads the same folder
    ours = tk_hub.models.Backbone.from_preset(folder)
    assert isinstance(ours, tk_hub.models.DINOV2Backbone) and ours.apply_layernorm
    expected = np.asarray(source({"images": IMAGES}))
    np.testing.assert_allclose(np.asarray(theirs({"images": IMAGES})), expected, atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours({"images": IMAGES})), expected, atol=1e-5)
    assert ours.antialias_in_interpolation == theirs.antialias_in_interpolation == (model_type != "dinov2")
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "layer_norm_eps": 1e-12}))
    with pytest.raises(ValueError, match=r"layer_norm_eps=1e-12; DINOV2Backbone builds 1e-06"):
        tk_hub.models.Backbone.from_preset(folder)


def test_dinov2_trains_one_step_and_refuses_non_square_images():
    backbone = tk_hub.models.DINOV2Backbone(
        image_shape=(16, 16, 3), position_embedding_shape=(32, 32, 3), drop_path_rate=0.1, **DINOV2_ARGUMENTS
    )
    inputs = tfkit.Input((16, 16, 3))
    model = tfkit.Model(inputs, tfkit.layers.Dense(3)(backbone({"images": inputs})[:, 0]))
    model.compile(optimizer="adam", loss=tfkit.losses.SparseCategoricalCrossentropy(from_logits=True))
    before = [np.asarray(w).copy() for w in backbone.trainable_weights]
    model.fit(IMAGES, LABELS[:3], batch_size=3, epochs=1, verbose=0)
    assert any(not np.allclose(a, np.asarray(b)) for a, b in zip(before, backbone.trainable_weights))
    with pytest.raises(ValueError, match=r"height and width must be equal"):
        tk_hub.models.DINOV2Backbone(image_shape=(16, 8, 3), **DINOV2_ARGUMENTS)
