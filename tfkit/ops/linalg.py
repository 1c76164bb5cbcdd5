"""``keras.ops.linalg`` on TensorFlow: factorizations, solves, norms and forward-mode derivatives.

    q, r = tfkit.ops.linalg.qr(a)                      # also tfkit.ops.qr, as in Keras
    x = tfkit.ops.solve(a, b)                          # a @ x == b
    u, s, vh = tfkit.ops.svd(a, full_matrices=False)

Integer and bool matrices are computed in float32. Every op works on batches
of matrices in the last two axes, except ``lstsq`` (one matrix, as in Keras).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from tfkit.base.symbolic import is_symbolic
from tfkit.ops._convert import export, float_of, promote, tensor

_HALF = (tf.float16, tf.bfloat16)


def _half_in_float32(function: Callable[..., Any]) -> Callable[..., Any]:
    """TensorFlow has no half-precision linear algebra kernels: compute in float32, return the half dtype."""
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        half = next((a.dtype for a in args if isinstance(a, (tf.Tensor, tf.Variable, np.ndarray))
                     and tf.as_dtype(a.dtype) in _HALF), None)
        if half is None:
            return function(*args, **kwargs)
        args = tuple(tf.cast(a, tf.float32) if isinstance(a, (tf.Tensor, tf.Variable, np.ndarray))
                     and tf.as_dtype(a.dtype) in _HALF else a for a in args)
        result = function(*args, **kwargs)
        return tf.nest.map_structure(lambda t: tf.cast(t, half) if t.dtype == tf.float32 else t, result)

    return wrapper


def _matrix(x: Any, op: str, name: str = "x", square: bool = True) -> tf.Tensor:
    x = float_of(tensor(x))
    if len(x.shape) < 2:
        raise ValueError(f"{op}: {name} must have rank >= 2 (..., rows, columns), got shape {tuple(x.shape)}")
    rows, columns = x.shape[-2], x.shape[-1]
    if square and rows is not None and columns is not None and rows != columns:
        raise ValueError(f"{op}: {name} must be square in its last two axes, got shape {tuple(x.shape)}")
    return x


def _right_side(a: tf.Tensor, b: Any, op: str) -> tuple[tf.Tensor, bool]:
    """``b`` in ``a``'s dtype, as a matrix; True when it was a vector (one rank less than ``a``)."""
    a_, b = promote(a, float_of(tensor(b)))
    if len(b.shape) < 1:
        raise ValueError(f"{op}: b must have rank >= 1, got a scalar")
    vector = len(b.shape) == len(a.shape) - 1
    if not vector and len(b.shape) != len(a.shape):
        raise ValueError(f"{op}: b must have the rank of a or one less, got a {tuple(a.shape)} and b {tuple(b.shape)}")
    rows = b.shape[-1] if vector else b.shape[-2]
    if rows is not None and a.shape[-1] is not None and rows != a.shape[-1]:
        raise ValueError(f"{op}: a of shape {tuple(a.shape)} and b of shape {tuple(b.shape)} do not match: "
                         f"b needs {a.shape[-1]} rows")
    return (b[..., None] if vector else b), vector


def cholesky(x: Any, upper: bool = False) -> tf.Tensor:
    """The lower (or, with ``upper=True``, upper) Cholesky factor of a symmetric positive-definite ``x``."""
    x = _matrix(x, "cholesky")
    try:
        factor = tf.debugging.check_numerics(tf.linalg.cholesky(x), "cholesky: x is not positive definite")
    except tf.errors.InvalidArgumentError as error:
        raise ValueError(f"cholesky: the decomposition failed; x must be symmetric positive definite "
                         f"({error.message.splitlines()[0]})") from None
    return tf.linalg.adjoint(factor) if upper else factor


def cholesky_inverse(x: Any, upper: bool = False) -> tf.Tensor:
    """The inverse of ``A`` from its Cholesky factor ``x`` (``A = x x^H``, or ``x^H x`` with ``upper=True``)."""
    x = _matrix(x, "cholesky_inverse")
    lower = tf.linalg.adjoint(x) if upper else x
    identity = tf.eye(tf.shape(x)[-1], batch_shape=tf.shape(x)[:-2], dtype=x.dtype)
    return tf.linalg.cholesky_solve(lower, identity)


def det(x: Any) -> tf.Tensor:
    return tf.linalg.det(_matrix(x, "det"))


