"""tfkit.activations: every function against a numpy formula, lookup and names."""

import math

import numpy as np
import pytest
import tensorflow as tf

from tfkit import activations

X = np.concatenate([np.linspace(-8.0, 8.0, 33), [-0.3, 0.0, 0.3, 2.5, 6.0]]).astype(np.float32)
ERF = np.vectorize(math.erf)
SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_softplus(x):
    return np.log1p(np.exp(x))


def np_hard_sigmoid(x):
    return np.clip(x + 3.0, 0.0, 6.0) / 6.0


NUMPY_REFERENCES = {
    "relu": lambda x: np.maximum(x, 0.0),
    "relu6": lambda x: np.clip(x, 0.0, 6.0),
    "sigmoid": np_sigmoid,
    "hard_sigmoid": np_hard_sigmoid,
    "tanh": np.tanh,
    "gelu": lambda x: 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0))),
    "silu": lambda x: x * np_sigmoid(x),
    "swish": lambda x: x * np_sigmoid(x),
    "hard_silu": lambda x: x * np_hard_sigmoid(x),
    "hard_swish": lambda x: x * np_hard_sigmoid(x),
    "mish": lambda x: x * np.tanh(np_softplus(x)),
    "elu": lambda x: np.where(x > 0, x, np.exp(x) - 1.0),
    "selu": lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * (np.exp(x) - 1.0)),
    "softplus": np_softplus,
    "softsign": lambda x: x / (1.0 + np.abs(x)),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.2 * x),
    "exponential": np.exp,
    "log_sigmoid": lambda x: np.log(np_sigmoid(x)),
    "linear": lambda x: x,
}


@pytest.mark.parametrize("name", sorted(NUMPY_REFERENCES))
def test_activation_matches_numpy(name):
    fn = activations.get(name)
    x64 = X.astype(np.float64)
    np.testing.assert_allclose(np.asarray(fn(tf.constant(X))), NUMPY_REFERENCES[name](x64), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(set(NUMPY_REFERENCES) - {"linear"}))
def test_activation_keeps_float64(name):
    y = activations.get(name)(tf.constant(X, dtype=tf.float64))
    assert y.dtype == tf.float64


def test_relu_general_form():
    x = X.astype(np.float64)

    def reference(negative_slope, max_value, threshold):
        y = np.where(x > threshold, x, negative_slope * (x - threshold))
        return np.minimum(y, max_value) if max_value is not None else y

    for negative_slope, max_value, threshold in [
        (0.0, 6.0, 0.0),
        (0.0, 3.5, 0.0),
        (0.1, None, 0.0),
        (0.1, 4.0, 0.0),
        (0.0, None, 1.5),
        (0.25, 5.0, -1.0),
    ]:
        got = activations.relu(tf.constant(X), negative_slope=negative_slope, max_value=max_value, threshold=threshold)
        np.testing.assert_allclose(got.numpy(), reference(negative_slope, max_value, threshold), atol=1e-5)
    with pytest.raises(ValueError, match="negative_slope"):
        activations.relu(X, negative_slope=-1.0)


def test_parametrized_forms():
    x = X.astype(np.float64)
    np.testing.assert_allclose(activations.leaky_relu(X, negative_slope=0.5), np.where(x >= 0, x, 0.5 * x), atol=1e-6)
    np.testing.assert_allclose(activations.elu(X, alpha=2.0), np.where(x > 0, x, 2.0 * (np.exp(x) - 1.0)), atol=1e-6)
    tanh_gelu = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(activations.gelu(X, approximate=True), tanh_gelu, rtol=1e-5, atol=1e-6)


def test_softmax_and_log_softmax_over_axes():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    for axis in (-1, 1, 0, (1, 2)):
        shifted = x - x.max(axis=axis, keepdims=True)
        expected = np.exp(shifted) / np.exp(shifted).sum(axis=axis, keepdims=True)
        np.testing.assert_allclose(activations.softmax(x, axis=axis).numpy(), expected, rtol=1e-5, atol=1e-7)
        got_log = activations.log_softmax(x, axis=axis).numpy()
        np.testing.assert_allclose(got_log, np.log(expected), rtol=1e-5, atol=1e-6)
    big = tf.constant([[1000.0, 1001.0, 1002.0]])
    assert np.isfinite(activations.softmax(big).numpy()).all()


def test_activations_trace_inside_tf_function():
    fn = tf.function(lambda x: activations.gelu(activations.softmax(x)), jit_compile=True)
    assert fn(tf.ones((2, 3))).shape == (2, 3)


def test_linear_returns_its_input():
    x = tf.constant([1.0, -2.0])
    assert activations.linear(x) is x


# ----------------------------------------------------------- lookup / names


def test_get_none_is_linear_and_callables_pass_through():
    assert activations.get(None) is activations.linear
    assert activations.get(tf.nn.relu) is tf.nn.relu


@pytest.mark.parametrize("name", sorted(NUMPY_REFERENCES) + ["softmax", "log_softmax"])
def test_names_round_trip(name):
    fn = activations.get(name)
    assert activations.serialize(fn) == fn.__name__
    assert activations.deserialize(activations.serialize(fn)) is fn
    assert activations.get({"class_name": name, "config": {}}) is fn


def test_swish_is_silu():
    assert activations.get("swish") is activations.silu
    assert activations.serialize(activations.get("swish")) == "silu"


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="'rleu'") as info:
        activations.get("rleu")
    assert "relu" in str(info.value)
    with pytest.raises(ValueError, match="Could not interpret activation"):
        activations.get(3)


def test_lambdas_cannot_be_serialized_and_named_functions_go_by_name():
    with pytest.raises(ValueError, match="a lambda"):
        activations.serialize(lambda x: x)

    def scaled(x):
        return 2 * x

    assert activations.serialize(scaled) == "scaled"


# ------------------------------------------------- optional Keras cross-check


@pytest.mark.parametrize("name", ["relu", "gelu", "hard_sigmoid", "selu", "softplus", "silu", "mish", "softmax"])
def test_matches_keras(name):
    keras = pytest.importorskip("keras")
    theirs = np.asarray(getattr(keras.activations, name)(X.reshape(2, -1)))
    ours = activations.get(name)(X.reshape(2, -1)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("celu", {"alpha": 0.7}),
        ("glu", {}),
        ("hard_tanh", {}),
        ("hard_shrink", {"threshold": 0.3}),
        ("soft_shrink", {"threshold": 0.3}),
        ("tanh_shrink", {}),
        ("squareplus", {"b": 2.0}),
        ("sparse_plus", {}),
        ("sparse_sigmoid", {}),
        ("threshold", {"threshold": 0.2, "default_value": -1.0}),
        ("swish", {}),
        ("hard_swish", {}),
    ],
)
def test_more_keras_activations_match_keras(name, kwargs):
    keras = pytest.importorskip("keras")
    x = np.linspace(-3, 3, 24, dtype="float32").reshape(2, 12)
    ours = getattr(activations, name)(x, **kwargs).numpy()
    theirs = np.asarray(getattr(keras.activations, name)(x, **kwargs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert activations.get(name if name not in ("swish", "hard_swish") else name) is not None
