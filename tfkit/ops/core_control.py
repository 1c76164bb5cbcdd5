"""Control flow of ``keras.ops``: conditionals, loops, scans, maps and custom gradients, on TensorFlow.

    y = tfkit.ops.cond(x > 0, lambda: x, lambda: -x)
    carry, ys = tfkit.ops.scan(lambda c, x: (c + x, c), 0.0, xs)             # running sums
    prefix = tfkit.ops.associative_scan(lambda a, b: a + b, xs)              # cumulative sum in log steps

These take Python functions, which a functional model cannot store as data: on
``tfkit.Input`` tensors they raise and ask to be called inside a layer's ``call``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base.symbolic import is_symbolic
from tfkit.ops._convert import tensor


def _eager_or_traced(op: str, *values: Any) -> None:
    if any(is_symbolic(v) for v in values):
        raise TypeError(f"tfkit.ops.{op} takes Python functions, which a functional model cannot save as data; "
                        f"call it inside a custom Layer's call() and use that layer on the tfkit.Input tensors")


def _check_callable(op: str, name: str, value: Any) -> None:
    if not callable(value):
        raise TypeError(f"tfkit.ops.{op}: {name} must be callable, got {type(value).__name__}")


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()``; a Python bool picks the branch without a graph op."""
    _eager_or_traced("cond", pred)
    _check_callable("cond", "true_fn", true_fn)
    _check_callable("cond", "false_fn", false_fn)
    if isinstance(pred, (bool, int, np.bool_)):
        return true_fn() if pred else false_fn()
    return tf.cond(tf.cast(pred, tf.bool), true_fn, false_fn)


def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """``branches[index](*operands)``, the index clipped into range."""
    _eager_or_traced("switch", index, operands)
    if not branches:
        raise ValueError("tfkit.ops.switch: branches must hold at least one function")
    for i, branch in enumerate(branches):
        _check_callable("switch", f"branches[{i}]", branch)
    index = tf.clip_by_value(tf.cast(tensor(index), tf.int32), 0, len(branches) - 1)
    return tf.switch_case(index, [lambda b=branch: b(*operands) for branch in branches])


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any,  # noqa: A002 (Keras's name)
               maximum_iterations: int | None = None) -> Any:
    """Run ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; a single value need not be a tuple."""
    _eager_or_traced("while_loop", loop_vars)
    _check_callable("while_loop", "cond", cond)
    _check_callable("while_loop", "body", body)
    is_tuple = isinstance(loop_vars, (tuple, list))
    loop_vars = tuple(loop_vars) if is_tuple else (loop_vars,)

    def wrapped_body(*args: Any) -> Any:
        out = body(*args)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    out = tf.while_loop(cond, wrapped_body, loop_vars, maximum_iterations=maximum_iterations)
    return out if is_tuple else out[0]


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any) -> Any:
    """``init_val`` updated by ``body_fun(i, value)`` for ``i`` in ``range(lower, upper)``."""
    _eager_or_traced("fori_loop", lower, upper, init_val)
    _check_callable("fori_loop", "body_fun", body_fun)
    _, out = tf.while_loop(lambda i, _: i < upper, lambda i, value: (i + 1, body_fun(i, value)),
                           (tf.convert_to_tensor(lower), init_val))
    return out


def _trace_outputs(function: Callable[..., Any], *args: Any) -> Any:
    """The ``tf.TensorSpec`` structure ``function(*args)`` returns, found by tracing (nothing runs)."""
    specs = tf.nest.map_structure(lambda t: tf.TensorSpec.from_tensor(t) if tf.is_tensor(t) else t, args)

    def as_tensors(*inner: Any) -> Any:
        return tf.nest.map_structure(lambda v: None if v is None else tf.convert_to_tensor(v), function(*inner))

    concrete = tf.function(as_tensors, autograph=False).get_concrete_function(*specs)
    return tf.nest.map_structure(lambda t: None if t is None else tf.TensorSpec(t.shape, t.dtype),
                                 concrete.structured_outputs)


