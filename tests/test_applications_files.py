"""Files in and out of tfkit's applications: a tf-keras .h5 weights file (the ImageNet files' format) by path,
and a model's config and weights through tfkit's .h5.

    tfkit.applications.MobileNetV2(weights="mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5", ...)
    model.save("m.h5"); tfkit.saving.load_model("m.h5")
"""

from __future__ import annotations

import numpy as np
import tf_keras

import tfkit


def _images(seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, 255, (2, 32, 32, 3)).astype("float32")


def test_tf_keras_h5_weights_file_loads_by_layer_name(tmp_path):
    """Keras's ImageNet files are tf-keras .h5 weight files (weights by layer name): the format of weights=path."""
    legacy = tf_keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(32, 32, 3), alpha=0.35)
    rng = np.random.default_rng(3)
    legacy.set_weights(
        [
            rng.uniform(0.5, 1.5, w.shape) if "variance" in w.name else rng.normal(0, 0.05, w.shape)
            for w in legacy.weights
        ]
    )
    path = str(tmp_path / "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5")
    legacy.save_weights(path)
    model = tfkit.applications.MobileNetV2(weights=path, include_top=False, input_shape=(32, 32, 3), alpha=0.35)
    x = tfkit.applications.mobilenet_v2.preprocess_input(_images())
    np.testing.assert_allclose(model.predict(x, verbose=0), legacy.predict(x, verbose=0), atol=1e-4)


def test_config_round_trip_through_h5(tmp_path):
    model = tfkit.applications.EfficientNetB0(weights=None, include_top=True, input_shape=(32, 32, 3), classes=4)
    path = str(tmp_path / "efficientnet.h5")
    model.save(path)
    loaded = tfkit.saving.load_model(path)
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in model.layers]
    assert loaded.get_config() == model.get_config()
    x = _images()
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), atol=1e-5)


def test_efficientnet_from_keras_imagenet_file_name_rescales_as_keras_imagenet_model(tmp_path):
    """Keras adds Rescaling(1/sqrt(std)) only for its ImageNet weights; a local copy of that file gets it too."""
    plain = tfkit.applications.EfficientNetB0(weights=None, include_top=False, input_shape=(32, 32, 3))
    path = str(tmp_path / "efficientnetb0_notop.h5")
    plain.save_weights(path)
    imagenet = tfkit.applications.EfficientNetB0(weights=path, include_top=False, input_shape=(32, 32, 3))
    rescalings = [layer for layer in imagenet.layers if isinstance(layer, tfkit.layers.Rescaling)]
    assert len(rescalings) == 2 and sum(isinstance(layer, tfkit.layers.Rescaling) for layer in plain.layers) == 1
    np.testing.assert_allclose(rescalings[1].scale, [1 / np.sqrt(s) for s in (0.229, 0.224, 0.225)], rtol=1e-6)
