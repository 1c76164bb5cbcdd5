"""InceptionV3 and InceptionResNetV2: Keras's parameter counts, blocks, ImageNet file names; side by side with
Keras when installed (InceptionResNetV2 whole with TFKIT_ALL_APPLICATIONS=1, its three block types always).

    model = tfkit.applications.InceptionV3(weights=None, include_top=False, input_shape=(75, 75, 3))
    assert model.count_params() == 21_802_784                     # Keras 3.15's figure
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.applications import imagenet_utils, inception_resnet_v2, inception_v3
from tfkit.applications.application_layers import CustomScaleLayer

EVERY_VARIANT = pytest.mark.skipif(
    not os.environ.get("TFKIT_ALL_APPLICATIONS"),
    reason="set TFKIT_ALL_APPLICATIONS=1 to compare every variant with Keras",
)


def test_inception_v3_parameter_count_is_keras_s():
    model = tfkit.applications.InceptionV3(weights=None, include_top=False, input_shape=(75, 75, 3))
    assert model.count_params() == 21802784  # keras.applications.InceptionV3(include_top=False).count_params()
    assert [layer.name for layer in model.layers if layer.name.startswith("mixed")] == [
        *(f"mixed{i}" for i in range(9)),
        "mixed9_0",
        "mixed9",
        "mixed9_1",
        "mixed10",
    ]


@pytest.mark.parametrize(
    "function, file_name",
    [
        ("InceptionV3", "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5"),
        ("InceptionResNetV2", "inception_resnet_v2/inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5"),
    ],
)
def test_imagenet_weights_are_refused_with_keras_s_file_name(function, file_name):
    with pytest.raises(ValueError, match=rf"(?s){function}: .*does not download.*{file_name}"):
        getattr(tfkit.applications, function)(include_top=False)


@pytest.mark.parametrize("function", ["InceptionV3", "InceptionResNetV2"])
def test_inputs_under_75_pixels_are_refused(function):
    with pytest.raises(ValueError, match=r"at least 75x75.*\(74, 80, 3\)"):
        getattr(tfkit.applications, function)(weights=None, include_top=False, input_shape=(74, 80, 3))


@pytest.mark.parametrize("module", [inception_v3, inception_resnet_v2])
def test_preprocess_input_scales_to_minus_one_one(module):
    x = np.random.default_rng(0).uniform(0, 255, (2, 4, 4, 3)).astype("float32")
    np.testing.assert_array_equal(
        module.preprocess_input(x.copy()), imagenet_utils.preprocess_input(x.copy(), mode="tf")
    )


def test_custom_scale_layer_adds_the_scaled_residual():
    x, up = tf.random.normal((2, 3, 3, 4)), tf.random.normal((2, 3, 3, 4))
    np.testing.assert_allclose(CustomScaleLayer(0.17)([x, up]), x + up * 0.17, rtol=1e-6)
    with pytest.raises(ValueError, match=r"CustomScaleLayer layer .* two tensors"):
        CustomScaleLayer(0.17)(x)


def test_unknown_block_type_is_named():
    with pytest.raises(ValueError, match='Expects "block35", "block17" or "block8", but got: block99'):
        inception_resnet_v2.inception_resnet_block(tfkit.Input((8, 8, 16)), 0.1, "block99", 1)


def _block_model(lib, block, block_type, activation):
    inputs = lib.Input((8, 8, 16))
    return lib.Model(inputs, block(inputs, scale=0.2, block_type=block_type, block_idx=3, activation=activation))


@pytest.fixture(scope="module")
def keras_side():
    pytest.importorskip("keras")
    from tests import applications_compare

    return applications_compare


def test_inception_v3_matches_keras_and_takes_its_weights(keras_side, tmp_path):
    keras_side.compare_structure_and_predictions(
        "InceptionV3", str(tmp_path / "keras.weights.h5"), input_shape=(75, 75, 3), classes=10
    )


@pytest.mark.parametrize("block_type, activation", [("block35", "relu"), ("block17", "relu"), ("block8", None)])
def test_inception_resnet_blocks_match_keras_s(keras_side, tmp_path, block_type, activation):
    from keras.src.applications.inception_resnet_v2 import inception_resnet_block

    keras_side.keras.backend.clear_session()
    tfkit.backend.clear_session()
    keras_model = _block_model(keras_side.keras, inception_resnet_block, block_type, activation)
    tfkit_model = _block_model(tfkit, inception_resnet_v2.inception_resnet_block, block_type, activation)
    assert [layer.name for layer in tfkit_model.layers] == [layer.name for layer in keras_model.layers]
    assert tfkit_model.count_params() == keras_model.count_params()
    keras_side.randomise(keras_model)
    path = str(tmp_path / "block.weights.h5")
    keras_model.save_weights(path)
    tfkit_model.load_weights(path)
    x = np.random.default_rng(2).normal(size=(2, 8, 8, 16)).astype("float32")
    np.testing.assert_allclose(tfkit_model(x), keras_model(x), atol=1e-4)


@EVERY_VARIANT
@pytest.mark.slow
def test_inception_resnet_v2_matches_keras(keras_side, tmp_path):
    keras_side.compare_structure_and_predictions(
        "InceptionResNetV2", str(tmp_path / "keras.weights.h5"), input_shape=(75, 75, 3), classes=10
    )
