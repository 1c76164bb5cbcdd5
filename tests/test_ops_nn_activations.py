"""The activations of tfkit.ops.nn against keras.ops and numpy: values, dtypes, tf.function, saved models, errors."""

import numpy as np
import pytest
import tensorflow as tf
from ops_crosscheck import check_op, check_saved_op, keras_op

from tfkit import ops

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4)).astype("float32") * 2
X64 = tf.constant(X, "float64")  # tfkit.ops reads float64 numpy arrays as float32; a float64 tensor stays float64
X16 = tf.constant(X, "float16")
I = np.arange(-6, 6).reshape(3, 4).astype("int32")
SCALAR = 0.75


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _sparsemax(z, axis=-1):
    z = np.moveaxis(z, axis, -1)
    out = np.empty_like(z)
    for index in np.ndindex(z.shape[:-1]):
        v = z[index]
        s = np.sort(v)[::-1]
        k = np.arange(1, len(v) + 1)
        support = 1 + k * s > np.cumsum(s)
        tau = (np.cumsum(s)[support][-1] - 1) / k[support][-1]
        out[index] = np.maximum(v - tau, 0)
    return np.moveaxis(out, -1, axis)


# name, args, kwargs, numpy reference
CASES = [
    ("sparse_sigmoid", (X,), {}, lambda: np.clip((X + 1) / 2, 0, 1)),
    ("sparse_sigmoid", (I,), {}, lambda: np.clip((I + 1) / 2, 0, 1)),
    ("tanh_shrink", (X,), {}, lambda: X - np.tanh(X)),
    ("tanh_shrink", (X64,), {}, lambda: X.astype("float64") - np.tanh(X.astype("float64"))),
    ("soft_shrink", (X,), {}, lambda: np.sign(X) * np.maximum(np.abs(X) - 0.5, 0)),
    ("soft_shrink", (X,), {"threshold": 1.0}, lambda: np.sign(X) * np.maximum(np.abs(X) - 1, 0)),
    ("hard_shrink", (X,), {"threshold": 1.0}, lambda: np.where(np.abs(X) > 1, X, 0)),
    ("hard_shrink", (I,), {}, lambda: np.where(np.abs(I) > 0.5, I, 0)),
    ("hard_tanh", (X,), {}, lambda: np.clip(X, -1, 1)),
    ("hard_tanh", (I,), {}, lambda: np.clip(I, -1, 1)),
    ("threshold", (X, 0.5, -1.0), {}, lambda: np.where(X > 0.5, X, -1)),
    ("threshold", (I, 1, 0), {}, lambda: np.where(I > 1, I, 0)),
    ("threshold", (I, 0.5, 0), {}, lambda: np.where(I > 0.5, I, 0)),
    ("sparse_plus", (X,), {}, lambda: np.where(X <= -1, 0, np.where(X < 1, (X + 1) ** 2 / 4, X))),
    ("squareplus", (X,), {}, lambda: (X + np.sqrt(X**2 + 4)) / 2),
    ("squareplus", (X,), {"b": 1}, lambda: (X + np.sqrt(X**2 + 1)) / 2),
    ("squareplus", (I,), {}, lambda: (I + np.sqrt(I**2 + 4.0)) / 2),
    ("log_sigmoid", (X,), {}, lambda: np.log(_sigmoid(X))),
    ("log_sigmoid", (X16,), {}, None),
    ("log_sigmoid", (I,), {}, lambda: np.log(_sigmoid(I.astype("float64")))),
    ("hard_silu", (X,), {}, lambda: X * np.clip(X + 3, 0, 6) / 6),
    ("hard_swish", (X,), {}, lambda: X * np.clip(X + 3, 0, 6) / 6),
    ("hard_silu", (I,), {}, lambda: I * np.clip(I + 3, 0, 6) / 6),
    ("celu", (X,), {}, lambda: np.maximum(X, 0) + np.expm1(np.minimum(X, 0))),
    ("celu", (X,), {"alpha": 2.0}, lambda: np.maximum(X, 0) + 2 * np.expm1(np.minimum(X, 0) / 2)),
    ("celu", (I,), {}, lambda: np.maximum(I, 0) + np.expm1(np.minimum(I, 0))),
    ("glu", (X,), {}, lambda: X[:, :2] * _sigmoid(X[:, 2:])),
    ("glu", (X[:2],), {"axis": 0}, lambda: X[:1] * _sigmoid(X[1:2])),
    ("glu", (I,), {}, lambda: I[:, :2] * _sigmoid(I[:, 2:])),
    ("sparsemax", (X[:1],), {}, lambda: _sparsemax(X[:1])),
    ("polar", (np.abs(X), X), {}, lambda: np.abs(X) * np.exp(1j * X)),
    ("polar", (tf.abs(X64), X64), {}, lambda: np.abs(X) * np.exp(1j * X.astype("float64"))),
    ("polar", (2.0, 0.5), {}, lambda: 2 * np.exp(0.5j)),
    # the activations tfkit had before, now checked on ints, scalars and axes too
    ("softmax", (X,), {"axis": None}, lambda: np.exp(X) / np.exp(X).sum()),
    ("softmax", (X,), {"axis": (0, 1)}, lambda: np.exp(X) / np.exp(X).sum()),
    ("log_softmax", (X,), {"axis": 0}, lambda: X - np.log(np.exp(X).sum(0, keepdims=True))),
    ("relu", (I,), {}, lambda: np.maximum(I, 0)),
    ("sigmoid", (SCALAR,), {}, lambda: _sigmoid(SCALAR)),
    ("multi_hot", (np.array([[0, 2], [1, 1]]),), {"num_classes": 3}, lambda: np.array([[1, 0, 1], [0, 1, 0.0]])),
    ("multi_hot", (np.array([[0, 2], [1, 1]]),), {"num_tokens": 3}, lambda: np.array([[1, 0, 1], [0, 1, 0.0]])),
    ("multi_hot", (np.array([[0, 2], [1, 1]]), 3), {"dtype": "bool"}, lambda: np.array([[1, 0, 1], [0, 1, 0]]) > 0),
    ("multi_hot", (np.array([[[0, 2], [1, 1]]]), 3), {}, None),
    ("one_hot", (np.array([0, 2]), 3), {"dtype": "bool"}, lambda: np.eye(3)[[0, 2]] > 0),
    ("moments", (X, (0,)), {}, lambda: (X.mean(0), X.var(0))),
    ("moments", (X16, [1]), {"keepdims": True}, None),
    ("moments", (X, [0, 1]), {"synchronized": True}, lambda: (X.mean(), X.var())),
]


