"""SpectralNormalization: power iteration by hand in numpy, side by side with Keras 3, training-only updates, h5, fit."""

import json

import numpy as np
import pytest
import tensorflow as tf
from keras3_crosscheck import config_round_trip, fit_once, weight_name

import tfkit
from tfkit import layers

RNG = np.random.RandomState(3)


def numpy_normalized(kernel, u, iterations):
    """Keras's power iteration in numpy: (new u, kernel / sigma)."""
    w = kernel.reshape(-1, kernel.shape[-1]).astype("float64")
    u = u.astype("float64")
    for _ in range(iterations):
        v = u @ w.T
        v = v / np.linalg.norm(v)
        u = v @ w
        u = u / np.linalg.norm(u)
    sigma = (v @ w @ u.T).item()
    return u, kernel / sigma


def built(layer, x):
    layer(x)
    return layer


def test_a_training_call_normalizes_the_kernel_as_numpy_does():
    x = RNG.randn(2, 4).astype("float32")
    layer = built(layers.SpectralNormalization(layers.Dense(3, name="inner"), power_iterations=3, name="sn"), x)
    kernel, u = RNG.randn(4, 3).astype("float32"), RNG.randn(1, 3).astype("float32")
    layer.layer.kernel.assign(kernel)
    layer.layer.bias.assign([0.5, -0.5, 1.0])
    layer.vector_u.assign(u)
    want_u, want_kernel = numpy_normalized(kernel, u, 3)
    y = layer(x, training=True).numpy()
    np.testing.assert_allclose(layer.layer.kernel.numpy(), want_kernel, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.vector_u.numpy(), want_u, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, x @ want_kernel + [0.5, -0.5, 1.0], rtol=1e-5, atol=1e-5)
    for _ in range(30):  # the estimate converges: sigma_max -> 1
        layer(x, training=True)
    assert np.linalg.svd(layer.layer.kernel.numpy(), compute_uv=False)[0] == pytest.approx(1.0, abs=1e-4)


def test_inference_calls_change_nothing_and_a_zero_kernel_is_left_alone():
    x = RNG.randn(2, 4).astype("float32")
    layer = built(layers.SpectralNormalization(layers.Dense(3)), x)
    before = [w.numpy().copy() for w in layer.weights]
    layer(x)
    layer(x, training=False)
    tf.function(lambda t: layer(t))(x)
    assert all(np.array_equal(b, w.numpy()) for b, w in zip(before, layer.weights))
    layer.layer.kernel.assign(tf.zeros((4, 3)))
    u = layer.vector_u.numpy().copy()
    layer(x, training=True)
    assert not layer.layer.kernel.numpy().any() and np.array_equal(layer.vector_u.numpy(), u)


def test_weights_state_and_the_compiled_training_step():
    x = RNG.randn(2, 5, 5, 2).astype("float32")
    layer = built(layers.SpectralNormalization(layers.Conv2D(4, 3), name="sn"), x)
    assert {weight_name(w): (tuple(w.shape), w.trainable) for w in layer.weights} == {
        "vector_u": ((1, 4), False),
        "kernel": ((3, 3, 2, 4), True),
        "bias": ((4,), True),
    }
    assert [weight_name(w) for w in layer.trainable_weights] == ["kernel", "bias"]
    u = layer.vector_u.numpy().copy()
    step = tf.function(lambda t: layer(t, training=True))
    step(x)
    assert not np.array_equal(u, layer.vector_u.numpy())
    assert np.linalg.svd(layer.layer.kernel.numpy().reshape(-1, 4), compute_uv=False)[0] < 1.5


