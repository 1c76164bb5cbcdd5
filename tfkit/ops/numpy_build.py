"""Array construction of ``keras.ops`` on TensorFlow: zeros, ranges, triangles, Vandermonde, log/geometric ranges.

    import tfkit.ops as ops
    mask = ops.tri(4, k=-1, dtype="bool"); v = ops.vander(x, 3)
    freqs = ops.logspace(0, 3, num=4)            # 1, 10, 100, 1000 (float32)

``zeros``/``ones``/``eye`` default to float32; ``arange`` of ints is int32.
``empty``/``empty_like`` return zeros (TensorFlow has no uninitialised memory).
``logspace``/``geomspace`` take scalar or array ``start``/``stop`` and put the
sample axis at ``axis``; their dtype is Keras's (float32 for ints).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import FLOATX, result_type, weak


def zeros(shape: Any, dtype: Any = None) -> tf.Tensor:
    return tf.zeros(shape, dtype=dtype or "float32")


def ones(shape: Any, dtype: Any = None) -> tf.Tensor:
    return tf.ones(shape, dtype=dtype or "float32")


def full(shape: Any, fill_value: Any, dtype: Any = None) -> tf.Tensor:
    value = tensor(fill_value, dtype)
    return tf.fill(shape, value) if len(value.shape) == 0 else tf.broadcast_to(value, shape)


def zeros_like(x: Any, dtype: Any = None) -> tf.Tensor:
    return tf.zeros_like(tensor(x), dtype=dtype)


def ones_like(x: Any, dtype: Any = None) -> tf.Tensor:
    return tf.ones_like(tensor(x), dtype=dtype)


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> tf.Tensor:
    x = tensor(x)
    return tf.fill(tf.shape(x), tf.cast(fill_value, dtype or x.dtype))


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> tf.Tensor:  # noqa: N803
    M = N if M is None else M
    return tf.cast(tf.range(M)[None, :] - tf.range(N)[:, None] == k, dtype or "float32")


def identity(n: int, dtype: Any = None) -> tf.Tensor:
    return tf.eye(n, dtype=dtype or "float32")


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> tf.Tensor:
    step = 1 if step is None else step
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        values = [v for v in (start, stop, step)]
        is_float = builtins.any(isinstance(v, float) or tf.is_tensor(v) and v.dtype.is_floating for v in values)
        dtype = "float32" if is_float else "int32"
    return tf.range(tf.cast(start, dtype), tf.cast(stop, dtype), tf.cast(step, dtype), dtype=dtype)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0) -> Any:
    """``num`` evenly spaced values from ``start`` to ``stop`` (arrays give one sequence per element, along
    ``axis``); ``retstep=True`` also returns the step (NaN when it is undefined), integer dtypes floor."""
    if num < 0:
        raise ValueError(f"linspace: num must be a non-negative integer, got num={num}")
    if dtype is None:      # Keras: the arguments' own dtypes (a float64 array stays float64) joined with float
        dtype = result_type(*(getattr(v, "dtype", None) or weak(v) for v in (start, stop)), float)
    dtype = tf.as_dtype(dtype)
    compute = dtype if dtype.is_floating else tf.float32
    start, stop = tf.cast(tensor(start), compute), tf.cast(tensor(stop), compute)
    step = tf.constant(np.nan, compute)
    divisions = num - 1 if endpoint else num
    if divisions > 0:
        step = (stop - start) / tf.cast(divisions, compute)
    end = stop - step if not endpoint and num > 1 else stop
    out = tf.linspace(start, end, num, axis=axis)
    if dtype.is_integer:
        out = tf.floor(out)
    out = tf.cast(out, dtype)
    return (out, step) if retstep else out


def array(x: Any, dtype: Any = None) -> tf.Tensor:
    return tensor(x, dtype)


def copy(x: Any) -> tf.Tensor:
    return tf.identity(tensor(x))


def empty(shape: Any, dtype: Any = None) -> tf.Tensor:
    return tf.zeros(shape, dtype=dtype or FLOATX)


def empty_like(x: Any, dtype: Any = None) -> tf.Tensor:
    return tf.zeros_like(tensor(x), dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> tf.Tensor:  # noqa: N803
    """An ``N x M`` matrix with ones at and below the ``k``-th diagonal."""
    M = N if M is None else M  # noqa: N806
    for name, value in (("N", N), ("M", M), ("k", k)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise TypeError(f"{name} must be an int; got {name}={value!r}")
    if N < 0 or M < 0:
        raise ValueError(f"N and M must be non-negative; got N={N}, M={M}")
    below = tf.range(M)[None, :] - tf.range(N)[:, None] <= k
    return tf.cast(below, dtype or FLOATX)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> tf.Tensor:  # noqa: N803
    """Columns are powers of the 1-D ``x``: ``x**(N-1), ..., x, 1`` (reversed with ``increasing``)."""
    x = tensor(x)
    if len(x.shape) != 1:
        raise ValueError(f"vander needs a 1-D x; got x of shape {tuple(x.shape)}")
    if N is not None and (not isinstance(N, (int, np.integer)) or isinstance(N, bool)):
        raise TypeError(f"N must be an int; got N={N!r}")
    if N is not None and N < 0:
        raise ValueError(f"N must be non-negative; got N={N}")
    if not isinstance(increasing, bool):
        raise TypeError(f"increasing must be a bool; got increasing={increasing!r}")
    dtype = result_type(x.dtype)
    base = tf.cast(x, tf.int32) if x.dtype.is_bool else x
    columns = (tf.shape(x)[0] if x.shape[0] is None else x.shape[0]) if N is None else int(N)
    repeated = tf.tile(base[:, None], tf.stack([1, tf.maximum(columns - 1, 0)]))
    powers = tf.math.cumprod(tf.concat([tf.ones_like(base)[:, None], repeated], axis=1), axis=1)[:, :columns]
    return tf.cast(powers if increasing else tf.reverse(powers, [1]), dtype)


def diagflat(x: Any, k: int = 0) -> tf.Tensor:
    """A square matrix with the flattened ``x`` on its ``k``-th diagonal."""
    return tf.linalg.diag(tf.reshape(tensor(x), [-1]), k=k)


def _samples(start: Any, stop: Any, num: int, endpoint: bool, dtype: str) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """``num`` evenly spaced values on a new leading axis, plus ``start`` and ``stop`` as tensors."""
    if not isinstance(num, (int, np.integer)) or isinstance(num, bool) or num < 0:
        raise ValueError(f"num must be a non-negative int; got num={num!r}")
    a, b = tf.cast(tensor(start), dtype), tf.cast(tensor(stop), dtype)
    a, b = a + tf.zeros_like(b), b + tf.zeros_like(a)
    divisions = (num - 1 if endpoint else num) or 1
    steps = tf.reshape(tf.range(num, dtype=dtype), [num] + [1] * len(a.shape))
    values = a[None] + steps * ((b - a) / divisions)[None]
    if endpoint and num > 1:
        values = tf.concat([values[:-1], b[None]], axis=0)
    return values, a, b


def _place(values: tf.Tensor, axis: int) -> tf.Tensor:
    rank = len(values.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of bounds for a result of rank {rank}")
    return tf.experimental.numpy.moveaxis(values, 0, axis)


def _to(values: tf.Tensor, dtype: str) -> tf.Tensor:
    return tf.cast(tf.floor(values) if not ("float" in dtype or "complex" in dtype) else values, dtype)


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10,
             dtype: Any = None, axis: int = 0) -> tf.Tensor:
    """``base ** linspace(start, stop, num)``."""
    out = result_type(weak(start), weak(stop), float) if dtype is None else tf.as_dtype(dtype).name
    compute = "float64" if out in ("float64", "int64") else FLOATX
    exponents, _, _ = _samples(start, stop, num, endpoint, compute)
    return _place(_to(tf.pow(tf.cast(base, compute), exponents), out), axis)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> tf.Tensor:
    """``num`` numbers from ``start`` to ``stop`` with a constant ratio (both non-zero, of one sign)."""
    for name, value in (("start", start), ("stop", stop)):
        known = None if tf.is_tensor(value) and not hasattr(value, "numpy") else np.asarray(value)
        if known is not None and np.any(known == 0):
            raise ValueError(f"geomspace cannot include zero; got {name}={known.tolist()}")
    out = result_type(weak(start), weak(stop), float) if dtype is None else tf.as_dtype(dtype).name
    compute = "float64" if out in ("float64", "int64") else FLOATX
    a, b = tf.cast(tensor(start), compute), tf.cast(tensor(stop), compute)
    logs, _, _ = _samples(tf.math.log(tf.abs(a)), tf.math.log(tf.abs(b)), num, endpoint, compute)
    values = tf.sign(a + tf.zeros_like(b))[None] * tf.exp(logs)
    if num > 0:
        rest = [values[1:-1], (b + tf.zeros_like(a))[None]] if endpoint and num > 1 else [values[1:]]
        values = tf.concat([(a + tf.zeros_like(b))[None], *rest], axis=0)
    return _place(_to(values, out), axis)


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