# Keras's TensorFlow backend answers these wrongly; numpy is the reference
NUMPY_ONLY = [
    # keras sums every cumulative sum in the support instead of taking the last one: rows with a
    # support of two or more come out all zero
    ("sparsemax", (X,), {}, lambda: _sparsemax(X)),
    ("sparsemax", (X,), {"axis": 0}, lambda: _sparsemax(X, 0)),
    ("sparsemax", (X64,), {}, lambda: _sparsemax(X.astype("float64"))),
    # keras compares ints with the threshold cast to int: soft_shrink(1) stays 1 instead of 0.5
    ("soft_shrink", (I,), {}, lambda: np.sign(I) * np.maximum(np.abs(I) - 0.5, 0)),
    ("soft_shrink", (np.array([True, False]),), {}, lambda: np.array([0.5, 0.0])),
    # keras: threshold(0, -0.5, 7) compares 0 > 0 and answers 7
    ("threshold", (np.array([0, 1, -1]), -0.5, 7), {}, lambda: np.array([0, 1, 7])),
]


@pytest.mark.parametrize("name, args, kwargs, reference", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_activation_matches_keras_and_numpy(name, args, kwargs, reference):
    check_op(
        getattr(ops, name), keras_op(name), args, kwargs, reference, rtol=1e-3 if any(a is X16 for a in args) else 1e-5
    )


@pytest.mark.parametrize(
    "name, args, kwargs, reference", NUMPY_ONLY, ids=[f"{c[0]}-{i}" for i, c in enumerate(NUMPY_ONLY)]
)
def test_activation_matches_numpy_where_keras_is_wrong(name, args, kwargs, reference):
    check_op(getattr(ops, name), None, args, kwargs, reference)


def test_every_nn_name_is_at_top_level_and_in_nn():
    keras = pytest.importorskip("keras")
    names = {n for n in dir(keras.ops.nn) if not n.startswith("_")}
    assert names <= set(dir(ops.nn)), sorted(names - set(dir(ops.nn)))
    assert all(getattr(ops.nn, n) is getattr(ops, n) for n in names)
    assert ops.hard_swish is ops.hard_silu


SAVED = [
    ("sparse_sigmoid", lambda x: ops.sparse_sigmoid(x)),
    ("tanh_shrink", lambda x: ops.tanh_shrink(x)),
    ("soft_shrink", lambda x: ops.soft_shrink(x, threshold=0.3)),
    ("hard_shrink", lambda x: ops.hard_shrink(x, 0.3)),
    ("hard_tanh", lambda x: ops.hard_tanh(x)),
    ("threshold", lambda x: ops.threshold(x, 0.1, -2.0)),
    ("sparse_plus", lambda x: ops.sparse_plus(x)),
    ("squareplus", lambda x: ops.squareplus(x, b=2)),
    ("log_sigmoid", lambda x: ops.log_sigmoid(x)),
    ("hard_silu", lambda x: ops.hard_silu(x)),
    ("hard_swish", lambda x: ops.hard_swish(x)),
    ("celu", lambda x: ops.celu(x, alpha=0.5)),
    ("glu", lambda x: ops.glu(x)),
    ("sparsemax", lambda x: ops.sparsemax(x, axis=-1)),
    ("polar", lambda x: tf.math.imag(ops.polar(ops.abs(x), x))),
    ("softmax-none", lambda x: ops.softmax(x, axis=(1,))),
    ("multi_hot", lambda x: ops.multi_hot(ops.cast(ops.abs(x) * 2, "int32"), num_classes=5)),
]


@pytest.mark.parametrize("name, build", SAVED, ids=[s[0] for s in SAVED])
def test_activation_in_a_saved_functional_model(tmp_path, name, build):
    check_saved_op(tmp_path, build, [(4,)], [X])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ops.glu(np.ones((2, 3), "float32")), "must be even"),
        (lambda: ops.glu(np.ones((2, 4), "float32"), axis=2), "axis=2 is out of range"),
        (lambda: ops.sparsemax(np.ones((2, 4), "float32"), axis=-3), "axis=-3 is out of range"),
        (lambda: ops.multi_hot(np.array([[0, 1]])), "num_classes must be given"),
        (lambda: ops.multi_hot(np.array([[0, 1]]), 3, bogus=1), "unexpected keyword"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_multi_hot_reduces_axis_one_as_keras_does():
    """A (batch, a, b) input reduces the a axis (Keras), not the last token axis (tfkit before)."""
    x = np.array([[[0, 1], [2, 2]]])
    np.testing.assert_array_equal(ops.multi_hot(x, 3).numpy(), [[[1, 0, 1], [0, 1, 1]]])


def test_softmax_over_all_axes_sums_to_one():
    assert abs(float(ops.sum(ops.softmax(X, axis=None))) - 1.0) < 1e-5
