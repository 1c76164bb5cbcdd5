"""Keras 3's core ops on TensorFlow: casting, conversion, shapes, slicing and scattering.

    n = tfkit.ops.shape(x)[0]                         # an int when known, else a scalar tensor
    y = tfkit.ops.slice_update(x, (0, 2), patch)
    parts = tfkit.ops.unstack(x, axis=1)

Also re-exported here (each family in its own file): ``core_math`` (segments, top-k,
erf, cdist, ...), ``core_control`` (cond, scan, associative_scan, ...) and ``core_einops``
(rearrange). ``tfkit.ops.math`` is this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base.symbolic import SymbolicTensor
from tfkit.ops import core_control, core_einops, core_math
from tfkit.ops._convert import export, tensor
from tfkit.ops.core_control import *  # noqa: F401,F403
from tfkit.ops.core_einops import *  # noqa: F401,F403
from tfkit.ops.core_math import *  # noqa: F401,F403


def cast(x: Any, dtype: Any) -> tf.Tensor:
    """Cast a tensor to the desired dtype.

    Float to integer casts truncate toward zero, as `tf.cast` does. A
    `tf.SparseTensor` stays sparse; Python floats and float64 NumPy arrays are
    read as float32 before the cast.

    Args:
        x: A tensor, array, sparse tensor or Python number.
        dtype: The target dtype: a name such as `"float16"` or a `tf.DType`.

    Returns:
        A tensor of the specified `dtype`.

    Example:
        >>> x = tfkit.ops.arange(4)
        >>> tfkit.ops.cast(x, "float16")
        <tf.Tensor: shape=(4,), dtype=float16, numpy=array([0., 1., 2., 3.], dtype=float16)>
        >>> tfkit.ops.cast([1.7, -2.2], "int32").numpy()
        array([ 1, -2], dtype=int32)
    """
    dtype = tf.as_dtype(dtype)
    if isinstance(x, tf.SparseTensor):
        return tf.cast(x, dtype)
    x = tensor(x) if not isinstance(x, (int, float, bool)) else tf.convert_to_tensor(x)
    return tf.cast(x, dtype)


def convert_to_tensor(x: Any, dtype: Any = None, sparse: bool | None = None, ragged: bool | None = None) -> Any:
    """Convert a NumPy array, Python value or tensor to a tensor.

    Dtypes follow Keras's rules: Python floats and float64 NumPy arrays become
    float32, Python ints and int64 lists become int32. When `dtype` is given the
    result is cast to it (a float converted to an integer dtype is truncated).
    A `tf.SparseTensor` or `tf.RaggedTensor` stays one unless `sparse=False` or
    `ragged=False` asks for a dense tensor.

    Args:
        x: A NumPy array, Python value, tensor, sparse or ragged tensor.
        dtype: The target dtype; `None` (the default) keeps the dtype inferred
            from `x`.
        sparse: Whether to keep a sparse `x` sparse. `False` densifies it;
            `None` (the default) and `True` keep it as it is.
        ragged: Whether to keep a ragged `x` ragged. `False` pads it into a
            dense tensor; `None` (the default) and `True` keep it as it is.

    Returns:
        A tensor of the specified `dtype`.

    Example:
        >>> x = np.array([1.0, 2.0])
        >>> tfkit.ops.convert_to_tensor(x)
        <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
        >>> tfkit.ops.convert_to_tensor([1, 2], dtype="float16").dtype
        tf.float16
    """
    if isinstance(x, tf.SparseTensor):
        x = tf.sparse.to_dense(x) if sparse is False else x
        return x if dtype is None or isinstance(x, tf.Tensor) and x.dtype == tf.as_dtype(dtype) else tf.cast(x, dtype)
    if isinstance(x, tf.RaggedTensor):
        x = x.to_tensor() if ragged is False else x
        return x if dtype is None else tf.cast(x, dtype)
    if dtype is not None and not tf.is_tensor(x):
        target = tf.as_dtype(dtype)
        if target.is_integer or target.is_bool:
            return tf.cast(tensor(x), target)
    return tensor(x, dtype)


def stop_gradient(variable: Any) -> tf.Tensor:
    """Stop gradient computation.

    The result has the value of `variable`, but gradients do not flow back
    through it: it is treated as a constant by automatic differentiation.

    Args:
        variable: A tensor, variable or array.

    Returns:
        A tensor with the same value as `variable`, with gradient computation
        disabled.

    Example:
        >>> v = tf.Variable([1.0, 2.0])
        >>> with tf.GradientTape() as tape:
        ...     y = tfkit.ops.sum(v * tfkit.ops.stop_gradient(v))
        >>> tape.gradient(y, v).numpy()
        array([1., 2.], dtype=float32)
    """
    return tf.stop_gradient(tensor(variable))


def slice(inputs: Any, start_indices: Any, shape: Any) -> tf.Tensor:  # noqa: A001 (Keras's name)
    """Return a slice of an input tensor.

    At a high level, this operation is an explicit replacement for array slicing
    e.g. `inputs[start_indices: start_indices + shape]`. Unlike slicing via
    brackets, this operation will accept tensor start indices on all backends,
    which is useful when indices are computed by other tensor operations.

    Args:
        inputs: A tensor, the tensor to be sliced.
        start_indices: A list/tuple of shape `(inputs.ndim,)`, specifying the
            starting indices for updating.
        shape: The full shape of the returned slice, one entry per axis of
            `inputs`; `-1` takes everything to the end of that axis.

    Returns:
        A tensor, the block of `inputs` of size `shape` starting at
        `start_indices`.

    Raises:
        ValueError: If `shape` does not have one entry per axis of `inputs`.

    Example:
        >>> x = tfkit.ops.reshape(tfkit.ops.arange(12), (3, 4))
        >>> tfkit.ops.slice(x, (1, 1), (2, 2)).numpy()
        array([[ 5,  6],
               [ 9, 10]], dtype=int32)
        >>> tfkit.ops.slice(x, (1, 2), (-1, -1)).numpy()
        array([[ 6,  7],
               [10, 11]], dtype=int32)
    """
    inputs = tensor(inputs)
    if len(shape) != len(inputs.shape):
        raise ValueError(f"slice: shape {tuple(shape)} must have one entry per axis of inputs {tuple(inputs.shape)}")
    return tf.slice(inputs, tf.cast(start_indices, tf.int32), shape)


def slice_update(inputs: Any, start_indices: Any, updates: Any) -> tf.Tensor:
    """Update an input by slicing in a tensor of updated values.

    At a high level, this operation does
    `inputs[start_indices: start_indices + updates.shape] = updates`.
    Assume inputs is a tensor of shape `(D0, D1, ..., Dn)`,
    `start_indices` must be a list/tuple of n integers, specifying the starting
    indices. `updates` must have the same rank as `inputs`, and the size of each
    dim must not exceed `Di - start_indices[i]`. The start indices are clamped
    so that the block fits inside `inputs`, as `jax.lax.dynamic_update_slice`
    does.

    Args:
        inputs: A tensor, the tensor to be updated.
        start_indices: A list/tuple of shape `(inputs.ndim,)`, specifying
            the starting indices for updating.
        updates: A tensor, the new values to be put to `inputs` at `indices`.
            `updates` must have the same rank as `inputs`; it is cast to the
            dtype of `inputs`.

    Returns:
        A tensor, has the same shape and dtype as `inputs`.

    Raises:
        ValueError: If `updates` does not have the rank of `inputs`.

    Example:
        >>> inputs = tfkit.ops.zeros((3, 3))
        >>> tfkit.ops.slice_update(inputs, (1, 1), tfkit.ops.ones((2, 2))).numpy()
        array([[0., 0., 0.],
               [0., 1., 1.],
               [0., 1., 1.]], dtype=float32)
    """
    inputs = tensor(inputs)
    updates = tf.cast(tensor(updates), inputs.dtype)
    if len(updates.shape) != len(inputs.shape):
        raise ValueError(
            f"slice_update: updates of shape {tuple(updates.shape)} must have the rank of inputs {tuple(inputs.shape)}"
        )
    starts = tf.cast(start_indices, tf.int32)
    size, patch = tf.shape(inputs), tf.shape(updates)
    starts = tf.clip_by_value(starts, 0, tf.maximum(size - patch, 0))
    paddings = tf.stack([starts, size - patch - starts], axis=1)
    placed = tf.pad(updates, paddings)
    inside = tf.pad(tf.ones_like(updates, tf.bool), paddings)
    placed.set_shape(inputs.shape)
    inside.set_shape(inputs.shape)
    return tf.where(inside, placed, inputs)


def scatter(indices: Any, values: Any, shape: Any) -> tf.Tensor:
    """Returns a tensor of shape `shape` where `indices` are set to `values`.

    At a high level, this operation does `zeros[indices] = updates` and
    returns the output. It is equivalent to::

        zeros = tfkit.ops.zeros(shape)
        output = tfkit.ops.scatter_update(zeros, indices, values)

    except that values at duplicate indices are added up.

    Args:
        indices: A tensor or list/tuple specifying indices for the values in
            `values`; its last axis indexes the leading axes of the output.
        values: A tensor, the values to be set at `indices`.
        shape: Shape of the output tensor.

    Returns:
        A tensor of shape `shape` and the dtype of `values`.

    Example:
        >>> indices = [[0, 1], [1, 1]]
        >>> values = np.array([1.0, 1.0])
        >>> tfkit.ops.scatter(indices, values, (2, 2)).numpy()
        array([[0., 1.],
               [0., 1.]], dtype=float32)
        >>> tfkit.ops.scatter([[0], [0]], np.array([1.0, 2.0]), (2,)).numpy()
        array([3., 0.], dtype=float32)
    """
    return tf.scatter_nd(tf.cast(tensor(indices), tf.int32), tensor(values), shape)


def _scatter_multiply(inputs: tf.Tensor, indices: tf.Tensor, updates: tf.Tensor) -> tf.Tensor:
    depth = indices.shape[-1]
    strides = tf.math.cumprod(tf.shape(inputs)[:depth], reverse=True, exclusive=True)
    linear = tf.reduce_sum(indices * strides, axis=-1)
    unique, segment = tf.unique(linear)
    count = tf.shape(unique)[0]
    product = tf.math.unsorted_segment_prod(updates, segment, count)
    first = tf.math.unsorted_segment_min(tf.range(tf.shape(linear)[0]), segment, count)
    where = tf.gather(indices, first)
    return tf.tensor_scatter_nd_update(inputs, where, tf.gather_nd(inputs, where) * product)


def scatter_update(inputs: Any, indices: Any, updates: Any, reduction: str | None = None) -> tf.Tensor:
    """Update inputs via updates at scattered (sparse) indices.

    At a high level, this operation does `inputs[indices] = updates`.
    Assume `inputs` is a tensor of shape `(D0, D1, ..., Dn)`, there are 2 main
    usages of `scatter_update`.

    1. `indices` is a 2D tensor of shape `(num_updates, n)`, where `num_updates`
       is the number of updates to perform, and `updates` is a 1D tensor of
       shape `(num_updates,)`. For example, if `inputs` is `zeros((4, 4, 4))`,
       and we want to update `inputs[1, 2, 3]` and `inputs[0, 1, 3]` as 1, then
       we can use::

           inputs = np.zeros((4, 4, 4))
           indices = [[1, 2, 3], [0, 1, 3]]
           updates = np.array([1., 1.])
           inputs = tfkit.ops.scatter_update(inputs, indices, updates)

    2. `indices` is a 2D tensor of shape `(num_updates, k)`, where `num_updates`
       is the number of updates to perform, and `k` (`k < n`) is the size of
       each index in `indices`. `updates` is a `n - k`-D tensor of shape
       `(num_updates, inputs.shape[k:])`. For example, if
       `inputs = np.zeros((4, 4, 4))`, and we want to update `inputs[1, 2, :]`
       and `inputs[2, 3, :]` as `[1, 1, 1, 1]`, then `indices` would have shape
       `(num_updates, 2)` (`k = 2`), and `updates` would have shape
       `(num_updates, 4)` (`inputs.shape[2:] = 4`).

    Args:
        inputs: A tensor, the tensor to be updated.
        indices: A tensor or list/tuple of shape `(N, inputs.ndim)`, specifying
            indices to update. `N` is the number of indices to update, must be
            equal to the first dimension of `updates`.
        updates: A tensor, the new values to be put to `inputs` at `indices`;
            it is cast to the dtype of `inputs`.
        reduction: How to combine `updates` with the values already at
            `indices`: `None` (the default) overwrites them, `"add"`, `"max"`,
            `"min"` and `"mul"` combine them (duplicate indices all take part).
            This argument is a tfkit addition: Keras 3's `scatter_update` only
            overwrites.

    Returns:
        A tensor, has the same shape and dtype as `inputs`.

    Raises:
        ValueError: If `reduction` is not one of the values above.

    Example:
        >>> inputs = tfkit.ops.zeros((4,))
        >>> tfkit.ops.scatter_update(inputs, [[1], [3]], [5.0, 6.0]).numpy()
        array([0., 5., 0., 6.], dtype=float32)
        >>> tfkit.ops.scatter_update(inputs, [[1], [1]], [5.0, 6.0], reduction="add").numpy()
        array([ 0., 11.,  0.,  0.], dtype=float32)
    """
    if reduction is not None:
        reduction = str(reduction).lower()
        if reduction not in ("add", "max", "min", "mul"):
            raise ValueError(f"scatter_update: reduction must be None, 'add', 'max', 'min' or 'mul', got {reduction!r}")
    inputs = tensor(inputs)
    indices = tf.cast(tensor(indices), tf.int32)
    updates = tf.cast(tensor(updates), inputs.dtype)
    if reduction == "mul":
        return _scatter_multiply(inputs, indices, updates)
    op = {
        None: tf.tensor_scatter_nd_update,
        "add": tf.tensor_scatter_nd_add,
        "max": tf.tensor_scatter_nd_max,
        "min": tf.tensor_scatter_nd_min,
    }[reduction]
    return op(inputs, indices, updates)


def unstack(x: Any, num: int | None = None, axis: int = 0) -> list[tf.Tensor]:
    """Unpack the given dimension of a rank-R tensor into rank-(R-1) tensors.

    Args:
        x: The input tensor.
        num: The length of the dimension `axis`. Automatically inferred if
            `None` (the default); it must be given when that size is not static.
        axis: The axis along which to unpack. Defaults to `0`.

    Returns:
        A list of tensors unpacked along the given axis.

    Raises:
        ValueError: If `axis` is out of range for `x`, or if `num` is `None`
            and the size of `axis` is not static.

    Example:
        >>> x = tfkit.ops.array([[1, 2], [3, 4]])
        >>> [t.numpy() for t in tfkit.ops.unstack(x, axis=0)]
        [array([1, 2], dtype=int32), array([3, 4], dtype=int32)]
        >>> [t.numpy() for t in tfkit.ops.unstack(x, axis=1)]
        [array([1, 3], dtype=int32), array([2, 4], dtype=int32)]
    """
    x = tensor(x)
    if not -len(x.shape) <= axis < len(x.shape):
        raise ValueError(f"unstack: axis={axis} is out of range for x of shape {tuple(x.shape)}")
    if num is None and x.shape[axis] is None:
        raise ValueError(f"unstack: axis {axis} of x has no static size (shape {tuple(x.shape)}); pass num")
    return tf.unstack(x, num=num, axis=axis)


def is_tensor(x: Any) -> bool:
    """Check whether the given object is a tensor.

    Note: this checks for TensorFlow tensors (eager tensors, variables, sparse
    and ragged tensors) and for the symbolic tensors of a tfkit functional
    model (`tfkit.Input`-derived). NumPy arrays and Python values are not
    tensors.

    Args:
        x: A variable.

    Returns:
        `True` if `x` is a tensor, otherwise `False`.

    Example:
        >>> tfkit.ops.is_tensor(tfkit.ops.ones((2,)))
        True
        >>> tfkit.ops.is_tensor(np.ones((2,)))
        False
    """
    return tf.is_tensor(x) or isinstance(x, SymbolicTensor)


def dtype(x: Any) -> str:
    """Return the dtype of the tensor-like input as a standardized string.

    Args:
        x: A tensor, variable, NumPy array or any object with a `dtype`
            attribute.

    Returns:
        The name of the dtype of `x`, such as `"float32"`.

    Example:
        >>> tfkit.ops.dtype(tfkit.ops.ones((2,)))
        'float32'
        >>> tfkit.ops.dtype(np.zeros((2,), "int64"))
        'int64'
    """
    return tf.as_dtype(x.dtype).name


def convert_to_numpy(x: Any) -> np.ndarray:
    """Convert a tensor to a NumPy array.

    Sparse tensors are densified and ragged tensors padded with zeros first.

    Args:
        x: A tensor, variable, sparse or ragged tensor, or array-like value.

    Returns:
        A NumPy array.

    Raises:
        ValueError: If `x` is a symbolic tensor of a functional model
            (`tfkit.Input`-derived): it has no values until the model runs.

    Example:
        >>> tfkit.ops.convert_to_numpy(tfkit.ops.ones((2,)))
        array([1., 1.], dtype=float32)
    """
    if isinstance(x, SymbolicTensor):
        raise ValueError(
            f"convert_to_numpy: {x.name or 'this tensor'} is a symbolic tensor of a functional model "
            f"(shape {x.shape}); it has no values until the model runs"
        )
    if isinstance(x, tf.SparseTensor):
        x = tf.sparse.to_dense(x)
    elif isinstance(x, tf.RaggedTensor):
        x = x.to_tensor()
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def shape(x: Any) -> tuple:
    """Gets the shape of the tensor input.

    Note: On the TensorFlow backend, when `x` is a `tf.Tensor` with dynamic
    shape, dimensions which are dynamic in the context of a compiled function
    will have a `tf.Tensor` value instead of a static integer value. For the
    symbolic tensors of a functional model the shape is returned as it is, with
    `None` for unknown dimensions.

    Args:
        x: A tensor. This function will try to access the `shape` attribute of
            the input tensor.

    Returns:
        A tuple of integers or `None` values, indicating the shape of the input
        tensor.

    Example:
        >>> x = tfkit.ops.zeros((8, 12))
        >>> tfkit.ops.shape(x)
        (8, 12)
    """
    if isinstance(x, SymbolicTensor):
        return x.shape
    x = tensor(x)
    static = x.shape.as_list()
    if all(d is not None for d in static):
        return tuple(static)
    dynamic = tf.shape(x)
    return tuple(d if d is not None else dynamic[i] for i, d in enumerate(static))


def ndim(x: Any) -> int:
    """Return the number of dimensions of a tensor.

    Args:
        x: A tensor, array or any object with a `shape` attribute.

    Returns:
        The number of dimensions of `x`, a Python int.

    Example:
        >>> tfkit.ops.core.ndim(tfkit.ops.zeros((2, 3)))
        2
    """
    return len(x.shape)


def size(x: Any) -> Any:
    """Return the number of elements in a tensor.

    Args:
        x: Input tensor.

    Returns:
        A scalar int32 tensor: the number of elements in `x`.

    Example:
        >>> tfkit.ops.core.size(tfkit.ops.zeros((2, 3))).numpy()
        np.int32(6)
    """
    return tf.size(tensor(x))


_OWN = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), [name for name in _OWN if name not in ("shape", "ndim", "is_tensor", "dtype", "convert_to_numpy")])
__all__ = _OWN + core_control.__all__ + core_einops.__all__ + core_math.__all__
