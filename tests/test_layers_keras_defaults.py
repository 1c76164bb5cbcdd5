"""Keras 3 defaults that tfkit layers follow.

1. ``data_format=None`` means ``tfkit.config.image_data_format()`` at construction
   time (Keras's ``backend.standardize_data_format``), for convolution, pooling,
   adaptive pooling, ConvLSTM, reshaping, spatial dropout and image preprocessing
   layers; the resolved value is what ``get_config()`` reports, so a saved config
   keeps its layout whatever the global setting is when it is loaded.
2. The built-in RNN cells convert NumPy (float64) states to the layer's compute
   dtype, as Keras 3's ``Layer.__call__`` converts every tensor-like argument.
"""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


@pytest.fixture
def channels_first():
    previous = tfkit.config.image_data_format()
    tfkit.config.set_image_data_format("channels_first")
    try:
        yield
    finally:
        tfkit.config.set_image_data_format(previous)


def _arange(shape):
    return np.arange(np.prod(shape), dtype="float32").reshape(shape)


# (factory, input shape, expected output shape under channels_first)
CHANNELS_FIRST_CASES = {
    "Conv1D": (lambda: layers.Conv1D(2, 3), (1, 3, 6), (1, 2, 4)),
    "Conv2D": (lambda: layers.Conv2D(2, 3), (1, 3, 6, 5), (1, 2, 4, 3)),
    "Conv3D": (lambda: layers.Conv3D(2, 3), (1, 3, 4, 5, 6), (1, 2, 2, 3, 4)),
    "Conv2DTranspose": (lambda: layers.Conv2DTranspose(2, 3), (1, 3, 4, 5), (1, 2, 6, 7)),
    "DepthwiseConv2D": (lambda: layers.DepthwiseConv2D(3, depth_multiplier=2), (1, 3, 5, 6), (1, 6, 3, 4)),
    "SeparableConv2D": (lambda: layers.SeparableConv2D(4, 3), (1, 3, 5, 6), (1, 4, 3, 4)),
    "MaxPooling2D": (lambda: layers.MaxPooling2D(2), (1, 3, 4, 6), (1, 3, 2, 3)),
    "AveragePooling1D": (lambda: layers.AveragePooling1D(2), (1, 3, 6), (1, 3, 3)),
    "GlobalAveragePooling2D": (lambda: layers.GlobalAveragePooling2D(), (1, 3, 4, 6), (1, 3)),
    "GlobalMaxPooling1D": (lambda: layers.GlobalMaxPooling1D(keepdims=True), (1, 3, 6), (1, 3, 1)),
    "AdaptiveAveragePooling2D": (lambda: layers.AdaptiveAveragePooling2D(2), (1, 3, 4, 6), (1, 3, 2, 2)),
    "AdaptiveMaxPooling1D": (lambda: layers.AdaptiveMaxPooling1D(2), (1, 3, 6), (1, 3, 2)),
    "ConvLSTM2D": (lambda: layers.ConvLSTM2D(2, 3), (1, 2, 3, 5, 6), (1, 2, 3, 4)),
    "UpSampling2D": (lambda: layers.UpSampling2D(2), (1, 3, 2, 4), (1, 3, 4, 8)),
    "UpSampling3D": (lambda: layers.UpSampling3D(2), (1, 3, 1, 2, 2), (1, 3, 2, 4, 4)),
    "ZeroPadding1D": (lambda: layers.ZeroPadding1D(1), (1, 3, 4), (1, 3, 6)),
    "ZeroPadding2D": (lambda: layers.ZeroPadding2D(1), (1, 3, 2, 4), (1, 3, 4, 6)),
    "Cropping2D": (lambda: layers.Cropping2D(1), (1, 3, 4, 6), (1, 3, 2, 4)),
    "Cropping3D": (lambda: layers.Cropping3D(1), (1, 3, 4, 4, 6), (1, 3, 2, 2, 4)),
    "SpatialDropout2D": (lambda: layers.SpatialDropout2D(0.5), (1, 3, 4, 6), (1, 3, 4, 6)),
    "SpatialDropout3D": (lambda: layers.SpatialDropout3D(0.5), (1, 3, 2, 4, 6), (1, 3, 2, 4, 6)),
    "Resizing": (lambda: layers.Resizing(4, 8), (1, 3, 2, 4), (1, 3, 4, 8)),
    "CenterCrop": (lambda: layers.CenterCrop(2, 4), (1, 3, 4, 6), (1, 3, 2, 4)),
    "RandomCrop": (lambda: layers.RandomCrop(2, 4, seed=1), (1, 3, 4, 6), (1, 3, 2, 4)),
    "RandomFlip": (lambda: layers.RandomFlip(seed=1), (1, 3, 4, 6), (1, 3, 4, 6)),
    "RandomZoom": (lambda: layers.RandomZoom(0.1, seed=1), (1, 3, 4, 6), (1, 3, 4, 6)),
    "RandomContrast": (lambda: layers.RandomContrast(0.1, seed=1), (1, 3, 4, 6), (1, 3, 4, 6)),
}


