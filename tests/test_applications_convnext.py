"""ConvNeXtTiny ... XLarge: Keras's parameter counts and nested stem, its own layers (LayerScale, StochasticDepth),
ImageNet file names, weights by path; side by side with Keras when installed.

    model = tfkit.applications.ConvNeXtTiny(weights=None, include_top=False, input_shape=(32, 32, 3))
    model = convnext.ConvNeXt([1, 1, 2, 1], [8, 16, 24, 32], weights=None, input_shape=(32, 32, 3))   # any depths
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.applications import convnext
from tfkit.applications.application_layers import LayerScale, StochasticDepth

EVERY_VARIANT = pytest.mark.skipif(
    not os.environ.get("TFKIT_ALL_APPLICATIONS"),
    reason="set TFKIT_ALL_APPLICATIONS=1 to compare every variant with Keras",
)


def _images(seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, 255, (2, 32, 32, 3)).astype("float32")


def test_imagenet_weights_are_refused_with_keras_s_file_name():
    with pytest.raises(ValueError, match=r"(?s)does not download.*convnext/convnext_small_notop\.h5"):
        tfkit.applications.ConvNeXtSmall(include_top=False)


def test_channels_first_is_refused():
    tfkit.config.set_image_data_format("channels_first")
    try:
        with pytest.raises(ValueError, match="channels_first"):
            tfkit.applications.ConvNeXtTiny(weights=None, include_top=False)
    finally:
        tfkit.config.set_image_data_format("channels_last")


def test_layer_scale_and_stochastic_depth():
    x = tf.random.normal((64, 2, 2, 4))
    scale = LayerScale(0.5, 4)
    np.testing.assert_allclose(scale(x), x * 0.5, rtol=1e-6)
    assert [tuple(w.shape) for w in scale.weights] == [(4,)] and "gamma" in scale.weights[0].name
    with pytest.raises(ValueError, match=r"LayerScale layer .* 4 channels .* \(64, 2, 2, 3\)"):
        LayerScale(0.5, 4)(x[..., :3])
    depth = StochasticDepth(0.5, seed=3)
    np.testing.assert_array_equal(depth(x), x)  # inference: identity
    y = depth(x, training=True).numpy()
    kept = [bool(np.any(row)) for row in y]
    assert 0 < sum(kept) < 64  # whole samples dropped ...
    for row, original, keep in zip(y, x.numpy(), kept):
        np.testing.assert_allclose(row, original * 2.0 if keep else 0.0, rtol=1e-6)  # ... the others doubled
    with pytest.raises(ValueError, match=r"drop_path_rate in \[0, 1\), got 1\.5"):
        StochasticDepth(1.5)


def test_little_convnext_has_keras_s_parameters_nested_stem_and_stochastic_depth(tmp_path):
    model = convnext.ConvNeXt(
        [1, 1, 2, 1],
        [8, 16, 24, 32],
        drop_path_rate=0.2,
        name="little",
        weights=None,
        input_shape=(32, 32, 3),
        classes=3,
    )
    assert model.count_params() == 31859  # keras.src.applications.convnext.ConvNeXt(same arguments)
    assert [layer.name for layer in model.layers[1:3]] == ["little_prestem_normalization", "little_stem"]
    stem = model.get_layer("little_stem")
    assert isinstance(stem, tfkit.Sequential)
    assert [layer.name for layer in stem.layers] == ["little_stem_conv", "little_stem_layernorm"]
    x = _images()
    assert convnext.preprocess_input(x) is x
    depths = [layer for layer in model.layers if isinstance(layer, StochasticDepth)]
    assert [layer.drop_path_rate for layer in depths] == pytest.approx([0.05, 0.1, 0.15, 0.2])  # 0 first: identity
    path = str(tmp_path / "little.h5")
    model.save(path)
    loaded = tfkit.saving.load_model(path)
    np.testing.assert_allclose(loaded(x), model(x), atol=1e-6)


@pytest.fixture(scope="module")
def keras_side():
    pytest.importorskip("keras")
    from tests import applications_compare

    return applications_compare


def test_matches_keras(keras_side):
    keras_side.compare_structure("ConvNeXtTiny", input_shape=(32, 32, 3), classes=10)


@EVERY_VARIANT
@pytest.mark.slow
@pytest.mark.parametrize("function", ["ConvNeXtSmall", "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge"])
def test_every_variant_matches_keras(keras_side, function):
    keras_side.compare_structure(function, include_top=False, input_shape=(32, 32, 3), pooling="avg")


def test_keras_weights_file_gives_keras_s_predictions(keras_side, tmp_path):
    """A little ConvNeXt from both builders: Keras 3 stores the nested stem's layers as
    layers/sequential/layers/conv2d/vars/0, and LayerScale's gamma as layers/layer_scale/vars/0."""
    from keras.src.applications.convnext import ConvNeXt as KerasConvNeXt

    arguments = dict(
        depths=[1, 1, 2, 1], projection_dims=[8, 16, 24, 32], name="little", input_shape=(32, 32, 3), classes=6
    )
    keras_side.keras.backend.clear_session()
    tfkit.backend.clear_session()
    keras_model = KerasConvNeXt(**arguments)
    keras_side.randomise(keras_model)
    path = str(tmp_path / "little.weights.h5")
    keras_model.save_weights(path)
    tfkit_model = convnext.ConvNeXt(weights=path, **arguments)
    assert [layer.name for layer in keras_side.layers_of(tfkit_model)] == [layer.name for layer in keras_model.layers]
    x = _images()
    np.testing.assert_allclose(tfkit_model(x), keras_model(x), atol=1e-4)


def test_keras_weights_of_a_nested_model_load(keras_side, tmp_path):
    def build(lib):
        inputs = lib.Input((4,))
        block = lib.Sequential([lib.layers.Dense(3), lib.layers.Dense(2)], name="block")
        return lib.Model(inputs, lib.layers.Dense(1)(block(lib.layers.Dense(4)(inputs))))

    keras_model, tfkit_model = build(keras_side.keras), build(tfkit)
    keras_side.randomise(keras_model)
    path = str(tmp_path / "nested.weights.h5")
    keras_model.save_weights(path)
    tfkit_model.load_weights(path)
    x = np.random.default_rng(0).normal(size=(3, 4)).astype("float32")
    np.testing.assert_allclose(tfkit_model(x), keras_model(x), atol=1e-6)
