"""Keras 3's 1-D depthwise/separable convolutions and the transposed-convolution aliases."""

import numpy as np
import pytest
import tensorflow as tf
from keras3_crosscheck import config_round_trip, copy_keras_weights, fit_once, h5_round_trip, perturb

import tfkit
from tfkit import layers
from tfkit.base import registry


def test_depthwise_conv1d_by_hand():
    layer = layers.DepthwiseConv1D(2, depth_multiplier=2, use_bias=False)
    x = tf.constant([[[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]]])  # (1, 3 steps, 2 channels)
    layer.build(x.shape)
    layer.kernel.assign([[[1.0, 0.0], [1.0, 2.0]], [[1.0, 1.0], [0.5, 0.0]]])  # kernel[tap, channel, m]
    # output channel c * 2 + m at step t: sum over taps of x[t + tap, c] * kernel[tap, c, m]
    expected = [[1 + 2, 0 + 2, 10 + 10, 20 + 0], [2 + 3, 0 + 3, 20 + 15, 40 + 0]]
    np.testing.assert_allclose(layer(x).numpy()[0], expected)


DEPTHWISE_CASES = [
    dict(kernel_size=3),
    dict(kernel_size=3, depth_multiplier=2, strides=2, padding="same"),
    dict(kernel_size=2, dilation_rate=2, padding="same", data_format="channels_first"),
]


@pytest.mark.parametrize("kwargs", DEPTHWISE_CASES)
def test_depthwise_conv1d_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    x = np.random.RandomState(0).randn(2, 4, 9).astype("float32")
    if kwargs.get("data_format") != "channels_first":
        x = x.transpose(0, 2, 1)
    theirs, ours = keras.layers.DepthwiseConv1D(**kwargs), layers.DepthwiseConv1D(**kwargs)
    theirs.build(x.shape)
    ours.build(x.shape)
    perturb(theirs)
    copy_keras_weights(theirs, ours)
    np.testing.assert_allclose(ours(x).numpy(), keras.ops.convert_to_numpy(theirs(x)), rtol=1e-5, atol=1e-5)
    assert ours.compute_output_shape(x.shape) == tuple(theirs.compute_output_shape(x.shape))
    assert sorted(ours.get_config()) == sorted(theirs.get_config())


SEPARABLE_CASES = [
    dict(filters=3, kernel_size=3),
    dict(filters=5, kernel_size=3, depth_multiplier=2, strides=2, padding="same", activation="relu"),
    dict(filters=2, kernel_size=2, dilation_rate=3, data_format="channels_first", use_bias=False),
]


@pytest.mark.parametrize("kwargs", SEPARABLE_CASES)
def test_separable_conv1d_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    x = np.random.RandomState(1).randn(2, 4, 11).astype("float32")
    if kwargs.get("data_format") != "channels_first":
        x = x.transpose(0, 2, 1)
    theirs, ours = keras.layers.SeparableConv1D(**kwargs), layers.SeparableConv1D(**kwargs)
    theirs.build(x.shape)
    ours.build(x.shape)
    perturb(theirs)
    copy_keras_weights(theirs, ours)
    np.testing.assert_allclose(ours(x).numpy(), keras.ops.convert_to_numpy(theirs(x)), rtol=1e-5, atol=1e-5)
    assert sorted(ours.get_config()) == sorted(theirs.get_config())


def test_keras_names_and_registry():
    assert layers.SeparableConvolution1D is layers.SeparableConv1D
    assert layers.Convolution1DTranspose is layers.Conv1DTranspose
    assert layers.Convolution3DTranspose is layers.Conv3DTranspose
    for name, cls in [
        ("SeparableConvolution1D", layers.SeparableConv1D),
        ("DepthwiseConv1D", layers.DepthwiseConv1D),
        ("Convolution1DTranspose", layers.Conv1DTranspose),
        ("Convolution3DTranspose", layers.Conv3DTranspose),
    ]:
        assert registry.lookup("layers", name) is cls


def test_keras_transpose_aliases_agree_with_keras():
    keras = pytest.importorskip("keras")
    x = np.random.RandomState(2).randn(1, 3, 3, 3, 2).astype("float32")
    theirs = keras.layers.Convolution3DTranspose(2, 2, strides=2)
    ours = layers.Convolution3DTranspose(2, 2, strides=2)
    theirs.build(x.shape)
    ours.build(x.shape)
    perturb(theirs)
    copy_keras_weights(theirs, ours)
    np.testing.assert_allclose(ours(x).numpy(), keras.ops.convert_to_numpy(theirs(x)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "make",
    [
        lambda: layers.DepthwiseConv1D(3, depth_multiplier=2, padding="same", depthwise_regularizer="l2"),
        lambda: layers.SeparableConv1D(4, 3, strides=2, activation="tanh", pointwise_constraint="max_norm"),
        lambda: layers.Convolution1DTranspose(3, 2, strides=2),
    ],
)
def test_config_and_h5_round_trip(make, tmp_path):
    config_round_trip(make())
    h5_round_trip(make, np.random.RandomState(3).rand(3, 8, 2).astype("float32"), tmp_path)


def test_errors_name_the_layer_and_argument():
    with pytest.raises(ValueError, match=r"DepthwiseConv1D layer 'dw' expected `depth_multiplier`.*got 0"):
        layers.DepthwiseConv1D(3, depth_multiplier=0, name="dw")
    with pytest.raises(ValueError, match=r"SeparableConv1D layer 'sep' expected `kernel_size`.*tuple of 1 ints"):
        layers.SeparableConv1D(2, (3, 3), name="sep")
    with pytest.raises(ValueError, match=r"DepthwiseConv1D layer 'dw' expected `padding`"):
        layers.DepthwiseConv1D(3, padding="causal", name="dw")


def test_compiled_fit_with_separable_conv1d():
    inputs = tfkit.Input((8, 3))
    hidden = layers.SeparableConv1D(4, 3, depth_multiplier=2, activation="relu")(inputs)
    hidden = layers.DepthwiseConv1D(2, padding="same")(hidden)
    model = tfkit.Model(inputs, layers.Dense(1)(layers.GlobalAveragePooling1D()(hidden)))
    rng = np.random.RandomState(0)
    fit_once(model, rng.rand(4, 8, 3).astype("float32"), rng.rand(4, 1).astype("float32"))
