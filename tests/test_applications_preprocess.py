"""``preprocess_input`` gives Keras's numbers in every mode and layout; ``decode_predictions`` reads a local class index.

np.testing.assert_array_equal(tfkit.applications.imagenet_utils.preprocess_input(x, mode="torch"), keras_result)
decode_predictions(preds, top=3, class_index_path="imagenet_class_index.json")
"""

from __future__ import annotations

import json

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras.src.applications import imagenet_utils as keras_imagenet_utils

import tfkit
from tfkit.applications import class_index, imagenet_utils


def _images(shape, seed=0):
    return np.random.default_rng(seed).uniform(0, 255, shape).astype("float32")


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
@pytest.mark.parametrize(
    "data_format, shape",
    [
        ("channels_last", (2, 5, 4, 3)),
        ("channels_last", (5, 4, 3)),
        ("channels_first", (2, 3, 5, 4)),
        ("channels_first", (3, 5, 4)),
    ],
)
def test_preprocess_input_matches_keras(mode, data_format, shape):
    x = _images(shape)
    expected = keras.applications.imagenet_utils.preprocess_input(x.copy(), data_format=data_format, mode=mode)
    np.testing.assert_array_equal(
        imagenet_utils.preprocess_input(x.copy(), data_format=data_format, mode=mode), expected
    )
    tensor = imagenet_utils.preprocess_input(tf.constant(x), data_format=data_format, mode=mode)
    keras_tensor = keras.applications.imagenet_utils.preprocess_input(
        tf.constant(x), data_format=data_format, mode=mode
    )
    np.testing.assert_array_equal(tensor.numpy(), np.asarray(keras_tensor))


def test_integer_images_become_float32_as_in_keras():
    x = np.random.default_rng(0).integers(0, 256, (2, 4, 4, 3)).astype("uint8")
    result = imagenet_utils.preprocess_input(x, mode="caffe")
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, keras.applications.imagenet_utils.preprocess_input(x, mode="caffe"))


@pytest.mark.parametrize(
    "module",
    ["resnet50", "resnet", "resnet_v2", "vgg16", "vgg19", "mobilenet", "mobilenet_v2", "densenet", "efficientnet"],
)
def test_each_family_preprocesses_as_keras_does(module):
    x = _images((2, 6, 6, 3))
    expected = getattr(keras.applications, module).preprocess_input(x.copy())
    np.testing.assert_array_equal(getattr(tfkit.applications, module).preprocess_input(x.copy()), expected)


def test_unknown_mode_is_named():
    with pytest.raises(ValueError, match="mode=sklearn"):
        imagenet_utils.preprocess_input(_images((1, 2, 2, 3)), mode="sklearn")


@pytest.fixture
def index_file(tmp_path):
    entries = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    path = tmp_path / "imagenet_class_index.json"
    path.write_text(json.dumps(entries))
    return path, entries


def test_decode_predictions_matches_keras_with_a_local_index(index_file, monkeypatch):
    path, entries = index_file
    monkeypatch.setattr(keras_imagenet_utils, "CLASS_INDEX", entries)  # Keras would download it
    preds = np.random.default_rng(0).random((3, 1000)).astype("float32")
    expected = keras.applications.imagenet_utils.decode_predictions(preds, top=4)
    assert imagenet_utils.decode_predictions(preds, top=4, class_index_path=path) == expected
    monkeypatch.setenv(class_index.ENVIRONMENT_VARIABLE, str(path))
    assert tfkit.applications.resnet50.decode_predictions(preds, top=4) == expected


def test_decode_predictions_without_an_index_says_how_to_give_one(tmp_path, monkeypatch):
    monkeypatch.delenv(class_index.ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no Keras cache there
    with pytest.raises(ValueError, match=r"does not download.*class_index_path=.*TFKIT_IMAGENET_CLASS_INDEX"):
        imagenet_utils.decode_predictions(np.zeros((1, 1000)))


def test_a_bad_index_file_is_named(tmp_path):
    path = tmp_path / "index.json"
    path.write_text(json.dumps({"0": ["n0", "zero"]}))
    with pytest.raises(ValueError, match=r"index\.json.*keys '0' \.\.\. '999'"):
        imagenet_utils.decode_predictions(np.zeros((1, 1000)), class_index_path=path)


def test_decode_predictions_wants_1000_classes(index_file):
    with pytest.raises(ValueError, match=r"\(samples, 1000\).*\(2, 10\)"):
        imagenet_utils.decode_predictions(np.zeros((2, 10)), class_index_path=index_file[0])
