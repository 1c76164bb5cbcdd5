"""Products of ``keras.ops`` on TensorFlow: Kronecker, cross, inner and flattened dot products, ``slogdet``.

    import tfkit.ops as ops
    n = ops.cross(u, v)                      # 3-vectors (or 2-vectors: the z component)
    k = ops.kron(a, b); s = ops.vdot(a, b); sign, logdet = ops.slogdet(m)

Operands take Keras's common dtype; integer ``inner`` products are computed in
float64 and cast back, so they are exact up to 2**53.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import FLOATX, operands


def _multiply(a: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
    return tf.logical_and(a, b) if a.dtype.is_bool else a * b


def kron(x1: Any, x2: Any) -> tf.Tensor:
    """Kronecker product of `x1` and `x2`.

    Computes a composite tensor made of blocks of `x2` scaled by the elements of `x1`. The operand of lower rank is
    given leading axes of size 1 first; the result's shape is the product of the two shapes. For bool operands the
    product is a logical AND. Python numbers are first converted to `int32` / `float32` tensors, then both operands
    take Keras's common dtype, which the result keeps.

    Args:
        x1: First input tensor.
        x2: Second input tensor.

    Returns:
        A tensor representing the Kronecker product of `x1` and `x2`.

    Example:
        >>> tfkit.ops.kron([1, 10], [[1, 2], [3, 4]]).numpy()
        array([[ 1,  2, 10, 20],
               [ 3,  4, 30, 40]], dtype=int32)
    """
    a, b = operands(x1, x2, weak_scalars=False)
    rank = max(len(a.shape), len(b.shape))
    a = tf.reshape(a, tf.concat([tf.ones([rank - len(a.shape)], tf.int32), tf.shape(a)], 0))
    b = tf.reshape(b, tf.concat([tf.ones([rank - len(b.shape)], tf.int32), tf.shape(b)], 0))
    shape_a, shape_b = tf.shape(a), tf.shape(b)
    ones = tf.ones([rank], tf.int32)
    spread_a = tf.reshape(a, tf.reshape(tf.stack([shape_a, ones], axis=1), [-1]))
    spread_b = tf.reshape(b, tf.reshape(tf.stack([ones, shape_b], axis=1), [-1]))
    return tf.reshape(_multiply(spread_a, spread_b), shape_a * shape_b)


def cross(x1: Any, x2: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None) -> tf.Tensor:
    """Returns the cross product of two (arrays of) vectors.

    The cross product of `x1` and `x2` in R^3 is a vector perpendicular to both `x1` and `x2`. Where `x1`
    and `x2` are arrays of vectors, the vectors are defined by the last axis of `x1` and `x2` by default,
    and these axes can have dimensions 2 or 3. Where the dimension of either `x1` or `x2` is 2, the third
    component of the input vector is assumed to be zero and the cross product calculated accordingly. In
    cases where both input vectors have dimension 2, the z-component of the cross product is returned.
    Python numbers are first converted to `int32` / `float32` tensors, then both operands take Keras's
    common dtype, which the result keeps.

    Args:
        x1: Components of the first vector(s).
        x2: Components of the second vector(s).
        axisa: Axis of `x1` that defines the vector(s). Defaults to `-1`.
        axisb: Axis of `x2` that defines the vector(s). Defaults to `-1`.
        axisc: Axis of the result containing the cross product vector(s). Ignored if both input vectors
            have dimension 2, as the return is scalar. Defaults to `-1`.
        axis: If defined, the axis of `x1`, `x2` and the result that defines the vector(s) and cross
            product(s). Overrides `axisa`, `axisb` and `axisc`. Defaults to `None`.

    Returns:
        Vector cross product(s).

    Raises:
        ValueError: If an axis is out of range, or `x1` or `x2` does not have 2 or 3 components along its
            vector axis.

    Example:
        >>> tfkit.ops.cross([1, 0, 0], [0, 1, 0]).numpy()
        array([0, 0, 1], dtype=int32)
        >>> int(tfkit.ops.cross([1, 2], [3, 4]))
        -2
    """
    a, b = operands(x1, x2, weak_scalars=False)
    if axis is not None:
        axisa = axisb = axisc = axis
    parts = []
    for name, value, where in (("x1", a, axisa), ("x2", b, axisb)):
        rank = len(value.shape)
        if not -rank <= where < rank:
            raise ValueError(f"axis {where} is out of bounds for {name} of rank {rank}")
        value = tf.experimental.numpy.moveaxis(value, where, -1)
        size = value.shape[-1]
        if size not in (2, 3):
            raise ValueError(f"{name} must have 2 or 3 components along its axis {where}; got {size}")
        components = tf.unstack(value, axis=-1)
        parts.append(components + [tf.zeros_like(components[0])] * (3 - size))
    (a0, a1, a2), (b0, b1, b2) = parts
    z = a0 * b1 - a1 * b0
    if a.shape[axisa] == 2 and b.shape[axisb] == 2:
        return z
    out = tf.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z], axis=-1)
    rank = len(out.shape)
    if not -rank <= axisc < rank:
        raise ValueError(f"axisc {axisc} is out of bounds for a result of rank {rank}")
    return tf.experimental.numpy.moveaxis(out, -1, axisc)


def inner(x1: Any, x2: Any) -> tf.Tensor:
    """Return the inner product of two tensors.

    Ordinary inner product of vectors for 1-D tensors, in higher dimensions a sum product over the last axes: the
    result has shape `x1.shape[:-1] + x2.shape[:-1]`. If `x1` or `x2` is a scalar, the result is the element-wise
    product. Python numbers are first converted to `int32` / `float32` tensors, then both operands take Keras's
    common dtype, which the result keeps. Integer products are computed in `float64` and cast back, so they are
    exact up to `2**53`.

    Args:
        x1: First input tensor.
        x2: Second input tensor. Its last dimension must match that of `x1`.

    Returns:
        Output tensor.

    Raises:
        ValueError: If the last dimensions of `x1` and `x2` differ.

    Example:
        >>> int(tfkit.ops.inner([1, 2, 3], [0, 1, 0]))
        2
        >>> tfkit.ops.inner([[1, 2], [3, 4]], [1, 1]).numpy()
        array([3, 7], dtype=int32)
    """
    a, b = operands(x1, x2, weak_scalars=False)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return _multiply(a, b)
    if a.shape[-1] is not None and b.shape[-1] is not None and a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"inner needs the last dimensions of x1 and x2 to match; got shapes {tuple(a.shape)} and {tuple(b.shape)}"
        )
    dtype = a.dtype
    compute = dtype if dtype.is_floating or dtype.is_complex else tf.float64 if not dtype.is_bool else FLOATX
    out = tf.tensordot(tf.cast(a, compute), tf.cast(b, compute), axes=[[len(a.shape) - 1], [len(b.shape) - 1]])
    return tf.cast(out, dtype)


def vdot(x1: Any, x2: Any) -> tf.Tensor:
    """Return the dot product of two vectors.

    Both inputs are flattened first, so they may have any shape holding the same number of elements. If the first
    argument is complex, its complex conjugate is used for the dot product. For bool operands the result is whether
    any pair of elements is `True` in both. Python numbers are first converted to `int32` / `float32` tensors, then
    both operands take Keras's common dtype, which the result keeps.

    Args:
        x1: First input tensor. If complex, its complex conjugate is taken before calculation of the dot
            product.
        x2: Second input tensor, with as many elements as `x1`.

    Returns:
        A scalar tensor, the dot product.

    Raises:
        ValueError: If `x1` and `x2` have different sizes.

    Example:
        >>> int(tfkit.ops.vdot([1, 2], [3, 4]))
        11
        >>> complex(tfkit.ops.vdot(np.array([1 + 2j], "complex64"), np.array([1 + 2j], "complex64")))
        (5+0j)
    """
    a, b = operands(x1, x2, weak_scalars=False)
    a, b = tf.reshape(a, [-1]), tf.reshape(b, [-1])
    if a.shape[0] is not None and b.shape[0] is not None and a.shape[0] != b.shape[0]:
        raise ValueError(f"vdot needs x1 and x2 of the same size; got {a.shape[0]} and {b.shape[0]}")
    if a.dtype.is_bool:
        return tf.reduce_any(a & b)
    return tf.reduce_sum(tf.math.conj(a) * b)


def slogdet(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """Compute the sign and natural logarithm of the determinant of a matrix.

    Integer and bool inputs are computed as `float32`; float and complex inputs keep their dtype.

    Args:
        x: Input matrix: a tensor whose last two axes are a square matrix (leading axes are a batch).

    Returns:
        A tuple `(sign, logabsdet)`. `sign` is a number representing the sign of the determinant (1, 0
        or -1 for real matrices; a number of modulus 1 for complex ones). `logabsdet` is the natural log
        of the absolute value of the determinant. Both have the batch shape of `x`.

    Raises:
        ValueError: If the last two axes of `x` are not a square matrix.

    Example:
        >>> sign, logabsdet = tfkit.ops.slogdet([[2.0, 0.0], [0.0, -3.0]])
        >>> float(sign), round(float(logabsdet), 4)
        (-1.0, 1.7918)
    """
    x = tensor(x)
    if len(x.shape) < 2 or (x.shape[-1] is not None and x.shape[-2] is not None and x.shape[-1] != x.shape[-2]):
        raise ValueError(f"slogdet needs square matrices in the last two axes; got x of shape {tuple(x.shape)}")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        x = tf.cast(x, FLOATX)
    sign, log_abs = tf.linalg.slogdet(x)
    return sign, log_abs


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), __all__)
