"""Array shaping of ``keras.ops`` on TensorFlow: splitting, stacking, flipping, diagonals, index tuples.

    import tfkit.ops as ops
    head, tail = ops.array_split(x, 2, axis=1)         # unequal parts allowed
    d = ops.diagonal(x, offset=1); rows, cols = ops.nonzero(mask)

Arguments are checked before TensorFlow sees them, with errors that name the
argument (``rot90``'s ``axes``, ``hsplit``'s ``indices_or_sections`` ...).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, tensor
from tfkit.ops.numpy_dtypes import operands, result_type, weak


def _axis(axis: int, rank: int, name: str = "axis") -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{name} must be an int; got {name}={axis!r}")
    if not -rank <= axis < rank:
        raise ValueError(f"{name}={axis} is out of bounds for a tensor of rank {rank}")
    return int(axis) % rank


def _along(axis: int, part: slice) -> tuple:
    return (slice(None),) * axis + (part,)


def ndim(x: Any) -> int:
    return len(x.shape) if hasattr(x, "shape") else len(np.shape(x))


def size(x: Any) -> tf.Tensor:
    return tf.size(tensor(x))


def get_item(x: Any, key: Any) -> tf.Tensor:
    """``x[key]``; a list ``key`` is taken as a tuple of indices, as in Keras."""
    return tensor(x)[tuple(key) if isinstance(key, list) else key]


def diff(a: Any, n: int = 1, axis: int = -1) -> tf.Tensor:
    """The ``n``-th discrete difference along ``axis`` (for bools: where neighbours differ)."""
    a = tensor(a)
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative int; got n={n!r}")
    if n == 0:
        return a
    if len(a.shape) == 0:
        raise ValueError("diff needs a at least 1-D; got a scalar")
    axis = _axis(axis, len(a.shape))
    for _ in range(n):
        later, earlier = a[_along(axis, slice(1, None))], a[_along(axis, slice(None, -1))]
        a = tf.not_equal(later, earlier) if a.dtype.is_bool else later - earlier
    return a


def _split(x: tf.Tensor, parts: Any, axis: int, equal: bool) -> list[tf.Tensor]:
    if isinstance(parts, (int, np.integer)) and not isinstance(parts, bool):
        if parts <= 0:
            raise ValueError(f"indices_or_sections must be a positive int or a list of indices; got {parts}")
        length = x.shape[axis]
        if equal:
            if length is not None and length % parts:
                raise ValueError(f"indices_or_sections={parts} does not divide the axis {axis} of length "
                                 f"{length} equally; use array_split for unequal parts")
            return tf.split(x, int(parts), axis=axis)
        total = tf.shape(x)[axis] if length is None else length
        sizes = total // parts + tf.cast(tf.range(parts) < total % parts, tf.int32)
        return tf.split(x, sizes, axis=axis, num=int(parts))
    try:
        bounds = [int(i) for i in parts]
    except (TypeError, ValueError):
        raise TypeError(f"indices_or_sections must be an int or a list of ints; got {parts!r}") from None
    starts, stops = [None, *bounds], [*bounds, None]
    return [x[_along(axis, slice(start, stop))] for start, stop in zip(starts, stops)]


def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[tf.Tensor]:
    """Split ``x`` into ``indices_or_sections`` parts along ``axis``; the first parts get one more if uneven."""
    x = tensor(x)
    return _split(x, indices_or_sections, _axis(axis, len(x.shape)), equal=False)


def _split_min_rank(x: Any, rank: int, name: str) -> tf.Tensor:
    x = tensor(x)
    if len(x.shape) < rank:
        raise ValueError(f"{name} needs x with at least {rank} dimension(s); got shape {tuple(x.shape)}")
    return x


def hsplit(x: Any, indices_or_sections: Any) -> list[tf.Tensor]:
    x = _split_min_rank(x, 1, "hsplit")
    return _split(x, indices_or_sections, 0 if len(x.shape) == 1 else 1, equal=True)


def vsplit(x: Any, indices_or_sections: Any) -> list[tf.Tensor]:
    return _split(_split_min_rank(x, 2, "vsplit"), indices_or_sections, 0, equal=True)


def dsplit(x: Any, indices_or_sections: Any) -> list[tf.Tensor]:
    return _split(_split_min_rank(x, 3, "dsplit"), indices_or_sections, 2, equal=True)


def dstack(xs: Sequence[Any]) -> tf.Tensor:
    """Stack along the third axis (1-D ``(N,)`` becomes ``(1, N, 1)``, 2-D ``(M, N)`` becomes ``(M, N, 1)``)."""
    if not isinstance(xs, (list, tuple)) or not xs:
        raise ValueError(f"dstack needs a non-empty list of tensors; got {type(xs).__name__}")
    tensors = operands(*xs, weak_scalars=False)
    shaped = []
    for t in tensors:
        if len(t.shape) == 0:
            t = tf.reshape(t, [1, 1, 1])
        elif len(t.shape) == 1:
            t = t[None, :, None]
        elif len(t.shape) == 2:
            t = t[:, :, None]
        shaped.append(t)
    return tf.concat(shaped, axis=2)


def rot90(array: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> tf.Tensor:
    """Rotate by 90 degrees ``k`` times, from the first of ``axes`` towards the second."""
    x = tensor(array)
    rank = len(x.shape)
    if rank < 2:
        raise ValueError(f"rot90 needs an array with at least 2 dimensions; got shape {tuple(x.shape)}")
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise ValueError(f"axes must be two different axes; got axes={axes!r}")
    first, second = _axis(axes[0], rank, "axes[0]"), _axis(axes[1], rank, "axes[1]")
    if first == second:
        raise ValueError(f"axes must be two different axes; got axes={tuple(axes)}")
    if not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an int; got k={k!r}")
    k = int(k) % 4
    perm = list(range(rank))
    perm[first], perm[second] = second, first
    if k == 0:
        return tf.identity(x)
    if k == 2:
        return tf.reverse(x, [first, second])
    if k == 1:
        return tf.transpose(tf.reverse(x, [second]), perm)
    return tf.reverse(tf.transpose(x, perm), [second])


def fliplr(x: Any) -> tf.Tensor:
    x = tensor(x)
    if len(x.shape) < 2:
        raise ValueError(f"fliplr needs x with at least 2 dimensions; got shape {tuple(x.shape)}")
    return tf.reverse(x, [1])


def flipud(x: Any) -> tf.Tensor:
    x = tensor(x)
    if len(x.shape) < 1:
        raise ValueError("flipud needs x with at least 1 dimension; got a scalar")
    return tf.reverse(x, [0])


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> tf.Tensor:
    """The ``offset`` diagonal of the planes spanned by ``axis1`` and ``axis2`` (appended as the last axis)."""
    x = tensor(x)
    rank = len(x.shape)
    if rank < 2:
        raise ValueError(f"diagonal needs x with at least 2 dimensions; got shape {tuple(x.shape)}")
    first, second = _axis(axis1, rank, "axis1"), _axis(axis2, rank, "axis2")
    if first == second:
        raise ValueError(f"axis1 and axis2 must differ; got axis1={axis1}, axis2={axis2}")
    planes = tf.experimental.numpy.moveaxis(x, [first, second], [-2, -1])
    rows, cols = planes.shape[-2], planes.shape[-1]

    def empty() -> tf.Tensor:
        return tf.zeros(tf.concat([tf.shape(planes)[:-2], [0]], 0), planes.dtype)

    if rows is not None and cols is not None:
        return empty() if offset >= cols or offset <= -rows else tf.linalg.diag_part(planes, k=offset)
    shape = tf.shape(planes)
    outside = (offset >= shape[-1]) | (offset <= -shape[-2])
    return tf.cond(outside, empty, lambda: tf.linalg.diag_part(planes, k=offset))


def nonzero(x: Any) -> tuple[tf.Tensor, ...]:
    """The indices of the non-zero entries, one int32 tensor per dimension."""
    x = tensor(x)
    if len(x.shape) == 0:
        raise ValueError("nonzero needs x with at least 1 dimension; got a scalar")
    found = tf.where(tf.cast(x, tf.bool))
    return tuple(tf.cast(found[:, i], tf.int32) for i in range(len(x.shape)))


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> tf.Tensor:
    """``choicelist[i]`` where ``condlist[i]`` is the first true condition, else ``default``."""
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise ValueError(f"condlist and choicelist must be lists; got {type(condlist).__name__} "
                         f"and {type(choicelist).__name__}")
    if not condlist or not choicelist:
        raise ValueError("condlist and choicelist must not be empty")
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist and choicelist must have the same length; got {len(condlist)} "
                         f"and {len(choicelist)}")
    choices = [tensor(c) for c in choicelist]
    default_item = weak(default)
    dtype = result_type(*[c.dtype for c in choices],
                        default_item if isinstance(default_item, type) else default_item.dtype)
    out = tf.cast(tensor(default), dtype)
    for condition, choice in zip(reversed(condlist), reversed(choices)):
        condition = tf.cast(tensor(condition), tf.bool)
        out = tf.where(condition, tf.cast(choice, dtype), out)
    return out


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple[tf.Tensor, ...]:
    """The coordinates in an array of ``shape`` of the flat ``indices`` (C order), one tensor per dimension."""
    if any(d is None for d in shape):
        raise ValueError(f"shape cannot hold None; got shape={tuple(shape)}")
    index = tensor(indices)
    if not index.dtype.is_integer:
        raise TypeError(f"indices must be integers; got dtype {index.dtype.name}")
    coordinates = []
    for dim in reversed(list(shape)):
        coordinates.append(index % tf.cast(dim, index.dtype))
        index = index // tf.cast(dim, index.dtype)
    return tuple(reversed(coordinates))


def view(x: Any, dtype: Any = None) -> tf.Tensor:
    """The bytes of ``x`` read as ``dtype``; the last axis grows or shrinks when item sizes differ."""
    x = tensor(x)
    new = x.dtype if dtype is None else tf.as_dtype(dtype)
    old_size, new_size = x.dtype.size, new.size
    if old_size == new_size:
        return tf.bitcast(x, new)
    if len(x.shape) == 0:
        raise ValueError(f"A scalar of dtype {x.dtype.name} cannot be viewed as {new.name}: item sizes differ")
    if old_size > new_size:
        parts = tf.bitcast(x, new)
        return tf.reshape(parts, tf.concat([tf.shape(x)[:-1], [-1]], 0))
    ratio = new_size // old_size
    last = x.shape[-1]
    if last is not None and last % ratio:
        raise ValueError(f"Cannot view x of shape {tuple(x.shape)} and dtype {x.dtype.name} as {new.name}: "
                         f"the last axis ({last}) must be a multiple of {ratio}")
    grouped = tf.reshape(x, tf.concat([tf.shape(x)[:-1], [-1, ratio]], 0))
    return tf.bitcast(grouped, new)


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), [name for name in __all__ if name != "ndim"])
