"""tfkit.ops.linalg against keras.ops.linalg and numpy.linalg: values, dtypes, batches, saved models, errors."""

import numpy as np
import pytest
import tensorflow as tf
from ops_crosscheck import check_op, check_saved_op, keras_op

import tfkit
from tfkit import ops
from tfkit.layers import op_names

RNG = np.random.default_rng(3)
A = RNG.normal(size=(4, 4)).astype("float32")
SPD = (A @ A.T + 4 * np.eye(4)).astype("float32")
BATCH = RNG.normal(size=(2, 3, 3)).astype("float32")
TALL = RNG.normal(size=(5, 3)).astype("float32")
B = RNG.normal(size=(4,)).astype("float32")
BM = RNG.normal(size=(4, 2)).astype("float32")
LOWER = np.tril(A) + 4 * np.eye(4, dtype="float32")
I = np.array([[2, 1], [1, 3]], "int32")
SPD64 = tf.constant(SPD, "float64")


def _upper_solve(a, b):
    return np.linalg.solve(np.triu(a), b)


CASES = [
    ("cholesky", (SPD,), {}, lambda: np.linalg.cholesky(SPD)),
    ("cholesky", (SPD,), {"upper": True}, lambda: np.linalg.cholesky(SPD).T),
    ("cholesky", (SPD64,), {}, lambda: np.linalg.cholesky(SPD.astype("float64"))),
    ("cholesky", (I,), {}, lambda: np.linalg.cholesky(I.astype("float64"))),
    ("cholesky_inverse", (np.linalg.cholesky(SPD),), {}, lambda: np.linalg.inv(SPD)),
    ("cholesky_inverse", (np.linalg.cholesky(SPD).T.copy(),), {"upper": True}, lambda: np.linalg.inv(SPD)),
    ("det", (A,), {}, lambda: np.linalg.det(A)),
    ("det", (BATCH,), {}, lambda: np.linalg.det(BATCH)),
    ("det", (I,), {}, lambda: 5.0),
    ("eig", (SPD,), {}, None),
    ("eigh", (SPD,), {}, None),
    ("inv", (A,), {}, lambda: np.linalg.inv(A)),
    ("inv", (BATCH,), {}, lambda: np.linalg.inv(BATCH)),
    ("inv", (I,), {}, lambda: np.linalg.inv(I)),
    ("lu_factor", (A,), {}, None),
    ("norm", (A,), {}, lambda: np.linalg.norm(A)),
    ("norm", (A,), {"axis": 1}, lambda: np.linalg.norm(A, axis=1)),
    ("norm", (A,), {"ord": 1, "axis": 0, "keepdims": True}, lambda: np.linalg.norm(A, 1, axis=0, keepdims=True)),
    ("norm", (A,), {"ord": 3, "axis": -1}, lambda: np.linalg.norm(A, 3, axis=-1)),
    ("norm", (A,), {"ord": 0, "axis": -1}, lambda: np.linalg.norm(A, 0, axis=-1)),
    ("norm", (A,), {"ord": np.inf, "axis": 0}, lambda: np.linalg.norm(A, np.inf, axis=0)),
    ("norm", (A,), {"ord": -np.inf, "axis": 0}, lambda: np.linalg.norm(A, -np.inf, axis=0)),
    ("norm", (A,), {"ord": "fro", "axis": (0, 1)}, lambda: np.linalg.norm(A, "fro")),
    ("norm", (A,), {"ord": "nuc", "axis": (0, 1)}, lambda: np.linalg.norm(A, "nuc")),
    ("norm", (BATCH,), {"ord": 2, "axis": (1, 2)}, lambda: np.linalg.norm(BATCH, 2, axis=(1, 2))),
    (
        "norm",
        (BATCH,),
        {"ord": -2, "axis": (2, 1), "keepdims": True},
        lambda: np.linalg.norm(BATCH, -2, axis=(2, 1), keepdims=True),
    ),
    ("norm", (BATCH,), {"ord": 1, "axis": (1, 2)}, lambda: np.linalg.norm(BATCH, 1, axis=(1, 2))),
    ("norm", (BATCH,), {"ord": -1, "axis": (2, 1)}, lambda: np.linalg.norm(BATCH, -1, axis=(2, 1))),
    (
        "norm",
        (BATCH,),
        {"ord": np.inf, "axis": (1, 2), "keepdims": True},
        lambda: np.linalg.norm(BATCH, np.inf, axis=(1, 2), keepdims=True),
    ),
    ("norm", (BATCH,), {"ord": -np.inf, "axis": (2, 1)}, lambda: np.linalg.norm(BATCH, -np.inf, axis=(2, 1))),
    ("norm", (I,), {}, lambda: np.linalg.norm(I)),
    ("norm", (np.array([True, False, True]),), {}, lambda: np.sqrt(2.0)),
    ("qr", (TALL,), {}, None),
    ("qr", (TALL,), {"mode": "complete"}, None),
    ("solve", (A, B), {}, lambda: np.linalg.solve(A, B)),
    ("solve", (A, BM), {}, lambda: np.linalg.solve(A, BM)),
    ("solve", (BATCH, BATCH[:, :, :1]), {}, lambda: np.linalg.solve(BATCH, BATCH[:, :, :1])),
    ("solve", (I, np.array([1, 2])), {}, lambda: np.linalg.solve(I, [1, 2])),
    ("solve_triangular", (LOWER, B), {"lower": True}, lambda: np.linalg.solve(np.tril(LOWER), B)),
    ("solve_triangular", (LOWER.T.copy(), BM), {}, lambda: _upper_solve(LOWER.T, BM)),
    ("svd", (TALL,), {"compute_uv": False}, lambda: np.linalg.svd(TALL, compute_uv=False)),
    ("svd", (TALL,), {}, None),
    ("svd", (TALL,), {"full_matrices": False}, None),
    ("lstsq", (TALL, TALL[:, 0] + 1), {}, lambda: np.linalg.lstsq(TALL, TALL[:, 0] + 1, rcond=None)[0]),
    ("lstsq", (TALL, TALL[:, :2]), {"rcond": 1e-3}, lambda: np.linalg.lstsq(TALL, TALL[:, :2], rcond=1e-3)[0]),
    (
        "lstsq",
        (np.ones((3, 2), "float32"), np.arange(3.0)),
        {},
        lambda: np.linalg.lstsq(np.ones((3, 2)), np.arange(3.0), rcond=None)[0],
    ),
    ("matrix_rank", (A,), {}, lambda: 4),
    ("matrix_rank", (np.ones((3, 3), "float32"),), {}, lambda: 1),
    ("matrix_rank", (BATCH,), {"tol": 10.0}, None),
    ("pinv", (TALL,), {}, lambda: np.linalg.pinv(TALL)),
    ("pinv", (np.ones((3, 2), "float32"),), {"rcond": 1e-3}, lambda: np.linalg.pinv(np.ones((3, 2)), rcond=1e-3)),
]


