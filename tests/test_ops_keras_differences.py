"""Five ops that differed from keras.ops: take_along_axis(axis=None), round of ints, trace's dtype,
clip of bools, matmul of vectors."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import ops


def test_take_along_axis_without_axis_flattens_x():
    out = ops.take_along_axis(np.array([[3, 1, 2]]), np.array([1, 2]), axis=None)
    assert out.shape == (2,) and out.numpy().tolist() == [1, 2]
    assert ops.take_along_axis([[10, 30], [20, 40]], [3, -1, 0]).numpy().tolist() == [40, 40, 10]
    with pytest.raises(ValueError, match="1-D"):
        ops.take_along_axis([[3, 1, 2]], [[1, 2]])  # numpy too wants 1-D indices without an axis


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8"])
def test_round_keeps_integer_dtype(dtype):
    x = np.array([123, 125, 116, 15], dtype)
    left = ops.round(x, -1)  # halves to even, as numpy
    assert left.dtype == dtype and left.numpy().tolist() == [120, 120, 120, 20]
    right = ops.round(x, 2)  # ints have no decimals to round
    assert right.dtype == dtype and right.numpy().tolist() == [123, 125, 116, 15]
    assert ops.round(np.array([1.25, 125.0], "float32"), 1).numpy().tolist() == pytest.approx([1.2, 125.0])


@pytest.mark.parametrize(
    "dtype, expected",
    [
        ("bool", "int32"),
        ("int8", "int32"),
        ("int16", "int32"),
        ("uint8", "uint32"),
        ("uint16", "uint32"),
        ("int32", "int32"),
        ("int64", "int64"),
        ("uint32", "uint32"),
        ("float16", "float16"),
        ("float32", "float32"),
    ],
)
def test_trace_widens_small_integer_dtypes(dtype, expected):
    x = tf.cast(np.arange(9).reshape(3, 3) % 5, dtype)  # 0 1 2 / 3 4 0 / 1 2 3: diagonal 0+4+3
    out = ops.trace(x)
    assert out.dtype == expected
    assert out.numpy() == (2 if dtype == "bool" else 7)  # bools count their Trues
    assert ops.trace(x, offset=1).numpy() == 1


def test_clip_of_bools_gives_int32():
    out = ops.clip([True, False], 0, 1)
    assert out.dtype == tf.int32 and out.numpy().tolist() == [1, 0]
    assert ops.clip(np.array([True, False]), 0, 0).numpy().tolist() == [0, 0]


@pytest.mark.parametrize(
    "shape1, shape2",
    [
        ((3,), (3,)),
        ((2, 3), (3,)),
        ((3,), (3, 4)),
        ((5, 2, 3), (3,)),
        ((3,), (5, 3, 4)),
        ((2, 3), (3, 4)),
        ((5, 2, 3), (3, 4)),
        ((1, 2, 3), (5, 3, 4)),
        ((6, 1, 2, 3), (5, 3, 4)),
    ],
)
def test_matmul_takes_vectors_as_numpy_does(shape1, shape2):
    rng = np.random.default_rng(0)
    a, b = rng.integers(-5, 5, shape1).astype("int32"), rng.integers(-5, 5, shape2).astype("int32")
    out = ops.matmul(a, b)
    assert out.dtype == tf.int32 and out.shape == np.matmul(a, b).shape
    np.testing.assert_array_equal(out.numpy(), np.matmul(a, b))


@pytest.mark.parametrize(
    "dtype1, dtype2, expected",
    [
        ("int32", "float32", "float32"),
        ("int8", "int8", "int32"),
        ("int8", "uint8", "int16"),
        ("uint8", "uint8", "uint8"),
        ("bool", "bool", "bool"),
        ("bool", "int16", "int16"),
        ("float16", "bfloat16", "float32"),
        ("int32", "uint32", "int64"),
    ],
)
def test_matmul_result_dtype_is_keras_common_dtype(dtype1, dtype2, expected):
    a, b = tf.cast([[1, 2], [0, 1]], dtype1), tf.cast([1, 1], dtype2)
    out = ops.matmul(a, b)
    assert out.dtype == expected
    assert out.numpy().tolist() == ([True, True] if expected == "bool" else [2, 1] if dtype1 == "bool" else [3, 1])


def test_matmul_of_vectors_on_symbolic_tensors():
    assert ops.matmul(tfkit.Input((3,)), np.ones(3, "float32")).shape == (None,)
    assert ops.matmul(np.ones(3, "float32"), tfkit.Input((3, 4))).shape == (None, 4)
    assert ops.matmul(tfkit.Input((2, 3)), tfkit.Input((3,))).shape == (None, 2, 3)  # (None, 3) is a stack of rows
    assert ops.take_along_axis(tfkit.Input((3,)), np.array([0, 1])).shape == (2,)


def test_fixed_ops_compile_with_xla():
    @tf.function(jit_compile=True)
    def run(x, i, flags, m, v):
        return (
            ops.take_along_axis(x, i),
            ops.round(x, -1),
            ops.trace(tf.cast(m, tf.int8)),
            ops.clip(flags, 0, 1),
            ops.matmul(v, v),
            ops.matmul(m, v),
            ops.matmul(v, m),
        )

    x = tf.constant([[123, 156], [-15, 7]])
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    v = tf.constant([1.0, -1.0])
    taken, rounded, traced, clipped, inner, right, left = run(x, tf.constant([3, 0]), tf.constant([True, False]), m, v)
    assert taken.numpy().tolist() == [7, 123]
    assert rounded.dtype == tf.int32 and rounded.numpy().tolist() == [[120, 160], [-20, 10]]
    assert traced.dtype == tf.int32 and traced.numpy() == 5
    assert clipped.dtype == tf.int32 and clipped.numpy().tolist() == [1, 0]
    assert inner.shape == () and inner.numpy() == 2.0
    assert right.numpy().tolist() == [-1.0, -1.0] and left.numpy().tolist() == [-2.0, -2.0]
