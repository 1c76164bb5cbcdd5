"""Xception: Keras's parameter count, input limits, ImageNet file names; side by side with Keras when installed.

model = tfkit.applications.Xception(weights=None, input_shape=(71, 71, 3))
assert model.count_params() == 22_910_480                     # Keras 3.15's figure
"""

from __future__ import annotations

import numpy as np
import pytest

import tfkit
from tfkit.applications import imagenet_utils, xception


def test_parameter_count_is_keras_s():
    model = tfkit.applications.Xception(weights=None, input_shape=(71, 71, 3))
    assert model.count_params() == 22910480  # keras.applications.Xception(weights=None).count_params()
    assert [layer.name for layer in model.layers[-3:]] == ["block14_sepconv2_act", "avg_pool", "predictions"]


def test_imagenet_weights_are_refused_with_keras_s_file_name():
    with pytest.raises(
        ValueError,
        match=r"(?s)Xception: .*does not download.*"
        r"xception/xception_weights_tf_dim_ordering_tf_kernels_notop\.h5",
    ):
        tfkit.applications.Xception(include_top=False)


def test_inputs_under_71_pixels_are_refused():
    with pytest.raises(ValueError, match=r"at least 71x71.*\(70, 80, 3\)"):
        tfkit.applications.Xception(weights=None, include_top=False, input_shape=(70, 80, 3))


def test_preprocess_input_scales_to_minus_one_one():
    x = np.random.default_rng(0).uniform(0, 255, (2, 4, 4, 3)).astype("float32")
    np.testing.assert_array_equal(
        xception.preprocess_input(x.copy()), imagenet_utils.preprocess_input(x.copy(), mode="tf")
    )
    assert xception.preprocess_input(np.full((1, 1, 1, 3), 255.0, "float32")).max() == 1.0


@pytest.fixture(scope="module")
def keras_side():
    pytest.importorskip("keras")
    from tests import applications_compare

    return applications_compare


def test_matches_keras_and_takes_its_weights(keras_side, tmp_path):
    """Its residual convolutions are unnamed: they get Keras's automatic names and Keras's weights."""
    keras_side.compare_structure_and_predictions(
        "Xception", str(tmp_path / "keras.weights.h5"), include_top=False, input_shape=(71, 71, 3), pooling="avg"
    )
