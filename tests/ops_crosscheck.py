"""Shared checks for the ``tfkit.ops`` tests: one op against keras.ops and numpy, eagerly and traced, and saved.

check_op(ops.celu, keras_op("celu"), (X,), {}, reference=lambda: ...)   # values and dtype
check_saved_op(tmp_path, lambda x: ops.celu(x), (4,), X)               # functional model, .h5 round trip
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import tensorflow as tf

import tfkit

try:
    import keras
except ImportError:  # cross-checks against Keras are skipped; numpy references still run
    keras = None


def keras_op(name: str, module: str | None = None) -> Callable | None:
    """``keras.ops.<module>.<name>``, or None without Keras."""
    if keras is None:
        return None
    namespace = keras.ops if module is None else getattr(keras.ops, module)
    return getattr(namespace, name)


def _flat(value: Any) -> list[np.ndarray]:
    """The arrays in ``value``: a tuple or a list of tensors is several, a list of numbers is one."""
    if isinstance(value, list) and all(np.isscalar(v) or isinstance(v, list) for v in value):
        return [np.asarray(value)]
    return [np.asarray(v) for v in tf.nest.flatten(value)]


def _same(got: Any, want: Any, rtol: float, atol: float, what: str, check_dtype: bool = True) -> None:
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for g, w in zip(got, want):
        assert g.shape == w.shape, f"{what}: shape {g.shape}, expected {w.shape}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what, equal_nan=True)
        if check_dtype:
            assert g.dtype == w.dtype, f"{what}: dtype {g.dtype}, expected {w.dtype}"


def check_op(
    op: Callable,
    theirs: Callable | None,
    args: tuple,
    kwargs: dict,
    reference: Callable | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    traced: bool = True,
) -> str:
    """Compare ``op(*args, **kwargs)`` with Keras (values and dtype) and ``reference()`` (values).

    Returns what was compared ("keras", "numpy" or both); Keras raising on an
    input tfkit accepts (an int where Keras wants a float) leaves numpy alone.
    """
    got = op(*args, **kwargs)
    compared = []
    if theirs is not None:
        try:
            want = theirs(*args, **kwargs)
        except Exception:  # noqa: BLE001 - Keras refuses some inputs tfkit takes
            want = None
        if want is not None:
            _same(got, want, max(rtol, 1e-4), max(atol, 1e-5), f"{getattr(op, '__name__', op)} vs keras.ops")
            compared.append("keras")
    if reference is not None:
        _same(got, reference(), rtol, atol, f"{getattr(op, '__name__', op)} vs numpy", check_dtype=False)
        compared.append("numpy")
    assert compared, "nothing to compare with: give a numpy reference for inputs Keras rejects"
    if traced:
        in_graph = tf.function(lambda: op(*args, **kwargs), autograph=False)()
        typed = all(tf.is_tensor(v) or isinstance(v, np.ndarray) for v in tf.nest.flatten(got))  # not 1.0 from cond
        _same(in_graph, got, rtol, atol, f"{getattr(op, '__name__', op)} in tf.function", check_dtype=typed)
    return "+".join(compared)


def check_saved_op(
    tmp_path: Any,
    build: Callable,
    shapes: list[tuple],
    data: list[np.ndarray],
    dtypes: list[str] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> tfkit.Model:
    """A functional model ``build(*inputs)`` matches its eager outputs, and again after ``save`` / ``load_model``."""
    dtypes = dtypes or ["float32"] * len(shapes)
    inputs = [tfkit.Input(s, dtype=d) for s, d in zip(shapes, dtypes)]
    model = tfkit.Model(inputs if len(inputs) > 1 else inputs[0], build(*inputs))
    feed = data if len(data) > 1 else data[0]
    eager = build(*[tf.constant(d) for d in data])
    _same(model(feed), eager, rtol, atol, "functional model")
    path = tmp_path / "op.h5"
    model.save(path)
    loaded = tfkit.load_model(path)
    _same(loaded(feed), eager, rtol, atol, "reloaded model")
    return loaded