@pytest.mark.parametrize("name, args, kwargs, reference", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_linalg_matches_keras_and_numpy(name, args, kwargs, reference):
    check_op(getattr(ops.linalg, name), keras_op(name, "linalg"), args, kwargs, reference, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "name, x", [("qr", TALL), ("svd", TALL), ("eig", SPD), ("eigh", SPD), ("lu_factor", A), ("eigh", I)]
)
def test_factorizations_rebuild_their_input(name, x):
    """Factors are unique only up to signs: check what they multiply back to."""
    out = [np.asarray(t) for t in getattr(ops, name)(x)]
    if name == "qr":
        np.testing.assert_allclose(out[0] @ out[1], x, atol=1e-5)
    elif name == "svd":
        u, s, vh = out
        np.testing.assert_allclose(u[:, :3] * s @ vh, x, atol=1e-5)
    elif name in ("eig", "eigh"):
        values, vectors = out
        np.testing.assert_allclose(x @ vectors, vectors * values, atol=1e-4)
    else:
        lu, perm = out
        lower, upper = np.tril(lu, -1) + np.eye(4), np.triu(lu)
        np.testing.assert_allclose((lower @ upper)[np.argsort(perm)], x, atol=1e-5)


def test_linalg_names_are_at_top_level_too():
    keras = pytest.importorskip("keras")
    names = {n for n in dir(keras.ops.linalg) if not n.startswith("_")}
    assert names <= set(dir(ops.linalg)), sorted(names - set(dir(ops.linalg)))
    assert all(getattr(ops.linalg, n) is getattr(ops, n) for n in names)


def test_jvp_matches_the_analytic_derivative():
    x = tf.constant([1.0, 2.0, 3.0])
    value, tangent = ops.jvp(lambda v: ops.sum(v**3), (x,), (tf.ones(3),))
    np.testing.assert_allclose(float(value), 36.0)
    np.testing.assert_allclose(float(tangent), 3 * (1 + 4 + 9))
    value, tangent, aux = ops.jvp(lambda a, b: (a * b, "aux"), (x, 2.0 * x), (tf.ones(3), tf.zeros(3)), has_aux=True)
    np.testing.assert_allclose(tangent.numpy(), 2.0 * x.numpy())
    assert aux == "aux"


@pytest.mark.parametrize(
    "name, args",
    [
        ("cholesky", (SPD,)),
        ("det", (A,)),
        ("inv", (A,)),
        ("eigh", (SPD,)),
        ("eig", (SPD,)),
        ("svd", (TALL,)),
        ("solve", (A, B)),
        ("norm", (A,)),
        ("lu_factor", (A,)),
        ("pinv", (TALL,)),
        ("qr", (TALL,)),
        ("lstsq", (TALL, TALL)),
    ],
)
def test_half_precision_is_computed_in_float32(name, args):
    """TensorFlow has no float16 linear algebra kernels (Keras fails): tfkit computes in float32, returns float16."""
    got = getattr(ops, name)(*[tf.constant(a, "float16") for a in args])
    want = getattr(ops, name)(*[tf.cast(tf.constant(a, "float16"), "float32") for a in args])
    for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
        assert g.dtype in (tf.float16, tf.int32, tf.complex64)
        if g.dtype == tf.float16:
            np.testing.assert_allclose(g.numpy(), tf.cast(w, "float16").numpy(), rtol=1e-3, atol=1e-3)


def test_cholesky_of_an_indefinite_matrix_says_so():
    with pytest.raises(ValueError, match="positive definite"):
        ops.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]], "float32"))


