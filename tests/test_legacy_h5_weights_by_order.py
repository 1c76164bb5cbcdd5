"""tf-keras ``.h5`` weights whose layer names differ from the model's load by layer order, as Keras 3 loads them.

Keras's ImageNet files for MobileNetV3 name the layers as tf-keras does (``Conv``, ``Conv/BatchNorm``,
``expanded_conv/depthwise``); Keras 3 (and tfkit) name them ``conv``, ``conv_bn``, ``expanded_conv_depthwise``.
Keras 3's legacy loader pairs them by order (``load_weights_from_hdf5_group``); so does tfkit when pairing by
name leaves layers unmatched, all or nothing. Files whose names match still load by name.
"""

from __future__ import annotations

import numpy as np
import pytest
import tf_keras

import tfkit

SHAPE = (96, 96, 3)


def _batch() -> np.ndarray:
    return np.random.RandomState(0).uniform(0, 255, (2, *SHAPE)).astype("float32")


def _saved(tmp_path, name: str, **kwargs) -> tuple[str, np.ndarray]:
    """A tf-keras model saved with ``save_weights(".h5")``, and its predictions."""
    tf_keras.utils.set_random_seed(1)
    theirs = getattr(tf_keras.applications, name)(weights=None, input_shape=SHAPE, **kwargs)
    path = str(tmp_path / f"{name}.h5")
    theirs.save_weights(path)
    return path, theirs.predict(_batch(), verbose=0)


def _snapshot(model) -> list[np.ndarray]:
    return [v.numpy().copy() for v in model.weights]


@pytest.fixture(scope="module")
def small_file(tmp_path_factory):
    return _saved(tmp_path_factory.mktemp("small"), "MobileNetV3Small")


@pytest.fixture(scope="module")
def large_file(tmp_path_factory):
    return _saved(tmp_path_factory.mktemp("large"), "MobileNetV3Large")


@pytest.mark.parametrize("name", ["MobileNetV3Small", "MobileNetV3Large"])
def test_tf_keras_mobilenet_v3_file_loads_through_weights_argument(name, small_file, large_file):
    path, expected = small_file if name == "MobileNetV3Small" else large_file
    ours = getattr(tfkit.applications, name)(weights=path, input_shape=SHAPE)
    np.testing.assert_allclose(ours.predict(_batch(), verbose=0), expected, atol=1e-5)


@pytest.mark.parametrize("name", ["MobileNetV3Small", "MobileNetV3Large"])
def test_tf_keras_mobilenet_v3_file_loads_through_load_weights(name, small_file, large_file):
    path, expected = small_file if name == "MobileNetV3Small" else large_file
    ours = getattr(tfkit.applications, name)(weights=None, input_shape=SHAPE)
    ours.load_weights(path)
    np.testing.assert_allclose(ours.predict(_batch(), verbose=0), expected, atol=1e-5)


def test_by_order_matches_keras3_legacy_loader(small_file):
    """The same arrays land where Keras 3 puts them (its own order-based loader, on its own model)."""
    keras = pytest.importorskip("keras")
    path, _ = small_file
    reference = keras.applications.MobileNetV3Small(weights=None, input_shape=SHAPE)
    reference.load_weights(path)
    ours = tfkit.applications.MobileNetV3Small(weights=path, input_shape=SHAPE)
    want = {layer.name: [np.asarray(w) for w in layer.get_weights()] for layer in reference.layers}
    checked = 0
    for layer in ours.layers:
        if layer.get_weights():
            assert len(layer.get_weights()) == len(want[layer.name])
            for got, expected in zip(layer.get_weights(), want[layer.name]):
                np.testing.assert_array_equal(got, expected)
                checked += 1
    assert checked == len(reference.weights)


def test_other_architecture_fails_clearly_and_loads_nothing(large_file):
    path, _ = large_file
    ours = tfkit.applications.MobileNetV3Small(weights=None, input_shape=SHAPE)
    before = _snapshot(ours)
    with pytest.raises(ValueError, match=r"nothing was loaded") as error:
        ours.load_weights(path)
    message = str(error.value)
    assert "by layer order" in message
    assert "the file has 110 layers with weights, model 'MobileNetV3Small' has 88" in message
    for got, want in zip(_snapshot(ours), before):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match=r"by layer order"):
        tfkit.applications.MobileNetV3Small(weights=path, input_shape=SHAPE)


def test_same_layer_count_but_other_shapes_names_first_mismatch_and_loads_nothing(tmp_path):
    path, _ = _saved(tmp_path, "MobileNetV3Small", alpha=0.75)
    ours = tfkit.applications.MobileNetV3Small(weights=None, input_shape=SHAPE)
    before = _snapshot(ours)
    with pytest.raises(ValueError, match=r"nothing was loaded") as error:
        ours.load_weights(path)
    message = str(error.value)
    first = message.splitlines()[1]  # the first mismatch in order (alpha leaves the first layers' shapes alone)
    assert "by layer order" in first
    assert "layer #26 ('expanded_conv_3/project' in the file, 'expanded_conv_3_project' (Conv2D) in the model)" in first
    assert "file (1, 1, 96, 32) float32, model (1, 1, 96, 40) float32" in first
    assert message.count("layer #") == 1
    for got, want in zip(_snapshot(ours), before):
        np.testing.assert_array_equal(got, want)


def test_matching_names_still_pair_by_name_not_order(tmp_path):
    """Layers listed in another order than the model's, with matching names, load by name (unchanged)."""
    tf_keras.utils.set_random_seed(2)
    inputs = tf_keras.Input((4,))
    theirs = tf_keras.Model(inputs, tf_keras.layers.Dense(4, name="b")(tf_keras.layers.Dense(4, name="a")(inputs)))
    path = str(tmp_path / "named.h5")
    theirs.save_weights(path)
    x = tfkit.Input((4,))
    ours = tfkit.Model(x, tfkit.layers.Dense(4, name="a")(tfkit.layers.Dense(4, name="b")(x)))
    ours.load_weights(path)
    for name in ("a", "b"):
        for got, want in zip(ours.get_layer(name).get_weights(), theirs.get_layer(name).get_weights()):
            np.testing.assert_array_equal(got, want)
