"""tfkit.layers.activation_layers: ReLU, LeakyReLU, PReLU, ELU, Softmax against numpy (and Keras 3 when installed)."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers

X = np.array([[-3.0, -1.0, -0.25, 0.0, 0.25, 0.75, 1.0, 4.0, 7.0]], "float32")


def _roundtrip(layer):
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    assert clone.get_config() == layer.get_config()
    return clone


def np_relu(x, max_value=None, negative_slope=0.0, threshold=0.0):
    y = np.where(x > threshold, x, negative_slope * (x - threshold))
    return np.minimum(y, max_value) if max_value is not None else y


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"max_value": 6.0},
        {"negative_slope": 0.1},
        {"threshold": 0.5},
        {"max_value": 3.0, "negative_slope": 0.2, "threshold": 0.5},
    ],
)
def test_relu_matches_numpy_and_round_trips(kwargs):
    layer = layers.ReLU(**kwargs)
    np.testing.assert_allclose(layer(X).numpy(), np_relu(X, **kwargs), rtol=1e-6)
    clone = _roundtrip(layer)
    np.testing.assert_allclose(clone(X).numpy(), layer(X).numpy())
    assert layer.compute_output_shape((None, 9)) == (None, 9)


def test_relu_defaults_and_errors():
    config = layers.ReLU().get_config()
    assert (config["max_value"], config["negative_slope"], config["threshold"]) == (None, 0.0, 0.0)
    for kwargs in ({"max_value": -1.0}, {"negative_slope": -0.1}, {"threshold": -1.0}, {"negative_slope": None}):
        with pytest.raises(ValueError, match="ReLU layer 're_lu.*' expected"):
            layers.ReLU(**kwargs)


def test_leaky_relu_default_slope_and_legacy_alpha():
    layer = layers.LeakyReLU()
    assert layer.negative_slope == 0.3
    np.testing.assert_allclose(layer(X).numpy(), np.where(X >= 0, X, 0.3 * X), rtol=1e-6)
    with pytest.warns(UserWarning, match="alpha"):
        legacy = layers.LeakyReLU(alpha=0.1)
    np.testing.assert_allclose(legacy(X).numpy(), np.where(X >= 0, X, 0.1 * X), rtol=1e-6)
    assert _roundtrip(legacy).get_config()["negative_slope"] == 0.1
    with pytest.raises(ValueError, match="negative_slope"):
        layers.LeakyReLU(-0.5)


def test_elu_matches_numpy():
    for alpha in (1.0, 0.5):
        layer = _roundtrip(layers.ELU(alpha))
        np.testing.assert_allclose(layer(X).numpy(), np.where(X > 0, X, alpha * (np.exp(X) - 1)), rtol=1e-6)
    assert layers.ELU().get_config()["alpha"] == 1.0


def test_prelu_weight_shape_numbers_and_gradient():
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")
    layer = layers.PReLU(shared_axes=[1])
    layer(x)
    assert [w.name.split(":")[0].split("/")[-1] for w in layer.weights] == ["alpha"]
    assert tuple(layer.alpha.shape) == (1, 4)
    np.testing.assert_array_equal(layer.alpha.numpy(), 0)  # "Zeros" initializer: plain ReLU at first
    alpha = np.array([[0.1, 0.2, -0.5, 2.0]], "float32")
    layer.alpha.assign(alpha)
    np.testing.assert_allclose(layer(x).numpy(), np.where(x > 0, x, alpha * x), rtol=1e-6)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x))
    grad = tape.gradient(loss, layer.alpha).numpy()
    np.testing.assert_allclose(grad, np.minimum(x, 0).sum(axis=(0, 1), keepdims=True)[0], rtol=1e-5)
    with pytest.raises(ValueError, match=r"\(PReLU\) expected axis 2 .* size 4"):
        layer(np.ones((2, 3, 5), "float32"))  # the non-shared axis has size 4


def test_prelu_config_and_options():
    layer = layers.PReLU(alpha_initializer="ones", alpha_regularizer="l2", alpha_constraint="non_neg", shared_axes=2)
    config = _roundtrip(layer).get_config()
    assert config["shared_axes"] == [2]
    assert layers.PReLU().get_config()["shared_axes"] is None
    layer(np.ones((2, 3, 4), "float32"))
    assert tuple(layer.alpha.shape) == (3, 1) and len(layer.losses) == 1
    with pytest.raises(ValueError, match="shared_axes"):
        layers.PReLU(shared_axes=[0])
    with pytest.raises(ValueError, match="shared_axes"):
        layers.PReLU(shared_axes=[3])(np.ones((2, 3, 4), "float32"))


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_axes_match_numpy():
    x = np.random.default_rng(1).normal(size=(2, 3, 4)).astype("float32")
    np.testing.assert_allclose(layers.Softmax()(x).numpy(), np_softmax(x, -1), rtol=1e-5)
    np.testing.assert_allclose(layers.Softmax(axis=1)(x).numpy(), np_softmax(x, 1), rtol=1e-5)
    both = _roundtrip(layers.Softmax(axis=[1, 2]))
    assert both.get_config()["axis"] == [1, 2]
    np.testing.assert_allclose(both(x).numpy(), np_softmax(x, (1, 2)), rtol=1e-5)


def test_softmax_mask_gives_zero_probability_to_masked_positions():
    x = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 0.5, 0.5]], "float32")
    mask = np.array([[True, False, True, False], [False, False, False, False]])
    y = layers.Softmax()(x, mask=mask).numpy()
    expected = np_softmax(np.array([1.0, 3.0]), -1)
    np.testing.assert_allclose(y[0], [expected[0], 0, expected[1], 0], rtol=1e-6)
    np.testing.assert_array_equal(y[1], 0)  # a fully masked row: all zeros, not uniform
    float_mask = mask.astype("float32") * 0.9 + 0.05  # > 0.5 means keep
    np.testing.assert_allclose(layers.Softmax()(x, mask=float_mask).numpy(), y, rtol=1e-6)
    broadcast = layers.Softmax()(x, mask=np.array([[1, 1, 0, 1]], "int32")).numpy()
    assert (broadcast[:, 2] == 0).all() and np.allclose(broadcast.sum(-1), 1)
    with pytest.raises(ValueError, match="broadcastable"):
        layers.Softmax()(x, mask=np.ones((2, 3), bool))


def test_activation_layers_in_a_compiled_model():
    x = tfkit.Input((4,))
    h = layers.PReLU()(layers.Dense(4)(x))
    h = layers.ELU()(layers.LeakyReLU()(layers.ReLU(max_value=6.0)(h)))
    model = tfkit.Model(x, layers.Softmax()(h))
    model.compile("adam", "categorical_crossentropy")
    data = np.random.default_rng(2).normal(size=(8, 4)).astype("float32")
    model.fit(data, np.eye(4, dtype="float32")[np.arange(8) % 4], epochs=1, verbose=0)
    np.testing.assert_allclose(model.predict(data, verbose=0).sum(-1), np.ones(8), rtol=1e-5)


def test_keras_crosscheck_same_inputs_same_numbers():
    keras = pytest.importorskip("keras")
    x = np.random.default_rng(3).normal(size=(2, 3, 4)).astype("float32") * 3
    pairs = [
        (
            layers.ReLU(max_value=2.0, negative_slope=0.1, threshold=0.5),
            keras.layers.ReLU(max_value=2.0, negative_slope=0.1, threshold=0.5),
        ),
        (layers.LeakyReLU(), keras.layers.LeakyReLU()),
        (layers.ELU(0.7), keras.layers.ELU(0.7)),
        (layers.Softmax(axis=[1, 2]), keras.layers.Softmax(axis=[1, 2])),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-5, atol=1e-6)
    mask = x[..., :1] > 0  # broadcast along the last axis
    np.testing.assert_allclose(
        layers.Softmax()(x, mask=mask).numpy(), np.asarray(keras.layers.Softmax()(x, mask=mask)), rtol=1e-5, atol=1e-7
    )
    ours, theirs = layers.PReLU(shared_axes=[1]), keras.layers.PReLU(shared_axes=[1])
    ours(x), theirs(x)
    alpha = np.array([[0.3, -0.2, 0.5, 1.5]], "float32")
    ours.alpha.assign(alpha)
    theirs.set_weights([alpha])
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-6)
    for name in ("ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax"):
        ours_keys = set(getattr(layers, name)().get_config()) - {"dtype"}
        theirs_keys = set(getattr(keras.layers, name)().get_config()) - {"dtype"}
        assert ours_keys == theirs_keys, name
