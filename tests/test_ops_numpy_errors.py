"""Bad arguments to the numpy-style ops of issue 19: one clear error that names the argument."""

import numpy as np
import pytest
import tensorflow as tf

from tfkit import ops

X = np.arange(12, dtype="float32").reshape(3, 4)
I = np.arange(12, dtype="int32").reshape(3, 4)


def bad(call, error, match):
    return pytest.param(call, error, match, id=match.split(" ")[0][:30])


BAD_CALLS = [
    bad(lambda: ops.fabs(tf.constant([1 + 2j])), TypeError, "fabs does not support complex inputs; got x"),
    bad(lambda: ops.ldexp(X, X), TypeError, "integer exponent x2; got dtype float32"),
    bad(lambda: ops.bitwise_and(X, 1), TypeError, "bitwise_and needs integer or bool tensors; got x of dtype float32"),
    bad(lambda: ops.left_shift(I, 1.5), TypeError, "left_shift needs integer or bool tensors; got y of dtype float32"),
    bad(lambda: ops.bitwise_invert(X), TypeError, "bitwise_invert needs an integer or bool tensor; got x"),
    bad(lambda: ops.gcd(X, 2), TypeError, "gcd needs integer tensors; got x1 of dtype float32"),
    bad(lambda: ops.lcm(2, X), TypeError, "lcm needs integer tensors; got x1 of dtype int32 and x2 of dtype float32"),
    bad(lambda: ops.signbit(tf.constant([1j])), TypeError, "signbit does not support complex"),
    bad(lambda: ops.quantile(X, 1.5), ValueError, r"q must lie in \[0, 1\]; got q=1.5"),
    bad(lambda: ops.percentile(X, [50, 150]), ValueError, r"q must lie in \[0, 100\]; got q=\[50, 150\]"),
    bad(lambda: ops.nanquantile(X, 0.5, method="cubic"), ValueError, "method must be one of linear, lower"),
    bad(lambda: ops.median(X, axis=2), ValueError, "axis 2 is out of bounds for a tensor of rank 2"),
    bad(lambda: ops.quantile(X, "half"), TypeError, "q must be a number"),
    bad(lambda: ops.histogram(X.ravel(), bins="auto"), TypeError, "bins must be an int; got bins='auto'"),
    bad(lambda: ops.histogram(X.ravel(), bins=-1), ValueError, "bins must be a non-negative int"),
    bad(lambda: ops.histogram(X.ravel(), range=(2, 1)), ValueError, r"range must have min <= max; got range=\(2, 1\)"),
    bad(lambda: ops.histogram(X.ravel(), range=(1,)), ValueError, r"range must be a tuple \(min, max\)"),
    bad(lambda: ops.histogram(X), ValueError, r"histogram needs a 1-D x; got x of shape \(3, 4\)"),
    bad(lambda: ops.bincount(X), TypeError, "bincount needs non-negative integers in x; got x of dtype float32"),
    bad(lambda: ops.bincount(I[None]), ValueError, "bincount needs a 1-D or 2-D x"),
    bad(lambda: ops.bincount(I, minlength=-1), ValueError, "minlength must be a non-negative int"),
    bad(lambda: ops.digitize(X, [[1.0]]), ValueError, r"bins must be 1-D; got bins of shape \(1, 1\)"),
    bad(lambda: ops.digitize(X, [1.0, 3.0, 2.0]), ValueError, "bins must be monotonically increasing or decreasing"),
    bad(lambda: ops.searchsorted(X, X), ValueError, r"searchsorted needs a 1-D sorted_sequence; got shape \(3, 4\)"),
    bad(lambda: ops.searchsorted(X[0], 1.0, side="middle"), ValueError, "side must be 'left' or 'right'"),
    bad(lambda: ops.unique(I, size=-2), ValueError, "size must be a non-negative int; got size=-2"),
    bad(lambda: ops.unique(I, axis=5), ValueError, "axis 5 is out of bounds for a tensor of rank 2"),
    bad(lambda: ops.ptp(X > 3), TypeError, "ptp does not support bool inputs"),
    bad(lambda: ops.corrcoef(X[None]), ValueError, r"corrcoef needs a 1-D or 2-D x; got x of shape \(1, 3, 4\)"),
    bad(lambda: ops.correlate(X[0], X[1], mode="circular"), ValueError, "mode must be 'valid', 'same' or 'full'"),
    bad(lambda: ops.correlate(X, X[1]), ValueError, r"correlate needs 1-D tensors; got x1 of shape \(3, 4\)"),
    bad(lambda: ops.trapezoid(X, axis=3), ValueError, "axis 3 is out of bounds for y of rank 2"),
    bad(lambda: ops.argpartition(X, 1.5), ValueError, "kth must be an int; got kth=1.5"),
    bad(lambda: ops.argpartition(X, 4), ValueError, "kth=4 is out of bounds for an axis of length 4"),
    bad(lambda: ops.diff(X, n=-1), ValueError, "n must be a non-negative int; got n=-1"),
    bad(lambda: ops.diff(np.float32(2.0)), ValueError, "diff needs a at least 1-D"),
    bad(lambda: ops.diff(X, axis=2), ValueError, "axis=2 is out of bounds for a tensor of rank 2"),
    bad(lambda: ops.array_split(X, 0), ValueError, "indices_or_sections must be a positive int"),
    bad(lambda: ops.array_split(X, "two"), TypeError, "indices_or_sections must be an int or a list of ints"),
    bad(lambda: ops.hsplit(X, 3), ValueError, "indices_or_sections=3 does not divide the axis 1 of length 4"),
    bad(lambda: ops.vsplit(X[0], 2), ValueError, r"vsplit needs x with at least 2 dimension\(s\)"),
    bad(lambda: ops.dsplit(X, 2), ValueError, r"dsplit needs x with at least 3 dimension\(s\)"),
    bad(lambda: ops.dstack([]), ValueError, "dstack needs a non-empty list of tensors"),
    bad(lambda: ops.rot90(X[0]), ValueError, r"rot90 needs an array with at least 2 dimensions; got shape \(4,\)"),
    bad(lambda: ops.rot90(X, axes=(1, 1)), ValueError, r"axes must be two different axes; got axes=\(1, 1\)"),
    bad(lambda: ops.rot90(X, axes=(0, 2)), ValueError, r"axes\[1\]=2 is out of bounds"),
    bad(lambda: ops.rot90(X, axes=(0, 1, 2)), ValueError, "axes must be two different axes"),
    bad(lambda: ops.fliplr(X[0]), ValueError, "fliplr needs x with at least 2 dimensions"),
    bad(lambda: ops.flipud(np.float32(1)), ValueError, "flipud needs x with at least 1 dimension"),
    bad(lambda: ops.diagonal(X[0]), ValueError, "diagonal needs x with at least 2 dimensions"),
    bad(lambda: ops.diagonal(X, axis1=1, axis2=-1), ValueError, "axis1 and axis2 must differ"),
    bad(lambda: ops.nonzero(np.float32(1)), ValueError, "nonzero needs x with at least 1 dimension"),
    bad(lambda: ops.select([X > 1], [X, X]), ValueError, "condlist and choicelist must have the same length; got 1"),
    bad(lambda: ops.select(X > 1, [X]), ValueError, "condlist and choicelist must be lists"),
    bad(lambda: ops.select([], []), ValueError, "condlist and choicelist must not be empty"),
    bad(lambda: ops.unravel_index([1, 2], (None, 3)), ValueError, r"shape cannot hold None; got shape=\(None, 3\)"),
    bad(lambda: ops.unravel_index(X, (3, 4)), TypeError, "indices must be integers; got dtype float32"),
    bad(lambda: ops.view(np.float32(1), "int16"), ValueError, "A scalar of dtype float32 cannot be viewed as int16"),
    bad(
        lambda: ops.view(np.zeros((2, 3), "int16"), "int32"), ValueError, r"the last axis \(3\) must be a multiple of 2"
    ),
    bad(lambda: ops.tri(-1), ValueError, "N and M must be non-negative; got N=-1"),
    bad(lambda: ops.tri(2.5), TypeError, "N must be an int; got N=2.5"),
    bad(lambda: ops.vander(X), ValueError, r"vander needs a 1-D x; got x of shape \(3, 4\)"),
    bad(lambda: ops.vander(X[0], N=2.0), TypeError, "N must be an int; got N=2.0"),
    bad(lambda: ops.vander(X[0], N=-1), ValueError, "N must be non-negative; got N=-1"),
    bad(lambda: ops.vander(X[0], increasing=1), TypeError, "increasing must be a bool; got increasing=1"),
    bad(lambda: ops.logspace(0, 1, num=-3), ValueError, "num must be a non-negative int; got num=-3"),
    bad(lambda: ops.geomspace(0, 10), ValueError, "geomspace cannot include zero; got start=0"),
    bad(
        lambda: ops.cross(np.ones((2, 4)), np.ones((2, 3))),
        ValueError,
        "x1 must have 2 or 3 components along its axis -1",
    ),
    bad(lambda: ops.cross(np.ones(3), np.ones(3), axisc=2), ValueError, "axisc 2 is out of bounds"),
    bad(lambda: ops.inner(X, X[:, :3]), ValueError, "inner needs the last dimensions of x1 and x2 to match"),
    bad(lambda: ops.vdot(X, X[0]), ValueError, "vdot needs x1 and x2 of the same size; got 12 and 4"),
    bad(
        lambda: ops.slogdet(X),
        ValueError,
        r"slogdet needs square matrices in the last two axes; got x of shape \(3, 4\)",
    ),
    bad(lambda: ops.hamming(2.5), TypeError, "hamming needs an integer window length; got x=2.5"),
    bad(lambda: ops.kaiser([3, 4], 1.0), ValueError, r"kaiser needs a scalar window length; got x of shape \(2,\)"),
    bad(lambda: ops.vectorize(3), ValueError, "vectorize needs a callable pyfunc; got pyfunc=3"),
    bad(lambda: ops.vectorize(np.add, signature="(n)(n)->()"), ValueError, "signature must look like"),
    bad(
        lambda: ops.vectorize(lambda a: a, signature="(n),(n)->()")(X),
        ValueError,
        r"signature '\(n\),\(n\)->\(\)' describes 2 input\(s\); got 1",
    ),
    bad(
        lambda: ops.vectorize(lambda a: a, signature="(m,n)->()")(X[0]),
        ValueError,
        "fewer dimensions than its core dimensions",
    ),
]


@pytest.mark.parametrize("call, error, match", BAD_CALLS)
def test_bad_argument_gets_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()
