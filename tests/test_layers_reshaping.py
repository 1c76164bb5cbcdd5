"""tfkit.layers.reshaping: Flatten, Reshape, Permute, RepeatVector, UpSampling2D, ZeroPadding2D, Cropping2D."""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfkit import layers
from tfkit.engine import masking

RNG = np.random.default_rng(1)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _roundtrip(layer):
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    assert clone.get_config() == layer.get_config()
    return clone


def _check(layer, x, expected):
    """Output == numpy reference, compute_output_shape == real shape, config clone gives the same."""
    out = layer(x)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert tuple(out.shape) == tuple(layer.compute_output_shape(x.shape)) == expected.shape
    np.testing.assert_allclose(_roundtrip(layer)(x).numpy(), expected, rtol=1e-5, atol=1e-6)


def _agree_in_all_modes(layer, x):
    eager = layer(x).numpy()
    graph = tf.function(lambda t: layer(t))
    jit = tf.function(lambda t: layer(t), jit_compile=True)
    np.testing.assert_allclose(graph(x).numpy(), eager, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jit(x).numpy(), eager, rtol=1e-5, atol=1e-6)
    graph(tf.constant(_rand(*x.shape)))
    assert graph.experimental_get_tracing_count() == 1


# ------------------------------------------------------------------ Flatten


def test_flatten_matches_numpy():
    x = _rand(2, 3, 4, 5)
    _check(layers.Flatten(), x, x.reshape(2, -1))
    _check(layers.Flatten(data_format="channels_first"), x, x.transpose(0, 2, 3, 1).reshape(2, -1))
    vector = _rand(4)
    _check(layers.Flatten(), vector, vector.reshape(4, 1))
    assert layers.Flatten().compute_output_shape((None, 3, None)) == (None, None)


def test_flatten_with_unknown_dims_inside_tf_function():
    layer = layers.Flatten()
    step = tf.function(lambda t: layer(t), input_signature=[tf.TensorSpec((None, None, 3))])
    x = _rand(2, 4, 3)
    np.testing.assert_allclose(step(x).numpy(), x.reshape(2, 12))
    _agree_in_all_modes(layers.Flatten(), tf.constant(_rand(2, 3, 4)))


# ------------------------------------------------------------------ Reshape


def test_reshape_matches_numpy_and_infers_minus_one():
    x = _rand(2, 12)
    _check(layers.Reshape((3, 4)), x, x.reshape(2, 3, 4))
    _check(layers.Reshape((-1, 2)), x, x.reshape(2, 6, 2))
    assert layers.Reshape((-1, 2)).compute_output_shape((None, 12)) == (None, 6, 2)
    assert layers.Reshape((-1, 2)).compute_output_shape((None, None)) == (None, None, 2)
    _agree_in_all_modes(layers.Reshape((2, -1)), tf.constant(x))


def test_reshape_errors():
    for bad in ((-1, -1), (0, 3), "3x4", (2.0, 3)):
        with pytest.raises(ValueError, match="target_shape"):
            layers.Reshape(bad)
    with pytest.raises(ValueError, match="'to_5'.*12 values"):
        layers.Reshape((5,), name="to_5")(tf.ones((2, 12)))
    with pytest.raises(ValueError, match="multiple of 5"):
        layers.Reshape((-1, 5))(tf.ones((2, 12)))


# ------------------------------------------------------------------ Permute


def test_permute_matches_numpy():
    x = _rand(2, 3, 4, 5)
    _check(layers.Permute((3, 1, 2)), x, x.transpose(0, 3, 1, 2))
    _check(layers.Permute((2, 1)), x[..., 0], x[..., 0].transpose(0, 2, 1))
    _agree_in_all_modes(layers.Permute((2, 1, 3)), tf.constant(x))


def test_permute_errors():
    for bad in ((0, 1), (1, 3), (1, 1), 2):
        with pytest.raises(ValueError, match="permutation"):
            layers.Permute(bad)
    with pytest.raises(ValueError, match="rank 3"):
        layers.Permute((2, 1))(tf.ones((2, 3, 4, 5)))


# ------------------------------------------------------------- RepeatVector


def test_repeat_vector_matches_numpy():
    x = _rand(2, 3)
    _check(layers.RepeatVector(4), x, np.repeat(x[:, None, :], 4, axis=1))
    with pytest.raises(ValueError, match="positive integer"):
        layers.RepeatVector(0)
    with pytest.raises(ValueError, match="rank 2"):
        layers.RepeatVector(2)(tf.ones((2, 3, 4)))


# ------------------------------------------------------------- UpSampling2D


