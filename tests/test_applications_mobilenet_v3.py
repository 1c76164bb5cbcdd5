"""MobileNetV3Small and MobileNetV3Large: Keras's parameter counts, ImageNet file names, weights by path, files.

    model = tfkit.applications.MobileNetV3Small(weights=None, input_shape=(32, 32, 3))
    assert model.count_params() == 2_554_968                      # Keras 3.15's figure
With Keras installed, each is also built side by side with Keras's (names, classes, weight shapes, predictions).
"""

from __future__ import annotations

import numpy as np
import pytest

import tfkit
from tfkit.applications import mobilenet_v3

# keras.applications.<function>(weights=None, include_top=..., ...).count_params() in Keras 3.15
KERAS_PARAMS = [
    ("MobileNetV3Small", dict(include_top=True), 2554968),
    ("MobileNetV3Small", dict(include_top=True, minimalistic=True, alpha=0.75, classes=10), 727442),
    ("MobileNetV3Large", dict(include_top=True, alpha=1.25, classes=7), 6696967),
]


def _images(size: int = 32, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, 255, (2, size, size, 3)).astype("float32")


@pytest.mark.parametrize("function, kwargs, expected", KERAS_PARAMS)
def test_parameter_counts_are_keras_s(function, kwargs, expected):
    model = getattr(tfkit.applications, function)(weights=None, input_shape=(32, 32, 3), **kwargs)
    assert model.count_params() == expected


def test_imagenet_weights_are_refused_with_keras_s_file_name():
    with pytest.raises(
        ValueError,
        match=r"(?s)does not download.*mobilenet_v3/weights_mobilenet_v3_large_minimalistic"
        r"_224_1\.0_float_no_top_v2\.h5",
    ):
        tfkit.applications.MobileNetV3Large(include_top=False, minimalistic=True)
    with pytest.raises(ValueError, match=r"weights_mobilenet_v3_small_224_0\.75_float\.h5"):
        tfkit.applications.MobileNetV3Small(alpha=0.75)


def test_imagenet_weights_exist_only_for_keras_s_widths():
    with pytest.raises(ValueError, match=r"alpha can be one of `0\.75`, `1\.0`"):
        tfkit.applications.MobileNetV3Small(alpha=0.5)


def test_inputs_under_32_pixels_are_refused():
    with pytest.raises(ValueError, match=r"at least 32x32.*\(16, 64, 3\)"):
        tfkit.applications.MobileNetV3Small(weights=None, input_shape=(16, 64, 3))


def test_the_model_rescales_its_input_unless_told_not_to():
    x = _images()
    assert mobilenet_v3.preprocess_input(x) is x
    with_rescaling = tfkit.applications.MobileNetV3Small(weights=None, include_top=False, input_shape=(32, 32, 3))
    without = tfkit.applications.MobileNetV3Small(
        weights=None, include_top=False, input_shape=(32, 32, 3), include_preprocessing=False
    )
    assert isinstance(with_rescaling.layers[1], tfkit.layers.Rescaling)
    assert not any(isinstance(layer, tfkit.layers.Rescaling) for layer in without.layers)
    without.set_weights(with_rescaling.get_weights())
    np.testing.assert_allclose(without(x / 127.5 - 1.0), with_rescaling(x), atol=1e-5)


def test_weights_path_and_h5_model_file_round_trip(tmp_path):
    model = tfkit.applications.MobileNetV3Small(weights=None, input_shape=(32, 32, 3), classes=5)
    weights_path, model_path = str(tmp_path / "v3.weights.h5"), str(tmp_path / "v3.h5")
    model.save_weights(weights_path)
    model.save(model_path)
    x = _images()
    tfkit.backend.clear_session()
    by_path = tfkit.applications.MobileNetV3Small(weights=weights_path, input_shape=(32, 32, 3), classes=5)
    np.testing.assert_allclose(by_path(x), model(x), atol=1e-6)
    loaded = tfkit.saving.load_model(model_path)  # hard-sigmoid's operators are stored as data
    np.testing.assert_allclose(loaded(x), model(x), atol=1e-6)


@pytest.fixture(scope="module")
def keras_side():
    pytest.importorskip("keras")
    from tests import applications_compare

    return applications_compare


def test_small_matches_keras_and_takes_its_weights(keras_side, tmp_path):
    keras_side.compare_structure_and_predictions(
        "MobileNetV3Small", str(tmp_path / "keras.weights.h5"), input_shape=(32, 32, 3), classes=6
    )


def test_large_minimalistic_matches_keras(keras_side):
    keras_side.compare_structure(
        "MobileNetV3Large", include_top=False, minimalistic=True, alpha=0.75, input_shape=(32, 32, 3), pooling="max"
    )
