"""Edge values of the numpy-style ops of issue 19: NaN, infinities, zeros, empty inputs, gradients, vectorize."""

import numpy as np
import pytest
import tensorflow as tf

from tfkit import ops

INF, NAN = np.inf, np.nan


@pytest.mark.parametrize(
    "name, args, kwargs, expected",
    [
        ("isclose", ([INF, -INF, NAN, 1.0], [INF, INF, NAN, 1.0 + 1e-9]), {}, [True, False, False, True]),
        ("isclose", ([NAN, 1.0], [NAN, 2.0]), {"equal_nan": True}, [True, False]),
        ("allclose", ([1.0, NAN], [1.0, NAN]), {"equal_nan": True}, True),
        ("logaddexp", ([-INF, INF, -INF, 1.0], [-INF, INF, 0.0, 1.0]), {}, [-INF, INF, 0.0, 1.0 + np.log(2)]),
        ("logaddexp2", ([-INF, 3.0], [-INF, 3.0]), {}, [-INF, 4.0]),
        ("hypot", ([3e30, 0.0], [4e30, 0.0]), {}, [5e30, 0.0]),  # no overflow in float32
        ("nancumsum", ([1.0, NAN, INF, 2.0],), {}, [1.0, 1.0, INF, INF]),  # numpy keeps infinities
        ("nanmean", ([[NAN, NAN], [1.0, NAN]],), {"axis": 1}, [NAN, 1.0]),
        ("nanmin", ([[NAN, NAN], [1.0, -INF]],), {"axis": 1}, [NAN, -INF]),
        ("nanquantile", ([[NAN, NAN, NAN], [3.0, NAN, 1.0]],), {"q": 0.5, "axis": 1}, [NAN, 2.0]),
        ("nanmedian", ([INF, NAN, INF, 1.0],), {}, INF),
        ("quantile", ([[1.0, NAN], [1.0, 3.0]],), {"q": 0.5, "axis": 1}, [NAN, 2.0]),
        ("nanargmin", ([[NAN, NAN], [2.0, NAN]],), {"axis": 1}, [-1, 0]),
        ("nansum", ([[NAN, NAN]],), {"axis": 1}, [0.0]),
        ("nanprod", ([[NAN, NAN]],), {"axis": 1}, [1.0]),
        ("nan_to_num", ([NAN, INF, -INF],), {}, [0.0, np.finfo("float32").max, np.finfo("float32").min]),
        ("signbit", ([-0.0, 0.0, -NAN, -INF],), {}, [True, False, True, True]),
        ("fmod", ([7, -7, 5], [0, 3, -2]), {}, [0, -1, 1]),  # an integer x % 0 gives 0, not an error
        ("fmod", ([-7.5, 1.0], [2.0, 0.0]), {}, [-1.5, NAN]),
        ("gcd", ([0, 0, -12], [0, 5, 18]), {}, [0, 5, 6]),
        ("lcm", ([0, -4, 6], [5, 6, 4]), {}, [0, 12, 12]),
        ("divide_no_nan", ([1.0, 0.0], [0.0, 0.0]), {}, [0.0, 0.0]),
        ("fmax", ([NAN, NAN, 1.0], [NAN, 2.0, NAN]), {}, [NAN, 2.0, 1.0]),
        ("heaviside", ([-1.0, 0.0, 2.0], 0.25), {}, [0.0, 0.25, 1.0]),
        ("sinc", ([0.0, 0.5, 1.0],), {}, [1.0, 2 / np.pi, 0.0]),
        ("trunc", ([-1.7, 1.7, -0.0],), {}, [-1.0, 1.0, -0.0]),
        ("histogram", ([2.0, 2.0, 2.0],), {"bins": 3}, ([0.0, 3.0, 0.0], [1.5, 11 / 6, 13 / 6, 2.5])),
        ("histogram", ([-5.0, 0.0, 0.5, 1.0, 9.0],), {"bins": 2, "range": (0.0, 1.0)}, ([1.0, 2.0], [0.0, 0.5, 1.0])),
        ("digitize", ([0.5, 1.5, 2.5, 3.5],), {"bins": [3.0, 2.0, 1.0]}, [3, 2, 1, 0]),  # decreasing bins
        ("digitize", ([1.0, 2.0],), {"bins": [1.0, 2.0]}, [1, 2]),
        ("bincount", (np.array([], "int32"),), {"minlength": 3}, [0, 0, 0]),
        ("unique", (np.array([], "int32"),), {}, []),
        ("diagonal", (np.zeros((2, 3)),), {"offset": -2}, []),
        ("diff", ([1, 4, 9],), {"n": 5}, []),
        ("correlate", ([1.0, 2.0], [1.0, 0.0, -1.0, 3.0]), {"mode": "valid"}, [5.0, -2.0, 1.0]),  # x2 longer
        ("correlate", ([1.0, 2.0], [1.0, 0.0, -1.0, 3.0]), {"mode": "same"}, [5.0, -2.0, 1.0, 2.0]),
        ("correlate", ([1.0, 2.0, 3.0, 4.0], [1.0, -1.0]), {"mode": "same"}, [-1.0, -1.0, -1.0, -1.0]),
        ("corrcoef", ([1.0, 2.0, 4.0],), {}, 1.0),
        ("vander", ([2.0, 3.0],), {"N": 0}, np.zeros((2, 0))),
        ("tri", (0, 2), {}, np.zeros((0, 2))),
        (
            "geomspace",
            ([1.0, -1.0], [100.0, -1000.0], 3),
            {},
            [[1.0, -1.0], [10.0, -np.sqrt(1000.0)], [100.0, -1000.0]],
        ),
        ("unravel_index", ([[0, 7], [11, 3]], (3, 4)), {}, ([[0, 1], [2, 0]], [[0, 3], [3, 3]])),
        ("isin", ([1, 2, 3], []), {}, [False, False, False]),
        ("trapezoid", (np.ones((2, 3)), np.array([[0.0, 1.0, 3.0], [0.0, 2.0, 4.0]])), {}, [3.0, 4.0]),
    ],
)
def test_edge_values_match_numpy(name, args, kwargs, expected):
    got = getattr(ops, name)(
        *[
            np.asarray(a, "int32" if np.asarray(a).dtype.kind == "i" else "float32") if isinstance(a, list) else a
            for a in args
        ],
        **kwargs,
    )
    if isinstance(expected, tuple):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(np.asarray(g, "float64"), np.asarray(e, "float64"), rtol=1e-6)
        return
    got = np.asarray(got)
    np.testing.assert_allclose(got.astype("float64"), np.asarray(expected, "float64"), rtol=1e-6, atol=1e-7)
    if name == "trunc":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