@pytest.mark.parametrize("name", sorted(CHANNELS_FIRST_CASES))
def test_data_format_none_follows_the_global_setting(channels_first, name):
    factory, input_shape, output_shape = CHANNELS_FIRST_CASES[name]
    layer = factory()
    assert layer.data_format == "channels_first"
    assert layer.get_config()["data_format"] == "channels_first"
    outputs = layer(_arange(input_shape))
    assert tuple(outputs.shape) == output_shape


@pytest.mark.parametrize("name", ["Conv2D", "MaxPooling2D", "UpSampling2D", "Resizing", "ConvLSTM2D"])
def test_data_format_none_is_channels_last_by_default(name):
    factory, _, _ = CHANNELS_FIRST_CASES[name]
    assert tfkit.config.image_data_format() == "channels_last"
    assert factory().data_format == "channels_last"


def test_data_format_is_resolved_at_construction(channels_first):
    layer = layers.Conv2D(2, 3)
    tfkit.config.set_image_data_format("channels_last")
    assert layer.data_format == "channels_first"
    assert tuple(layer(np.ones((1, 3, 5, 5), "float32")).shape) == (1, 2, 3, 3)


def test_channels_first_values(channels_first):
    x = _arange((1, 2, 2, 4))  # (batch, channels, rows, cols)
    pooled = layers.MaxPooling2D(2)(x).numpy()
    np.testing.assert_array_equal(pooled, x.reshape(1, 2, 1, 2, 2, 2).max(axis=(3, 5)))
    gap = layers.GlobalAveragePooling2D()(x).numpy()
    np.testing.assert_allclose(gap, x.mean(axis=(2, 3)))
    flat = layers.Flatten()(x).numpy()  # channels_first inputs are flattened in channels-last order
    assert layers.Flatten().data_format == "channels_first"
    np.testing.assert_array_equal(flat, x.transpose(0, 2, 3, 1).reshape(1, -1))
    padded = layers.ZeroPadding2D(((0, 0), (1, 0)))(x).numpy()
    np.testing.assert_array_equal(padded, np.pad(x, ((0, 0), (0, 0), (0, 0), (1, 0))))


def test_spatial_dropout_drops_whole_channels_first_maps(channels_first):
    x = np.ones((4, 8, 3, 3), "float32")
    y = layers.SpatialDropout2D(0.5, seed=3)(x, training=True).numpy()
    per_map = y.reshape(4, 8, 9)
    assert np.all(per_map == per_map[:, :, :1])  # each (sample, channel) map kept or dropped whole
    assert set(np.unique(per_map)) <= {0.0, 2.0}


def test_layers_without_a_data_format_stay_steps_first(channels_first):
    # Keras's UpSampling1D and Cropping1D take no data_format: time is axis 1 whatever the setting.
    assert tuple(layers.UpSampling1D(2)(np.ones((1, 3, 4), "float32")).shape) == (1, 6, 4)
    assert tuple(layers.Cropping1D((1, 0))(np.ones((1, 3, 4), "float32")).shape) == (1, 2, 4)
    assert "data_format" not in layers.UpSampling1D(2).get_config()