def scan(f: Callable[[Any, Any], tuple[Any, Any]], init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: Any = 1) -> tuple[Any, Any]:
    """``(carry, ys)`` of ``carry, y = f(carry, x)`` over the leading axis of ``xs``, as ``jax.lax.scan``."""
    _eager_or_traced("scan", init, xs)
    _check_callable("scan", "f", f)
    if not isinstance(unroll, bool) and (not isinstance(unroll, int) or unroll < 1):
        raise ValueError(f"tfkit.ops.scan: unroll must be a positive int or a bool, got {unroll!r}")
    if xs is None and length is None:
        raise ValueError("tfkit.ops.scan: give xs to scan over, or length when there is none")
    flat_xs = [tf.convert_to_tensor(x) for x in tf.nest.flatten(xs)] if xs is not None else []
    xs = tf.nest.pack_sequence_as(xs, flat_xs) if xs is not None else None
    n = int(length) if length is not None else tf.shape(flat_xs[0])[0]
    init = tf.nest.map_structure(tf.convert_to_tensor, init)

    def element(i: Any) -> Any:
        return None if xs is None else tf.nest.map_structure(lambda t: t[i], xs)

    first = None if xs is None else tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape[1:], t.dtype), xs)
    y_specs = _trace_outputs(lambda c, x: f(c, x)[1], init, first)
    flat_specs = [] if y_specs is None else tf.nest.flatten(y_specs)
    arrays = [tf.TensorArray(s.dtype, size=n, element_shape=s.shape) for s in flat_specs]

    def body(step: Any, carry: Any, arrays: list) -> Any:
        index = n - 1 - step if reverse else step
        carry, y = f(carry, element(index))
        arrays = [a.write(index, v) for a, v in zip(arrays, tf.nest.flatten(y))]
        return step + 1, tf.nest.map_structure(tf.convert_to_tensor, carry), arrays

    parallel = (n if isinstance(n, int) else 10) if unroll is True else 1 if unroll is False else unroll
    _, carry, arrays = tf.while_loop(lambda step, *_: step < n, body, (tf.constant(0), init, arrays),
                                     parallel_iterations=max(int(parallel), 1))
    ys = [a.stack() for a in arrays]
    return carry, (None if y_specs is None else tf.nest.pack_sequence_as(y_specs, ys))


def associative_scan(f: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """All prefix combinations ``f(...f(f(e0, e1), e2)..., ek)`` along ``axis`` for an associative ``f``.

    ``f`` combines whole slices at once (it must work elementwise on stacked
    operands); the scan takes ``log2(n)`` rounds of it (Hillis-Steele).
    """
    _eager_or_traced("associative_scan", elems)
    _check_callable("associative_scan", "f", f)
    flat = [tf.convert_to_tensor(e) for e in tf.nest.flatten(elems)]
    if not flat:
        raise ValueError("tfkit.ops.associative_scan: elems holds no tensors")
    rank = len(flat[0].shape)
    if not -rank <= axis < rank:
        raise ValueError(f"tfkit.ops.associative_scan: axis={axis} is out of range for elems of rank {rank}")
    lengths = {t.shape[axis] for t in flat}
    if len(lengths) > 1:
        raise ValueError(f"tfkit.ops.associative_scan: every elems tensor must have the same size along axis {axis}, "
                         f"got shapes {[tuple(t.shape) for t in flat]}")
    moved = [tf.experimental.numpy.moveaxis(t, axis, 0) for t in flat]
    if reverse:
        moved = [tf.reverse(t, [0]) for t in moved]

    def combine(earlier: list, later: list) -> list:
        out = f(tf.nest.pack_sequence_as(elems, earlier), tf.nest.pack_sequence_as(elems, later))
        return [tf.convert_to_tensor(o) for o in tf.nest.flatten(out)]

    def step(offset: Any, values: list, n: Any) -> list:
        combined = combine([v[: n - offset] for v in values], [v[offset:] for v in values])
        return [tf.concat([v[:offset], c], axis=0) for v, c in zip(values, combined)]

    size = moved[0].shape[0]
    if size is not None:
        offset = 1
        while offset < size:
            moved = step(offset, moved, size)
            offset *= 2
    else:
        invariants = [tf.TensorShape([None]).concatenate(t.shape[1:]) for t in moved]
        n = tf.shape(moved[0])[0]
        _, moved = tf.while_loop(lambda offset, _: offset < n,
                                 lambda offset, values: (offset * 2, step(offset, values, n)),
                                 (tf.constant(1), moved), shape_invariants=(tf.TensorShape([]), invariants))
    if reverse:
        moved = [tf.reverse(t, [0]) for t in moved]
    return tf.nest.pack_sequence_as(elems, [tf.experimental.numpy.moveaxis(t, 0, axis) for t in moved])


def map(f: Callable[[Any], Any], xs: Any) -> Any:  # noqa: A001 (Keras's name)
    """``f`` applied to each slice of ``xs`` along its leading axis, the results stacked."""
    _eager_or_traced("map", xs)
    _check_callable("map", "f", f)
    xs = tf.nest.map_structure(tf.convert_to_tensor, xs)
    first = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape[1:], t.dtype), xs)
    signature = _trace_outputs(f, first)
    return tf.map_fn(f, xs, fn_output_signature=signature)


def vectorized_map(function: Callable[[Any], Any], elements: Any) -> Any:
    """``map`` computed as one batched computation where TensorFlow can (``tf.vectorized_map``)."""
    _eager_or_traced("vectorized_map", elements)
    _check_callable("vectorized_map", "function", function)
    return tf.vectorized_map(function, elements)


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: ``f`` returns ``(value, grad_fn)`` and ``grad_fn(upstream)`` gives the input gradients."""
    _check_callable("custom_gradient", "f", f)
    with_gradient = tf.custom_gradient(f)

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        _eager_or_traced("custom_gradient", args, kwargs)
        return with_gradient(*args, **kwargs)

    return call


__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "associative_scan", "map", "vectorized_map",
           "custom_gradient"]
