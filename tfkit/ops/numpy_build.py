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
    """Return a new tensor of given shape and type, filled with zeros.

    Args:
        shape: Shape of the new tensor: an int or a tuple/list of ints.
        dtype: Desired data-type of the tensor. Defaults to `None`, which gives `"float32"`.

    Returns:
        Tensor of zeros with the given shape and dtype.

    Example:
        >>> tfkit.ops.zeros((2, 3)).shape
        TensorShape([2, 3])
        >>> tfkit.ops.zeros(2, dtype="int32").numpy()
        array([0, 0], dtype=int32)
    """
    return tf.zeros(shape, dtype=dtype or "float32")


def ones(shape: Any, dtype: Any = None) -> tf.Tensor:
    """Return a new tensor of given shape and type, filled with ones.

    Args:
        shape: Shape of the new tensor: an int or a tuple/list of ints.
        dtype: Desired data-type of the tensor. Defaults to `None`, which gives `"float32"`.

    Returns:
        Tensor of ones with the given shape and dtype.

    Example:
        >>> tfkit.ops.ones(2).numpy()
        array([1., 1.], dtype=float32)
    """
    return tf.ones(shape, dtype=dtype or "float32")


def full(shape: Any, fill_value: Any, dtype: Any = None) -> tf.Tensor:
    """Return a new tensor of given shape and type, filled with `fill_value`.

    Args:
        shape: Shape of the new tensor: an int or a tuple/list of ints.
        fill_value: Fill value: a scalar, or a tensor broadcastable to `shape`.
        dtype: Desired data-type of the tensor. Defaults to `None`, which takes the dtype of `fill_value`
            (a Python int gives `"int32"`, a Python float `"float32"`).

    Returns:
        Output tensor of the given shape, filled with `fill_value`.

    Example:
        >>> tfkit.ops.full((2, 2), 7).numpy()
        array([[7, 7],
               [7, 7]], dtype=int32)
        >>> tfkit.ops.full((2, 3), [1.0, 2.0, 3.0]).numpy()
        array([[1., 2., 3.],
               [1., 2., 3.]], dtype=float32)
    """
    value = tensor(fill_value, dtype)
    return tf.fill(shape, value) if len(value.shape) == 0 else tf.broadcast_to(value, shape)


def zeros_like(x: Any, dtype: Any = None) -> tf.Tensor:
    """Return a tensor of zeros with the same shape and type as `x`.

    Args:
        x: Input tensor.
        dtype: Overrides the data type of the result. Defaults to `None`, which keeps the dtype of `x`.

    Returns:
        A tensor of zeros with the same shape and type as `x`.

    Example:
        >>> tfkit.ops.zeros_like([[1, 2, 3]]).numpy()
        array([[0, 0, 0]], dtype=int32)
    """
    return tf.zeros_like(tensor(x), dtype=dtype)


def ones_like(x: Any, dtype: Any = None) -> tf.Tensor:
    """Return a tensor of ones with the same shape and type of `x`.

    Args:
        x: Input tensor.
        dtype: Overrides the data type of the result. Defaults to `None`, which keeps the dtype of `x`.

    Returns:
        A tensor of ones with the same shape and type as `x`.

    Example:
        >>> tfkit.ops.ones_like([1.0, 2.0]).numpy()
        array([1., 1.], dtype=float32)
        >>> tfkit.ops.ones_like([1.0, 2.0], dtype="int32").numpy()
        array([1, 1], dtype=int32)
    """
    return tf.ones_like(tensor(x), dtype=dtype)


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> tf.Tensor:
    """Return a full tensor with the same shape and type as the given tensor.

    Args:
        x: Input tensor.
        fill_value: Fill value, a scalar. It is cast to the result's dtype (so `0.5` in an integer tensor
            becomes `0`).
        dtype: Overrides the data type of the result. Defaults to `None`, which keeps the dtype of `x`.

    Returns:
        Tensor of `fill_value` with the same shape and type as `x`.

    Example:
        >>> tfkit.ops.full_like([1.0, 2.0, 3.0], 4).numpy()
        array([4., 4., 4.], dtype=float32)
    """
    x = tensor(x)
    return tf.fill(tf.shape(x), tf.cast(fill_value, dtype or x.dtype))


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> tf.Tensor:  # noqa: N803
    """Return a 2-D tensor with ones on the diagonal and zeros elsewhere.

    Args:
        N: Number of rows in the output.
        M: Number of columns in the output. Defaults to `None`, which gives `N`.
        k: Index of the diagonal: 0 refers to the main diagonal, a positive value to an upper diagonal,
            and a negative value to a lower diagonal. Defaults to `0`.
        dtype: Data type of the returned tensor. Defaults to `None`, which gives `"float32"`.

    Returns:
        Tensor of shape `(N, M)` with ones on the `k`-th diagonal and zeros elsewhere.

    Example:
        >>> tfkit.ops.eye(2, 3, k=1).numpy()
        array([[0., 1., 0.],
               [0., 0., 1.]], dtype=float32)
    """
    M = N if M is None else M
    return tf.cast(tf.range(M)[None, :] - tf.range(N)[:, None] == k, dtype or "float32")


