"""tfkit.ops against numpy and, when installed, keras.ops: same names, arguments, numbers and dtypes."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import ops

X = np.random.default_rng(0).normal(size=(3, 4)).astype("float32")
P = np.abs(X) + 0.1
I = np.arange(12).reshape(3, 4).astype("int32")
L = np.array([0, 2, 1])

# name, args, kwargs, numpy reference (None: compared with keras.ops only)
CASES = [
    ("add", (X, 2.0), {}, lambda: X + 2.0),
    ("subtract", (X, X), {}, lambda: X - X),
    ("multiply", (X, 3), {}, lambda: X * 3),
    ("divide", (I, 2), {}, lambda: I / 2),
    ("floor_divide", (I, 5), {}, lambda: I // 5),
    ("mod", (I, 5), {}, lambda: I % 5),
    ("power", (P, 2.0), {}, lambda: P**2),
    ("negative", (X,), {}, lambda: -X),
    ("abs", (X,), {}, lambda: np.abs(X)),
    ("square", (X,), {}, lambda: X**2),
    ("sqrt", (P,), {}, lambda: np.sqrt(P)),
    ("exp", (X,), {}, lambda: np.exp(X)),
    ("log", (P,), {}, lambda: np.log(P)),
    ("log1p", (P,), {}, lambda: np.log1p(P)),
    ("tanh", (X,), {}, lambda: np.tanh(X)),
    ("sign", (X,), {}, lambda: np.sign(X)),
    ("floor", (X,), {}, lambda: np.floor(X)),
    ("ceil", (X,), {}, lambda: np.ceil(X)),
    ("round", (X,), {}, lambda: np.round(X)),
    ("maximum", (X, 0.0), {}, lambda: np.maximum(X, 0)),
    ("minimum", (X, 0.0), {}, lambda: np.minimum(X, 0)),
    ("clip", (X, -0.5, 0.5), {}, lambda: np.clip(X, -0.5, 0.5)),
    ("mean", (X,), {"axis": 1}, lambda: X.mean(1)),
    ("mean", (I,), {}, lambda: I.mean()),
    ("sum", (X,), {"axis": 0, "keepdims": True}, lambda: X.sum(0, keepdims=True)),
    ("prod", (P,), {"axis": -1}, lambda: P.prod(-1)),
    ("max", (X,), {"axis": 1}, lambda: X.max(1)),
    ("min", (X,), {}, lambda: X.min()),
    ("std", (X,), {"axis": 1}, lambda: X.std(1)),
    ("var", (X,), {}, lambda: X.var()),
    ("argmax", (X,), {"axis": 1}, lambda: X.argmax(1)),
    ("argmin", (X,), {}, lambda: X.argmin()),
    ("argsort", (X,), {}, lambda: X.argsort(-1, kind="stable")),
    ("sort", (X,), {"axis": 0}, lambda: np.sort(X, 0)),
    ("cumsum", (X,), {"axis": 1}, lambda: X.cumsum(1)),
    ("cumprod", (P,), {"axis": 0}, lambda: P.cumprod(0)),
    ("any", (X > 1,), {"axis": 1}, lambda: (X > 1).any(1)),
    ("all", (X > -5,), {}, lambda: (X > -5).all()),
    ("count_nonzero", (I,), {"axis": 1}, lambda: np.count_nonzero(I, 1)),
    ("matmul", (X, X.T), {}, lambda: X @ X.T),
    ("dot", (X, X[0]), {}, lambda: X @ X[0]),
    ("tensordot", (X, X.T), {"axes": 1}, lambda: np.tensordot(X, X.T, 1)),
    ("einsum", ("ij,kj->ik", X, X), {}, lambda: np.einsum("ij,kj->ik", X, X)),
    ("outer", (X[0], X[1]), {}, lambda: np.outer(X[0], X[1])),
    ("reshape", (X, (4, 3)), {}, lambda: X.reshape(4, 3)),
    ("transpose", (X,), {}, lambda: X.T),
    ("expand_dims", (X, 1), {}, lambda: X[:, None]),
    ("squeeze", (X[:, :1],), {"axis": 1}, lambda: X[:, 0]),
    ("stack", ([X, X],), {"axis": 1}, lambda: np.stack([X, X], 1)),
    ("concatenate", ([X, X],), {"axis": 1}, lambda: np.concatenate([X, X], 1)),
    ("tile", (X, (2, 1)), {}, lambda: np.tile(X, (2, 1))),
    ("repeat", (X, 2), {"axis": 0}, lambda: np.repeat(X, 2, 0)),
    ("flip", (X,), {"axis": 1}, lambda: np.flip(X, 1)),
    ("roll", (X, 1), {"axis": 1}, lambda: np.roll(X, 1, 1)),
    ("swapaxes", (X, 0, 1), {}, lambda: X.T),
    ("moveaxis", (X, 0, 1), {}, lambda: X.T),
    ("ravel", (X,), {}, lambda: X.ravel()),
    ("broadcast_to", (X[0], (2, 4)), {}, lambda: np.broadcast_to(X[0], (2, 4))),
    ("pad", (X, ((1, 0), (0, 2))), {}, lambda: np.pad(X, ((1, 0), (0, 2)))),
    ("where", (X > 0, X, 0.0), {}, lambda: np.where(X > 0, X, 0)),
    ("take", (X, [0, 2]), {"axis": 1}, lambda: X[:, [0, 2]]),
    ("take_along_axis", (X, np.argsort(X, 1)), {"axis": 1}, lambda: np.take_along_axis(X, np.argsort(X, 1), 1)),
    ("triu", (X,), {}, lambda: np.triu(X)),
    ("tril", (X,), {"k": -1}, lambda: np.tril(X, -1)),
    ("equal", (I, 3), {}, lambda: I == 3),
    ("greater", (X, 0.0), {}, lambda: X > 0),
    ("less_equal", (X, 0.0), {}, lambda: X <= 0),
    ("logical_and", (X > 0, X < 1), {}, lambda: (X > 0) & (X < 1)),
    ("logical_not", (X > 0,), {}, lambda: ~(X > 0)),
    ("isnan", (X,), {}, lambda: np.isnan(X)),
    ("zeros", ((2, 3),), {}, lambda: np.zeros((2, 3))),
    ("ones_like", (I,), {}, lambda: np.ones_like(I)),
    ("full", ((2, 2), 7.0), {}, lambda: np.full((2, 2), 7.0)),
    ("eye", (3,), {"k": 1}, lambda: np.eye(3, k=1)),
    ("identity", (3,), {}, lambda: np.identity(3)),
    ("arange", (2, 10, 3), {}, lambda: np.arange(2, 10, 3)),
    ("arange", (0.0, 1.0, 0.25), {}, lambda: np.arange(0, 1, 0.25)),
    ("linspace", (0.0, 1.0, 5), {}, lambda: np.linspace(0, 1, 5)),
    ("relu", (X,), {}, lambda: np.maximum(X, 0)),
    ("sigmoid", (X,), {}, lambda: 1 / (1 + np.exp(-X))),
    ("softmax", (X,), {}, lambda: np.exp(X) / np.exp(X).sum(-1, keepdims=True)),
    ("log_softmax", (X,), {}, None),
    ("softplus", (X,), {}, lambda: np.log1p(np.exp(X))),
    ("silu", (X,), {}, lambda: X / (1 + np.exp(-X))),
    ("gelu", (X,), {}, None),
    ("elu", (X,), {}, None),
    ("selu", (X,), {}, None),
    ("leaky_relu", (X,), {}, None),
    ("one_hot", (L, 3), {}, lambda: np.eye(3)[L]),
    ("binary_crossentropy", ((X > 0).astype("float32"), X), {"from_logits": True}, None),
    ("categorical_crossentropy", (np.eye(4)[[0, 1, 3]].astype("float32"), X), {"from_logits": True}, None),
    ("sparse_categorical_crossentropy", (L, X), {"from_logits": True}, None),
    ("sparse_categorical_crossentropy", (L, np.abs(X) / np.abs(X).sum(-1, keepdims=True)), {}, None),
    ("logsumexp", (X,), {"axis": 1}, lambda: np.log(np.exp(X).sum(1))),
    ("normalize", (X,), {}, lambda: X / np.linalg.norm(X, axis=-1, keepdims=True)),
    ("erf", (X,), {}, None),
    ("rsqrt", (P,), {}, lambda: 1 / np.sqrt(P)),
    ("stop_gradient", (X,), {}, lambda: X),
    ("cast", (X, "int32"), {}, lambda: X.astype("int32")),
    ("convert_to_tensor", (I,), {}, lambda: I),
    ("slice", (X, (1, 1), (2, 2)), {}, lambda: X[1:3, 1:3]),
    ("scatter_update", (X, [[0, 0], [2, 3]], [9.0, 8.0]), {}, None),
    ("segment_sum", (X, np.array([0, 0, 1])), {"num_segments": 2}, lambda: np.stack([X[:2].sum(0), X[2]])),
]


@pytest.mark.parametrize("name, args, kwargs, reference", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_op_matches_numpy_and_keras(name, args, kwargs, reference):
    got = getattr(ops, name)(*args, **kwargs)
    got = np.asarray(got)
    if reference is not None:
        np.testing.assert_allclose(got, np.asarray(reference()), rtol=1e-5, atol=1e-6)
    try:
        import keras
    except ImportError:
        return
    theirs = np.asarray(getattr(keras.ops, name)(*args, **kwargs))
    np.testing.assert_allclose(got, theirs, rtol=1e-4, atol=1e-5)
    assert got.dtype == theirs.dtype or {got.dtype.kind, theirs.dtype.kind} <= {"i"}, (got.dtype, theirs.dtype)


def test_top_k_shape_and_control_flow():
    values, indices = ops.top_k(X, 2)
    np.testing.assert_allclose(values.numpy(), -np.sort(-X, 1)[:, :2])
    assert ops.shape(X) == (3, 4) and ops.ndim(X) == 2
    assert float(ops.cond(tf.constant(True), lambda: 1.0, lambda: 2.0)) == 1.0
    assert int(ops.while_loop(lambda i: i < 5, lambda i: i + 1, 0)) == 5
    assert int(ops.fori_loop(0, 4, lambda i, v: v + i, tf.constant(0))) == 6
    carry, ys = ops.scan(lambda c, x: (c + x, c * 2), tf.constant(0.0), tf.constant([1.0, 2.0, 3.0]))
    assert float(carry) == 6.0 and ys.numpy().tolist() == [0.0, 2.0, 6.0]
    np.testing.assert_allclose(ops.convert_to_numpy(ops.ones((2,))), [1.0, 1.0])


def test_conv_and_pooling_match_tensorflow():
    images = np.random.default_rng(1).random((2, 5, 5, 3)).astype("float32")
    kernel = np.random.default_rng(2).random((3, 3, 3, 4)).astype("float32")
    expected = tf.nn.conv2d(images, kernel, 1, "SAME").numpy()
    np.testing.assert_allclose(ops.conv(images, kernel, padding="same").numpy(), expected, rtol=1e-5)
    first = ops.conv(images.transpose(0, 3, 1, 2), kernel, padding="same", data_format="channels_first").numpy()
    np.testing.assert_allclose(first, expected.transpose(0, 3, 1, 2), rtol=1e-5)
    assert ops.max_pool(images, 2).shape == (2, 2, 2, 3) and ops.average_pool(images, 2, padding="same").shape == (
        2,
        3,
        3,
        3,
    )


@pytest.mark.parametrize("jit", [False, True])
def test_ops_compile_with_tf_function_and_xla(jit):
    @tf.function(jit_compile=jit)
    def f(x):
        return ops.sum(ops.softmax(x) * ops.arange(4, dtype="float32"), axis=-1) + ops.mean(ops.abs(x))

    expected = (np.exp(X) / np.exp(X).sum(-1, keepdims=True) * np.arange(4)).sum(-1) + np.abs(X).mean()
    np.testing.assert_allclose(f(tf.constant(X)).numpy(), expected, rtol=1e-5)


def test_ops_on_symbolic_tensors_save_as_names(tmp_path):
    x = tfkit.Input((4,))
    y = ops.mean(ops.square(x), axis=-1, keepdims=True) + ops.max(x, axis=-1, keepdims=True)
    model = tfkit.Model(x, y)
    names = [l.get_config()["function"] for l in model.layers if isinstance(l, tfkit.layers.TFOpLambda)]
    assert names[:2] == ["tfkit.ops.square", "tfkit.ops.mean"]
    model.save(tmp_path / "ops.h5")
    loaded = tfkit.load_model(tmp_path / "ops.h5")
    np.testing.assert_allclose(
        loaded.predict(X, verbose=0), (X**2).mean(-1, keepdims=True) + X.max(-1, keepdims=True), rtol=1e-5
    )
    assert ops.shape(x) == (None, 4)
