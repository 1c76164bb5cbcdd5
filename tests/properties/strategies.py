"""Hypothesis profiles and strategies shared by the property tests (``tests/test_properties_*.py``).

    from properties.strategies import arrays, examples, shapes
    @settings(max_examples=examples(100))
    @given(arrays("float32", shapes(max_dims=3)))
    def test_something(x): ...

Profiles: ``"default"`` (derandomized, so a run in CI always draws the same
examples and never flakes; no deadline, since TensorFlow's first call of an
op can take a second; the failing example's reproduction blob printed) and
``"long"`` (random seeds and ten times the examples), selected when the
environment sets ``TFKIT_LONG_TESTS=1``. Neither keeps an example database:
the suite writes nothing into the repository.

Each property names its own example count through :func:`examples`, which
multiplies it under the long profile. Arrays hold values that TensorFlow and
numpy agree on bit for bit at the input: no NaN, no infinity, no subnormal
floats (TensorFlow's CPU kernels flush subnormals to zero, numpy keeps them).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from long_checks import LONG_RUN as LONG  # the property tests take LONG_FACTOR times the examples

import tfkit

LONG_FACTOR = 10

_COMMON = dict(
    deadline=None,
    print_blob=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.differing_executors],
)
settings.register_profile("default", derandomize=True, max_examples=50, **_COMMON)
settings.register_profile("long", derandomize=False, max_examples=50 * LONG_FACTOR, **_COMMON)
settings.load_profile("long" if LONG else "default")

FLOATS = ("float16", "float32", "float64")
INTS = ("int32", "int64")
NUMERIC = FLOATS + INTS

# (rtol, atol) of a result computed in a dtype against numpy's float64 reference.
_TOLERANCE = {"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-5), "float64": (1e-10, 1e-10)}


def examples(count: int) -> int:
    """``count`` examples in the default profile, ``LONG_FACTOR`` times as many in the long one."""
    return count * LONG_FACTOR if LONG else count


def tolerance(dtype, loose: float = 1.0) -> dict:
    """``rtol``/``atol`` keyword arguments for comparing a ``dtype`` result with a float64 reference.

    Integers and booleans compare exactly; ``loose`` widens the float
    tolerances of ops that chain many roundings (reductions, matmul, exp).
    """
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if name not in _TOLERANCE:
        return {"rtol": 0, "atol": 0}
    rtol, atol = _TOLERANCE[name]
    return {"rtol": rtol * loose, "atol": atol * loose}


def assert_close(got, want, dtype, loose: float = 1.0, what: str = "") -> None:
    """``got`` (a tensor or array) equals the numpy reference ``want`` within ``dtype``'s tolerance.

    Integer results compare exactly; a float result of integer input (``mean`` of int32 is float32, as in
    Keras 3) was rounded in its own dtype, so it gets that dtype's tolerance.
    """
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, numpy gives {want.shape}"
    if got.dtype == bool or want.dtype == bool:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    if got.dtype.kind == "f" and np.dtype(dtype).kind in "iub":
        dtype = got.dtype  # a float result of integer input (mean): rounded in the result's float dtype
    np.testing.assert_allclose(got.astype("float64"), want.astype("float64"), err_msg=what, **tolerance(dtype, loose))


def shapes(min_dims: int = 0, max_dims: int = 4, min_side: int = 1, max_side: int = 4) -> st.SearchStrategy:
    """Array shapes: tuples of ``min_dims`` to ``max_dims`` sides in ``[min_side, max_side]``."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def elements(dtype: str, low: float = -10.0, high: float = 10.0) -> st.SearchStrategy:
    """Finite, non-subnormal scalars of ``dtype`` in ``[low, high]``."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return st.integers(max(int(np.ceil(low)), info.min), min(int(np.floor(high)), info.max))
    low_, high_ = dtype.type(low), dtype.type(high)  # the nearest values of the dtype inside [low, high]
    low_ = np.nextafter(low_, dtype.type(np.inf)) if low_ < low else low_
    high_ = np.nextafter(high_, dtype.type(-np.inf)) if high_ > high else high_
    return st.floats(
        float(low_),
        float(high_),
        width=dtype.itemsize * 8,
        allow_nan=False,
        allow_infinity=False,
        allow_subnormal=False,
    )


def arrays(dtype: str, shape, low: float = -10.0, high: float = 10.0) -> st.SearchStrategy:
    """numpy arrays of ``dtype`` and ``shape`` (a tuple or a strategy of tuples), values in ``[low, high]``."""
    return hnp.arrays(np.dtype(dtype), shape, elements=elements(dtype, low, high))


@st.composite
def axes(draw, rank: int, allow_none: bool = True, allow_tuple: bool = True):
    """An ``axis`` argument for an array of ``rank``: None, an int (maybe negative) or a tuple of distinct ints."""
    choices = ["int"] if rank else []
    if allow_none or not rank:
        choices.append("none")
    if allow_tuple and rank:
        choices.append("tuple")
    kind = draw(st.sampled_from(choices))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-rank, rank - 1))
    picked = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    return tuple(a - rank if draw(st.booleans()) else a for a in picked)


@st.composite
def broadcast_pair(draw, dtype: str, max_dims: int = 4, low: float = -10.0, high: float = 10.0):
    """Two arrays of ``dtype`` whose shapes broadcast against each other (either may be the larger)."""
    shapes_ = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=max_dims, max_side=4))
    a, b = shapes_.input_shapes
    return draw(arrays(dtype, a, low, high)), draw(arrays(dtype, b, low, high))


def symbolic_input(shape: tuple, dtype: str, free_batch: bool):
    """A ``tfkit.Input`` for arrays of ``shape``: the leading axis unknown (``None``) when ``free_batch``."""
    batch_shape = tuple(shape)
    if free_batch and batch_shape:
        batch_shape = (None,) + batch_shape[1:]
    return tfkit.Input(batch_shape=batch_shape, dtype=dtype)


def assert_shape_matches(symbolic_shape, eager_shape, what: str = "") -> None:
    """A symbolic shape agrees with a real one: same rank, every known dimension equal."""
    symbolic = tuple(symbolic_shape)
    eager = tuple(eager_shape)
    assert len(symbolic) == len(eager), f"{what}: symbolic shape {symbolic}, eager {eager}"
    for s, e in zip(symbolic, eager):
        assert s is None or s == e, f"{what}: symbolic shape {symbolic}, eager {eager}"