def identity(n: int, dtype: Any = None) -> tf.Tensor:
    """Return the identity tensor.

    The identity tensor is a square tensor with ones on the main diagonal and zeros elsewhere.

    Args:
        n: Number of rows (and columns) in the `n x n` output tensor.
        dtype: Data type of the output tensor. Defaults to `None`, which gives `"float32"`.

    Returns:
        The identity tensor of shape `(n, n)`.

    Example:
        >>> tfkit.ops.identity(2).numpy()
        array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    return tf.eye(n, dtype=dtype or "float32")


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> tf.Tensor:
    """Return evenly spaced values within a given interval.

    Values are generated within the half-open interval `[start, stop)` with spacing `step`. With a single
    argument, `arange(n)` counts from 0 to `n - 1`.

    Args:
        start: Start of the interval, included; with `stop=None` it is the end of the interval and the
            start is 0.
        stop: End of the interval, excluded. Defaults to `None`.
        step: Spacing between values. Defaults to `None`, which gives `1`.
        dtype: The type of the output tensor. Defaults to `None`, which gives `"float32"` when any of
            `start`, `stop`, `step` is a Python float or a float tensor, and `"int32"` otherwise.

    Returns:
        A 1-D tensor of evenly spaced values.

    Example:
        >>> tfkit.ops.arange(4).numpy()
        array([0, 1, 2, 3], dtype=int32)
        >>> tfkit.ops.arange(1, 2, 0.25).numpy()
        array([1.  , 1.25, 1.5 , 1.75], dtype=float32)
        >>> tfkit.ops.arange(5, 1, -2).numpy()
        array([5, 3], dtype=int32)
    """
    step = 1 if step is None else step
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        values = [v for v in (start, stop, step)]
        is_float = builtins.any(isinstance(v, float) or tf.is_tensor(v) and v.dtype.is_floating for v in values)
        dtype = "float32" if is_float else "int32"
    return tf.range(tf.cast(start, dtype), tf.cast(stop, dtype), tf.cast(step, dtype), dtype=dtype)


def linspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype: Any = None, axis: int = 0
) -> Any:
    """Return evenly spaced numbers over a specified interval.

    Returns `num` evenly spaced samples, calculated over the interval `[start, stop]`. The endpoint of the
    interval can optionally be excluded. Tensor `start` and `stop` give one sequence per element, laid out
    along `axis`.

    Args:
        start: The starting value of the sequence: a scalar or a tensor.
        stop: The end value of the sequence, broadcastable with `start`. With `endpoint=False` the
            sequence consists of all but the last of `num + 1` evenly spaced samples, so `stop` is excluded.
        num: Number of samples to generate, non-negative. Defaults to `50`.
        endpoint: If `True`, `stop` is the last sample. Otherwise, it is not included. Defaults to `True`.
        retstep: If `True`, return `(samples, step)`, where `step` is the spacing between samples (NaN
            when it is undefined, for `num` below 2 with `endpoint=True`). Defaults to `False`.
        dtype: The type of the output tensor. Defaults to `None`, which takes Keras's common dtype of
            `start` and `stop` made a float (Python numbers give `"float32"`, a `float64` array
            `"float64"`). Integer dtypes floor the float samples.
        axis: The axis in the result to store the samples, relevant only if `start` or `stop` are
            tensors. Defaults to `0`.

    Returns:
        A tensor of evenly spaced numbers; with `retstep=True`, a tuple `(samples, step)`.

    Raises:
        ValueError: If `num` is negative.

    Example:
        >>> tfkit.ops.linspace(0, 1, 5).numpy()
        array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
        >>> tfkit.ops.linspace(0, 1, 4, endpoint=False).numpy()
        array([0.  , 0.25, 0.5 , 0.75], dtype=float32)
        >>> samples, step = tfkit.ops.linspace(0, 1, 3, retstep=True)
        >>> float(step)
        0.5
        >>> tfkit.ops.linspace([0, 10], [1, 20], 3, axis=1).numpy()
        array([[ 0. ,  0.5,  1. ],
               [10. , 15. , 20. ]], dtype=float32)
    """
    if num < 0:
        raise ValueError(f"linspace: num must be a non-negative integer, got num={num}")
    if dtype is None:  # Keras: the arguments' own dtypes (a float64 array stays float64) joined with float
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
    """Create a tensor.

    Python floats, lists of floats and `float64` NumPy arrays become `float32` (Keras's floatx), and lists
    of Python ints become `int32`; other NumPy arrays and tensors keep their dtype.

    Args:
        x: Input tensor, NumPy array, Python number or (nested) list.
        dtype: The desired data-type for the tensor. Defaults to `None`, which infers it as described
            above.

    Returns:
        A tensor.

    Example:
        >>> tfkit.ops.array([1, 2]).numpy()
        array([1, 2], dtype=int32)
        >>> tfkit.ops.array(np.array([1.0, 2.0])).dtype
        tf.float32
        >>> tfkit.ops.array([1, 2], dtype="float16").numpy()
        array([1., 2.], dtype=float16)
    """
    return tensor(x, dtype)


def copy(x: Any) -> tf.Tensor:
    """Returns a copy of `x`.

    Args:
        x: Input tensor.

    Returns:
        A copy of `x`, with its shape and dtype.

    Example:
        >>> tfkit.ops.copy([1, 2, 3]).numpy()
        array([1, 2, 3], dtype=int32)
    """
    return tf.identity(tensor(x))


def empty(shape: Any, dtype: Any = None) -> tf.Tensor:
    """Return a tensor of given shape and type filled with uninitialized data.

    TensorFlow has no uninitialized memory, so tfkit returns zeros; do not rely on the values.

    Args:
        shape: Shape of the empty tensor: an int or a tuple/list of ints.
        dtype: Desired data type of the empty tensor. Defaults to `None`, which gives `"float32"`.

    Returns:
        The empty tensor (zeros in tfkit).

    Example:
        >>> x = tfkit.ops.empty((2, 3))
        >>> x.shape, x.dtype
        (TensorShape([2, 3]), tf.float32)
    """
    return tf.zeros(shape, dtype=dtype or FLOATX)


def empty_like(x: Any, dtype: Any = None) -> tf.Tensor:
    """Return a new uninitialized tensor with the same shape and dtype as `x`.

    TensorFlow has no uninitialized memory, so tfkit returns zeros; do not rely on the values.

    Args:
        x: Input tensor to mimic shape and dtype.
        dtype: Overrides the data type of the result. Defaults to `None`, which keeps the dtype of `x`.

    Returns:
        A tensor with the same shape and dtype as `x` (zeros in tfkit).

    Example:
        >>> tfkit.ops.empty_like([[1, 2]]).shape
        TensorShape([1, 2])
    """
    return tf.zeros_like(tensor(x), dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> tf.Tensor:  # noqa: N803
    """Return a tensor with ones at and below a diagonal and zeros elsewhere.

    Args:
        N: Number of rows in the tensor, a non-negative int.
        M: Number of columns in the tensor, a non-negative int. Defaults to `None`, which gives `N`.
        k: The sub-diagonal at and below which the tensor is filled: `k = 0` is the main diagonal,
            `k < 0` is below it, and `k > 0` is above. Defaults to `0`.
        dtype: Data type of the returned tensor. Defaults to `None`, which gives `"float32"`.

    Returns:
        Tensor of shape `(N, M)` with its lower triangle filled with ones and zeros elsewhere.

    Raises:
        TypeError: If `N`, `M` or `k` is not an int.
        ValueError: If `N` or `M` is negative.

    Example:
        >>> tfkit.ops.tri(3).numpy()
        array([[1., 0., 0.],
               [1., 1., 0.],
               [1., 1., 1.]], dtype=float32)
        >>> tfkit.ops.tri(2, 3, k=1, dtype="int32").numpy()
        array([[1, 1, 0],
               [1, 1, 1]], dtype=int32)
    """
    M = N if M is None else M  # noqa: N806
    for name, value in (("N", N), ("M", M), ("k", k)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise TypeError(f"{name} must be an int; got {name}={value!r}")
    if N < 0 or M < 0:
        raise ValueError(f"N and M must be non-negative; got N={N}, M={M}")
    below = tf.range(M)[None, :] - tf.range(N)[:, None] <= k
    return tf.cast(below, dtype or FLOATX)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> tf.Tensor:  # noqa: N803
    """Generate a Vandermonde matrix.

    The columns of the output are powers of the input vector: by default `x**(N-1), ..., x, 1`, and
    `1, x, ..., x**(N-1)` with `increasing=True`. The result keeps the dtype of `x`.

    Args:
        x: 1-D input tensor.
        N: Number of columns in the output, a non-negative int. Defaults to `None`, which gives a square
            matrix (`len(x)` columns).
        increasing: Order of the powers of the columns: if `True`, the powers increase from left to right;
            if `False`, they are reversed. Defaults to `False`.

    Returns:
        Vandermonde matrix of shape `(len(x), N)`.

    Raises:
        ValueError: If `x` is not 1-D or `N` is negative.
        TypeError: If `N` is not an int or `increasing` is not a bool.

    Example:
        >>> tfkit.ops.vander([1, 2, 3]).numpy()
        array([[1, 1, 1],
               [4, 2, 1],
               [9, 3, 1]], dtype=int32)
        >>> tfkit.ops.vander([1, 2, 3], 2, increasing=True).numpy()
        array([[1, 1],
               [1, 2],
               [1, 3]], dtype=int32)
    """
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
    """Create a two-dimensional tensor with the flattened input on the `k`-th diagonal.

    Args:
        x: Input tensor, of any rank: it is flattened first.
        k: The diagonal to place the values on: 0 is the main diagonal, a positive value an upper diagonal
            and a negative value a lower one. Defaults to `0`.

    Returns:
        A square 2-D tensor of side `size(x) + abs(k)`, with the dtype of `x`.

    Example:
        >>> tfkit.ops.diagflat([[1, 2], [3, 4]]).numpy()
        array([[1, 0, 0, 0],
               [0, 2, 0, 0],
               [0, 0, 3, 0],
               [0, 0, 0, 4]], dtype=int32)
        >>> tfkit.ops.diagflat([1, 2], k=1).numpy()
        array([[0, 1, 0],
               [0, 0, 2],
               [0, 0, 0]], dtype=int32)
    """
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


def logspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10, dtype: Any = None, axis: int = 0
) -> tf.Tensor:
    """Returns numbers spaced evenly on a log scale.

    In linear space, the sequence starts at `base ** start` and ends with `base ** stop` (see `endpoint`):
    the result is `base ** linspace(start, stop, num)`. Tensor `start` and `stop` give one sequence per
    element, laid out along `axis`.

    Args:
        start: The starting exponent: a scalar or a tensor.
        stop: The final exponent, broadcastable with `start`.
        num: Number of samples to generate, a non-negative int. Defaults to `50`.
        endpoint: If `True`, `base ** stop` is the last sample. Otherwise, it is not included.
            Defaults to `True`.
        base: The base of the log space. Defaults to `10`.
        dtype: The type of the output tensor. Defaults to `None`, which takes Keras's common dtype of
            `start` and `stop` made a float (`"float32"` for Python numbers and integer tensors other than
            `int64`). Integer dtypes floor the samples.
        axis: The axis in the result to store the samples, relevant only if `start` or `stop` are
            tensors. Defaults to `0`.

    Returns:
        A tensor of evenly spaced samples on a log scale.

    Raises:
        ValueError: If `num` is not a non-negative int, or `axis` is out of range for the result.

    Example:
        >>> tfkit.ops.logspace(0, 3, 4).numpy()
        array([   1.,   10.,  100., 1000.], dtype=float32)
        >>> tfkit.ops.logspace(0, 3, 4, base=2).numpy()
        array([1., 2., 4., 8.], dtype=float32)
    """
    out = result_type(weak(start), weak(stop), float) if dtype is None else tf.as_dtype(dtype).name
    compute = "float64" if out in ("float64", "int64") else FLOATX
    exponents, _, _ = _samples(start, stop, num, endpoint, compute)
    return _place(_to(tf.pow(tf.cast(base, compute), exponents), out), axis)


def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> tf.Tensor:
    """Return numbers spaced evenly on a log scale (a geometric progression).

    Each output sample is a constant multiple of the previous one, from `start` to `stop`; the first and
    (with `endpoint=True`) last samples are exactly `start` and `stop`. Negative `start` and `stop` give a
    negative sequence. Tensor `start` and `stop` give one sequence per element, laid out along `axis`.

    Args:
        start: The starting value of the sequence, non-zero: a scalar or a tensor.
        stop: The final value of the sequence, non-zero and of the sign of `start`, broadcastable with
            `start`.
        num: Number of samples to generate, a non-negative int. Defaults to `50`.
        endpoint: If `True`, `stop` is the last sample. Otherwise, it is not included. Defaults to `True`.
        dtype: The type of the output tensor. Defaults to `None`, which takes Keras's common dtype of
            `start` and `stop` made a float (`"float32"` for Python numbers). Integer dtypes floor the
            samples.
        axis: The axis in the result to store the samples, relevant only if `start` or `stop` are
            tensors. Defaults to `0`.

    Returns:
        A tensor of `num` samples, equally spaced on a log scale.

    Raises:
        ValueError: If `start` or `stop` holds a zero (when their values are known), if `num` is not a
            non-negative int, or if `axis` is out of range for the result.

    Example:
        >>> np.round(tfkit.ops.geomspace(1, 1000, 4).numpy())
        array([   1.,   10.,  100., 1000.], dtype=float32)
        >>> tfkit.ops.geomspace(-1, -16, 5).numpy()
        array([ -1.,  -2.,  -4.,  -8., -16.], dtype=float32)
    """
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


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), __all__)
