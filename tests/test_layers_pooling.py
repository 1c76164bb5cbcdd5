"""Pooling layers against numpy pooling written out as loops over tiny inputs."""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfkit import layers
from tfkit.base import registry
from tfkit.engine import masking

RNG = np.random.default_rng(1)


def rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def np_pool(x, pool, strides, padding, reduce):
    """Windows over channels-last x; with 'same' padding only real positions enter a window."""
    spatial = x.shape[1:-1]
    if padding == "same":
        out = [-(-n // s) for n, s in zip(spatial, strides)]
        before = [max((o - 1) * s + p - n, 0) // 2 for o, s, p, n in zip(out, strides, pool, spatial)]
    else:
        out = [(n - p) // s + 1 for n, p, s in zip(spatial, pool, strides)]
        before = [0] * len(spatial)
    y = np.zeros((x.shape[0], *out, x.shape[-1]), x.dtype)
    for b in range(x.shape[0]):
        for pos in np.ndindex(*out):
            for c in range(x.shape[-1]):
                values = []
                for tap in np.ndindex(*pool):
                    idx = [o * s + t - bf for o, s, t, bf in zip(pos, strides, tap, before)]
                    if all(0 <= i < n for i, n in zip(idx, spatial)):
                        values.append(x[(b, *idx, c)])
                y[(b, *pos, c)] = max(values) if reduce == "max" else sum(values) / len(values)
    return y


WINDOW_CASES = [
    (layers.MaxPooling1D, dict(), (2, 5, 3)),
    (layers.MaxPooling1D, dict(pool_size=3, strides=1, padding="same"), (1, 5, 2)),
    (layers.AveragePooling1D, dict(pool_size=2, strides=3), (1, 8, 2)),
    (layers.AveragePooling1D, dict(pool_size=3, strides=2, padding="same"), (1, 6, 2)),
    (layers.MaxPooling2D, dict(), (2, 5, 4, 2)),
    (layers.MaxPooling2D, dict(pool_size=(3, 2), strides=(1, 2), padding="same"), (1, 5, 5, 2)),
    (layers.MaxPooling2D, dict(pool_size=3, strides=2, padding="same"), (1, 6, 7, 1)),
    (layers.AveragePooling2D, dict(pool_size=(2, 3)), (1, 4, 6, 2)),
    (layers.AveragePooling2D, dict(pool_size=3, strides=2, padding="same"), (1, 5, 4, 2)),
    (layers.MaxPooling3D, dict(pool_size=2, strides=1), (1, 3, 3, 3, 1)),
    (layers.AveragePooling3D, dict(pool_size=2, padding="same"), (1, 3, 3, 2, 2)),
]


@pytest.mark.parametrize("cls, kwargs, shape", WINDOW_CASES)
def test_window_pooling_matches_numpy_loops(cls, kwargs, shape):
    layer = cls(**kwargs)
    x = rand(*shape)
    y = layer(x).numpy()
    reduce = "max" if cls.__name__.startswith("Max") else "average"
    expected = np_pool(x, layer.pool_size, layer.strides, layer.padding, reduce)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape(shape) == y.shape
    assert layer.compute_output_shape((None, *shape[1:])) == (None, *y.shape[1:])
    assert layer.weights == []


def test_strides_default_to_pool_size_and_known_shapes():
    layer = layers.MaxPooling2D((2, 3))
    assert layer.strides == (2, 3)
    assert layer(tf.zeros((1, 5, 7, 1))).shape == (1, 2, 2, 1)
    assert layers.MaxPooling2D(2, padding="same")(tf.zeros((1, 5, 5, 3))).shape == (1, 3, 3, 3)
    assert layers.AveragePooling1D(strides=1)(tf.zeros((2, 4, 1))).shape == (2, 3, 1)
    assert layers.MaxPooling1D(pool_size=3, strides=2).compute_output_shape((None, None, 4)) == (None, None, 4)


def test_same_average_pooling_ignores_padding():
    x = np.ones((1, 3, 3, 1), "float32")
    y = layers.AveragePooling2D(2, strides=1, padding="same")(x).numpy()
    np.testing.assert_allclose(y, np.ones_like(x))


@pytest.mark.parametrize(
    "cls, kwargs, shape",
    [
        (layers.MaxPooling2D, dict(pool_size=(2, 3), strides=(1, 2), padding="same"), (1, 2, 5, 4)),
        (layers.AveragePooling1D, dict(pool_size=2), (2, 3, 5)),
        (layers.GlobalAveragePooling2D, dict(keepdims=True), (2, 3, 4, 5)),
        (layers.GlobalMaxPooling1D, dict(), (2, 3, 4)),
    ],
)
def test_channels_first_equals_transposed_channels_last(cls, kwargs, shape):
    x = rand(*shape)
    perm = [0, *range(2, len(shape)), 1]
    back = [0, len(shape) - 1, *range(1, len(shape) - 1)]
    first = cls(data_format="channels_first", **kwargs)
    y = first(x).numpy()
    y_last = cls(**kwargs)(np.transpose(x, perm)).numpy()
    expected = np.transpose(y_last, back) if y_last.ndim == len(shape) else y_last
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    assert first.compute_output_shape(shape) == y.shape


# ------------------------------------------------------------ global pooling


@pytest.mark.parametrize(
    "cls, rank, reduce",
    [
        (layers.GlobalAveragePooling1D, 1, "average"),
        (layers.GlobalAveragePooling2D, 2, "average"),
        (layers.GlobalAveragePooling3D, 3, "average"),
        (layers.GlobalMaxPooling1D, 1, "max"),
        (layers.GlobalMaxPooling2D, 2, "max"),
        (layers.GlobalMaxPooling3D, 3, "max"),
    ],
)
@pytest.mark.parametrize("keepdims", [False, True])
def test_global_pooling_matches_numpy(cls, rank, reduce, keepdims):
    shape = (2, *[3, 2, 2][:rank], 3)
    x = rand(*shape)
    layer = cls(keepdims=keepdims)
    y = layer(x).numpy()
    expected = np.zeros((2, 3), "float32")
    for b, c in np.ndindex(2, 3):
        values = [x[(b, *pos, c)] for pos in np.ndindex(*shape[1:-1])]
        expected[b, c] = max(values) if reduce == "max" else sum(values) / len(values)
    if keepdims:
        expected = expected.reshape((2, *[1] * rank, 3))
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape(shape) == y.shape
    assert layer.compute_output_shape((None, *shape[1:])) == (None, *y.shape[1:])


def test_global_average_pooling_1d_averages_unmasked_steps():
    x = rand(2, 4, 3)
    mask = np.array([[True, True, False, True], [False, True, False, False]])
    layer = layers.GlobalAveragePooling1D()
    y = layer(x, mask=tf.constant(mask)).numpy()
    expected = np.stack([x[b][mask[b]].mean(axis=0) for b in range(2)])
    np.testing.assert_allclose(y, expected, rtol=1e-5)
    assert masking.get_mask(layer(x, mask=tf.constant(mask))) is None

    carried = tf.constant(x)
    masking.set_mask(carried, tf.constant(mask))
    np.testing.assert_allclose(layer(carried).numpy(), expected, rtol=1e-5)

    first = layers.GlobalAveragePooling1D(data_format="channels_first", keepdims=True)
    y_first = first(np.transpose(x, (0, 2, 1)), mask=tf.constant(mask)).numpy()
    np.testing.assert_allclose(y_first[..., 0], expected, rtol=1e-5)

    np.testing.assert_allclose(layer(x, mask=tf.zeros((2, 4), tf.bool)).numpy(), np.zeros((2, 3)))


def test_masked_global_average_pooling_in_compiled_function():
    layer = layers.GlobalAveragePooling1D()
    x = tf.constant(rand(2, 4, 3))
    mask = tf.constant([[True, False, True, True], [True, True, True, False]])
    f = tf.function(lambda a, m: layer(a, mask=m), jit_compile=True)
    np.testing.assert_allclose(f(x, mask).numpy(), layer(x, mask=mask).numpy(), rtol=1e-5)


# --------------------------------------------------------- compiled variants


@pytest.mark.parametrize(
    "make",
    [
        lambda: layers.MaxPooling2D(pool_size=3, strides=2, padding="same"),
        lambda: layers.MaxPooling2D(2, data_format="channels_first"),
        lambda: layers.AveragePooling2D(pool_size=2, strides=1, padding="same"),
    ],
)
def test_eager_equals_tf_function_equals_jit(make):
    layer = make()
    x = tf.constant(rand(2, 5, 5, 2))
    eager = layer(x).numpy()
    graph, jit = tf.function(layer), tf.function(layer, jit_compile=True)
    np.testing.assert_allclose(graph(x).numpy(), eager, rtol=1e-6)
    np.testing.assert_allclose(jit(x).numpy(), eager, rtol=1e-5, atol=1e-6)
    graph(x * 2.0)
    jit(x * 2.0)
    assert graph.experimental_get_tracing_count() == 1 and jit.experimental_get_tracing_count() == 1


def test_max_pooling_gradient_goes_to_the_window_maximum():
    x = tf.constant(np.arange(16, dtype="float32").reshape(1, 4, 4, 1))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layers.MaxPooling2D()(x)
    grad = tape.gradient(y, x).numpy()[0, :, :, 0]
    expected = np.zeros((4, 4))
    expected[1, 1] = expected[1, 3] = expected[3, 1] = expected[3, 3] = 1
    np.testing.assert_allclose(grad, expected)


# -------------------------------------------------------------------- config


@pytest.mark.parametrize(
    "layer",
    [
        layers.MaxPooling1D(3, strides=1, padding="same", name="pool_a"),
        layers.AveragePooling2D((2, 3), data_format="channels_first"),
        layers.MaxPooling3D(),
        layers.GlobalAveragePooling1D(keepdims=True),
        layers.GlobalMaxPooling2D(data_format="channels_first"),
    ],
)
def test_config_round_trip(layer):
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    assert json.loads(json.dumps(clone.get_config())) == config
    assert registry.resolve("layers", {"class_name": type(layer).__name__, "config": config}).name == layer.name
    shape = (1, *[4] * (layer.input_spec.ndim - 1))
    x = rand(*shape)
    np.testing.assert_allclose(clone(x).numpy(), layer(x).numpy())


def test_config_fields_and_aliases():
    config = layers.MaxPooling2D().get_config()
    assert config["pool_size"] == (2, 2) and config["strides"] == (2, 2)
    assert config["padding"] == "valid" and config["data_format"] == "channels_last"
    assert layers.GlobalAveragePooling2D().get_config()["keepdims"] is False
    assert layers.MaxPool2D is layers.MaxPooling2D and layers.GlobalAvgPool1D is layers.GlobalAveragePooling1D
    assert registry.lookup("layers", "AvgPool2D") is layers.AveragePooling2D
    assert layers.MaxPooling2D().name.startswith("max_pooling2d")


# -------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: layers.MaxPooling2D(0), "pool_size"),
        (lambda: layers.MaxPooling2D((2, 2, 2)), "pool_size"),
        (lambda: layers.AveragePooling1D(2, strides=0), "strides"),
        (lambda: layers.MaxPooling1D(2, padding="causal"), "padding"),
        (lambda: layers.GlobalMaxPooling2D(data_format="NCHW"), "data_format"),
    ],
)
def test_bad_constructor_arguments_raise_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_wrong_inputs_raise_errors_naming_the_layer():
    pool = layers.MaxPooling2D(name="shrink")
    pool(tf.zeros((1, 4, 4, 2)))
    with pytest.raises(ValueError, match="shrink.*rank 4"):
        pool(tf.zeros((1, 4, 2)))
    with pytest.raises(ValueError, match="gap.*rank 3.*rank 4"):  # checked before the first build
        layers.GlobalAveragePooling1D(name="gap")(tf.zeros((1, 4, 4, 2)))
    with pytest.raises(ValueError, match="window does not fit"):
        layers.MaxPooling2D(3)(tf.zeros((1, 2, 5, 1)))


def test_matches_keras_3_when_installed():
    keras = pytest.importorskip("keras")
    x = rand(2, 5, 6, 3)
    pairs = [
        (layers.MaxPooling2D(3, strides=2, padding="same"), keras.layers.MaxPooling2D(3, strides=2, padding="same")),
        (
            layers.AveragePooling2D(3, strides=2, padding="same"),
            keras.layers.AveragePooling2D(3, strides=2, padding="same"),
        ),
        (layers.GlobalMaxPooling2D(keepdims=True), keras.layers.GlobalMaxPooling2D(keepdims=True)),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(x).numpy(), keras.ops.convert_to_numpy(theirs(x)), rtol=1e-5, atol=1e-6)
    seq, mask = rand(2, 4, 3), np.array([[1, 1, 0, 1], [0, 1, 1, 0]], bool)
    expected = keras.ops.convert_to_numpy(keras.layers.GlobalAveragePooling1D()(seq, mask=mask))
    np.testing.assert_allclose(
        layers.GlobalAveragePooling1D()(seq, mask=tf.constant(mask)).numpy(), expected, rtol=1e-5
    )
