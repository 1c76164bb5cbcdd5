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
    """Return the number of dimensions of a tensor.

    Reads the static shape of `x` (a tensor, NumPy array or nested list); unlike most ops, it returns a
    Python int, not a tensor, and is not traced on symbolic tensors.

    Args:
        x: Input tensor, array or nested list.

    Returns:
        The number of dimensions of `x`, a Python int.

    Example:
        >>> tfkit.ops.ndim([[1, 2, 3]])
        2
        >>> tfkit.ops.ndim(np.zeros((2, 3, 4)))
        3
    """
    return len(x.shape) if hasattr(x, "shape") else len(np.shape(x))


def size(x: Any) -> tf.Tensor:
    """Return the number of elements in a tensor.

    Args:
        x: Input tensor.

    Returns:
        A scalar `int32` tensor, the number of elements in `x`.

    Example:
        >>> int(tfkit.ops.size([[1, 2, 3], [4, 5, 6]]))
        6
    """
    return tf.size(tensor(x))


def get_item(x: Any, key: Any) -> tf.Tensor:
    """Return `x[key]`.

    `key` is anything TensorFlow's indexing takes: an int, a slice, a tuple of them, `None` or `Ellipsis`.
    As in Keras, a list `key` is taken as a tuple of indices (`[1, 0]` means `x[1, 0]`), not as a
    gather.

    Args:
        x: Input tensor.
        key: The index: an int, a slice, a tuple or list of indices and slices.

    Returns:
        The indexed tensor, `x[key]`.

    Example:
        >>> x = np.array([[1, 2], [3, 4]])
        >>> tfkit.ops.get_item(x, 1).numpy()
        array([3, 4])
        >>> int(tfkit.ops.get_item(x, [1, 0]))
        3
        >>> tfkit.ops.get_item(x, (slice(None), 1)).numpy()
        array([2, 4])
    """
    return tensor(x)[tuple(key) if isinstance(key, list) else key]


def diff(a: Any, n: int = 1, axis: int = -1) -> tf.Tensor:
    """Calculate the n-th discrete difference along the given axis.

    The first difference is given by `out[i] = a[i+1] - a[i]` along the given axis; higher differences
    are calculated by using `diff` recursively. For bool inputs the difference is `a[i+1] != a[i]`.

    Args:
        a: Input tensor, at least 1-D unless `n` is 0.
        n: The number of times values are differenced, a non-negative int; `0` returns `a` unchanged.
            Defaults to `1`.
        axis: Axis to compute the difference(s) along. Defaults to `-1`.

    Returns:
        Tensor of the `n`-th differences: the same shape as `a` except along `axis`, which is `n` shorter.

    Raises:
        ValueError: If `n` is not a non-negative int, `a` is a scalar, or `axis` is out of range.
        TypeError: If `axis` is not an int.

    Example:
        >>> tfkit.ops.diff([1, 4, 9, 16]).numpy()
        array([3, 5, 7], dtype=int32)
        >>> tfkit.ops.diff([1, 4, 9, 16], n=2).numpy()
        array([2, 2], dtype=int32)
        >>> tfkit.ops.diff([[1, 2], [4, 8]], axis=0).numpy()
        array([[3, 6]], dtype=int32)
    """
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
                raise ValueError(
                    f"indices_or_sections={parts} does not divide the axis {axis} of length "
                    f"{length} equally; use array_split for unequal parts"
                )
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
    """Split a tensor into multiple sub-tensors, not necessarily of equal size.

    With an int `N` for an axis of length `L`, the first `L % N` parts have `L // N + 1` elements and the
    rest `L // N`.

    Args:
        x: Input tensor.
        indices_or_sections: An int `N` splits into `N` parts, or a list of sorted ints gives the indices
            along the axis where the splits happen (`[2, 3]` gives `x[:2]`, `x[2:3]` and `x[3:]`).
        axis: The axis along which to split. Defaults to `0`.

    Returns:
        A list of sub-tensors.

    Raises:
        ValueError: If `indices_or_sections` is an int that is not positive, or `axis` is out of range.
        TypeError: If `indices_or_sections` is neither an int nor a list of ints, or `axis` is not an int.

    Example:
        >>> [t.numpy() for t in tfkit.ops.array_split(np.arange(5), 2)]
        [array([0, 1, 2]), array([3, 4])]
        >>> [t.numpy() for t in tfkit.ops.array_split(np.arange(5), [1, 3])]
        [array([0]), array([1, 2]), array([3, 4])]
    """
    x = tensor(x)
    return _split(x, indices_or_sections, _axis(axis, len(x.shape)), equal=False)