def test_argpartition_partitions_for_every_kth():
    x = np.random.default_rng(4).normal(size=(3, 7)).astype("float32")
    for kth in range(-7, 7):
        indices = ops.argpartition(x, kth, axis=1).numpy()
        parted = np.take_along_axis(x, indices, axis=1)
        pivot = np.sort(x, axis=1)[:, kth]
        np.testing.assert_array_equal(parted[:, kth], pivot)
        assert (parted[:, : kth % 7] <= pivot[:, None]).all() and (parted[:, kth % 7 :] >= pivot[:, None]).all()
        assert sorted(indices[0].tolist()) == list(range(7))


@pytest.mark.parametrize(
    "name, x",
    [
        ("sinc", 0.0),
        ("hypot", 0.0),
        ("cbrt", 8.0),
        ("logaddexp", 1.0),
        ("nanmean", 1.0),
        ("median", 1.0),
        ("nanquantile", 1.0),
    ],
)
def test_gradients_are_finite(name, x):
    value = tf.Variable([x, 2.0, 3.0])
    with tf.GradientTape() as tape:
        if name in ("hypot", "logaddexp"):
            y = ops.sum(getattr(ops, name)(value, value))
        elif name == "nanquantile":
            y = ops.nanquantile(value, 0.3)
        else:
            y = ops.sum(getattr(ops, name)(value))
    gradient = tape.gradient(y, value)
    assert gradient is not None and np.isfinite(gradient.numpy()).all(), gradient


