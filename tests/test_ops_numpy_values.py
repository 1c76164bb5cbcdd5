"""The numpy-style ops added for issue 19 against numpy and keras.ops: numbers, dtypes, tf.function.

Each row of ``CASES`` is one call: ``tfkit.ops.<name>(*args, **kwargs)`` must give numpy's
numbers (``ref``) and, when Keras is installed, the numbers and dtype of ``keras.ops.<name>``
on the same arguments. ``test_ops_numpy_functional.py`` replays the rows on symbolic tensors.
"""

import numpy as np
import pytest
import tensorflow as tf

from tfkit import ops

RNG = np.random.default_rng(19)
X = RNG.normal(size=(3, 4)).astype("float32")
P = np.abs(X) + 0.5
U = (X / (np.abs(X).max() + 1)).astype("float32")  # inside (-1, 1)
I = np.arange(12, dtype="int32").reshape(3, 4)
I_SIGNED = (I - 5).astype("int32")
L = np.array([0, 2, 1, 2, 5], dtype="int32")
W = np.array([0.5, 1.0, 2.0, 0.25, 1.5], dtype="float32")
X3 = RNG.normal(size=(2, 3, 4)).astype("float32")
XN = X.copy()
XN[0, 1] = XN[2, 3] = XN[1, 0] = np.nan
XN_ROW = XN.copy()
XN_ROW[1, :] = np.nan  # one all-NaN row
XINF = np.array([[1.0, np.inf, -np.inf], [np.nan, -2.0, 0.0]], dtype="float32")
Z = np.array([[1.0, 0.0, -2.0, 0.0], [0.0, 3.0, 0.0, -1.0], [2.0, 0.0, 0.0, 5.0]], dtype="float32")
V = np.array([1.0, 2.0, 3.0, 0.5, -1.0], dtype="float32")
K = np.array([0.0, 1.0, 0.5], dtype="float32")
SORTED = np.array([-1.0, -0.2, 0.0, 0.4, 1.5], dtype="float32")
M3 = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, -4.0]], dtype="float32")
V3 = RNG.normal(size=(4, 3)).astype("float32")
W3 = RNG.normal(size=(4, 3)).astype("float32")


_SEEN: dict = {}


def case(name, *args, ref=None, keras=True, symbolic=True, **kwargs):
    """One call; ``keras=False`` where Keras's TensorFlow backend differs (see the note beside it)."""
    _SEEN[name] = _SEEN.get(name, 0) + 1
    return pytest.param(name, args, kwargs, ref, keras, symbolic, id=f"{name}-{_SEEN[name]}")


