"""Keras's weights load into tfkit's applications by path and give Keras's predictions (1e-4); configs round-trip.

    keras_model.save_weights("m.weights.h5"); tfkit.applications.ResNet50(weights="m.weights.h5", ...)
    np.testing.assert_allclose(tfkit_model.predict(x), keras_model.predict(x), atol=1e-4)
One model per family, small inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfkit
from tests.applications_compare import build_pair, randomise

FAMILIES = [
    ("VGG16", dict(include_top=False, input_shape=(32, 32, 3))),
    ("MobileNet", dict(include_top=True, input_shape=(32, 32, 3), alpha=0.25, classes=6)),
    ("MobileNetV2", dict(include_top=False, input_shape=(32, 32, 3), alpha=0.35)),
]


def _images(seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, 255, (2, 32, 32, 3)).astype("float32")


@pytest.mark.parametrize("function, kwargs", FAMILIES)
def test_keras_weights_file_loads_by_path_and_predicts_the_same(function, kwargs, tmp_path):
    keras_model, _ = build_pair(function, **kwargs)
    randomise(keras_model)
    path = str(tmp_path / "keras.weights.h5")
    keras_model.save_weights(path)
    tfkit.backend.clear_session()
    tfkit_model = getattr(tfkit.applications, function)(weights=path, **kwargs)
    x = _images()
    np.testing.assert_allclose(tfkit_model.predict(x, verbose=0), keras_model.predict(x, verbose=0), atol=1e-4)


def test_a_weights_file_of_another_model_fails_and_names_the_file(tmp_path):
    keras_model, _ = build_pair("VGG19", include_top=False, input_shape=(32, 32, 3))
    path = str(tmp_path / "vgg19.weights.h5")
    keras_model.save_weights(path)
    with pytest.raises(ValueError, match="vgg19.weights.h5"):
        tfkit.applications.VGG16(weights=path, include_top=False, input_shape=(32, 32, 3))
