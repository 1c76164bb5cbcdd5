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
    dtype = tf.as_dtype(dtype)
    if isinstance(x, tf.SparseTensor):
        return tf.cast(x, dtype)
    x = tensor(x) if not isinstance(x, (int, float, bool)) else tf.convert_to_tensor(x)
    return tf.cast(x, dtype)


def convert_to_tensor(x: Any, dtype: Any = None, sparse: bool | None = None, ragged: bool | None = None) -> Any:
    """``x`` as a tensor in Keras's dtypes (Python floats float32, ints int32); ``dtype`` casts when it must.

    A ``tf.SparseTensor`` or ``tf.RaggedTensor`` stays one unless ``sparse=False`` / ``ragged=False``.
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
    return tf.stop_gradient(tensor(variable))


def slice(inputs: Any, start_indices: Any, shape: Any) -> tf.Tensor:  # noqa: A001 (Keras's name)
    """The block of ``shape`` (-1: to the end) starting at ``start_indices``."""
    inputs = tensor(inputs)
    if len(shape) != len(inputs.shape):
        raise ValueError(f"slice: shape {tuple(shape)} must have one entry per axis of inputs "
                         f"{tuple(inputs.shape)}")
    return tf.slice(inputs, tf.cast(start_indices, tf.int32), shape)


def slice_update(inputs: Any, start_indices: Any, updates: Any) -> tf.Tensor:
    """``inputs`` with the block at ``start_indices`` replaced by ``updates`` (starts clamped so it fits)."""
    inputs = tensor(inputs)
    updates = tf.cast(tensor(updates), inputs.dtype)
    if len(updates.shape) != len(inputs.shape):
        raise ValueError(f"slice_update: updates of shape {tuple(updates.shape)} must have the rank of inputs "
                         f"{tuple(inputs.shape)}")
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
    """A zero tensor of ``shape`` with ``values`` added at ``indices`` (duplicates add up)."""
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
    """``inputs`` with ``updates`` written at ``indices``, or combined there by ``reduction`` (add/max/min/mul)."""
    if reduction is not None:
        reduction = str(reduction).lower()
        if reduction not in ("add", "max", "min", "mul"):
            raise ValueError(f"scatter_update: reduction must be None, 'add', 'max', 'min' or 'mul', "
                             f"got {reduction!r}")
    inputs = tensor(inputs)
    indices = tf.cast(tensor(indices), tf.int32)
    updates = tf.cast(tensor(updates), inputs.dtype)
    if reduction == "mul":
        return _scatter_multiply(inputs, indices, updates)
    op = {None: tf.tensor_scatter_nd_update, "add": tf.tensor_scatter_nd_add, "max": tf.tensor_scatter_nd_max,
          "min": tf.tensor_scatter_nd_min}[reduction]
    return op(inputs, indices, updates)


def unstack(x: Any, num: int | None = None, axis: int = 0) -> list[tf.Tensor]:
    """The slices of ``x`` along ``axis`` as a list (``num`` is needed when that size is not static)."""
    x = tensor(x)
    if not -len(x.shape) <= axis < len(x.shape):
        raise ValueError(f"unstack: axis={axis} is out of range for x of shape {tuple(x.shape)}")
    if num is None and x.shape[axis] is None:
        raise ValueError(f"unstack: axis {axis} of x has no static size (shape {tuple(x.shape)}); pass num")
    return tf.unstack(x, num=num, axis=axis)


def is_tensor(x: Any) -> bool:
    return tf.is_tensor(x) or isinstance(x, SymbolicTensor)


def dtype(x: Any) -> str:
    return tf.as_dtype(x.dtype).name


def convert_to_numpy(x: Any) -> np.ndarray:
    if isinstance(x, SymbolicTensor):
        raise ValueError(f"convert_to_numpy: {x.name or 'this tensor'} is a symbolic tensor of a functional model "
                         f"(shape {x.shape}); it has no values until the model runs")
    if isinstance(x, tf.SparseTensor):
        x = tf.sparse.to_dense(x)
    elif isinstance(x, tf.RaggedTensor):
        x = x.to_tensor()
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def shape(x: Any) -> tuple:
    """The shape as a tuple: ints where known, scalar tensors where not (``None`` for symbolic tensors)."""
    if isinstance(x, SymbolicTensor):
        return x.shape
    x = tensor(x)
    static = x.shape.as_list()
    if all(d is not None for d in static):
        return tuple(static)
    dynamic = tf.shape(x)
    return tuple(d if d is not None else dynamic[i] for i, d in enumerate(static))


def ndim(x: Any) -> int:
    return len(x.shape)


def size(x: Any) -> Any:
    return tf.size(tensor(x))


_OWN = [name for name, value in list(globals().items())
        if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), [name for name in _OWN if name not in ("shape", "ndim", "is_tensor", "dtype", "convert_to_numpy")])
__all__ = _OWN + core_control.__all__ + core_einops.__all__ + core_math.__all__
