"""tfkit.layers.regularization: Dropout, SpatialDropout1D/2D, GaussianNoise, ActivityRegularization."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers
from tfkit.engine import masking

RNG = np.random.default_rng(2)


def _positive(*shape):
    return (RNG.uniform(0.5, 1.5, shape)).astype("float32")  # no exact zeros: a zero output means "dropped"


def _roundtrip(layer):
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    assert clone.get_config() == layer.get_config()
    return clone


# ------------------------------------------------------------------ Dropout


def test_dropout_zeroes_and_rescales_while_training_only():
    x = _positive(40, 50)
    layer = layers.Dropout(0.25, seed=3)
    y = layer(x, training=True).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], x[kept] / 0.75, rtol=1e-6)
    assert abs(1 - kept.mean() - 0.25) < 0.03
    np.testing.assert_array_equal(layer(x).numpy(), x)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    assert tuple(y.shape) == layer.compute_output_shape((40, 50))


def test_dropout_gradient_is_the_scaled_keep_mask():
    x = tf.constant(_positive(6, 5))
    layer = layers.Dropout(0.5, seed=1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
        loss = tf.reduce_sum(y)
    expected = (y.numpy() != 0) / 0.5
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), expected, rtol=1e-6)


def test_dropout_draws_new_masks_each_call_and_replays_by_seed():
    x = _positive(8, 16)
    layer = layers.Dropout(0.5, seed=7)
    first, second = layer(x, training=True).numpy(), layer(x, training=True).numpy()
    assert not np.array_equal(first != 0, second != 0)
    replay = layers.Dropout(0.5, seed=7)
    np.testing.assert_array_equal(replay(x, training=True).numpy(), first)
    assert layer.weights == [] and len(layer.variables) == 1  # the seed state is not a weight


def test_dropout_compiles_without_retracing_and_varies_per_step():
    layer = layers.Dropout(0.5, seed=5)
    x = tf.constant(_positive(8, 16))
    for jit in (False, True):
        step = tf.function(lambda t: layer(t, training=True), jit_compile=jit)
        outputs = [step(x).numpy() for _ in range(3)]
        assert step.experimental_get_tracing_count() == 1
        assert not np.array_equal(outputs[0] != 0, outputs[1] != 0)
        for out in outputs:
            kept = out != 0
            np.testing.assert_allclose(out[kept], x.numpy()[kept] * 2, rtol=1e-6)


def test_dropout_follows_a_tensor_training_flag_and_the_outer_call():
    layer = layers.Dropout(0.5, seed=2)
    x = tf.constant(_positive(4, 8))
    step = tf.function(lambda t, flag: layer(t, training=flag))
    assert (step(x, tf.constant(True)).numpy() == 0).any()
    np.testing.assert_array_equal(step(x, tf.constant(False)).numpy(), x.numpy())

    class Block(tfkit.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dropout = layers.Dropout(0.5, seed=4)

        def call(self, inputs):
            return self.dropout(inputs)

    block = Block()
    assert (block(x, training=True).numpy() == 0).any()
    np.testing.assert_array_equal(block(x).numpy(), x.numpy())


def test_dropout_noise_shape_shares_decisions():
    x = _positive(3, 6, 4)
    y = layers.Dropout(0.5, noise_shape=(None, 1, None), seed=9)(x, training=True).numpy()
    dropped = y == 0
    assert dropped.any() and (~dropped).any()
    assert (dropped == dropped[:, :1, :]).all()


def test_dropout_edge_rates_masks_and_config():
    x = _positive(2, 3)
    np.testing.assert_array_equal(layers.Dropout(0.0)(x, training=True).numpy(), x)
    np.testing.assert_array_equal(layers.Dropout(1.0)(x, training=True).numpy(), np.zeros_like(x))
    masked = tf.constant(_positive(2, 3, 4))
    masking.set_mask(masked, tf.constant([[True, False, True], [True, True, False]]))
    out = layers.Dropout(0.5)(masked, training=True)
    np.testing.assert_array_equal(masking.get_mask(out).numpy(), masking.get_mask(masked).numpy())
    layer = layers.Dropout(0.3, noise_shape=(None, 1), seed=11)
    assert layer.get_config()["noise_shape"] == [None, 1]
    clone = _roundtrip(layer)
    np.testing.assert_array_equal(clone(x, training=True).numpy(), layer(x, training=True).numpy())


def test_dropout_errors():
    for bad in (-0.1, 1.5, "half", None):
        with pytest.raises(ValueError, match="rate"):
            layers.Dropout(bad)
    for bad in ("batch", (0, 3), (2.5,)):
        with pytest.raises(ValueError, match="noise_shape"):
            layers.Dropout(0.5, noise_shape=bad)
    with pytest.raises(ValueError, match="seed"):
        layers.Dropout(0.5, seed="abc")


# ---------------------------------------------------------- SpatialDropout


def test_spatial_dropout1d_drops_whole_channels():
    x = _positive(4, 5, 6)
    layer = layers.SpatialDropout1D(0.5, seed=1)
    y = layer(x, training=True).numpy()
    dropped = y == 0
    assert dropped.any() and (~dropped).any()
    assert (dropped == dropped[:, :1, :]).all()
    np.testing.assert_allclose(y[~dropped], x[~dropped] * 2, rtol=1e-6)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    assert "noise_shape" not in layer.get_config()
    _roundtrip(layer)
    with pytest.raises(ValueError, match="rank 3"):
        layers.SpatialDropout1D(0.5)(tf.ones((2, 3)), training=True)


@pytest.mark.parametrize("data_format, channel_axis", [("channels_last", 3), ("channels_first", 1)])
def test_spatial_dropout2d_drops_whole_feature_maps(data_format, channel_axis):
    x = _positive(3, 4, 4, 4)
    y = layers.SpatialDropout2D(0.5, data_format=data_format, seed=2)(x, training=True).numpy()
    dropped = y == 0
    assert dropped.any() and (~dropped).any()
    spatial = tuple(a for a in (1, 2, 3) if a != channel_axis)
    per_map = dropped.all(axis=spatial) | (~dropped).all(axis=spatial)
    assert per_map.all()
    clone = _roundtrip(layers.SpatialDropout2D(0.5, data_format=data_format))
    assert clone.data_format == data_format
    with pytest.raises(ValueError, match="data_format"):
        layers.SpatialDropout2D(0.5, data_format="nchw")


# ------------------------------------------------------------ GaussianNoise


def test_gaussian_noise_adds_noise_of_the_given_stddev_while_training():
    x = np.zeros((50, 40), "float32")
    layer = layers.GaussianNoise(0.3, seed=5)
    noise = layer(x, training=True).numpy()
    assert abs(noise.mean()) < 0.03
    assert noise.std() == pytest.approx(0.3, rel=0.05)
    assert not np.array_equal(noise, layer(x, training=True).numpy())
    np.testing.assert_array_equal(layer(x).numpy(), x)
    step = tf.function(lambda t: layer(t, training=True), jit_compile=True)
    assert step(tf.constant(x)).numpy().std() == pytest.approx(0.3, rel=0.05)
    clone = _roundtrip(layer)
    assert clone.stddev == 0.3 and clone.seed == 5
    with pytest.raises(ValueError, match="stddev"):
        layers.GaussianNoise(-1.0)


def test_gaussian_noise_gradient_is_identity():
    x = tf.constant(_positive(3, 4))
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(layers.GaussianNoise(0.5, seed=1)(x, training=True) * 3.0)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), np.full((3, 4), 3.0))


# --------------------------------------------------- ActivityRegularization


def test_activity_regularization_adds_the_penalty_per_sample():
    x = RNG.standard_normal((4, 3)).astype("float32")
    layer = layers.ActivityRegularization(l1=0.1, l2=0.01)
    y = layer(x)
    np.testing.assert_array_equal(y.numpy(), x)
    expected = (0.1 * np.abs(x).sum() + 0.01 * (x**2).sum()) / 4
    assert len(layer.losses) == 1
    np.testing.assert_allclose(float(layer.losses[0]), expected, rtol=1e-5)
    layer(x[:2])
    assert len(layer.losses) == 1  # losses are per forward pass
    config = layer.get_config()
    assert "activity_regularizer" not in config and config["l1"] == 0.1 and config["l2"] == 0.01
    clone = _roundtrip(layer)
    clone(x)
    np.testing.assert_allclose(float(clone.losses[0]), expected, rtol=1e-5)
    with pytest.raises(ValueError, match="l1"):
        layers.ActivityRegularization(l1=-1.0)


def test_activity_regularization_gradient_matches_numpy():
    x = tf.constant(RNG.standard_normal((2, 3)).astype("float32"))
    layer = layers.ActivityRegularization(l1=0.2, l2=0.5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        layer(x)
        loss = tf.add_n(layer.losses)
    expected = (0.2 * np.sign(x.numpy()) + 0.5 * 2 * x.numpy()) / 2
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), expected, rtol=1e-5)
