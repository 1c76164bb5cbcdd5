"""Keras 3's core and math ops on TensorFlow: control flow, casting, shapes, slicing, top-k.

    n = tfkit.ops.shape(x)[0]                         # an int when known, else a scalar tensor
    y = tfkit.ops.cond(pred, lambda: a, lambda: b)
    values, indices = tfkit.ops.top_k(scores, k=5)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import tensorflow as tf

from tfkit.base.symbolic import SymbolicTensor
from tfkit.ops._convert import export, float_of, tensor


def cast(x: Any, dtype: Any) -> tf.Tensor:
    return tf.cast(tensor(x), dtype)


def convert_to_tensor(x: Any, dtype: Any = None, sparse: bool | None = None) -> tf.Tensor:
    return tensor(x, dtype)


def stop_gradient(variable: Any) -> tf.Tensor:
    return tf.stop_gradient(tensor(variable))


def top_k(x: Any, k: int, sorted: bool = True) -> tuple[tf.Tensor, tf.Tensor]:  # noqa: A002
    return tf.math.top_k(tensor(x), k=k, sorted=sorted)


def in_top_k(targets: Any, predictions: Any, k: int) -> tf.Tensor:
    return tf.math.in_top_k(tf.cast(tensor(targets), tf.int32), float_of(tensor(predictions)), k)


def erf(x: Any) -> tf.Tensor:
    return tf.math.erf(float_of(tensor(x)))


def rsqrt(x: Any) -> tf.Tensor:
    return tf.math.rsqrt(float_of(tensor(x)))


def segment_sum(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    data, ids = tensor(data), tf.cast(tensor(segment_ids), tf.int32)
    if num_segments is None:
        return tf.math.segment_sum(data, ids) if sorted else tf.math.unsorted_segment_sum(
            data, ids, tf.reduce_max(ids) + 1)
    return tf.math.unsorted_segment_sum(data, ids, num_segments)


def segment_max(data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False) -> tf.Tensor:  # noqa: A002
    data, ids = tensor(data), tf.cast(tensor(segment_ids), tf.int32)
    n = tf.reduce_max(ids) + 1 if num_segments is None else num_segments
    return tf.math.unsorted_segment_max(data, ids, n)


def slice(inputs: Any, start_indices: Any, shape: Any) -> tf.Tensor:  # noqa: A001
    return tf.slice(tensor(inputs), start_indices, shape)


def slice_update(inputs: Any, start_indices: Any, updates: Any) -> tf.Tensor:
    inputs = tensor(inputs)
    updates = tf.cast(tensor(updates), inputs.dtype)
    grids = tf.meshgrid(*[tf.range(d) for d in tf.unstack(tf.shape(updates))], indexing="ij")
    indices = tf.stack([g + tf.cast(s, tf.int32) for g, s in zip(grids, start_indices)], axis=-1)
    return tf.tensor_scatter_nd_update(inputs, tf.reshape(indices, [-1, len(start_indices)]),
                                       tf.reshape(updates, [-1]))


def scatter(indices: Any, values: Any, shape: Any) -> tf.Tensor:
    return tf.scatter_nd(tf.cast(tensor(indices), tf.int32), tensor(values), shape)


def scatter_update(inputs: Any, indices: Any, updates: Any) -> tf.Tensor:
    inputs = tensor(inputs)
    return tf.tensor_scatter_nd_update(inputs, tf.cast(tensor(indices), tf.int32),
                                       tf.cast(tensor(updates), inputs.dtype))


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    return tf.cond(tf.cast(pred, tf.bool), true_fn, false_fn)


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any,  # noqa: A002
               maximum_iterations: int | None = None) -> Any:
    is_tuple = isinstance(loop_vars, (tuple, list))
    loop_vars = tuple(loop_vars) if is_tuple else (loop_vars,)

    def wrapped_body(*args: Any) -> Any:
        out = body(*args)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    out = tf.while_loop(cond, wrapped_body, loop_vars, maximum_iterations=maximum_iterations)
    return out if is_tuple else out[0]


def fori_loop(lower: int, upper: int, body_fun: Callable[[Any, Any], Any], init_val: Any) -> Any:
    def loop_body(i: Any, value: Any) -> Any:
        return i + 1, body_fun(i, value)

    _, out = tf.while_loop(lambda i, _: i < upper, loop_body, (tf.constant(lower), init_val))
    return out


def scan(f: Callable[[Any, Any], tuple[Any, Any]], init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int = 1) -> tuple[Any, Any]:
    """``carry, ys`` of ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``, as ``jax.lax.scan``."""
    if xs is None:
        xs = tf.zeros([length])
    flat_xs = tf.nest.flatten(xs)
    n = tf.shape(flat_xs[0])[0]
    carry = init
    first_carry, first_y = f(carry, tf.nest.map_structure(lambda t: t[0], xs))
    ys_arrays = tf.nest.map_structure(lambda y: tf.TensorArray(tf.convert_to_tensor(y).dtype, size=n),
                                      first_y)

    def body(i: Any, carry: Any, arrays: Any) -> Any:
        index = n - 1 - i if reverse else i
        carry, y = f(carry, tf.nest.map_structure(lambda t: t[index], xs))
        arrays = tf.nest.map_structure(lambda a, v: a.write(index, v), arrays, y)
        return i + 1, carry, arrays

    _, carry, ys_arrays = tf.while_loop(lambda i, *_: i < n, body, (tf.constant(0), init, ys_arrays))
    return carry, tf.nest.map_structure(lambda a: a.stack(), ys_arrays)


def map(f: Callable[[Any], Any], xs: Any) -> Any:  # noqa: A001
    return tf.map_fn(f, xs)


def vectorized_map(function: Callable[[Any], Any], elements: Any) -> Any:
    return tf.vectorized_map(function, elements)


def is_tensor(x: Any) -> bool:
    return tf.is_tensor(x) or isinstance(x, SymbolicTensor)


def dtype(x: Any) -> str:
    return tf.as_dtype(x.dtype).name


def convert_to_numpy(x: Any) -> np.ndarray:
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


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__]
export(globals(), [name for name in __all__ if name not in ("shape", "ndim", "is_tensor", "dtype",
                                                                "convert_to_numpy", "cond", "while_loop",
                                                                "fori_loop", "scan", "map", "vectorized_map")])