def _split_min_rank(x: Any, rank: int, name: str) -> tf.Tensor:
    x = tensor(x)
    if len(x.shape) < rank:
        raise ValueError(f"{name} needs x with at least {rank} dimension(s); got shape {tuple(x.shape)}")
    return x


def hsplit(x: Any, indices_or_sections: Any) -> list[tf.Tensor]:
    """Split a tensor into multiple sub-tensors horizontally (column-wise).

    Splits along the second axis (the first for a 1-D `x`). An int `N` must divide that axis equally (use
    `array_split` for unequal parts).

    Args:
        x: Input tensor, with at least 1 dimension.
        indices_or_sections: An int `N` splits into `N` parts, or a list of sorted ints gives the indices
            along the axis where the splits happen (`[2, 3]` gives `x[:2]`, `x[2:3]` and `x[3:]`).

    Returns:
        A list of sub-tensors.

    Raises:
        ValueError: If `x` has too few dimensions, or an int `indices_or_sections` is not positive or
            does not divide the axis equally.
        TypeError: If `indices_or_sections` is neither an int nor a list of ints.

    Example:
        >>> x = np.arange(6).reshape(2, 3)
        >>> [t.numpy().tolist() for t in tfkit.ops.hsplit(x, 3)]
        [[[0], [3]], [[1], [4]], [[2], [5]]]
        >>> [t.numpy() for t in tfkit.ops.hsplit(np.arange(6), [2])]
        [array([0, 1]), array([2, 3, 4, 5])]
    """
    x = _split_min_rank(x, 1, "hsplit")
    return _split(x, indices_or_sections, 0 if len(x.shape) == 1 else 1, equal=True)


def vsplit(x: Any, indices_or_sections: Any) -> list[tf.Tensor]:
    """Split a tensor into multiple sub-tensors vertically (row-wise).

    Splits along the first axis. An int `N` must divide that axis equally (use `array_split` for unequal
    parts).

    Args:
        x: Input tensor, with at least 2 dimensions.
        indices_or_sections: An int `N` splits into `N` parts, or a list of sorted ints gives the indices
            along the axis where the splits happen (`[2, 3]` gives `x[:2]`, `x[2:3]` and `x[3:]`).

    Returns:
        A list of sub-tensors.

    Raises:
        ValueError: If `x` has too few dimensions, or an int `indices_or_sections` is not positive or
            does not divide the axis equally.
        TypeError: If `indices_or_sections` is neither an int nor a list of ints.

    Example:
        >>> x = np.arange(6).reshape(3, 2)
        >>> [t.numpy().tolist() for t in tfkit.ops.vsplit(x, 3)]
        [[[0, 1]], [[2, 3]], [[4, 5]]]
    """
    return _split(_split_min_rank(x, 2, "vsplit"), indices_or_sections, 0, equal=True)


def dsplit(x: Any, indices_or_sections: Any) -> list[tf.Tensor]:
    """Split a tensor into multiple sub-tensors along the 3rd axis (depth).

    Splits along the third axis. An int `N` must divide that axis equally (use `array_split` for unequal
    parts).

    Args:
        x: Input tensor, with at least 3 dimensions.
        indices_or_sections: An int `N` splits into `N` parts, or a list of sorted ints gives the indices
            along the axis where the splits happen (`[2, 3]` gives `x[:2]`, `x[2:3]` and `x[3:]`).

    Returns:
        A list of sub-tensors.

    Raises:
        ValueError: If `x` has too few dimensions, or an int `indices_or_sections` is not positive or
            does not divide the axis equally.
        TypeError: If `indices_or_sections` is neither an int nor a list of ints.

    Example:
        >>> parts = tfkit.ops.dsplit(np.zeros((1, 2, 4)), 2)
        >>> [p.shape for p in parts]
        [TensorShape([1, 2, 2]), TensorShape([1, 2, 2])]
    """
    return _split(_split_min_rank(x, 3, "dsplit"), indices_or_sections, 2, equal=True)