def _nearest_reference(x, rows, cols):
    batch, height, width, channels = x.shape
    out = np.zeros((batch, height * rows, width * cols, channels), x.dtype)
    for i in range(height * rows):
        for j in range(width * cols):
            out[:, i, j, :] = x[:, i // rows, j // cols, :]
    return out


def _bilinear_reference(x, rows, cols):
    """Half-pixel-centred bilinear resize (TensorFlow's and Keras's convention), by hand."""
    batch, height, width, channels = x.shape

    def taps(size, scale):
        index = []
        for o in range(size * scale):
            src = max((o + 0.5) / scale - 0.5, 0.0)
            low = min(int(np.floor(src)), size - 1)
            high = min(low + 1, size - 1)
            index.append((low, high, src - low))
        return index

    out = np.zeros((batch, height * rows, width * cols, channels), np.float64)
    for i, (i0, i1, wi) in enumerate(taps(height, rows)):
        for j, (j0, j1, wj) in enumerate(taps(width, cols)):
            top = x[:, i0, j0] * (1 - wj) + x[:, i0, j1] * wj
            bottom = x[:, i1, j0] * (1 - wj) + x[:, i1, j1] * wj
            out[:, i, j] = top * (1 - wi) + bottom * wi
    return out.astype(x.dtype)


def test_upsampling2d_nearest_and_bilinear_match_references():
    x = _rand(2, 3, 4, 2)
    _check(layers.UpSampling2D(size=(2, 3)), x, _nearest_reference(x, 2, 3))
    _check(layers.UpSampling2D(size=2, interpolation="bilinear"), x, _bilinear_reference(x, 2, 2))
    first = x.transpose(0, 3, 1, 2)
    _check(
        layers.UpSampling2D(size=(3, 2), data_format="channels_first"),
        first,
        _nearest_reference(x, 3, 2).transpose(0, 3, 1, 2),
    )
    _check(
        layers.UpSampling2D(size=(2, 2), data_format="channels_first", interpolation="bilinear"),
        first,
        _bilinear_reference(x, 2, 2).transpose(0, 3, 1, 2),
    )
    assert layers.UpSampling2D(2).compute_output_shape((None, None, 5, 3)) == (None, None, 10, 3)
    _agree_in_all_modes(layers.UpSampling2D(interpolation="bilinear"), tf.constant(x))


def test_upsampling2d_nearest_gradient_sums_each_block():
    x = tf.constant(_rand(1, 2, 2, 1))
    upstream = _rand(1, 4, 6, 1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(layers.UpSampling2D((2, 3))(x) * upstream)
    expected = upstream.reshape(1, 2, 2, 2, 3, 1).sum(axis=(2, 4))
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), expected, rtol=1e-5)


def test_upsampling2d_errors():
    with pytest.raises(ValueError, match="interpolation"):
        layers.UpSampling2D(interpolation="cubic-ish")
    with pytest.raises(ValueError, match="size"):
        layers.UpSampling2D(size=(0, 2))
    with pytest.raises(ValueError, match="data_format"):
        layers.UpSampling2D(data_format="channels_middle")
    with pytest.raises(ValueError, match="rank 4"):
        layers.UpSampling2D()(tf.ones((2, 3, 4)))


def test_upsampling2d_bilinear_matches_keras():
    keras = pytest.importorskip("keras")
    x = _rand(2, 3, 4, 2)
    ours = layers.UpSampling2D((2, 3), interpolation="bilinear")(x).numpy()
    theirs = np.asarray(keras.layers.UpSampling2D((2, 3), interpolation="bilinear")(x))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------- ZeroPadding2D, Cropping2D


def test_zero_padding2d_matches_numpy():
    x = _rand(2, 3, 4, 2)
    _check(layers.ZeroPadding2D(), x, np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))))
    _check(layers.ZeroPadding2D((2, 0)), x, np.pad(x, ((0, 0), (2, 2), (0, 0), (0, 0))))
    _check(layers.ZeroPadding2D(((1, 2), (0, 3))), x, np.pad(x, ((0, 0), (1, 2), (0, 3), (0, 0))))
    _check(
        layers.ZeroPadding2D(((1, 2), (0, 3)), data_format="channels_first"),
        x,
        np.pad(x, ((0, 0), (0, 0), (1, 2), (0, 3))),
    )
    assert layers.ZeroPadding2D(1).compute_output_shape((None, None, 4, 2)) == (None, None, 6, 2)
    _agree_in_all_modes(layers.ZeroPadding2D(((1, 0), (2, 1))), tf.constant(x))
    for bad in (-1, (1, 2, 3), ((1, 2), (3,)), "same"):
        with pytest.raises(ValueError, match="padding"):
            layers.ZeroPadding2D(bad)


def test_cropping2d_matches_numpy():
    x = _rand(2, 5, 6, 3)
    _check(layers.Cropping2D(((1, 2), (0, 3))), x, x[:, 1:3, 0:3, :])
    _check(layers.Cropping2D(1), x, x[:, 1:4, 1:5, :])
    _check(layers.Cropping2D((0, 2)), x, x[:, :, 2:4, :])
    _check(layers.Cropping2D(((1, 1), (1, 0)), data_format="channels_first"), x, x[:, :, 1:5, 1:])
    assert layers.Cropping2D(1).compute_output_shape((None, None, 6, 3)) == (None, None, 4, 3)
    _agree_in_all_modes(layers.Cropping2D(((1, 0), (2, 1))), tf.constant(x))


def test_cropping2d_errors():
    with pytest.raises(ValueError, match="cropping"):
        layers.Cropping2D(((1, -1), (0, 0)))
    with pytest.raises(ValueError, match="'crop'.*at least one must remain"):
        layers.Cropping2D(((3, 2), (0, 0)), name="crop")(tf.ones((1, 5, 6, 3)))


def test_reshaping_layers_drop_masks():
    x = tf.constant(_rand(2, 3, 4))
    masking.set_mask(x, tf.constant([[True, True, False], [True, False, False]]))
    assert masking.get_mask(layers.Flatten()(x)) is None
    assert masking.get_mask(layers.Reshape((12,))(x)) is None
