"""Result dtypes of the numpy-style ops of issue 19 against keras.ops, input dtype by input dtype.

Keras's promotion (``keras.backend.result_type``) is checked exhaustively; each op is
then called on tensors of every dtype (and, for two-argument ops, against a Python int,
float or bool) and must give ``keras.ops``'s dtype wherever Keras gives a result.
"""

import itertools

import numpy as np
import pytest
import tensorflow as tf

from tfkit import ops
from tfkit.ops.numpy_dtypes import result_type

keras = pytest.importorskip("keras")

DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "bfloat16",
    "float16",
    "float32",
    "float64",
]
TENSOR_DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "uint32",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]
PARTNERS = ["bool", "uint8", "int32", "int64", "float16", "float32", 2, 2.5, True]

UNARY = (
    "tan arcsin arccos arctan sinh cosh arcsinh arccosh arctanh log2 log10 exp2 sinc angle fabs cbrt deg2rad "
    "rad2deg i0 reciprocal trunc conj conjugate real imag isposinf isneginf isreal signbit nan_to_num "
    "bitwise_invert bitwise_not copy array size nansum nanprod nanmax nanmin nanmean nanvar nanstd nanargmax "
    "nanargmin nancumsum nancumprod median nanmedian ptp diff corrcoef flipud fliplr rot90 diagonal nonzero "
    "unique trapezoid empty_like diagflat"
).split()
BINARY = (
    "arctan2 hypot logaddexp logaddexp2 heaviside nextafter divide_no_nan fmax fmin fmod isclose allclose "
    "logical_xor isin bitwise_and bitwise_or bitwise_xor left_shift right_shift bitwise_left_shift "
    "bitwise_right_shift gcd lcm kron inner vdot ldexp"
).split()

# ops tfkit had before issue 19 whose dtypes were brought to Keras's (bool with a Python int, sums of int8 ...)
EARLIER_UNARY = (
    "sqrt exp log log1p sin cos tanh sign floor ceil mean sum prod std var cumsum cumprod abs absolute "
    "square negative argmax isnan count_nonzero"
).split()
EARLIER_BINARY = (
    "add subtract multiply divide floor_divide mod maximum minimum equal not_equal greater less_equal logical_and outer"
).split()


def _tensor(dtype, shape=(2, 3)):
    base = np.arange(int(np.prod(shape))).reshape(shape) % 4
    if dtype == "bool":
        return tf.constant(base > 0)
    return tf.constant(base.astype("float32") / (4 if "float" in dtype else 1), dtype=dtype)


def _names(value):
    if isinstance(value, (list, tuple)):
        return [_names(v) for v in value]
    return tf.as_dtype(value.dtype).name


def _compare(name, *args):
    """None when tfkit and Keras agree (or Keras has no result), else a line saying what differs."""
    try:
        theirs = getattr(keras.ops, name)(*args)
    except Exception:  # noqa: BLE001 - Keras refuses the combination: nothing to match
        return None
    label = f"{name}({', '.join(repr(a) if not tf.is_tensor(a) else a.dtype.name for a in args)})"
    try:
        ours = getattr(ops, name)(*args)
    except Exception as error:  # noqa: BLE001
        return f"{label}: tfkit raised {type(error).__name__}: {str(error)[:120]}; Keras gives {_names(theirs)}"
    if _names(ours) != _names(theirs):
        return f"{label}: tfkit {_names(ours)}, Keras {_names(theirs)}"
    return None


def test_result_type_matches_keras_for_every_pair_and_python_scalar():
    items = DTYPES + [int, float, bool]
    for a, b in itertools.product(items, items):
        assert result_type(a, b) == keras.backend.result_type(a, b), (a, b)
    for a, b, c in itertools.product(
        ["int8", "uint16", "bfloat16", "float16", int, float], ["uint8", "int32", "uint64", float], DTYPES
    ):
        assert result_type(a, b, c) == keras.backend.result_type(a, b, c), (a, b, c)
    assert result_type() == keras.backend.result_type() == "float32"


@pytest.mark.parametrize("name", UNARY + EARLIER_UNARY)
def test_unary_op_dtypes_match_keras(name):
    problems = [p for p in (_compare(name, _tensor(d)) for d in TENSOR_DTYPES) if p]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", BINARY + EARLIER_BINARY)
def test_binary_op_dtypes_match_keras(name):
    pairs = [(a, b) for a in TENSOR_DTYPES for b in PARTNERS] + [(b, a) for a in TENSOR_DTYPES for b in PARTNERS]
    problems = []
    for a, b in pairs:
        x1 = _tensor(a) if isinstance(a, str) else a
        x2 = _tensor(b) if isinstance(b, str) else b
        problem = _compare(name, x1, x2)
        if problem:
            problems.append(problem)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: ops.quantile(_tensor("int8"), 0.5), "float32"),
        (lambda: ops.percentile(_tensor("float16"), [10, 90]), "float16"),
        (lambda: ops.bincount(tf.constant([0, 2, 2])), "int32"),
        (lambda: ops.bincount(tf.constant([0, 2, 2]), weights=tf.constant([1.0, 2.0, 3.0], "float64")), "float64"),
        (lambda: ops.digitize(_tensor("float64"), [0.5]), "int32"),
        (lambda: ops.searchsorted(tf.constant([1, 3, 5]), tf.constant([2.0, 6.0])), "int32"),
        (lambda: ops.logspace(0, 3, 4), "float32"),
        (lambda: ops.logspace(0, 3, 4, dtype="int32"), "int32"),
        (lambda: ops.geomspace(1, 8, 4), "float32"),
        (lambda: ops.tri(3), "float32"),
        (lambda: ops.vander(tf.constant([1, 2, 3])), "int32"),
        (lambda: ops.unravel_index(tf.constant([5], "int64"), (2, 3))[0], "int64"),
        (lambda: ops.slogdet(_tensor("float64", (2, 2)))[1], "float64"),
        (lambda: ops.cross(_tensor("int32", (2, 3)), _tensor("float16", (2, 3))), "float16"),
        (lambda: ops.dstack([_tensor("int8"), _tensor("uint8")]), "int16"),
        # deliberate differences: Keras casts an int histogram's bin edges to the input's int dtype (edges
        # 0, 0, 1, 1 ...), tfkit counts in int32 and keeps float32 edges; Keras's select follows
        # tf.experimental.numpy (int32 choices give int64), tfkit Keras's own result_type
        (lambda: ops.histogram(_tensor("int8", (6,)), bins=3), ["int32", "float32"]),
        (lambda: ops.select([tf.constant([True, False])], [tf.constant([1, 2])]), "int32"),
    ],
)
def test_multi_argument_op_dtypes(call, expected):
    assert _names(call()) == expected
