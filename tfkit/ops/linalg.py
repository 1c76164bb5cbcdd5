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
        half = next(
            (
                a.dtype
                for a in args
                if isinstance(a, (tf.Tensor, tf.Variable, np.ndarray)) and tf.as_dtype(a.dtype) in _HALF
            ),
            None,
        )
        if half is None:
            return function(*args, **kwargs)
        args = tuple(
            tf.cast(a, tf.float32)
            if isinstance(a, (tf.Tensor, tf.Variable, np.ndarray)) and tf.as_dtype(a.dtype) in _HALF
            else a
            for a in args
        )
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
        raise ValueError(
            f"{op}: a of shape {tuple(a.shape)} and b of shape {tuple(b.shape)} do not match: "
            f"b needs {a.shape[-1]} rows"
        )
    return (b[..., None] if vector else b), vector


def cholesky(x: Any, upper: bool = False) -> tf.Tensor:
    """Computes the Cholesky decomposition of a positive semi-definite matrix.

    Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: Input tensor of shape `(..., M, M)`, symmetric (Hermitian) and
            positive definite.
        upper: If `True`, returns the upper-triangular Cholesky factor
            (`x = U^H U`). If `False` (the default), returns the lower-triangular
            Cholesky factor (`x = L L^H`).

    Returns:
        A tensor of shape `(..., M, M)` representing the Cholesky factor of `x`.

    Raises:
        ValueError: If `x` has rank below 2 or is not square in its last two
            axes.
        ValueError: If the decomposition fails because `x` is not positive
            definite (checked when the op runs eagerly).

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[4.0, 2.0], [2.0, 3.0]])
        >>> np.round(tfkit.ops.cholesky(x).numpy(), 4)
        array([[2.    , 0.    ],
               [1.    , 1.4142]], dtype=float32)
        >>> np.round(tfkit.ops.cholesky(x, upper=True).numpy(), 4)
        array([[2.    , 1.    ],
               [0.    , 1.4142]], dtype=float32)
    """
    x = _matrix(x, "cholesky")
    try:
        factor = tf.debugging.check_numerics(tf.linalg.cholesky(x), "cholesky: x is not positive definite")
    except tf.errors.InvalidArgumentError as error:
        raise ValueError(
            f"cholesky: the decomposition failed; x must be symmetric positive definite "
            f"({error.message.splitlines()[0]})"
        ) from None
    return tf.linalg.adjoint(factor) if upper else factor


def cholesky_inverse(x: Any, upper: bool = False) -> tf.Tensor:
    """Computes the inverse of a symmetric positive-definite matrix.

    Unlike `inv`, it takes the Cholesky factor of the matrix, not the matrix
    itself: given `x` with `A = x x^H` (or `A = x^H x` when `upper=True`), it
    returns the inverse of `A`. Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: The Cholesky factor of the matrix to invert: a triangular tensor of
            shape `(..., M, M)`, as `cholesky` returns.
        upper: Whether `x` is the upper-triangular factor (`A = x^H x`) rather
            than the lower one (`A = x x^H`). Defaults to `False`.

    Returns:
        A tensor of shape `(..., M, M)` representing the inverse of `A`.

    Raises:
        ValueError: If `x` has rank below 2 or is not square in its last two
            axes.

    Example:
        >>> a = tfkit.ops.convert_to_tensor([[4.0, 2.0], [2.0, 3.0]])
        >>> factor = tfkit.ops.cholesky(a)
        >>> np.round(tfkit.ops.cholesky_inverse(factor).numpy(), 4)
        array([[ 0.375, -0.25 ],
               [-0.25 ,  0.5  ]], dtype=float32)
    """
    x = _matrix(x, "cholesky_inverse")
    lower = tf.linalg.adjoint(x) if upper else x
    identity = tf.eye(tf.shape(x)[-1], batch_shape=tf.shape(x)[:-2], dtype=x.dtype)
    return tf.linalg.cholesky_solve(lower, identity)