def eig(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """Eigenvalues and eigenvectors (columns) of a general square matrix, both complex."""
    values, vectors = tf.linalg.eig(_matrix(x, "eig"))
    return values, vectors


def eigh(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric / Hermitian matrix."""
    values, vectors = tf.linalg.eigh(_matrix(x, "eigh"))
    return values, vectors


def inv(x: Any) -> tf.Tensor:
    return tf.linalg.inv(_matrix(x, "inv"))


def lu_factor(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """``(lu, p)``: L (unit diagonal, below) and U packed in one matrix, and the row permutation as Keras returns it."""
    lu, permutation = tf.linalg.lu(_matrix(x, "lu_factor"))
    return lu, tf.cast(tf.argsort(permutation, axis=-1), permutation.dtype)  # the inverse permutation, batched


def _reduce_axes(rank: int, axis: Any, op: str) -> tuple[int, ...]:
    if rank == 0:
        raise ValueError(f"{op}: x must have rank >= 1, got a scalar")
    axes = tuple(range(rank)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    if not axes or not all(isinstance(a, int) and -rank <= a < rank for a in axes):
        raise ValueError(f"{op}: every axis must be in [-{rank}, {rank}) for an input of rank {rank}, got axis={axis!r}")
    return tuple(a % rank for a in axes)


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> tf.Tensor:  # noqa: A002
    """A vector norm over one axis or a matrix norm over two (``None``, ``"fro"``, ``"nuc"``, +-1, +-2, +-inf)."""
    x = float_of(tensor(x))
    axes = _reduce_axes(len(x.shape), axis, "norm")
    magnitude = tf.abs(x)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"norm: ord={ord!r} is a matrix norm; a vector norm takes a number or None")
        if ord is None or ord == 2:
            return tf.sqrt(tf.reduce_sum(tf.square(magnitude), axis=axes, keepdims=keepdims))
        if ord == float("inf"):
            return tf.reduce_max(magnitude, axis=axes, keepdims=keepdims)
        if ord == float("-inf"):
            return tf.reduce_min(magnitude, axis=axes, keepdims=keepdims)
        if ord == 0:
            return tf.reduce_sum(tf.cast(tf.not_equal(x, 0), magnitude.dtype), axis=axes, keepdims=keepdims)
        power = tf.cast(ord, magnitude.dtype)
        return tf.pow(tf.reduce_sum(tf.pow(magnitude, power), axis=axes, keepdims=keepdims), 1.0 / power)
    if len(axes) != 2:
        raise ValueError(f"norm: axis must name one axis (vector norm) or two (matrix norm), got axis={axis!r}")
    if ord not in (None, "fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
        raise ValueError(f"norm: ord={ord!r} is not a matrix norm; expected None, 'fro', 'nuc', 1, -1, 2, -2, "
                         f"inf or -inf")
    rows, columns = axes
    if ord is None or ord == "fro":
        return tf.sqrt(tf.reduce_sum(tf.square(magnitude), axis=axes, keepdims=keepdims))
    if ord in ("nuc", 2, -2):
        moved = tf.experimental.numpy.moveaxis(x, axes, (-2, -1))
        singular = tf.linalg.svd(moved, compute_uv=False)
        reduce = {"nuc": tf.reduce_sum, 2: tf.reduce_max, -2: tf.reduce_min}[ord]
        out = reduce(singular, axis=-1)
        if keepdims:
            for a in sorted(axes):
                out = tf.expand_dims(out, a)
        return out
    # 1 / -1: the largest / smallest column sum; inf / -inf: the same over rows
    summed_axis, other = (rows, columns) if abs(ord) == 1 else (columns, rows)
    sums = tf.reduce_sum(magnitude, axis=summed_axis, keepdims=True)
    reduce = tf.reduce_max if ord > 0 else tf.reduce_min
    out = reduce(sums, axis=other, keepdims=True)
    return out if keepdims else tf.squeeze(out, axes)


def qr(x: Any, mode: str = "reduced") -> tuple[tf.Tensor, tf.Tensor]:
    """``(q, r)`` with ``x = q r``; ``mode="complete"`` gives a square ``q``."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    q, r = tf.linalg.qr(_matrix(x, "qr", square=False), full_matrices=mode == "complete")
    return q, r


def solve(a: Any, b: Any) -> tf.Tensor:
    """``x`` with ``a @ x == b``; ``b`` is a matrix or (one rank less than ``a``) a vector."""
    a = _matrix(a, "solve", "a")
    b, vector = _right_side(a, b, "solve")
    x = tf.linalg.solve(tf.cast(a, b.dtype), b)
    return x[..., 0] if vector else x


def solve_triangular(a: Any, b: Any, lower: bool = False) -> tf.Tensor:
    """``solve`` for a triangular ``a``, reading only its upper (or ``lower``) triangle."""
    a = _matrix(a, "solve_triangular", "a")
    b, vector = _right_side(a, b, "solve_triangular")
    x = tf.linalg.triangular_solve(tf.cast(a, b.dtype), b, lower=lower)
    return x[..., 0] if vector else x


def svd(x: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """``(u, s, vh)`` with ``x = u diag(s) vh``, or just ``s`` with ``compute_uv=False``."""
    x = _matrix(x, "svd", square=False)
    if not compute_uv:
        return tf.linalg.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
    return u, s, tf.linalg.adjoint(v)


def lstsq(a: Any, b: Any, rcond: float | None = None) -> tf.Tensor:
    """The least-squares (minimum-norm) ``x`` of ``a @ x ~ b``, ignoring singular values below ``rcond * s_max``."""
    a = float_of(tensor(a))
    if len(a.shape) != 2:
        raise ValueError(f"lstsq: a must be a matrix (rank 2), got shape {tuple(a.shape)}")
    a, b = promote(a, float_of(tensor(b)))
    if len(b.shape) not in (1, 2):
        raise ValueError(f"lstsq: b must have rank 1 or 2, got shape {tuple(b.shape)}")
    if a.shape[0] is not None and b.shape[0] is not None and a.shape[0] != b.shape[0]:
        raise ValueError(f"lstsq: a and b must have the same number of rows, got {tuple(a.shape)} and {tuple(b.shape)}")
    vector = len(b.shape) == 1
    b = b[:, None] if vector else b
    s, u, v = tf.linalg.svd(a, full_matrices=False)
    if rcond is None or rcond < 0:
        eps = float(np.finfo(a.dtype.as_numpy_dtype).eps)
        rcond = eps * tf.cast(tf.reduce_max(tf.shape(a)), a.dtype) if rcond is None else eps
    keep = s > tf.cast(rcond, a.dtype) * tf.reduce_max(s)
    inverse = tf.where(keep, 1.0 / tf.where(keep, s, tf.ones_like(s)), tf.zeros_like(s))
    x = tf.matmul(v, inverse[:, None] * tf.matmul(u, b, adjoint_a=True))
    return x[:, 0] if vector else x


def matrix_rank(x: Any, tol: float | None = None) -> tf.Tensor:
    """The number of singular values above ``tol`` (default ``s_max * max(rows, columns) * eps``)."""
    return tf.linalg.matrix_rank(_matrix(x, "matrix_rank", square=False), tol=tol)


def pinv(x: Any, rcond: float | None = None) -> tf.Tensor:
    """The Moore-Penrose pseudo-inverse (TensorFlow's default ``rcond``: ``10 * max(rows, columns) * eps``)."""
    return tf.linalg.pinv(_matrix(x, "pinv", square=False), rcond=rcond)


def jvp(fun: Callable[..., Any], primals: Any, tangents: Any, has_aux: bool = False) -> tuple:
    """``(fun(*primals), J tangents)`` by forward-mode differentiation (plus ``aux`` with ``has_aux=True``)."""
    if not callable(fun):
        raise TypeError(f"jvp: fun must be callable, got {type(fun).__name__}")
    if is_symbolic(primals) or is_symbolic(tangents):
        raise TypeError("tfkit.ops.jvp takes a Python function, which a functional model cannot save as data; "
                        "call it inside a custom Layer's call() and use that layer on the tfkit.Input tensors")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp: primals and tangents must be tuples or lists (one entry per argument of fun)")
    flat_primals = [tensor(p) for p in tf.nest.flatten(primals)]
    flat_tangents = [tf.cast(tensor(t), p.dtype) for t, p in zip(tf.nest.flatten(tangents), flat_primals)]
    if len(flat_tangents) != len(flat_primals):
        raise ValueError(f"jvp: primals and tangents must have the same structure, got {len(flat_primals)} and "
                         f"{len(tf.nest.flatten(tangents))} tensors")
    primals = tf.nest.pack_sequence_as(primals, flat_primals)
    with tf.autodiff.ForwardAccumulator(flat_primals, flat_tangents) as accumulator:
        result = fun(*primals)
        outputs, aux = result if has_aux else (result, None)
        derivatives = tf.nest.map_structure(
            lambda o: accumulator.jvp(o, unconnected_gradients=tf.UnconnectedGradients.ZERO), outputs)
    return (outputs, derivatives, aux) if has_aux else (outputs, derivatives)


__all__ = ["cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq", "lu_factor", "matrix_rank",
           "norm", "pinv", "qr", "solve", "solve_triangular", "svd"]
for _name in __all__[:6] + __all__[7:]:
    globals()[_name] = _half_in_float32(globals()[_name])
export(globals(), [name for name in __all__ if name != "jvp"])