def test_windows_take_a_tensor_length_inside_tf_function():
    @tf.function
    def window(n):
        return ops.hanning(n) + ops.bartlett(n)

    np.testing.assert_allclose(window(tf.constant(5)).numpy(), np.hanning(5) + np.bartlett(5), atol=1e-6)
    np.testing.assert_allclose(window(tf.constant(2)).numpy(), np.hanning(2) + np.bartlett(2), atol=1e-6)


def test_vectorize_with_signature_broadcasts_loop_dimensions():
    distance = ops.vectorize(lambda a, b: tf.sqrt(tf.reduce_sum((a - b) ** 2)), signature="(n),(n)->()")
    points = np.random.default_rng(5).normal(size=(2, 3, 4)).astype("float32")
    centre = np.ones(4, "float32")
    expected = np.sqrt(((points - centre) ** 2).sum(-1))
    np.testing.assert_allclose(distance(points, centre).numpy(), expected, rtol=1e-6)


def test_vectorize_elementwise_with_excluded_arguments():
    def clip_to(x, limit, scale=1.0):
        return tf.minimum(x, limit) * scale

    vectorized = ops.vectorize(clip_to, excluded={1, "scale"})
    x = np.array([[1.0, 5.0], [3.0, -2.0]], "float32")
    np.testing.assert_allclose(vectorized(x, 2.0, scale=3.0).numpy(), np.minimum(x, 2.0) * 3.0)
    assert vectorized.__name__ == "clip_to"


def test_vectorize_without_signature_is_elementwise_with_broadcasting():
    # (Keras 3.15's TensorFlow backend refuses every call of a vectorized function: its vmap sees in_axes=(0,))
    x = np.array([[0.5, -1.0, 2.0]], "float32")
    y = np.array([[1.0], [2.0]], "float32")
    ours = ops.vectorize(lambda a, b: a * b + 1)(x, y)
    np.testing.assert_allclose(ours.numpy(), np.vectorize(lambda a, b: a * b + 1)(x, y))


def test_bincount_sparse_and_batched():
    counts = ops.bincount(np.array([[0, 1, 1], [2, 2, 2]], "int32"), minlength=4)
    np.testing.assert_array_equal(counts.numpy(), [[1, 2, 0, 0], [0, 0, 3, 0]])
    sparse = ops.bincount(np.array([3, 3, 0], "int32"), sparse=True)
    assert isinstance(sparse, tf.SparseTensor)
    np.testing.assert_array_equal(tf.sparse.to_dense(sparse).numpy(), [1, 0, 0, 2])


def test_view_round_trips_bytes():
    x = np.array([[1.5, -2.0], [0.0, 3.25]], "float32")
    as_bytes = ops.view(x, "uint8")
    assert as_bytes.shape == (2, 8)
    np.testing.assert_array_equal(ops.view(as_bytes, "float32").numpy(), x)
    np.testing.assert_array_equal(as_bytes.numpy(), x.view("uint8"))


def test_unique_with_size_compiles_under_xla():
    @tf.function(jit_compile=True)
    def distinct(x):
        return ops.unique(x, size=4, fill_value=-1, return_counts=True, return_inverse=True)

    values, inverse, counts = distinct(tf.constant([5, 3, 5, 9, 3, 3, 7, 1]))
    np.testing.assert_array_equal(values.numpy(), [1, 3, 5, 7])
    np.testing.assert_array_equal(counts.numpy(), [1, 3, 2, 1])
    np.testing.assert_array_equal(inverse.numpy(), [2, 1, 2, 4, 1, 1, 3, 0])
    values, _, counts = distinct(tf.constant([2, 2, 8]))
    np.testing.assert_array_equal(values.numpy(), [2, 8, -1, -1])
    np.testing.assert_array_equal(counts.numpy(), [2, 1, 0, 0])