CASES = [
    # ------------------------------------------------------------ elementwise math
    case("tan", X, ref=lambda: np.tan(X)),
    case("arcsin", U, ref=lambda: np.arcsin(U)),
    case("arccos", U, ref=lambda: np.arccos(U)),
    case("arctan", X, ref=lambda: np.arctan(X)),
    case("sinh", X, ref=lambda: np.sinh(X)),
    case("cosh", X, ref=lambda: np.cosh(X)),
    case("arcsinh", X, ref=lambda: np.arcsinh(X)),
    case("arccosh", P + 1, ref=lambda: np.arccosh(P + 1)),
    case("arctanh", U, ref=lambda: np.arctanh(U)),
    case("log2", P, ref=lambda: np.log2(P)),
    case("log10", P, ref=lambda: np.log10(P)),
    case("log2", I + 1, ref=lambda: np.log2(I + 1)),
    case("exp2", X, ref=lambda: np.exp2(X)),
    case("exp2", I, ref=lambda: np.exp2(I)),
    case("sinc", Z, ref=lambda: np.sinc(Z)),
    case("angle", X, ref=lambda: np.angle(X)),
    case("fabs", X, ref=lambda: np.fabs(X)),
    case("fabs", I_SIGNED, ref=lambda: np.fabs(I_SIGNED)),
    case("cbrt", X, ref=lambda: np.cbrt(X)),
    case("cbrt", I_SIGNED, ref=lambda: np.cbrt(I_SIGNED)),
    case("deg2rad", X * 90, ref=lambda: np.deg2rad(X * 90)),
    case("rad2deg", X, ref=lambda: np.rad2deg(X)),
    case("i0", X, ref=lambda: np.i0(X)),
    case("reciprocal", P, ref=lambda: 1 / P),
    case("trunc", X * 3, ref=lambda: np.trunc(X * 3)),
    case("trunc", I, ref=lambda: I),
    case("conj", X, ref=lambda: X),
    case("conjugate", X, ref=lambda: X),
    case("real", X, ref=lambda: X),
    case("imag", X, ref=lambda: np.zeros_like(X)),
    case("arctan2", X, P - 1, ref=lambda: np.arctan2(X, P - 1)),
    case("arctan2", I, 3, ref=lambda: np.arctan2(I, 3)),
    case("hypot", X, P, ref=lambda: np.hypot(X, P)),
    case("hypot", I, 4, ref=lambda: np.hypot(I, 4)),
    case("logaddexp", X, P, ref=lambda: np.logaddexp(X, P)),
    case("logaddexp2", X, P, ref=lambda: np.logaddexp2(X, P)),
    case("heaviside", Z, 0.5, ref=lambda: np.heaviside(Z, 0.5)),
    case("ldexp", X, I % 5, ref=lambda: np.ldexp(X, I % 5)),
    case("nextafter", X, P, ref=lambda: np.nextafter(X, P)),
    case("divide_no_nan", X, Z, ref=lambda: np.where(Z == 0, 0, X / np.where(Z == 0, 1, Z))),
    case("fmax", XN, X * 0.5, ref=lambda: np.fmax(XN, X * 0.5)),
    case("fmin", XN, X * 0.5, ref=lambda: np.fmin(XN, X * 0.5)),
    case("fmax", I, 4, ref=lambda: np.fmax(I, 4)),
    case("fmod", X * 5, 2.0, ref=lambda: np.fmod(X * 5, 2.0)),
    case("fmod", I_SIGNED, 3, ref=lambda: np.fmod(I_SIGNED, 3)),
    # ------------------------------------------------------------ tests
    case("isclose", X, X + 1e-6, ref=lambda: np.isclose(X, X + 1e-6)),
    case("isclose", X, X + 1e-3, rtol=0.0, atol=1e-4, ref=lambda: np.isclose(X, X + 1e-3, rtol=0, atol=1e-4)),
    case("isclose", I, 3, ref=lambda: np.isclose(I, 3)),
    case("allclose", X, X + 1e-6, ref=lambda: np.allclose(X, X + 1e-6), symbolic=False),
    case("isposinf", XINF, ref=lambda: np.isposinf(XINF)),
    case("isneginf", XINF, ref=lambda: np.isneginf(XINF)),
    case("isreal", X, ref=lambda: np.isreal(X)),
    case("signbit", X, ref=lambda: np.signbit(X)),
    case("signbit", I_SIGNED, ref=lambda: np.signbit(I_SIGNED)),
    case("logical_xor", X > 0, X < 0.5, ref=lambda: np.logical_xor(X > 0, X < 0.5)),
    case("isin", I, np.array([1, 5, 7, 20], "int32"), ref=lambda: np.isin(I, [1, 5, 7, 20])),
    case("isin", I, np.array([1, 5], "int32"), invert=True, ref=lambda: np.isin(I, [1, 5], invert=True)),
    # ------------------------------------------------------------ bitwise and integer
    case("bitwise_and", I, 5, ref=lambda: I & 5),
    case("bitwise_or", I, 5, ref=lambda: I | 5),
    case("bitwise_xor", I, I_SIGNED, ref=lambda: I ^ I_SIGNED),
    case("bitwise_invert", I, ref=lambda: ~I),
    case("bitwise_not", I, ref=lambda: ~I),
    case("left_shift", I, 2, ref=lambda: I << 2),
    case("right_shift", I, 1, ref=lambda: I >> 1),
    case("bitwise_left_shift", I, I % 3, ref=lambda: I << (I % 3)),
    case("bitwise_right_shift", I, I % 3, ref=lambda: I >> (I % 3)),
    case("gcd", I, 6, ref=lambda: np.gcd(I, 6)),
    case("gcd", I_SIGNED, I, ref=lambda: np.gcd(I_SIGNED, I)),
    case("lcm", I + 1, 4, ref=lambda: np.lcm(I + 1, 4)),
    # ------------------------------------------------------------ NaN-skipping reductions
    # Keras replaces infinities too (it calls nan_to_num); numpy and tfkit only NaN: compared without infs
    case("nan_to_num", XINF, ref=lambda: np.nan_to_num(XINF)),
    case(
        "nan_to_num",
        XINF,
        nan=-1.0,
        posinf=9.0,
        neginf=-9.0,
        ref=lambda: np.nan_to_num(XINF, nan=-1.0, posinf=9.0, neginf=-9.0),
    ),
    case("nansum", XN, axis=1, ref=lambda: np.nansum(XN, 1)),
    case("nansum", XN, ref=lambda: np.nansum(XN)),
    case("nanprod", XN, axis=0, keepdims=True, ref=lambda: np.nanprod(XN, 0, keepdims=True)),
    case(
        "nanmax",
        XN_ROW,
        axis=1,
        ref=lambda: np.array([np.nanmax(r) if not np.isnan(r).all() else np.nan for r in XN_ROW]),
    ),
    case("nanmin", XN, axis=0, ref=lambda: np.nanmin(XN, 0)),
    case("nanmax", I, ref=lambda: I.max()),
    case("nanmean", XN, axis=1, ref=lambda: np.nanmean(XN, 1)),
    case("nanmean", I, ref=lambda: I.mean()),
    case("nanvar", XN, axis=1, ref=lambda: np.nanvar(XN, 1)),
    case("nanstd", XN, ref=lambda: np.nanstd(XN)),
    case("nanargmax", XN, axis=1, ref=lambda: np.nanargmax(XN, 1)),
    case("nanargmin", XN, ref=lambda: np.nanargmin(XN), symbolic=False),
    case("nanargmax", XN_ROW, axis=1, keepdims=True, ref=lambda: np.array([[2], [-1], [0]])),
    case("nancumsum", XN, axis=1, ref=lambda: np.nancumsum(XN, 1)),
    case("nancumprod", XN, axis=0, ref=lambda: np.nancumprod(XN, 0)),
    case("nancumsum", I, ref=lambda: np.cumsum(I)),
    case("nanmedian", XN, axis=1, ref=lambda: np.nanmedian(XN, 1)),
    case("nanquantile", XN, 0.3, axis=0, ref=lambda: np.nanquantile(XN, 0.3, 0)),
    case("nanpercentile", XN, [10.0, 90.0], axis=1, ref=lambda: np.nanpercentile(XN, [10, 90], 1)),
    # ------------------------------------------------------------ quantiles
    case("quantile", X, 0.3, ref=lambda: np.quantile(X, 0.3), symbolic=False),
    case(
        "quantile",
        X,
        [0.1, 0.5, 0.9],
        axis=1,
        keepdims=True,
        ref=lambda: np.quantile(X, [0.1, 0.5, 0.9], 1, keepdims=True),
    ),
    *[
        case("quantile", X, 0.4, axis=1, method=m, ref=lambda m=m: np.quantile(X, 0.4, 1, method=m))
        for m in ("lower", "higher", "midpoint", "nearest")
    ],
    case("quantile", X3, 0.25, axis=(0, 2), ref=lambda: np.quantile(X3, 0.25, (0, 2))),
    case("percentile", X, 40.0, axis=0, ref=lambda: np.percentile(X, 40, 0)),
    case("median", X, axis=1, ref=lambda: np.median(X, 1)),
    case("median", I, ref=lambda: np.median(I), symbolic=False),
    case("quantile", XN, 0.5, axis=1, ref=lambda: np.quantile(XN, 0.5, 1)),
    # ------------------------------------------------------------ counting and statistics
    case("histogram", X.ravel(), bins=5, ref=lambda: tuple(np.histogram(X.ravel(), 5))),
    case("histogram", X.ravel(), bins=4, range=(-1.0, 1.0), ref=lambda: tuple(np.histogram(X.ravel(), 4, (-1, 1)))),
    case("bincount", L, ref=lambda: np.bincount(L)),
    case("bincount", L, weights=W, ref=lambda: np.bincount(L, W)),
    case("bincount", L, minlength=8, ref=lambda: np.bincount(L, minlength=8)),
    case("digitize", X, [-1.0, 0.0, 1.0], ref=lambda: np.digitize(X, [-1.0, 0.0, 1.0])),
    case("digitize", I, [2, 5, 9], ref=lambda: np.digitize(I, [2, 5, 9])),
    # Keras's TensorFlow backend refuses values of another rank than the sequence (1-D)
    case("searchsorted", SORTED, X, ref=lambda: np.searchsorted(SORTED, X), keras=False, symbolic=False),
    case("searchsorted", SORTED, K, side="right", ref=lambda: np.searchsorted(SORTED, K, "right")),
    case("unique", I % 4, ref=lambda: np.unique(I % 4)),
    case(
        "unique",
        np.array([3, 1, 3, 2, 1], "int32"),
        return_index=True,
        return_inverse=True,
        return_counts=True,
        ref=lambda: np.unique(np.array([3, 1, 3, 2, 1]), True, True, True),
    ),
    case(
        "unique",
        np.array([[1, 2], [0, 5], [1, 2]], "int32"),
        axis=0,
        return_counts=True,
        ref=lambda: np.unique(np.array([[1, 2], [0, 5], [1, 2]]), axis=0, return_counts=True),
    ),
    case("unique", np.array([4, 1, 4], "int32"), size=4, fill_value=-1, ref=lambda: np.array([1, 4, -1, -1])),
    case("unique", np.array([4, 1, 4, 2], "int32"), sorted=False, ref=lambda: np.array([4, 1, 2])),
    case(
        "unique",
        np.array([4, 1, 4, 2, 1], "int32"),
        sorted=False,
        return_index=True,
        return_inverse=True,
        ref=lambda: (np.array([4, 1, 2]), np.array([0, 1, 3]), np.array([0, 1, 0, 2, 1])),
    ),
    case(
        "unique",
        np.array([[1, 0, 1], [2, 3, 2]], "int32"),
        axis=1,
        return_inverse=True,
        ref=lambda: np.unique(np.array([[1, 0, 1], [2, 3, 2]]), axis=1, return_inverse=True),
    ),
    case(
        "unique",
        np.array([5, 3, 5, 9, 3, 1], "int32"),
        size=2,
        return_counts=True,
        ref=lambda: (np.array([1, 3]), np.array([1, 2])),
    ),
    case(
        "unique", X > 0, return_counts=True, ref=lambda: np.unique(X > 0, return_counts=True), keras=False
    ),  # Keras's TensorFlow backend fails on bools (it negates them to sort)
    case("ptp", X, axis=1, ref=lambda: np.ptp(X, 1)),
    case("ptp", I, ref=lambda: np.ptp(I), symbolic=False),
    case("corrcoef", X, ref=lambda: np.corrcoef(X)),
    case("correlate", V, K, ref=lambda: np.correlate(V, K)),
    case("correlate", V, K, mode="same", ref=lambda: np.correlate(V, K, "same")),
    case("correlate", V, K, mode="full", ref=lambda: np.correlate(V, K, "full")),
    *[
        case(
            "correlate",
            V[:n],
            V3[0, :m] if m <= 3 else X.ravel()[:m],
            mode=mode,
            keras=False,
            ref=lambda n=n, m=m, mode=mode: np.correlate(V[:n], V3[0, :m] if m <= 3 else X.ravel()[:m], mode),
        )
        for n, m in ((1, 3), (2, 3), (2, 4), (3, 5), (4, 5), (4, 4), (5, 2))
        for mode in ("same", "valid")
    ],
    case("trapezoid", X, ref=lambda: np.trapezoid(X)),
    case(
        "trapezoid",
        X,
        np.array([0.0, 0.5, 2.0], "float32"),
        axis=0,
        ref=lambda: np.trapezoid(X, [0.0, 0.5, 2.0], axis=0),
    ),
    case("trapezoid", X, dx=0.5, ref=lambda: np.trapezoid(X, dx=0.5)),
    # ------------------------------------------------------------ shapes
    case("get_item", X, (slice(1, None), 2), ref=lambda: X[1:, 2]),
    # Keras indexes eager tensors with the list itself (numpy refuses it); its symbolic path takes a tuple
    case("get_item", X, [Ellipsis, None, slice(None, None, -1)], ref=lambda: X[..., None, ::-1], keras=False),
    case("size", X, ref=lambda: 12),
    case("diff", X, ref=lambda: np.diff(X)),
    case("diff", X, n=2, axis=0, ref=lambda: np.diff(X, 2, 0)),
    case("diff", X > 0, ref=lambda: np.diff(X > 0)),
    case("array_split", X, 3, axis=1, ref=lambda: np.array_split(X, 3, 1)),
    case("array_split", X, 2, ref=lambda: np.array_split(X, 2)),
    case("hsplit", X, 2, ref=lambda: np.hsplit(X, 2)),
    case("hsplit", X, [1, 3], ref=lambda: np.hsplit(X, [1, 3])),
    case("vsplit", X, 3, ref=lambda: np.vsplit(X, 3), symbolic=False),
    case("dsplit", X3, 2, ref=lambda: np.dsplit(X3, 2)),
    case("dstack", [X, X * 2], ref=lambda: np.dstack([X, X * 2])),
    case("dstack", [V, V], ref=lambda: np.dstack([V, V])),
    # Keras's TensorFlow backend rotates k=2 differently from numpy (its extra turn swaps h and w)
    case("rot90", X, ref=lambda: np.rot90(X)),
    case("rot90", X, k=2, ref=lambda: np.rot90(X, 2), keras=False),
    case("rot90", X3, k=3, axes=(1, 2), ref=lambda: np.rot90(X3, 3, (1, 2))),
    case("rot90", X3, k=-1, axes=(2, 0), ref=lambda: np.rot90(X3, -1, (2, 0))),
    case("fliplr", X, ref=lambda: np.fliplr(X)),
    case("flipud", X, ref=lambda: np.flipud(X)),
    case("diagonal", X, ref=lambda: np.diagonal(X)),
    case("diagonal", X, offset=-1, ref=lambda: np.diagonal(X, -1)),
    case("diagonal", X3, offset=1, axis1=1, axis2=2, ref=lambda: np.diagonal(X3, 1, 1, 2)),
    case("diagonal", X, offset=7, ref=lambda: np.diagonal(X, 7), keras=False),  # Keras: a TensorFlow error
    case("nonzero", Z, ref=lambda: np.nonzero(Z)),
    case("select", [X > 0.5, X < -0.5], [X, -X], 7.0, ref=lambda: np.select([X > 0.5, X < -0.5], [X, -X], 7.0)),
    case("unravel_index", np.array([5, 11, 0], "int32"), (3, 4), ref=lambda: np.unravel_index([5, 11, 0], (3, 4))),
    case("view", X, "int32", ref=lambda: X.view("int32")),
    case("view", I, "uint8", ref=lambda: I.view("uint8")),
    case("view", I.view("uint8"), "int32", ref=lambda: I),
    # ------------------------------------------------------------ construction
    case("array", I, ref=lambda: I),
    case("array", X, dtype="float16", ref=lambda: X.astype("float16")),
    case("copy", X, ref=lambda: X),
    case("empty", (2, 3), ref=lambda: np.zeros((2, 3))),
    case("empty_like", I, ref=lambda: np.zeros_like(I)),
    case("empty_like", I, dtype="float32", ref=lambda: np.zeros((3, 4))),
    case("tri", 3, 4, k=1, ref=lambda: np.tri(3, 4, 1)),
    case("tri", 4, k=-2, dtype="int32", ref=lambda: np.tri(4, k=-2)),
    case("vander", V, ref=lambda: np.vander(V)),
    case("vander", V, 3, increasing=True, ref=lambda: np.vander(V, 3, True)),
    case("vander", np.array([2, 3], "int32"), ref=lambda: np.vander([2, 3])),
    case("diagflat", X[:2, :2], k=1, ref=lambda: np.diagflat(X[:2, :2], 1)),
    case("logspace", 0, 3, 4, ref=lambda: np.logspace(0, 3, 4)),
    case("logspace", 0.0, 2.0, 5, endpoint=False, base=2.0, ref=lambda: np.logspace(0, 2, 5, False, 2.0)),
    case(
        "logspace",
        np.array([0.0, 1.0], "float32"),
        2.0,
        3,
        axis=1,
        ref=lambda: np.logspace(np.array([0.0, 1.0]), 2.0, 3, axis=1),
    ),
    case("geomspace", 1, 1000, 4, ref=lambda: np.geomspace(1, 1000, 4)),
    case("geomspace", -2.0, -32.0, 5, endpoint=False, ref=lambda: np.geomspace(-2, -32, 5, False)),
    # ------------------------------------------------------------ products
    case("kron", X[:2, :2], I[:2, :3], ref=lambda: np.kron(X[:2, :2], I[:2, :3])),
    case("kron", V[:3], X[:2, :2], ref=lambda: np.kron(V[:3], X[:2, :2])),
    case("cross", V3, W3, ref=lambda: np.cross(V3, W3)),
    case("cross", V3[:, :2], W3[:, :2], ref=lambda: V3[:, 0] * W3[:, 1] - V3[:, 1] * W3[:, 0]),
    case("cross", V3, W3[:, :2], ref=lambda: np.cross(V3, W3 * [1, 1, 0])),  # a 2-vector has z = 0
    case("cross", V3.T, W3.T, axis=0, ref=lambda: np.cross(V3.T, W3.T, axis=0)),
    case("inner", X, X, ref=lambda: np.inner(X, X)),
    case("inner", I, I[0], ref=lambda: np.inner(I, I[0])),
    case("vdot", X, X, ref=lambda: np.vdot(X, X), symbolic=False),
    case("slogdet", M3, ref=lambda: tuple(np.linalg.slogdet(M3)), symbolic=False),
    case(
        "slogdet",
        np.stack([M3, -M3, np.eye(3, dtype="float32")]),
        ref=lambda: tuple(np.linalg.slogdet(np.stack([M3, -M3, np.eye(3)]))),
    ),
    # ------------------------------------------------------------ windows
    *[
        case(w, n, ref=lambda w=w, n=n: getattr(np, w)(n))
        for w in ("bartlett", "blackman", "hamming", "hanning")
        for n in (0, 1, 7, 8)
    ],
    case("kaiser", 8, 5.0, ref=lambda: np.kaiser(8, 5.0)),
    case("kaiser", 1, 3.0, ref=lambda: np.kaiser(1, 3.0)),
]