def det(x: Any) -> tf.Tensor:
    """Computes the determinant of a square tensor.

    Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: Input tensor of shape `(..., M, M)`.

    Returns:
        A tensor of shape `(...,)` representing the determinant of `x`.

    Raises:
        ValueError: If `x` has rank below 2 or is not square in its last two
            axes.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> np.round(tfkit.ops.det(x).numpy(), 4)
        np.float32(-2.0)
    """
    return tf.linalg.det(_matrix(x, "det"))


def eig(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """Computes the eigenvalues and eigenvectors of a square matrix.

    The matrix need not be symmetric, so both results are complex (complex64
    for float32 input). Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: Input tensor of shape `(..., M, M)`.

    Returns:
        A tuple of two tensors: a tensor of shape `(..., M)` containing
        eigenvalues and a tensor of shape `(..., M, M)` containing eigenvectors
        (the columns).

    Raises:
        ValueError: If `x` has rank below 2 or is not square in its last two
            axes.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[2.0, 0.0], [0.0, 3.0]])
        >>> values, vectors = tfkit.ops.eig(x)
        >>> values.numpy()
        array([2.+0.j, 3.+0.j], dtype=complex64)
        >>> vectors.shape
        TensorShape([2, 2])
    """
    values, vectors = tf.linalg.eig(_matrix(x, "eig"))
    return values, vectors


def eigh(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """Computes the eigenvalues and eigenvectors of a complex Hermitian.

    For a real symmetric or complex Hermitian matrix; only its lower triangle is
    read. Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: Input tensor of shape `(..., M, M)`.

    Returns:
        A tuple of two tensors: a tensor of shape `(..., M)` containing
        eigenvalues (in ascending order) and a tensor of shape `(..., M, M)`
        containing eigenvectors (the columns).

    Raises:
        ValueError: If `x` has rank below 2 or is not square in its last two
            axes.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[2.0, 1.0], [1.0, 2.0]])
        >>> values, vectors = tfkit.ops.eigh(x)
        >>> np.round(values.numpy(), 4)
        array([1., 3.], dtype=float32)
        >>> np.round(np.abs(vectors.numpy()), 4)
        array([[0.7071, 0.7071],
               [0.7071, 0.7071]], dtype=float32)
    """
    values, vectors = tf.linalg.eigh(_matrix(x, "eigh"))
    return values, vectors


def inv(x: Any) -> tf.Tensor:
    """Computes the inverse of a square tensor.

    Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: Input tensor of shape `(..., M, M)`.

    Returns:
        A tensor of shape `(..., M, M)` representing the inverse of `x`.

    Raises:
        ValueError: If `x` has rank below 2 or is not square in its last two
            axes.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[2.0, 0.0], [0.0, 4.0]])
        >>> tfkit.ops.inv(x).numpy()
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    return tf.linalg.inv(_matrix(x, "inv"))


def lu_factor(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """Computes the lower-upper decomposition of a square matrix.

    `lu` packs both factors: `L` (unit diagonal, not stored) below the diagonal
    and `U` on and above it. `p` is the row permutation as Keras's TensorFlow
    backend returns it: `(L @ U)[..., p, :]` equals `x`.

    Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: A tensor of shape `(..., M, M)`.

    Returns:
        A tuple of two tensors: a tensor of shape `(..., M, M)` containing the
        lower and upper triangular matrices and an int32 tensor of shape
        `(..., M)` containing the permutation.

    Raises:
        ValueError: If `x` has rank below 2 or is not square in its last two
            axes.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> lu, p = tfkit.ops.lu_factor(x)
        >>> np.round(lu.numpy(), 4)
        array([[3.    , 4.    ],
               [0.3333, 0.6667]], dtype=float32)
        >>> p.numpy()
        array([1, 0], dtype=int32)
    """
    lu, permutation = tf.linalg.lu(_matrix(x, "lu_factor"))
    return lu, tf.cast(tf.argsort(permutation, axis=-1), permutation.dtype)  # the inverse permutation, batched


def _reduce_axes(rank: int, axis: Any, op: str) -> tuple[int, ...]:
    if rank == 0:
        raise ValueError(f"{op}: x must have rank >= 1, got a scalar")
    axes = tuple(range(rank)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    if not axes or not all(isinstance(a, int) and -rank <= a < rank for a in axes):
        raise ValueError(
            f"{op}: every axis must be in [-{rank}, {rank}) for an input of rank {rank}, got axis={axis!r}"
        )
    return tuple(a % rank for a in axes)


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> tf.Tensor:  # noqa: A002
    """Matrix or vector norm.

    This function is able to return one of eight different matrix norms, or one
    of an infinite number of vector norms (described below), depending on the
    value of the `ord` parameter. Integer inputs are computed in float32.

    For values of `ord < 1`, the result is, strictly speaking, not a
    mathematical 'norm', but it may still be useful for various numerical
    purposes. The following norms can be calculated:

    - For matrices: `ord=None` or `"fro"`: Frobenius norm; `"nuc"`: nuclear
      norm (sum of singular values); `np.inf`: `max(sum(abs(x), axis=1))`;
      `-np.inf`: `min(sum(abs(x), axis=1))`; `1`: `max(sum(abs(x), axis=0))`;
      `-1`: `min(sum(abs(x), axis=0))`; `2`: largest singular value; `-2`:
      smallest singular value. Other values are not supported.
    - For vectors: `ord=None` or `2`: 2-norm; `np.inf`: `max(abs(x))`;
      `-np.inf`: `min(abs(x))`; `0`: `sum(x != 0)`; other numbers:
      `sum(abs(x)**ord)**(1./ord)`. `"fro"` and `"nuc"` are not supported.

    Args:
        x: Input tensor.
        ord: Order of the norm (see the list above). Defaults to `None`.
        axis: If `axis` is an integer, it specifies the axis of `x` along which
            to compute the vector norms. If `axis` is a 2-tuple, it specifies
            the axes that hold 2-D matrices, and the matrix norms of these
            matrices are computed. `None` (the default) takes all axes: a vector
            norm for 1-D `x`, a matrix norm for 2-D `x`.
        keepdims: If this is set to `True`, the axes which are reduced are left
            in the result as dimensions with size one. Defaults to `False`.

    Returns:
        Norm of the matrix or vector(s).

    Raises:
        ValueError: If `x` is a scalar, if an axis is out of range, if `axis`
            names neither one nor two axes (`axis=None` on input of rank 3 or
            more), or if `ord` is not supported for the kind of norm.

    Example:
        >>> x = tfkit.ops.reshape(tfkit.ops.arange(9, dtype="float32") - 4, (3, 3))
        >>> np.round(tfkit.ops.linalg.norm(x).numpy(), 4)
        np.float32(7.746)
        >>> tfkit.ops.norm(x, ord=1, axis=1).numpy()
        array([9., 2., 9.], dtype=float32)
    """
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
        raise ValueError(
            f"norm: ord={ord!r} is not a matrix norm; expected None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf"
        )
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
    """Computes the QR decomposition of a tensor.

    Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: Input tensor of shape `(..., M, N)`.
        mode: A string specifying the mode of the QR decomposition:
            `"reduced"` (the default) returns the reduced QR decomposition,
            `"complete"` returns the complete QR decomposition (a square `q`).

    Returns:
        A tuple containing two tensors. The first tensor of shape `(..., M, K)`
        is the orthogonal matrix `q` and the second tensor of shape
        `(..., K, N)` is the upper triangular matrix `r`, where `K = min(M, N)`
        in `"reduced"` mode and `K = M` in `"complete"` mode.

    Raises:
        ValueError: If `mode` is not `"reduced"` or `"complete"`, or if `x`
            has rank below 2.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> q, r = tfkit.ops.qr(x)
        >>> q.shape, r.shape
        (TensorShape([3, 2]), TensorShape([2, 2]))
        >>> np.round((q @ r).numpy(), 4)
        array([[1., 2.],
               [3., 4.],
               [5., 6.]], dtype=float32)
        >>> tfkit.ops.qr(x, mode="complete")[0].shape
        TensorShape([3, 3])
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    q, r = tf.linalg.qr(_matrix(x, "qr", square=False), full_matrices=mode == "complete")
    return q, r


def solve(a: Any, b: Any) -> tf.Tensor:
    """Solves a linear system of equations given by `a x = b`.

    `b` may be a matrix or, with one rank less than `a`, a vector.

    Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        a: A tensor of shape `(..., M, M)` representing the coefficients matrix.
        b: A tensor of shape `(..., M)` or `(..., M, N)` representing the
            right-hand side or "dependent variable" matrix.

    Returns:
        A tensor of shape `(..., M)` or `(..., M, N)` representing the solution
        of the linear system. Returned shape is identical to `b`.

    Raises:
        ValueError: If `a` is not square in its last two axes, if `b` is a
            scalar or its rank is neither that of `a` nor one less, or if the
            rows of `b` do not match `a`.

    Example:
        >>> a = tfkit.ops.convert_to_tensor([[2.0, 0.0], [0.0, 4.0]])
        >>> tfkit.ops.solve(a, tfkit.ops.convert_to_tensor([2.0, 8.0])).numpy()
        array([1., 2.], dtype=float32)
    """
    a = _matrix(a, "solve", "a")
    b, vector = _right_side(a, b, "solve")
    x = tf.linalg.solve(tf.cast(a, b.dtype), b)
    return x[..., 0] if vector else x


def solve_triangular(a: Any, b: Any, lower: bool = False) -> tf.Tensor:
    """Solves a linear system of equations given by `a x = b`.

    `a` is triangular: only its upper triangle is read, or its lower triangle
    with `lower=True`. Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        a: A tensor of shape `(..., M, M)` representing the coefficients matrix.
        b: A tensor of shape `(..., M)` or `(..., M, N)` representing the
            right-hand side or "dependent variable" matrix.
        lower: Whether `a` is lower triangular (its lower triangle is used)
            rather than upper triangular. Defaults to `False`.

    Returns:
        A tensor of shape `(..., M)` or `(..., M, N)` representing the solution
        of the linear system. Returned shape is identical to `b`.

    Raises:
        ValueError: If `a` is not square in its last two axes, if `b` is a
            scalar or its rank is neither that of `a` nor one less, or if the
            rows of `b` do not match `a`.

    Example:
        >>> a = tfkit.ops.convert_to_tensor([[1.0, 0.0], [2.0, 1.0]])
        >>> b = tfkit.ops.convert_to_tensor([1.0, 4.0])
        >>> tfkit.ops.solve_triangular(a, b, lower=True).numpy()
        array([1., 2.], dtype=float32)
    """
    a = _matrix(a, "solve_triangular", "a")
    b, vector = _right_side(a, b, "solve_triangular")
    x = tf.linalg.triangular_solve(tf.cast(a, b.dtype), b, lower=lower)
    return x[..., 0] if vector else x


def svd(x: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """Computes the singular value decomposition of a matrix.

    `x = u @ diag(s) @ vh` (with `s` padded to the shape of `x`).

    Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: Input tensor of shape `(..., M, N)`.
        full_matrices: If `True` (the default), `u` and `vh` have the shapes
            `(..., M, M)` and `(..., N, N)`; if `False`, the shapes
            `(..., M, K)` and `(..., K, N)`, with `K = min(M, N)`.
        compute_uv: Whether to compute `u` and `vh` besides `s`. Defaults to
            `True`.

    Returns:
        A tuple of three tensors `(u, s, vh)`: the left singular vectors, the
        singular values of shape `(..., K)` in descending order, and the
        (conjugate-transposed) right singular vectors. With
        `compute_uv=False`, only the singular values `s`.

    Raises:
        ValueError: If `x` has rank below 2.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[3.0, 0.0], [0.0, 4.0], [0.0, 0.0]])
        >>> u, s, vh = tfkit.ops.svd(x)
        >>> u.shape, s.numpy(), vh.shape
        (TensorShape([3, 3]), array([4., 3.], dtype=float32), TensorShape([2, 2]))
        >>> tfkit.ops.svd(x, full_matrices=False)[0].shape
        TensorShape([3, 2])
        >>> tfkit.ops.svd(x, compute_uv=False).numpy()
        array([4., 3.], dtype=float32)
    """
    x = _matrix(x, "svd", square=False)
    if not compute_uv:
        return tf.linalg.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
    return u, s, tf.linalg.adjoint(v)


def lstsq(a: Any, b: Any, rcond: float | None = None) -> tf.Tensor:
    """Return the least-squares solution to a linear matrix equation.

    Computes the vector x that approximately solves the equation
    `a @ x = b`. The equation may be under-, well-, or over-determined
    (i.e., the number of linearly independent rows of a can be less than,
    equal to, or greater than its number of linearly independent columns).
    If a is square and of full rank, then `x` (but for round-off error)
    is the exact solution of the equation. Else, `x` minimizes the
    L2 norm of `b - a * x`.

    If there are multiple minimizing solutions,
    the one with the smallest L2 norm is returned. It is computed through the
    SVD of `a`. Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Note: the output differs from `numpy.linalg.lstsq`. NumPy returns a tuple
    with four elements, the first of which being the least-squares solutions
    and the others being essentially never used. Keras (and tfkit) only
    returns the first value.

    Args:
        a: "Coefficient" matrix of shape `(M, N)` (one matrix, not a batch).
        b: Ordinate or "dependent variable" values,
            of shape `(M,)` or `(M, K)`.
            If `b` is two-dimensional, the least-squares solution
            is calculated for each of the K columns of `b`.
        rcond: Cut-off ratio for small singular values of `a`.
            For the purposes of rank determination,
            singular values are treated as zero if they are
            smaller than `rcond` times the largest
            singular value of `a`. `None` (the default) uses
            `eps * max(M, N)`, with `eps` the machine epsilon of the dtype; a
            negative value uses `eps`.

    Returns:
        Tensor with shape `(N,)` or `(N, K)` containing
        the least-squares solutions.

    Raises:
        ValueError: If `a` is not a matrix, if `b` does not have rank 1 or 2,
            or if `a` and `b` differ in their number of rows.

    Example:
        >>> a = tfkit.ops.convert_to_tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> b = tfkit.ops.convert_to_tensor([1.0, 2.0, 3.0])
        >>> np.round(tfkit.ops.lstsq(a, b).numpy(), 4)
        array([1., 2.], dtype=float32)
    """
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
    """Return the matrix rank of one or more matrices using SVD.

    The rank is the number of singular values that exceed `tol`.

    Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: Input tensor of shape `(..., M, N)`.
        tol: Absolute threshold below which singular values are treated
            as zero. If `None` (the default), TensorFlow's default is used:
            `max(singular values) * max(M, N) * eps`, with `eps` the machine
            epsilon of the dtype.

    Returns:
        An integer tensor of shape `(...,)` with the rank of each matrix
        in the batch.

    Raises:
        ValueError: If `x` has rank below 2.

    Example:
        >>> a = tfkit.ops.convert_to_tensor([[1.0, 2.0], [2.0, 4.0]])
        >>> tfkit.ops.matrix_rank(a).numpy()
        np.int32(1)
    """
    return tf.linalg.matrix_rank(_matrix(x, "matrix_rank", square=False), tol=tol)


def pinv(x: Any, rcond: float | None = None) -> tf.Tensor:
    """Compute the (Moore-Penrose) pseudoinverse of a matrix.

    The pseudoinverse is computed via the singular value decomposition
    (SVD). Singular values smaller than `rcond` times the largest
    singular value (per matrix, in the batched case) are treated as zero.
    Integer and bool inputs are computed in float32; float16 and bfloat16
    inputs are computed in float32 and cast back.

    Args:
        x: Input tensor of shape `(..., M, N)`.
        rcond: Cutoff ratio for small singular values. Singular values
            less than or equal to `rcond * largest_singular_value` are
            set to zero. If `None` (the default), TensorFlow's default is used:
            `10 * max(M, N) * eps`, with `eps` the machine epsilon of the dtype.

    Returns:
        A tensor of shape `(..., N, M)` containing the pseudoinverse
        of each matrix in `x`.

    Raises:
        ValueError: If `x` has rank below 2.

    Example:
        >>> a = tfkit.ops.convert_to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> np.round((tfkit.ops.pinv(a) @ a).numpy(), 4) + 0.0
        array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    return tf.linalg.pinv(_matrix(x, "pinv", square=False), rcond=rcond)


def jvp(fun: Callable[..., Any], primals: Any, tangents: Any, has_aux: bool = False) -> tuple:
    """Computes a (forward-mode) Jacobian-vector product of `fun`.

    It runs `fun` once under a `tf.autodiff.ForwardAccumulator`. Outputs that
    do not depend on the primals get zero tangents.

    Args:
        fun: Function to be differentiated. Its arguments should be arrays,
            scalars, or standard Python containers of arrays or scalars. It
            should return an array, scalar, or standard Python container of
            arrays or scalars.
        primals: The primal values at which the Jacobian of `fun` should be
            evaluated. Should be either a tuple or a list of arguments,
            and its length should be equal to the number of positional
            parameters of `fun`.
        tangents: The tangent vector for which the Jacobian-vector product
            should be evaluated. Should be either a tuple or a list of
            tangents, with the same tree structure and array shapes as
            `primals`; each is cast to the dtype of its primal.
        has_aux: Optional, bool. Indicates whether `fun` returns a pair where
            the first element is considered the output of the mathematical
            function to be differentiated and the second element is
            auxiliary data. Defaults to `False`.

    Returns:
        If `has_aux` is `False`, returns a `(primals_out, tangents_out)` pair,
        where `primals_out` is `fun(*primals)`, and `tangents_out` is the
        Jacobian-vector product of `fun` evaluated at `primals` with
        `tangents`. The `tangents_out` value has the same Python tree
        structure and shapes as `primals_out`.

        If `has_aux` is `True`, returns a `(primals_out, tangents_out, aux)`
        tuple where `aux` is the auxiliary data returned by `fun`.

    Raises:
        TypeError: If `fun` is not callable, if `primals` or `tangents` is not
            a tuple or list, or if they are symbolic tensors of a functional
            model (call `jvp` inside a custom layer's `call()` instead).
        ValueError: If `primals` and `tangents` hold different numbers of
            tensors.

    Example:
        >>> a1, a2 = tfkit.ops.convert_to_tensor(0.1), tfkit.ops.convert_to_tensor(0.2)
        >>> primals, tangents = tfkit.ops.jvp(tfkit.ops.sin, (a1,), (a2,))
        >>> np.round(primals.numpy(), 4), np.round(tangents.numpy(), 4)
        (np.float32(0.0998), np.float32(0.199))
    """
    if not callable(fun):
        raise TypeError(f"jvp: fun must be callable, got {type(fun).__name__}")
    if is_symbolic(primals) or is_symbolic(tangents):
        raise TypeError(
            "tfkit.ops.jvp takes a Python function, which a functional model cannot save as data; "
            "call it inside a custom Layer's call() and use that layer on the tfkit.Input tensors"
        )
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp: primals and tangents must be tuples or lists (one entry per argument of fun)")
    flat_primals = [tensor(p) for p in tf.nest.flatten(primals)]
    flat_tangents = [tf.cast(tensor(t), p.dtype) for t, p in zip(tf.nest.flatten(tangents), flat_primals)]
    if len(flat_tangents) != len(flat_primals):
        raise ValueError(
            f"jvp: primals and tangents must have the same structure, got {len(flat_primals)} and "
            f"{len(tf.nest.flatten(tangents))} tensors"
        )
    primals = tf.nest.pack_sequence_as(primals, flat_primals)
    with tf.autodiff.ForwardAccumulator(flat_primals, flat_tangents) as accumulator:
        result = fun(*primals)
        outputs, aux = result if has_aux else (result, None)
        derivatives = tf.nest.map_structure(
            lambda o: accumulator.jvp(o, unconnected_gradients=tf.UnconnectedGradients.ZERO), outputs
        )
    return (outputs, derivatives, aux) if has_aux else (outputs, derivatives)


__all__ = [
    "cholesky",
    "cholesky_inverse",
    "det",
    "eig",
    "eigh",
    "inv",
    "jvp",
    "lstsq",
    "lu_factor",
    "matrix_rank",
    "norm",
    "pinv",
    "qr",
    "solve",
    "solve_triangular",
    "svd",
]
for _name in __all__[:6] + __all__[7:]:
    globals()[_name] = _half_in_float32(globals()[_name])
export(globals(), [name for name in __all__ if name != "jvp"])
