"""``unique`` of ``keras.ops`` on TensorFlow: distinct values or slices, first indices, inverse, counts.

    import tfkit.ops as ops
    values, counts = ops.unique(labels, return_counts=True)
    fixed = ops.unique(labels, size=8, fill_value=-1)     # static shape (8,): works under XLA

As numpy's ``unique``; ``sorted=False`` keeps the order of first occurrence,
``axis`` takes distinct slices (sorted lexicographically), ``size`` pads with
``fill_value`` (default 0; first indices 0, counts 0) or truncates. The sorted
flat case is built from a sort and segment sums, so with ``size`` it compiles
with ``jit_compile=True``; the other cases use ``tf.unique``, which XLA lacks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import export, tensor


def _sorted_flat(flat: tf.Tensor, size: int | None, fill_value: Any) -> tuple[tf.Tensor, ...]:
    length = tf.shape(flat)[0]
    keys = tf.cast(flat, tf.int32) if flat.dtype.is_bool else flat
    order = tf.argsort(keys, stable=True)
    ordered = tf.gather(keys, order)
    fresh = tf.equal(tf.range(length), 0) | tf.not_equal(ordered, tf.roll(ordered, 1, axis=0))
    group = tf.cumsum(tf.cast(fresh, tf.int32)) - 1
    found = tf.reduce_sum(tf.cast(fresh, tf.int32))
    segments = found if size is None else size
    group = tf.where(group < segments, group, -1)  # values past ``size``: dropped by the segment ops
    values = tf.math.unsorted_segment_max(ordered, group, segments)
    first = tf.math.unsorted_segment_min(order, group, segments)
    counts = tf.math.unsorted_segment_sum(tf.ones_like(group), group, segments)
    inverse = tf.scatter_nd(order[:, None], tf.cumsum(tf.cast(fresh, tf.int32)) - 1, tf.reshape(length, [1]))
    if size is not None:
        real = tf.range(size) < found
        values = tf.where(real, values, tf.cast(0 if fill_value is None else fill_value, values.dtype))
        first, counts = tf.where(real, first, 0), tf.where(real, counts, 0)
    return tf.cast(values, flat.dtype), first, inverse, counts


def _lexicographic_order(rows: tf.Tensor) -> tf.Tensor:
    """A stable order sorting the rows of a 2-D tensor lexicographically."""
    order = tf.range(tf.shape(rows)[0])
    columns = rows.shape[1]
    if columns is None:
        raise ValueError("unique along an axis needs the other dimensions to be known")
    keys = tf.cast(rows, tf.int32) if rows.dtype.is_bool else rows
    for column in reversed(range(columns)):
        order = tf.gather(order, tf.argsort(tf.gather(keys[:, column], order), stable=True))
    return order


def _fit(
    values: tf.Tensor, first: tf.Tensor, counts: tf.Tensor, axis: int, size: int, fill_value: Any
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """Truncate or pad the unique values (along ``axis``), first indices and counts to ``size``."""
    found = tf.shape(values)[axis]
    keep, pad = tf.minimum(found, size), tf.maximum(size - found, 0)
    values = tf.gather(values, tf.range(keep), axis=axis)
    paddings = tf.tensor_scatter_nd_update(tf.zeros([len(values.shape), 2], tf.int32), [[axis, 1]], [pad])
    values = tf.pad(values, paddings, constant_values=tf.cast(0 if fill_value is None else fill_value, values.dtype))
    static = values.shape.as_list()
    static[axis] = size
    return (
        tf.ensure_shape(values, static),
        tf.ensure_shape(tf.pad(first[:keep], [[0, pad]]), [size]),
        tf.ensure_shape(tf.pad(counts[:keep], [[0, pad]]), [size]),
    )


def unique(
    x: Any,
    sorted: bool = True,
    return_index: bool = False,
    return_inverse: bool = False,  # noqa: A002
    return_counts: bool = False,
    axis: int | None = None,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """Return the unique elements of a tensor.

    As NumPy's `unique`: the distinct values of `x` (flattened), or with `axis` the distinct slices along
    that axis. Optionally also returns the index of each unique value's first occurrence, the indices
    that rebuild `x` from the unique values, and the count of each unique value.

    The sorted flat case (`sorted=True`, `axis=None`) is built from a sort and segment sums, so with
    `size` it has a static shape and compiles with `jit_compile=True` (XLA); the other cases use
    `tf.unique`, which XLA does not support.

    Args:
        x: Input tensor.
        sorted: If `True`, the unique values are sorted (slices lexicographically); if `False`, they keep
            the order of their first occurrence. Defaults to `True`.
        return_index: If `True`, also return the indices of the first occurrences of the unique values
            (along `axis`, or in the flattened `x`). Defaults to `False`.
        return_inverse: If `True`, also return the indices into the unique values that rebuild `x` (of
            the shape of `x` when `axis` is `None`). Defaults to `False`.
        return_counts: If `True`, also return the number of times each unique value occurs in `x`.
            Defaults to `False`.
        axis: The axis to operate on. Defaults to `None`, which flattens `x`.
        size: If given, the unique values (and first indices and counts) are truncated or padded to this
            length, giving a static shape. Defaults to `None`.
        fill_value: With `size`, the value that pads the unique values; padded first indices and counts
            are 0. Defaults to `None`, which pads with 0.

    Returns:
        The unique values, or, when any of `return_index`, `return_inverse` or `return_counts` is `True`,
        a tuple of the unique values followed by the requested `int32` tensors, in that order.

    Raises:
        ValueError: If `size` is not a non-negative int, or `axis` is out of range.

    Example:
        >>> tfkit.ops.unique([3, 1, 2, 1, 3]).numpy()
        array([1, 2, 3], dtype=int32)
        >>> tfkit.ops.unique([3, 1, 2, 1, 3], sorted=False).numpy()
        array([3, 1, 2], dtype=int32)
        >>> values, index, inverse, counts = tfkit.ops.unique(
        ...     [3, 1, 2, 1, 3], return_index=True, return_inverse=True, return_counts=True)
        >>> index.numpy(), inverse.numpy(), counts.numpy()
        (array([1, 2, 0], dtype=int32), array([2, 0, 1, 0, 2], dtype=int32), array([2, 1, 2], dtype=int32))
        >>> tfkit.ops.unique([3, 1, 3], size=4, fill_value=-1).numpy()
        array([ 1,  3, -1, -1], dtype=int32)
        >>> tfkit.ops.unique([[1, 0], [0, 1], [1, 0]], axis=0).numpy()
        array([[0, 1],
               [1, 0]], dtype=int32)
    """
    if size is not None and (not isinstance(size, (int, np.integer)) or isinstance(size, bool) or size < 0):
        raise ValueError(f"size must be a non-negative int; got size={size!r}")
    x = tensor(x)
    rank = len(x.shape)
    if axis is None and sorted:
        values, first, inverse, counts = _sorted_flat(tf.reshape(x, [-1]), size, fill_value)
        inverse = tf.reshape(inverse, tf.shape(x))
    else:
        if axis is None:
            rows = tf.reshape(x, [-1, 1])
            _, inverse, counts = tf.unique_with_counts(tf.reshape(x, [-1]), out_idx=tf.int32)
            where = 0
        else:
            if not -rank <= axis < rank:
                raise ValueError(f"axis {axis} is out of bounds for a tensor of rank {rank}")
            where = axis % rank
            moved = tf.experimental.numpy.moveaxis(x, where, 0)
            rows = tf.reshape(moved, tf.stack([tf.shape(moved)[0], -1]))
            rows.set_shape([None, int(np.prod(moved.shape[1:])) if None not in moved.shape[1:] else None])
            _, inverse, counts = tf.raw_ops.UniqueWithCountsV2(x=rows, axis=[0], out_idx=tf.int32)
        first = tf.math.unsorted_segment_min(tf.range(tf.shape(rows)[0]), inverse, tf.shape(counts)[0])
        values = tf.gather(rows, first)
        if sorted:
            order = _lexicographic_order(values)
            values, first, counts = tf.gather(values, order), tf.gather(first, order), tf.gather(counts, order)
            inverse = tf.gather(tf.math.invert_permutation(order), inverse)
        if axis is None:
            values, inverse = tf.reshape(values, [-1]), tf.reshape(inverse, tf.shape(x))
        else:
            values = tf.experimental.numpy.moveaxis(
                tf.reshape(values, tf.concat([[-1], tf.shape(moved)[1:]], 0)), 0, where
            )
        if size is not None:
            values, first, counts = _fit(values, first, counts, where, int(size), fill_value)
    results = [values] + [
        r for r, wanted in ((first, return_index), (inverse, return_inverse), (counts, return_counts)) if wanted
    ]
    return tuple(results) if len(results) > 1 else values


__all__ = ["unique"]
export(globals(), __all__)