def _numpy(value):
    if isinstance(value, (list, tuple)):
        return [_numpy(v) for v in value]
    return np.asarray(value)


def _assert_same(got, expected, rtol=1e-5, atol=1e-6):
    if isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(expected), (got, expected)
        for g, e in zip(got, expected):
            _assert_same(g, e, rtol, atol)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_allclose(got.astype("float64"), expected.astype("float64"), rtol=rtol, atol=atol)


def _dtypes(value):
    if isinstance(value, (list, tuple)):
        return [_dtypes(v) for v in value]
    return tf.as_dtype(value.dtype).name


@pytest.mark.parametrize("name, args, kwargs, ref, keras_check, symbolic", CASES)
def test_op_matches_numpy_and_keras(name, args, kwargs, ref, keras_check, symbolic):
    got = getattr(ops, name)(*args, **kwargs)
    if ref is not None:
        _assert_same(_numpy(got), ref())
    if not keras_check:
        return
    keras = pytest.importorskip("keras")
    theirs = getattr(keras.ops, name)(*args, **kwargs)
    _assert_same(_numpy(got), _numpy(theirs), rtol=1e-4, atol=1e-5)
    assert _dtypes(got) == _dtypes(theirs)


@pytest.mark.parametrize("name, args, kwargs, ref, keras_check, symbolic", CASES)
def test_op_runs_inside_tf_function(name, args, kwargs, ref, keras_check, symbolic):
    eager = getattr(ops, name)(*args, **kwargs)
    traced = tf.function(lambda: getattr(ops, name)(*args, **kwargs))()
    _assert_same(_numpy(traced), _numpy(eager))
