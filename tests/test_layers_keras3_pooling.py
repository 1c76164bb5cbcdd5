"""Keras 3's adaptive pooling layers: bins by hand, side by side with Keras, configs, h5, fit."""

import numpy as np
import pytest
import tensorflow as tf
from keras3_crosscheck import config_round_trip, fit_once, h5_round_trip

import tfkit
from tfkit import layers
from tfkit.base import registry
from tfkit.layers.pooling_adaptive import adaptive_bins

NAMES = [f"Adaptive{kind}Pooling{rank}D" for kind in ("Average", "Max") for rank in (1, 2, 3)]


def test_bins_overlap_like_pytorch_and_keras():
    assert adaptive_bins(5, 3) == [(0, 2), (1, 4), (3, 5)]
    assert adaptive_bins(6, 3) == [(0, 2), (2, 4), (4, 6)]
    assert adaptive_bins(2, 4) == [(0, 1), (0, 1), (1, 2), (1, 2)]


def test_one_dimension_by_hand():
    x = tf.constant([[[1.0], [2.0], [3.0], [4.0], [5.0]]])  # bins [0, 2), [1, 4), [3, 5)
    np.testing.assert_allclose(layers.AdaptiveAveragePooling1D(3)(x).numpy()[0, :, 0], [1.5, 3.0, 4.5])
    np.testing.assert_allclose(layers.AdaptiveMaxPooling1D(3)(x).numpy()[0, :, 0], [2.0, 4.0, 5.0])


def test_two_dimensions_by_hand_channels_first():
    x = tf.reshape(tf.range(12, dtype=tf.float32), (1, 1, 3, 4))  # rows [0..3], [4..7], [8..11]
    # output (2, 2): row bins [0, 2), [1, 3); column bins [0, 2), [2, 4)
    average = layers.AdaptiveAveragePooling2D(2, data_format="channels_first")(x).numpy()[0, 0]
    np.testing.assert_allclose(
        average, [[(0 + 1 + 4 + 5) / 4, (2 + 3 + 6 + 7) / 4], [(4 + 5 + 8 + 9) / 4, (6 + 7 + 10 + 11) / 4]]
    )
    maximum = layers.AdaptiveMaxPooling2D((2, 2), data_format="channels_first")(x).numpy()[0, 0]
    np.testing.assert_allclose(maximum, [[5.0, 7.0], [9.0, 11.0]])


CASES = [((2, 9, 3), 4), ((2, 3, 3), 5), ((2, 7, 10, 3), (3, 4)), ((1, 5, 4, 6, 2), (2, 3, 4)), ((1, 4, 4, 4, 2), 2)]


@pytest.mark.parametrize("kind", ["Average", "Max"])
@pytest.mark.parametrize("shape,output_size", CASES)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_matches_keras(kind, shape, output_size, data_format):
    keras = pytest.importorskip("keras")
    name = f"Adaptive{kind}Pooling{len(shape) - 2}D"
    x = np.random.RandomState(0).randn(*shape).astype("float32")
    ours = getattr(layers, name)(output_size, data_format=data_format)
    theirs = getattr(keras.layers, name)(output_size, data_format=data_format)
    expected = keras.ops.convert_to_numpy(theirs(x))
    np.testing.assert_allclose(ours(x).numpy(), expected, rtol=1e-5, atol=1e-5)
    assert ours.compute_output_shape(shape) == tuple(theirs.compute_output_shape(shape))
    config, keras_config = ours.get_config(), theirs.get_config()
    assert {k: config[k] for k in ("output_size", "data_format")} == {
        k: tuple(keras_config[k]) if k == "output_size" else keras_config[k] for k in ("output_size", "data_format")
    }


@pytest.mark.parametrize("name", NAMES)
def test_registered_config_round_trip_and_h5(name, tmp_path):
    rank = int(name[-2])
    layer_class = getattr(layers, name)
    assert registry.lookup("layers", name) is layer_class
    config_round_trip(layer_class(2, data_format="channels_first"))
    data = np.random.RandomState(1).rand(3, *(5,) * rank, 2).astype("float32")
    loaded = h5_round_trip(lambda: layer_class((2,) * rank), data, tmp_path)
    assert loaded.output_shape == (None, *(2,) * rank, 2)


def test_errors_name_the_layer_and_argument():
    with pytest.raises(ValueError, match=r"AdaptiveMaxPooling2D layer 'pool'.*`output_size`.*got 0"):
        layers.AdaptiveMaxPooling2D(0, name="pool")
    with pytest.raises(TypeError, match=r"AdaptiveAveragePooling2D layer 'pool'.*tuple of 2 ints.*\(1, 2, 3\)"):
        layers.AdaptiveAveragePooling2D((1, 2, 3), name="pool")
    with pytest.raises(ValueError, match=r"AdaptiveAveragePooling1D layer 'pool' needs every spatial size known"):
        layers.AdaptiveAveragePooling1D(2, name="pool")(tfkit.Input((None, 3)))
    with pytest.raises(ValueError, match=r"'pool' \(AdaptiveMaxPooling1D\) expected input of rank 3"):
        layers.AdaptiveMaxPooling1D(2, name="pool")(tf.ones((2, 3)))


def test_gradients_reach_the_binned_positions():
    x = tf.Variable([[[1.0], [3.0], [2.0], [0.0], [5.0]]])
    with tf.GradientTape(persistent=True) as tape:
        average = tf.reduce_sum(layers.AdaptiveAveragePooling1D(3)(x))
        maximum = tf.reduce_sum(layers.AdaptiveMaxPooling1D(3)(x))
    # average bins [0, 2), [1, 4), [3, 5): position 1 sits in two bins, weights 1/2 + 1/3
    np.testing.assert_allclose(tape.gradient(average, x).numpy()[0, :, 0], [0.5, 0.5 + 1 / 3, 1 / 3, 1 / 3 + 0.5, 0.5])
    np.testing.assert_allclose(tape.gradient(maximum, x).numpy()[0, :, 0], [0.0, 2.0, 0.0, 0.0, 1.0])


def test_compiled_fit_with_adaptive_pooling():
    inputs = tfkit.Input((6, 6, 2))
    hidden = layers.Conv2D(3, 3, padding="same")(inputs)
    pooled = layers.AdaptiveAveragePooling2D((2, 3))(hidden)
    model = tfkit.Model(inputs, layers.Dense(1)(layers.Flatten()(pooled)))
    rng = np.random.RandomState(0)
    fit_once(model, rng.rand(4, 6, 6, 2).astype("float32"), rng.rand(4, 1).astype("float32"))