def dstack(xs: Sequence[Any]) -> tf.Tensor:
    """Stack tensors in sequence depth wise (along the third axis).

    Scalars become `(1, 1, 1)`, 1-D tensors of shape `(N,)` become `(1, N, 1)` and 2-D tensors of shape
    `(M, N)` become `(M, N, 1)` before concatenating along the third axis. Python numbers are first
    converted to `int32` / `float32` tensors, then all inputs take Keras's common dtype.

    Args:
        xs: A non-empty list or tuple of tensors, whose shapes agree except along the third axis.

    Returns:
        The tensor formed by stacking the given tensors, at least 3-D.

    Raises:
        ValueError: If `xs` is not a non-empty list or tuple.

    Example:
        >>> x = tfkit.ops.dstack([[1, 2], [3, 4]])
        >>> x.shape
        TensorShape([1, 2, 2])
        >>> x.numpy().tolist()
        [[[1, 3], [2, 4]]]
    """
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
    """Rotate an array by 90 degrees in the plane specified by axes.

    This function rotates an array counterclockwise by 90 degrees `k` times in the plane specified by
    `axes`: from the first axis towards the second. Negative `k` rotates clockwise.

    Args:
        array: Input tensor, with at least 2 dimensions.
        k: Number of times the array is rotated by 90 degrees, an int. Defaults to `1`.
        axes: A tuple of two different ints, the plane in which the array is rotated. Defaults to `(0, 1)`.

    Returns:
        Rotated tensor, with the dtype of `array`.

    Raises:
        ValueError: If `array` has fewer than 2 dimensions, or `axes` is not two different in-range axes.
        TypeError: If `k` or an axis is not an int.

    Example:
        >>> tfkit.ops.rot90([[1, 2], [3, 4]]).numpy()
        array([[2, 4],
               [1, 3]], dtype=int32)
        >>> tfkit.ops.rot90([[1, 2], [3, 4]], k=-1).numpy()
        array([[3, 1],
               [4, 2]], dtype=int32)
    """
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
    """Reverse the order of elements in the tensor along axis 1 (left/right).

    Args:
        x: Input tensor, with at least 2 dimensions.

    Returns:
        Output tensor with the columns reversed.

    Raises:
        ValueError: If `x` has fewer than 2 dimensions.

    Example:
        >>> tfkit.ops.fliplr([[1, 2], [3, 4]]).numpy()
        array([[2, 1],
               [4, 3]], dtype=int32)
    """
    x = tensor(x)
    if len(x.shape) < 2:
        raise ValueError(f"fliplr needs x with at least 2 dimensions; got shape {tuple(x.shape)}")
    return tf.reverse(x, [1])