@pytest.mark.parametrize(
    "make, shape, iterations",
    [
        (lambda k: k.layers.Dense(3), (2, 4), 1),
        (lambda k: k.layers.Dense(5), (2, 3, 4), 2),
        (lambda k: k.layers.Conv2D(3, 2), (2, 4, 4, 2), 3),
    ],
)
def test_matches_keras(make, shape, iterations):
    keras = pytest.importorskip("keras")
    x = RNG.randn(*shape).astype("float32")
    theirs = built(keras.layers.SpectralNormalization(make(keras), power_iterations=iterations), x)
    ours = built(layers.SpectralNormalization(make(tfkit), power_iterations=iterations), x)
    their_weights = {weight_name(w): w for w in theirs.weights}
    assert {weight_name(w): tuple(w.shape) for w in ours.weights} == {
        k: tuple(w.shape) for k, w in their_weights.items()
    }
    for w in ours.weights:
        value = RNG.uniform(-0.5, 0.5, w.shape).astype("float32")
        w.assign(value)
        their_weights[weight_name(w)].assign(value)
    np.testing.assert_allclose(ours(x).numpy(), keras.ops.convert_to_numpy(theirs(x)), rtol=1e-5, atol=1e-6)
    for _ in range(2):
        got, want = ours(x, training=True).numpy(), keras.ops.convert_to_numpy(theirs(x, training=True))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    for w in ours.weights:
        np.testing.assert_allclose(w.numpy(), np.asarray(their_weights[weight_name(w)]), rtol=1e-4, atol=1e-6)
    config, keras_config = ours.get_config(), theirs.get_config()
    assert set(config) == set(keras_config) and config["power_iterations"] == keras_config["power_iterations"]


def test_an_embedding_gives_floats():
    ids = np.array([[1, 4, 2]])
    layer = layers.SpectralNormalization(layers.Embedding(6, 3))
    y = layer(ids, training=True)
    assert y.dtype == tf.float32 and y.shape == (1, 3, 3)
    assert layer.vector_u.shape == (1, 3)


def test_functional_model_saves_loads_and_fits(tmp_path):
    x = tfkit.Input((4,))
    sn = layers.SpectralNormalization(layers.Dense(3), power_iterations=2, name="sn")
    model = tfkit.Model(x, layers.Dense(1)(sn(x)))
    assert model.output_shape == (None, 1)
    data, target = RNG.randn(6, 4).astype("float32"), RNG.randn(6, 1).astype("float32")
    u = sn.vector_u.numpy().copy()
    fit_once(model, data, target)
    assert not np.array_equal(u, sn.vector_u.numpy())  # the training steps moved the state
    path = str(tmp_path / "sn.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    twin = loaded.get_layer("sn")
    assert type(twin) is layers.SpectralNormalization and twin.get_config() == sn.get_config()
    np.testing.assert_array_equal(twin.vector_u.numpy(), sn.vector_u.numpy())
    np.testing.assert_allclose(loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-6)
    config_round_trip(sn)
    assert json.loads(json.dumps(sn.get_config()))["layer"]["class_name"] == "Dense"


def test_a_keras_file_imports(tmp_path):
    keras = pytest.importorskip("keras")
    x = keras.Input((4, 4, 2))
    sn = keras.layers.SpectralNormalization(keras.layers.Conv2D(3, 2), power_iterations=2)
    source = keras.Model(x, keras.layers.Flatten()(sn(x)))
    for w in source.weights:
        w.assign(RNG.uniform(-0.5, 0.5, w.shape).astype("float32"))
    source.save(tmp_path / "sn.keras")
    images = RNG.randn(2, 4, 4, 2).astype("float32")
    model = tfkit.load_model(tmp_path / "sn.keras")
    twin = model.layers[1]
    assert type(twin) is layers.SpectralNormalization and twin.power_iterations == 2
    np.testing.assert_allclose(twin.vector_u.numpy(), np.asarray(sn.vector_u), rtol=1e-6)
    np.testing.assert_allclose(
        model.predict(images, verbose=0), np.asarray(source.predict(images, verbose=0)), rtol=1e-5, atol=1e-6
    )
    assert list(model.weight_paths()) == [f"{twin.name}/vector_u", f"{twin.name}/kernel", f"{twin.name}/layer/bias"]


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match=r"SpectralNormalization layer 'sn' expected `power_iterations`.*got 0"):
        layers.SpectralNormalization(layers.Dense(2), power_iterations=0, name="sn")
    layer = layers.SpectralNormalization(layers.Activation("relu", name="act"), name="sn")
    with pytest.raises(ValueError, match=r"'sn' wraps Activation 'act', which has neither a `kernel` nor"):
        layer(np.ones((1, 2), "float32"))