@pytest.mark.parametrize(
    "name",
    [
        "Conv2D",
        "MaxPooling2D",
        "GlobalAveragePooling2D",
        "AdaptiveAveragePooling2D",
        "UpSampling2D",
        "ZeroPadding2D",
        "SpatialDropout2D",
        "Resizing",
        "RandomFlip",
        "ConvLSTM2D",
    ],
)
def test_saved_channels_last_config_stays_channels_last(name):
    factory, _, _ = CHANNELS_FIRST_CASES[name]
    config = factory().get_config()  # saved under the default setting
    assert config["data_format"] == "channels_last"
    previous = tfkit.config.image_data_format()
    tfkit.config.set_image_data_format("channels_first")
    try:
        restored = type(factory()).from_config(config)
        assert restored.data_format == "channels_last"
        again = layers.deserialize(layers.serialize(restored))
        assert again.data_format == "channels_last"
    finally:
        tfkit.config.set_image_data_format(previous)


def test_saved_channels_first_config_stays_channels_first(channels_first):
    config = layers.Conv2D(2, 3).get_config()
    tfkit.config.set_image_data_format("channels_last")
    assert layers.Conv2D.from_config(config).data_format == "channels_first"


def test_bad_data_format_still_raises(channels_first):
    with pytest.raises(ValueError):
        layers.Conv2D(2, 3, data_format="channels_middle")
    with pytest.raises(ValueError):
        layers.UpSampling2D(2, data_format="nchw")


# ----------------------------------------------------------------- RNN cells


def _numpy_states(rng, count):
    return [rng.standard_normal((2, 4)) for _ in range(count)]  # float64


@pytest.mark.parametrize("cell_class, n_states", [(layers.SimpleRNNCell, 1), (layers.LSTMCell, 2), (layers.GRUCell, 1)])
def test_cells_convert_numpy_states(cell_class, n_states):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5))  # float64 inputs too
    states = _numpy_states(rng, n_states)
    assert all(s.dtype == np.float64 for s in states)
    cell = cell_class(4)
    out_np, new_np = cell(x, states)
    out_tf, new_tf = cell(tf.constant(x, tf.float32), [tf.constant(s, tf.float32) for s in states])
    assert out_np.dtype == tf.float32
    assert all(s.dtype == tf.float32 for s in new_np)
    np.testing.assert_allclose(out_np.numpy(), out_tf.numpy(), rtol=1e-6, atol=1e-6)
    for a, b in zip(new_np, new_tf):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)
    # a single (not listed) NumPy state, and float64 tensors, are converted too
    if n_states == 1:
        out_single, _ = cell(x, states[0])
        np.testing.assert_allclose(out_single.numpy(), out_tf.numpy(), rtol=1e-6, atol=1e-6)
    out_f64, _ = cell(tf.constant(x), [tf.constant(s) for s in states])
    assert out_f64.dtype == tf.float32
    np.testing.assert_allclose(out_f64.numpy(), out_tf.numpy(), rtol=1e-6, atol=1e-6)


def test_simple_rnn_cell_numpy_states_match_numpy_math():
    rng = np.random.default_rng(1)
    x, h = rng.standard_normal((2, 5)), rng.standard_normal((2, 4))
    cell = layers.SimpleRNNCell(4, bias_initializer="ones")
    out, [new_h] = cell(x, [h])
    kernel, recurrent, bias = (w.numpy().astype("float64") for w in (cell.kernel, cell.recurrent_kernel, cell.bias))
    expected = np.tanh(x @ kernel + h @ recurrent + bias)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(new_h.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_cell_keyword_states_are_converted():
    rng = np.random.default_rng(2)
    x, h, c = rng.standard_normal((2, 5)), rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    cell = layers.LSTMCell(4)
    out_kw, _ = cell(x, states=[h, c])
    out_tf, _ = cell(tf.constant(x, tf.float32), [tf.constant(h, tf.float32), tf.constant(c, tf.float32)])
    np.testing.assert_allclose(out_kw.numpy(), out_tf.numpy(), rtol=1e-6, atol=1e-6)


def test_rnn_layer_with_numpy_cell_states_unchanged():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5)).astype("float32")
    h0 = rng.standard_normal((2, 4))
    layer = layers.RNN(layers.GRUCell(4))
    np.testing.assert_allclose(
        layer(x, initial_state=[h0]).numpy(),
        layer(x, initial_state=[h0.astype("float32")]).numpy(),
        rtol=1e-6,
        atol=1e-6,
    )
