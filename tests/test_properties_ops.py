"""Property tests: ``tfkit.ops`` against numpy over generated shapes, dtypes, axes and broadcasting.

Every property draws arrays (``properties.strategies``), runs the op eagerly and
compares the numbers with a numpy formula computed in float64 (tolerance by
dtype), and the dtype with numpy's where numpy's rule is Keras 3's (same-dtype
elementwise ops, comparisons, float reductions). Then the same op runs on
``tfkit.Input`` tensors (the leading axis sometimes unknown) inside a functional
``tfkit.Model``: the symbolic output's shape and dtype agree with the eager
result's, and ``model(x)`` gives numpy's numbers too. A last property checks
result dtypes, mixed dtypes included, against ``keras.ops`` when Keras is
installed (Keras 3 is the reference for dtype promotion, numpy is not).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from properties.strategies import (
    FLOATS,
    INTS,
    NUMERIC,
    arrays,
    assert_close,
    assert_shape_matches,
    axes,
    elements,
    examples,
    shapes,
    symbolic_input,
)

import tfkit
from tfkit import ops

try:
    import keras
except ImportError:  # the dtype cross-check is skipped; the numpy properties still run
    keras = None


def check(fn, inputs, want, dtype, free_batch, loose=1.0, want_dtype=None, what=""):
    """``fn(*inputs)`` eagerly and in a functional model of ``tfkit.Input``s equals the numpy result ``want``.

    The eager call gets tensors: tfkit converts float64 numpy arrays to float32 (``tfkit.ops.array``'s
    documented rule; Keras 3 keeps float64), which would hide the float64 kernels from the comparison.
    """
    got = fn(*[tf.constant(x) for x in inputs])
    assert_close(got, want, dtype, loose, what=f"{what} (eager)")
    if want_dtype is not None:
        assert got.dtype.name == np.dtype(want_dtype).name, f"{what}: dtype {got.dtype.name}, expected {want_dtype}"
    symbols = [symbolic_input(x.shape, x.dtype.name, free_batch) for x in inputs]
    out = fn(*symbols)
    assert out.dtype == got.dtype, f"{what}: symbolic dtype {out.dtype.name}, eager {got.dtype.name}"
    assert_shape_matches(out.shape, got.shape, what)
    if not free_batch:
        assert tuple(out.shape) == tuple(got.shape), f"{what}: symbolic shape {out.shape}, eager {got.shape}"
    model = tfkit.Model(symbols if len(symbols) > 1 else symbols[0], out)
    assert_close(model(list(inputs) if len(inputs) > 1 else inputs[0]), want, dtype, loose, what=f"{what} (model)")


def f64(x):
    """``x`` as float64 for the numpy reference (integers and booleans stay as they are)."""
    return x.astype("float64") if x.dtype.kind == "f" else x


def _nonzero(dtype):
    """Divisors: at least 0.5 away from zero."""
    return elements(dtype, 0.5, 10.0) | elements(dtype, -10.0, -0.5)


# name: (numpy function, dtypes, strategy of x's elements or None, of y's elements or None)
BINARY = {
    "add": (np.add, NUMERIC, None, None),
    "subtract": (np.subtract, NUMERIC, None, None),
    "multiply": (np.multiply, NUMERIC, None, None),
    "maximum": (np.maximum, NUMERIC, None, None),
    "minimum": (np.minimum, NUMERIC, None, None),
    "divide": (np.true_divide, FLOATS, None, _nonzero),
    "floor_divide": (np.floor_divide, INTS, None, _nonzero),
    "mod": (np.mod, INTS, None, _nonzero),
    "power": (np.power, FLOATS, lambda d: elements(d, 0.5, 4.0), lambda d: elements(d, -3.0, 3.0)),
    "arctan2": (np.arctan2, FLOATS, None, None),
    "equal": (np.equal, NUMERIC, lambda d: elements(d, -2, 2), lambda d: elements(d, -2, 2)),
    "not_equal": (np.not_equal, NUMERIC, lambda d: elements(d, -2, 2), lambda d: elements(d, -2, 2)),
    "less": (np.less, NUMERIC, None, None),
    "less_equal": (np.less_equal, NUMERIC, lambda d: elements(d, -2, 2), lambda d: elements(d, -2, 2)),
    "greater": (np.greater, NUMERIC, None, None),
    "greater_equal": (np.greater_equal, NUMERIC, lambda d: elements(d, -2, 2), lambda d: elements(d, -2, 2)),
    "logical_and": (np.logical_and, ("bool",), None, None),
    "logical_or": (np.logical_or, ("bool",), None, None),
    "logical_xor": (np.logical_xor, ("bool",), None, None),
}


@st.composite
def binary_cases(draw):
    name = draw(st.sampled_from(sorted(BINARY)))
    reference, dtypes, x_elements, y_elements = BINARY[name]
    dtype = draw(st.sampled_from(dtypes))
    broadcast = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
    x_shape, y_shape = broadcast.input_shapes
    x = draw(hnp.arrays(dtype, x_shape, elements=(x_elements or elements)(dtype)))
    y = draw(hnp.arrays(dtype, y_shape, elements=(y_elements or elements)(dtype)))
    return name, reference, x, y


@settings(max_examples=examples(200))
@given(binary_cases(), st.booleans())
def test_elementwise_binary_ops_broadcast_like_numpy(case, free_batch):
    name, reference, x, y = case
    want_dtype = reference(x, y).dtype  # numpy's dtype for two operands of one dtype is Keras 3's
    check(
        getattr(ops, name),
        (x, y),
        reference(f64(x), f64(y)),
        x.dtype,
        free_batch,
        want_dtype=want_dtype,
        what=f"{name}{x.shape, y.shape}",
    )


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name: (numpy formula, dtypes, (low, high) of the inputs)
UNARY = {
    "abs": (np.abs, NUMERIC, (-10, 10)),
    "negative": (np.negative, NUMERIC, (-10, 10)),
    "square": (np.square, NUMERIC, (-10, 10)),
    "sign": (np.sign, NUMERIC, (-10, 10)),
    "sqrt": (np.sqrt, FLOATS, (0, 10)),
    "exp": (np.exp, FLOATS, (-10, 10)),
    "expm1": (np.expm1, FLOATS, (-5, 5)),
    "log": (np.log, FLOATS, (0.01, 10)),
    "log1p": (np.log1p, FLOATS, (-0.9, 10)),
    "sin": (np.sin, FLOATS, (-10, 10)),
    "cos": (np.cos, FLOATS, (-10, 10)),
    "tanh": (np.tanh, FLOATS, (-10, 10)),
    "arctan": (np.arctan, FLOATS, (-10, 10)),
    "sinh": (np.sinh, FLOATS, (-5, 5)),
    "cosh": (np.cosh, FLOATS, (-5, 5)),
    "floor": (np.floor, FLOATS, (-10, 10)),
    "ceil": (np.ceil, FLOATS, (-10, 10)),
    "round": (np.round, FLOATS, (-10, 10)),  # both round half to even
    "reciprocal": (np.reciprocal, FLOATS, (0.1, 10)),
    "sigmoid": (_sigmoid, FLOATS, (-10, 10)),
    "relu": (lambda x: np.maximum(x, 0), FLOATS, (-10, 10)),
    "relu6": (lambda x: np.clip(x, 0, 6), FLOATS, (-10, 10)),
    "softplus": (lambda x: np.log1p(np.exp(x)), FLOATS, (-10, 10)),
    "silu": (lambda x: x * _sigmoid(x), FLOATS, (-10, 10)),
    "log_sigmoid": (lambda x: -np.log1p(np.exp(-x)), FLOATS, (-10, 10)),
    "erf": (np.vectorize(math.erf, otypes=["float64"]), FLOATS, (-3, 3)),
}


@st.composite
def unary_cases(draw):
    name = draw(st.sampled_from(sorted(UNARY)))
    reference, dtypes, (low, high) = UNARY[name]
    dtype = draw(st.sampled_from(dtypes))
    return name, reference, draw(arrays(dtype, shapes(max_dims=4), low, high))


@settings(max_examples=examples(200))
@given(unary_cases(), st.booleans())
def test_unary_math_matches_numpy(case, free_batch):
    name, reference, x = case
    # exp/sinh/cosh of 10 are ~1e4, where a float16's spacing is 8: their float16 error is relative only
    loose = 2.0 if name in ("exp", "expm1", "sinh", "cosh", "softplus") else 1.0
    check(
        getattr(ops, name),
        (x,),
        reference(f64(x)),
        x.dtype,
        free_batch,
        loose,
        want_dtype=x.dtype,
        what=f"{name}{x.shape}",
    )


def _logsumexp(x, axis, keepdims):
    top = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top
    return out if keepdims else np.squeeze(out, axis=axis)


# name: (numpy reference, dtypes, (low, high), whether axis may be a tuple, float tolerance factor)
REDUCTIONS = {
    "sum": (np.sum, NUMERIC, (-10, 10), True, 4),
    "mean": (np.mean, NUMERIC, (-10, 10), True, 4),
    "max": (np.max, NUMERIC + ("bool",), (-10, 10), True, 1),
    "min": (np.min, NUMERIC + ("bool",), (-10, 10), True, 1),
    "prod": (np.prod, NUMERIC, (-1.5, 1.5), True, 8),
    "std": (np.std, FLOATS, (-10, 10), True, 8),
    "var": (np.var, FLOATS, (-10, 10), True, 8),
    "logsumexp": (_logsumexp, FLOATS, (-10, 10), True, 4),
    "any": (np.any, ("bool",), (0, 1), True, 1),
    "all": (np.all, ("bool",), (0, 1), True, 1),
    "argmax": (np.argmax, NUMERIC, (-10, 10), False, 1),
    "argmin": (np.argmin, NUMERIC, (-10, 10), False, 1),
}
# The dtype of a reduction where it is not the input's: numpy's integer rules are not Keras 3's (numpy sums
# int32 to int64), so those are left to the keras.ops cross-check below.
ARG_REDUCTIONS = ("argmax", "argmin")


@st.composite
def reduction_cases(draw):
    name = draw(st.sampled_from(sorted(REDUCTIONS)))
    reference, dtypes, (low, high), tuple_axis, loose = REDUCTIONS[name]
    dtype = draw(st.sampled_from(dtypes))
    # prod multiplies every element: at most 27 of them keeps float16 and int32 away from overflow
    shape = draw(shapes(max_dims=3, max_side=3) if name == "prod" else shapes(max_dims=4))
    x = draw(arrays(dtype, shape, low, high))
    axis = draw(axes(x.ndim, allow_tuple=tuple_axis))
    return name, reference, x, axis, draw(st.booleans()), loose


@settings(max_examples=examples(200))
@given(reduction_cases(), st.booleans())
def test_reductions_with_axis_and_keepdims_match_numpy(case, free_batch):
    name, reference, x, axis, keepdims, loose = case
    want = reference(f64(x), axis=axis, keepdims=keepdims)
    if name in ARG_REDUCTIONS:
        want_dtype = "int32"  # Keras 3 returns int32 indices, numpy int64
    elif x.dtype.kind == "f" or name in ("max", "min"):
        want_dtype = x.dtype
    else:
        want_dtype = None
    check(
        lambda t: getattr(ops, name)(t, axis=axis, keepdims=keepdims),
        (x,),
        want,
        x.dtype,
        free_batch,
        loose,
        want_dtype=want_dtype,
        what=f"{name}{x.shape} axis={axis} keepdims={keepdims}",
    )


@st.composite
def matmul_cases(draw):
    dtype = draw(st.sampled_from(("float16", "float32", "float64", "int32")))
    shapes_ = draw(hnp.mutually_broadcastable_shapes(signature=np.matmul.signature, max_dims=2, max_side=4))
    x_shape, y_shape = shapes_.input_shapes
    return draw(arrays(dtype, x_shape, -3, 3)), draw(arrays(dtype, y_shape, -3, 3))


@settings(max_examples=examples(150))
@given(matmul_cases(), st.booleans())
def test_matmul_batches_and_vectors_like_numpy(case, free_batch):
    x, y = case
    check(
        ops.matmul,
        (x, y),
        np.matmul(f64(x), f64(y)),
        x.dtype,
        free_batch,
        loose=4,
        want_dtype=np.matmul(x, y).dtype,
        what=f"matmul{x.shape, y.shape}",
    )


@st.composite
def shape_op_cases(draw):
    """An op that only moves values (reshape, transpose, ...), with valid arguments for a drawn array."""
    dtype = draw(st.sampled_from(NUMERIC + ("bool",)))
    x = draw(arrays(dtype, shapes(min_dims=1, max_dims=4)))
    rank = x.ndim
    name = draw(
        st.sampled_from(
            [
                "reshape",
                "transpose",
                "expand_dims",
                "squeeze",
                "flip",
                "roll",
                "tile",
                "repeat",
                "swapaxes",
                "moveaxis",
                "concatenate",
                "stack",
                "split",
                "cumsum",
                "cumprod",
                "sort",
            ]
        )
    )
    axis = draw(st.integers(-rank, rank - 1))
    if name == "reshape":
        target = list(draw(st.permutations(_factors(x.size))))
        if target and draw(st.booleans()):
            target[draw(st.integers(0, len(target) - 1))] = -1
        return name, (x,), lambda t: ops.reshape(t, tuple(target)), lambda a: a.reshape(target)
    if name == "transpose":
        perm = draw(st.none() | st.permutations(range(rank)).map(tuple))
        return name, (x,), lambda t: ops.transpose(t, perm), lambda a: np.transpose(a, perm)
    if name == "expand_dims":
        at = draw(st.integers(-rank - 1, rank))
        return name, (x,), lambda t: ops.expand_dims(t, at), lambda a: np.expand_dims(a, at)
    if name == "squeeze":
        # Without an axis, an unknown (batch) axis is assumed not to be 1, as in Keras's symbolic shapes:
        # a leading 1 under a free batch axis would stay in the model and go in eager mode. So the leading
        # axis is never squeezed here: the other axes of length one are.
        if x.shape[0] == 1:
            x = np.concatenate([x, x])
        at = draw(st.sampled_from([None] + [i for i, side in enumerate(x.shape) if side == 1]))
        return name, (x,), lambda t: ops.squeeze(t, at), lambda a: np.squeeze(a, at)
    if name == "flip":
        return name, (x,), lambda t: ops.flip(t, axis), lambda a: np.flip(a, axis)
    if name == "roll":
        shift, roll_axis = draw(st.integers(-5, 5)), draw(st.none() | st.just(axis))
        return name, (x,), lambda t: ops.roll(t, shift, roll_axis), lambda a: np.roll(a, shift, roll_axis)
    if name == "tile":
        reps = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=rank + 1)))
        return name, (x,), lambda t: ops.tile(t, reps), lambda a: np.tile(a, reps)
    if name == "repeat":
        count, repeat_axis = draw(st.integers(1, 3)), draw(st.none() | st.just(axis))
        return name, (x,), lambda t: ops.repeat(t, count, repeat_axis), lambda a: np.repeat(a, count, repeat_axis)
    if name == "swapaxes":
        other = draw(st.integers(-rank, rank - 1))
        return name, (x,), lambda t: ops.swapaxes(t, axis, other), lambda a: np.swapaxes(a, axis, other)
    if name == "moveaxis":
        target = draw(st.integers(-rank, rank - 1))
        return name, (x,), lambda t: ops.moveaxis(t, axis, target), lambda a: np.moveaxis(a, axis, target)
    if name == "concatenate":
        sides = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
        parts = [x] + [draw(arrays(dtype, x.shape[: axis % rank] + (s,) + x.shape[axis % rank + 1 :])) for s in sides]
        return (
            name,
            tuple(parts),
            lambda *t: ops.concatenate(list(t), axis=axis),
            lambda *a: np.concatenate(a, axis=axis),
        )
    if name == "stack":
        parts = (x,) + tuple(draw(st.lists(arrays(dtype, x.shape), min_size=0, max_size=2)))
        at = draw(st.integers(-rank - 1, rank))
        return name, parts, lambda *t: ops.stack(list(t), axis=at), lambda *a: np.stack(a, axis=at)
    if name == "split":
        sections = draw(st.sampled_from([d for d in range(1, x.shape[axis] + 1) if x.shape[axis] % d == 0]))
        return (
            name,
            (x,),
            lambda t: ops.concatenate(ops.split(t, sections, axis)[::-1], axis=axis),
            lambda a: np.concatenate(np.split(a, sections, axis)[::-1], axis=axis),
        )
    if name in ("cumsum", "cumprod"):
        if dtype == "bool":  # Keras 3 counts booleans as int32; numpy's cumsum gives int64
            x = x.astype("int32")
        if name == "cumprod":  # at most 4 factors along one axis; the flattened product would overflow
            x = np.clip(x, -3, 3)
        cum_axis = axis if name == "cumprod" else draw(st.none() | st.just(axis))
        return (
            name,
            (x,),
            lambda t: getattr(ops, name)(t, axis=cum_axis),
            lambda a: getattr(np, name)(a, axis=cum_axis).astype(x.dtype),
        )
    # sort: numbers only, numpy's order of booleans is the same but tf.sort has no bool kernel (as Keras 3)
    if dtype == "bool":
        x = x.astype("int32")
    return name, (x,), lambda t: ops.sort(t, axis=axis), lambda a: np.sort(a, axis=axis)


def _factors(n):
    """The prime factors of ``n`` (1 has none: the reshape target is then ``()``)."""
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


@settings(max_examples=examples(250))
@given(shape_op_cases(), st.booleans())
def test_shape_ops_move_values_like_numpy(case, free_batch):
    name, inputs, fn, reference = case
    want = reference(*inputs)
    check(
        fn, inputs, want, inputs[0].dtype, free_batch, want_dtype=want.dtype, what=f"{name}{[a.shape for a in inputs]}"
    )


@st.composite
def where_cases(draw):
    dtype = draw(st.sampled_from(NUMERIC))
    broadcast = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=4, max_side=4))
    c_shape, x_shape, y_shape = broadcast.input_shapes
    return draw(arrays("bool", c_shape)), draw(arrays(dtype, x_shape)), draw(arrays(dtype, y_shape))


@settings(max_examples=examples(150))
@given(where_cases(), st.booleans())
def test_where_broadcasts_condition_and_branches_like_numpy(case, free_batch):
    condition, x, y = case
    check(
        ops.where,
        (condition, x, y),
        np.where(condition, x, y),
        x.dtype,
        free_batch,
        want_dtype=x.dtype,
        what=f"where{condition.shape, x.shape, y.shape}",
    )


@st.composite
def clip_cases(draw):
    dtype = draw(st.sampled_from(NUMERIC))
    x = draw(arrays(dtype, shapes(max_dims=4)))
    low, high = sorted(draw(st.tuples(elements(dtype, -12, 12), elements(dtype, -12, 12))))
    return x, low, high


@settings(max_examples=examples(150))
@given(clip_cases(), st.booleans())
def test_clip_matches_numpy(case, free_batch):
    x, low, high = case
    check(
        lambda t: ops.clip(t, low, high),
        (x,),
        np.clip(x, low, high),
        x.dtype,
        free_batch,
        want_dtype=x.dtype,
        what=f"clip{x.shape} [{low}, {high}]",
    )


@st.composite
def softmax_cases(draw):
    dtype = draw(st.sampled_from(FLOATS))
    x = draw(arrays(dtype, shapes(min_dims=1, max_dims=4), -20, 20))
    return x, draw(axes(x.ndim, allow_none=False, allow_tuple=True))


@settings(max_examples=examples(100))
@given(softmax_cases(), st.booleans(), st.booleans())
def test_softmax_and_log_softmax_match_the_formulas(case, log, free_batch):
    x, axis = case
    a = f64(x)
    shifted = a - np.max(a, axis=axis, keepdims=True)
    log_sum = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    want = shifted - log_sum if log else np.exp(shifted - log_sum)
    name = "log_softmax" if log else "softmax"
    check(
        lambda t: getattr(ops, name)(t, axis=axis),
        (x,),
        want,
        x.dtype,
        free_batch,
        loose=4,
        want_dtype=x.dtype,
        what=f"{name}{x.shape} axis={axis}",
    )


# Ops whose result dtype Keras 3 defines by its own promotion rules (not numpy's), for the keras.ops cross-check.
DTYPE_OPS = {
    "add": 2,
    "subtract": 2,
    "multiply": 2,
    "divide": 2,
    "maximum": 2,
    "power": 2,
    "floor_divide": 2,
    "mod": 2,
    "equal": 2,
    "less": 2,
    "arctan2": 2,
    "matmul": 2,
    "where": 3,
    "abs": 1,
    "negative": 1,
    "square": 1,
    "sqrt": 1,
    "exp": 1,
    "log1p": 1,
    "sign": 1,
    "floor": 1,
    "round": 1,
    "sum": 1,
    "mean": 1,
    "prod": 1,
    "max": 1,
    "std": 1,
    "var": 1,
    "cumsum": 1,
    "cumprod": 1,
    "argmax": 1,
    "count_nonzero": 1,
    "any": 1,
}
ALL_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "float16", "float32", "float64")


@st.composite
def dtype_cases(draw):
    name = draw(st.sampled_from(sorted(DTYPE_OPS)))
    dtypes = [draw(st.sampled_from(ALL_DTYPES)) for _ in range(DTYPE_OPS[name])]
    if name == "where":
        dtypes[0] = "bool"
    shape = (2, 2) if name == "matmul" else draw(shapes(min_dims=1, max_dims=2, max_side=3))
    low = 1 if name in ("divide", "floor_divide", "mod", "power") else 0  # no division by zero, no 0 ** -1
    return name, [draw(arrays(d, shape, low, 3)) for d in dtypes]


@pytest.mark.skipif(keras is None, reason="Keras 3 is the reference for dtype promotion; not installed")
@settings(max_examples=examples(200))
@given(dtype_cases())
def test_result_dtypes_follow_keras_promotion(case):
    name, inputs = case
    inputs = [tf.constant(x) for x in inputs]  # tensors: see check() on float64 numpy arrays
    try:
        want = getattr(keras.ops, name)(*inputs)
    except Exception:  # noqa: BLE001  (a combination Keras refuses says nothing about tfkit's promotion)
        reject()
    got = getattr(ops, name)(*inputs)
    what = f"{name}{tuple(a.dtype.name for a in inputs)}"
    assert keras.backend.standardize_dtype(want.dtype) == got.dtype.name, f"{what}: Keras gives {want.dtype}"
    np.testing.assert_allclose(
        np.asarray(got, "float64"), np.asarray(want, "float64"), rtol=1e-2, atol=1e-2, err_msg=what
    )
