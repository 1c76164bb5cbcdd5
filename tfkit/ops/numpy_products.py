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
    """The Kronecker product: every element of ``x1`` times a block of ``x2``."""
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
    """The cross product of 3-vectors (a 2-vector has a zero z; two 2-vectors give the z component only)."""
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
    """The sum over the last axes of ``x1`` and ``x2`` (a scalar operand multiplies)."""
    a, b = operands(x1, x2, weak_scalars=False)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return _multiply(a, b)
    if a.shape[-1] is not None and b.shape[-1] is not None and a.shape[-1] != b.shape[-1]:
        raise ValueError(f"inner needs the last dimensions of x1 and x2 to match; got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    dtype = a.dtype
    compute = dtype if dtype.is_floating or dtype.is_complex else tf.float64 if not dtype.is_bool else FLOATX
    out = tf.tensordot(tf.cast(a, compute), tf.cast(b, compute), axes=[[len(a.shape) - 1], [len(b.shape) - 1]])
    return tf.cast(out, dtype)


def vdot(x1: Any, x2: Any) -> tf.Tensor:
    """The dot product of the flattened ``x1`` and ``x2`` (``x1`` conjugated when complex)."""
    a, b = operands(x1, x2, weak_scalars=False)
    a, b = tf.reshape(a, [-1]), tf.reshape(b, [-1])
    if a.shape[0] is not None and b.shape[0] is not None and a.shape[0] != b.shape[0]:
        raise ValueError(f"vdot needs x1 and x2 of the same size; got {a.shape[0]} and {b.shape[0]}")
    if a.dtype.is_bool:
        return tf.reduce_any(a & b)
    return tf.reduce_sum(tf.math.conj(a) * b)


def slogdet(x: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """``(sign, log|det|)`` of the square matrices in the last two axes of ``x``."""
    x = tensor(x)
    if len(x.shape) < 2 or (x.shape[-1] is not None and x.shape[-2] is not None and x.shape[-1] != x.shape[-2]):
        raise ValueError(f"slogdet needs square matrices in the last two axes; got x of shape {tuple(x.shape)}")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        x = tf.cast(x, FLOATX)
    sign, log_abs = tf.linalg.slogdet(x)
    return sign, log_abs


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), __all__)