SAVED = [
    ("cholesky", lambda x: ops.linalg.cholesky(ops.matmul(x, ops.transpose(x, (0, 2, 1))) + 4 * ops.eye(4))),
    ("det", lambda x: ops.det(x)),
    ("inv", lambda x: ops.linalg.inv(x + 4 * ops.eye(4))),
    ("norm", lambda x: ops.norm(x, ord="fro", axis=(1, 2))),
    ("qr", lambda x: ops.linalg.qr(x)[1]),
    ("solve", lambda x: ops.solve(x + 4 * ops.eye(4), x[:, :, 0])),
    ("solve_triangular", lambda x: ops.solve_triangular(x + 4 * ops.eye(4), x, lower=True)),
    ("svd", lambda x: ops.svd(x, compute_uv=False)),
    ("eigh", lambda x: ops.eigh(x + ops.transpose(x, (0, 2, 1)))[0]),
    ("lu_factor", lambda x: ops.lu_factor(x)[0]),
    ("matrix_rank", lambda x: ops.matrix_rank(x)),
    ("pinv", lambda x: ops.pinv(x)),
    ("cholesky_inverse", lambda x: ops.cholesky_inverse(x + 4 * ops.eye(4))),
    ("eig", lambda x: tf.math.real(ops.eig(x + ops.transpose(x, (0, 2, 1)))[0])),
]


@pytest.mark.parametrize("name, build", SAVED, ids=[s[0] for s in SAVED])
def test_linalg_in_a_saved_functional_model(tmp_path, name, build):
    batch = np.stack([A, A.T + np.eye(4, dtype="float32")])
    check_saved_op(tmp_path, build, [(4, 4)], [batch], rtol=1e-4, atol=1e-4)


def test_saved_submodule_names_resolve_to_the_submodule():
    assert op_names.resolve("tfkit.ops.linalg.qr") is ops.linalg.qr
    assert op_names.resolve("tfkit.ops.nn.glu") is ops.nn.glu
    with pytest.raises(ValueError, match="Unknown tfkit operation"):
        op_names.resolve("tfkit.ops.nosuchmodule.qr")
    x = tfkit.Input((3, 3))
    layer = tfkit.layers.TFOpLambda("tfkit.ops.linalg.det", {"args": [{"__input__": 0}], "kwargs": {}})
    model = tfkit.Model(x, layer(x))
    np.testing.assert_allclose(model(BATCH).numpy(), np.linalg.det(BATCH), rtol=1e-4)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ops.det(B), "x must have rank >= 2"),
        (lambda: ops.inv(TALL), "x must be square"),
        (lambda: ops.solve(A, TALL), "do not match"),
        (lambda: ops.solve(A, np.ones((2, 3, 4, 1))), "rank of a or one less"),
        (lambda: ops.norm(A, ord="fro", axis=0), "matrix norm"),
        (lambda: ops.norm(A, ord=3, axis=(0, 1)), "not a matrix norm"),
        (lambda: ops.norm(A, axis=2), "every axis must be in"),
        (lambda: ops.norm(2.0), "x must have rank >= 1"),
        (lambda: ops.qr(TALL, mode="full"), "mode must be 'reduced' or 'complete'"),
        (lambda: ops.lstsq(BATCH, BATCH), "a must be a matrix"),
        (lambda: ops.lstsq(TALL, B), "same number of rows"),
        (lambda: ops.jvp(3, (A,), (A,)), "fun must be callable"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