def flipud(x: Any) -> tf.Tensor:
    """Reverse the order of elements in the tensor along axis 0 (up/down).

    Args:
        x: Input tensor, with at least 1 dimension.

    Returns:
        Output tensor with the rows reversed.

    Raises:
        ValueError: If `x` is a scalar.

    Example:
        >>> tfkit.ops.flipud([[1, 2], [3, 4]]).numpy()
        array([[3, 4],
               [1, 2]], dtype=int32)
    """
    x = tensor(x)
    if len(x.shape) < 1:
        raise ValueError("flipud needs x with at least 1 dimension; got a scalar")
    return tf.reverse(x, [0])


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> tf.Tensor:
    """Return specified diagonals.

    Takes the diagonal of the 2-D planes spanned by `axis1` and `axis2`: those two axes are removed and
    the diagonal is appended as the last axis. An `offset` past the edge of the planes gives an empty
    last axis.

    Args:
        x: Input tensor, with at least 2 dimensions.
        offset: Offset of the diagonal from the main diagonal: positive above it, negative below.
            Defaults to `0`.
        axis1: Axis to be used as the first axis of the 2-D sub-arrays. Defaults to `0`.
        axis2: Axis to be used as the second axis of the 2-D sub-arrays. Defaults to `1`.

    Returns:
        Tensor of diagonals.

    Raises:
        ValueError: If `x` has fewer than 2 dimensions, or `axis1` and `axis2` are equal or out of range.
        TypeError: If `axis1` or `axis2` is not an int.

    Example:
        >>> x = np.array([[1, 2, 3], [4, 5, 6]])
        >>> tfkit.ops.diagonal(x).numpy()
        array([1, 5])
        >>> tfkit.ops.diagonal(x, offset=1).numpy()
        array([2, 6])
        >>> tfkit.ops.diagonal(np.zeros((2, 3, 4)), axis1=1, axis2=2).shape
        TensorShape([2, 3])
    """
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
    """Return the indices of the elements that are non-zero.

    Args:
        x: Input tensor, with at least 1 dimension.

    Returns:
        A tuple of `int32` tensors, one for each dimension of `x`, containing the indices of the non-zero
        elements in that dimension (in row-major order).

    Raises:
        ValueError: If `x` is a scalar.

    Example:
        >>> rows, cols = tfkit.ops.nonzero([[0, 1], [2, 0]])
        >>> rows.numpy(), cols.numpy()
        (array([0, 1], dtype=int32), array([1, 0], dtype=int32))
    """
    x = tensor(x)
    if len(x.shape) == 0:
        raise ValueError("nonzero needs x with at least 1 dimension; got a scalar")
    found = tf.where(tf.cast(x, tf.bool))
    return tuple(tf.cast(found[:, i], tf.int32) for i in range(len(x.shape)))


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> tf.Tensor:
    """Return elements from `choicelist`, based on conditions in `condlist`.

    Where several conditions hold, the first one wins. The result takes Keras's common dtype of the
    choices and `default` (a Python number `default` follows the choices' dtype where its kind fits).

    Args:
        condlist: List of boolean tensors (other dtypes are cast to bool). The list of conditions which
            determine from which array in `choicelist` the output elements are taken.
        choicelist: List of tensors, of the same length as `condlist`. The list of tensors from which the
            output elements are taken.
        default: The element inserted in the output where all conditions are `False`. Defaults to `0`.

    Returns:
        Tensor where the output at position `m` is the `m`-th element of the tensor in `choicelist`
        where the `m`-th element of the corresponding tensor in `condlist` is `True`.

    Raises:
        ValueError: If `condlist` or `choicelist` is not a list or tuple, is empty, or their lengths
            differ.

    Example:
        >>> x = np.array([1, 2, 3])
        >>> tfkit.ops.select([x < 2, x > 2], [x * 10, -x]).numpy()
        array([10,  0, -3])
        >>> tfkit.ops.select([x < 2], [x], default=-1).numpy()
        array([ 1, -1, -1])
    """
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise ValueError(
            f"condlist and choicelist must be lists; got {type(condlist).__name__} and {type(choicelist).__name__}"
        )
    if not condlist or not choicelist:
        raise ValueError("condlist and choicelist must not be empty")
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"condlist and choicelist must have the same length; got {len(condlist)} and {len(choicelist)}"
        )
    choices = [tensor(c) for c in choicelist]
    default_item = weak(default)
    dtype = result_type(
        *[c.dtype for c in choices], default_item if isinstance(default_item, type) else default_item.dtype
    )
    out = tf.cast(tensor(default), dtype)
    for condition, choice in zip(reversed(condlist), reversed(choices)):
        condition = tf.cast(tensor(condition), tf.bool)
        out = tf.where(condition, tf.cast(choice, dtype), out)
    return out


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple[tf.Tensor, ...]:
    """Convert flat indices to coordinate arrays in a given array shape.

    Indices are read in row-major (C) order.

    Args:
        indices: An integer tensor of flat indices.
        shape: The shape of the array to index into: a sequence of ints (no `None`).

    Returns:
        A tuple of tensors, one per dimension of `shape`, each of the shape and dtype of `indices`.

    Raises:
        ValueError: If `shape` holds `None`.
        TypeError: If `indices` is not an integer tensor.

    Example:
        >>> rows, cols = tfkit.ops.unravel_index([1, 5], (2, 3))
        >>> rows.numpy(), cols.numpy()
        (array([0, 1], dtype=int32), array([1, 2], dtype=int32))
    """
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
    """Create a new view of `x` with the same data but a different dtype.

    The bytes of `x` are reinterpreted as `dtype` (a bitcast), with the machine's byte order. When the
    item sizes differ, the last axis grows (to a smaller dtype) or shrinks (to a larger dtype) by their
    ratio.

    Args:
        x: Input tensor.
        dtype: Data-type descriptor of the returned view. Defaults to `None`, which keeps the dtype of `x`.

    Returns:
        View of the tensor with the new dtype.

    Raises:
        ValueError: If `x` is a scalar and the item sizes differ, or the last axis of `x` is not a
            multiple of the size ratio when viewing as a larger dtype.

    Example:
        >>> tfkit.ops.view(np.array([1.0], "float32"), "int32").numpy()
        array([1065353216], dtype=int32)
        >>> tfkit.ops.view(np.array([1, 0, 2, 0], "int8"), "int16").numpy()
        array([1, 2], dtype=int16)
    """
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
        raise ValueError(
            f"Cannot view x of shape {tuple(x.shape)} and dtype {x.dtype.name} as {new.name}: "
            f"the last axis ({last}) must be a multiple of {ratio}"
        )
    grouped = tf.reshape(x, tf.concat([tf.shape(x)[:-1], [-1, ratio]], 0))
    return tf.bitcast(grouped, new)


__all__ = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), [name for name in __all__ if name != "ndim"])
