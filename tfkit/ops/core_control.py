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
        raise TypeError(
            f"tfkit.ops.{op} takes Python functions, which a functional model cannot save as data; "
            f"call it inside a custom Layer's call() and use that layer on the tfkit.Input tensors"
        )


def _check_callable(op: str, name: str, value: Any) -> None:
    if not callable(value):
        raise TypeError(f"tfkit.ops.{op}: {name} must be callable, got {type(value).__name__}")


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """Conditionally applies `true_fn` or `false_fn`.

    A Python `bool` (or int) `pred` picks the branch directly, without a graph
    op; a tensor `pred` builds a `tf.cond`, so inside a `tf.function` both
    branches are traced and must return the same structure and dtypes.

    Args:
        pred: Boolean scalar: a Python bool or a scalar tensor.
        true_fn: Callable with no arguments, returning the output for the
            `pred == True` case.
        false_fn: Callable with no arguments, returning the output for the
            `pred == False` case.

    Returns:
        The output of either `true_fn` or `false_fn` depending on `pred`.

    Raises:
        TypeError: If `true_fn` or `false_fn` is not callable.
        TypeError: If called on the symbolic tensors of a functional model
            (`tfkit.Input`-derived): a Python function cannot be saved as
            model data, so call it inside a custom layer's `call()` instead.

    Example:
        >>> x = tfkit.ops.array(-2.0)
        >>> tfkit.ops.cond(x > 0, lambda: x, lambda: -x)
        <tf.Tensor: shape=(), dtype=float32, numpy=2.0>
    """
    _eager_or_traced("cond", pred)
    _check_callable("cond", "true_fn", true_fn)
    _check_callable("cond", "false_fn", false_fn)
    if isinstance(pred, (bool, int, np.bool_)):
        return true_fn() if pred else false_fn()
    return tf.cond(tf.cast(pred, tf.bool), true_fn, false_fn)


def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """Apply exactly one of the `branches` given by `index`.

    If `index` is out of bounds, it is clamped to within bounds.

    The semantics of `switch` are given roughly by this Python implementation::

        def switch(index, branches, *operands):
            index = clamp(0, index, len(branches) - 1)
            return branches[index](*operands)

    Args:
        index: An integer scalar indicating which branch function to apply.
        branches: A sequence of functions to be applied based on `index`.
        *operands: Inputs to whichever branch is applied.

    Returns:
        The outputs of `branch(*operands)` for the branch that was selected
        based on `index`.

    Raises:
        ValueError: If `branches` is empty.
        TypeError: If a branch is not callable.
        TypeError: If called on the symbolic tensors of a functional model
            (`tfkit.Input`-derived): a Python function cannot be saved as
            model data, so call it inside a custom layer's `call()` instead.

    Example:
        >>> add_fn = lambda x, y: x + y
        >>> subtract_fn = lambda x, y: x - y
        >>> x = tfkit.ops.array(2.0)
        >>> y = tfkit.ops.array(0.5)
        >>> branches = [add_fn, subtract_fn]
        >>> tfkit.ops.switch(0, branches, x, y)
        <tf.Tensor: shape=(), dtype=float32, numpy=2.5>
        >>> tfkit.ops.switch(1, branches, x, y)
        <tf.Tensor: shape=(), dtype=float32, numpy=1.5>
    """
    _eager_or_traced("switch", index, operands)
    if not branches:
        raise ValueError("tfkit.ops.switch: branches must hold at least one function")
    for i, branch in enumerate(branches):
        _check_callable("switch", f"branches[{i}]", branch)
    index = tf.clip_by_value(tf.cast(tensor(index), tf.int32), 0, len(branches) - 1)
    return tf.switch_case(index, [lambda b=branch: b(*operands) for branch in branches])


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,  # noqa: A002 (Keras's name)
    maximum_iterations: int | None = None,
) -> Any:
    """While loop implementation.

    Runs `loop_vars = body(*loop_vars)` as long as `cond(*loop_vars)` is true
    (a `tf.while_loop`). A single value need not be wrapped in a tuple.

    Args:
        cond: A callable that represents the termination condition of the loop.
            Must accept a `loop_vars` like structure as an argument. If
            `loop_vars` is a tuple or list, each element of `loop_vars` will be
            passed positionally to the callable.
        body: A callable that represents the loop body. Must accept a
            `loop_vars` like structure as an argument, and return update value
            with the same structure. If `loop_vars` is a tuple or list, each
            element of `loop_vars` will be passed positionally to the callable.
        loop_vars: An arbitrary nested structure of tensor state to persist
            across loop iterations.
        maximum_iterations: Optional maximum number of iterations of the while
            loop to run. If provided, the `cond` output is AND-ed with an
            additional condition ensuring the number of iterations executed is
            no greater than `maximum_iterations`. Defaults to `None`.

    Returns:
        The final `loop_vars`: a tuple of tensors when `loop_vars` is a tuple or
        list, else a single tensor.

    Raises:
        TypeError: If `cond` or `body` is not callable.
        TypeError: If called on the symbolic tensors of a functional model
            (`tfkit.Input`-derived): a Python function cannot be saved as
            model data, so call it inside a custom layer's `call()` instead.

    Example:
        >>> tfkit.ops.while_loop(lambda i: i < 10, lambda i: i + 1, 0)
        <tf.Tensor: shape=(), dtype=int32, numpy=10>
        >>> x, y = tfkit.ops.while_loop(lambda x, y: x < 10, lambda x, y: (x + 1, y + 1), (0, 1))
        >>> int(x), int(y)
        (10, 11)
    """
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
    """For loop implementation.

    Returns `init_val` updated by `val = body_fun(i, val)` for each `i` in
    `range(lower, upper)`.

    Args:
        lower: The initial value of the loop variable.
        upper: The upper bound of the loop variable (excluded).
        body_fun: A callable that represents the loop body. Must take two
            arguments: the loop variable and the loop state. The loop state
            should be updated and returned by this function.
        init_val: The initial value of the loop state.

    Returns:
        The final state after the loop.

    Raises:
        TypeError: If `body_fun` is not callable.
        TypeError: If called on the symbolic tensors of a functional model
            (`tfkit.Input`-derived): a Python function cannot be saved as
            model data, so call it inside a custom layer's `call()` instead.

    Example:
        >>> body_fun = lambda i, s: s + i
        >>> tfkit.ops.fori_loop(0, 10, body_fun, 0)
        <tf.Tensor: shape=(), dtype=int32, numpy=45>
    """
    _eager_or_traced("fori_loop", lower, upper, init_val)
    _check_callable("fori_loop", "body_fun", body_fun)
    _, out = tf.while_loop(
        lambda i, _: i < upper, lambda i, value: (i + 1, body_fun(i, value)), (tf.convert_to_tensor(lower), init_val)
    )
    return out


def _trace_outputs(function: Callable[..., Any], *args: Any) -> Any:
    """The ``tf.TensorSpec`` structure ``function(*args)`` returns, found by tracing (nothing runs)."""
    specs = tf.nest.map_structure(lambda t: tf.TensorSpec.from_tensor(t) if tf.is_tensor(t) else t, args)

    def as_tensors(*inner: Any) -> Any:
        return tf.nest.map_structure(lambda v: None if v is None else tf.convert_to_tensor(v), function(*inner))

    concrete = tf.function(as_tensors, autograph=False).get_concrete_function(*specs)
    return tf.nest.map_structure(
        lambda t: None if t is None else tf.TensorSpec(t.shape, t.dtype), concrete.structured_outputs
    )


def scan(
    f: Callable[[Any, Any], tuple[Any, Any]],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: Any = 1,
) -> tuple[Any, Any]:
    """Scan a function over leading array axes while carrying along state.

    When the type of `xs` is an array type or `None`, and the type of `ys` is an
    array type, the semantics of `scan()` are given roughly by this Python
    implementation::

        def scan(f, init, xs, length=None):
            if xs is None:
                xs = [None] * length
            carry = init
            ys = []
            for x in xs:
                carry, y = f(carry, x)
                ys.append(y)
            return carry, np.stack(ys)

    The loop-carried value `carry` (`init`) must hold a fixed shape and dtype
    across all iterations. Unlike Keras 3 on TensorFlow, tfkit does not require
    `y` to match `carry` in shape and dtype: the outputs are collected
    separately, as with JAX's `jax.lax.scan`.

    Args:
        f: Callable defines the logic for each loop iteration. This accepts two
            arguments where the first is a value of the loop carry and the
            second is a slice of `xs` along its leading axis.
            This callable returns a pair where the first represents a new value
            for the loop carry and the second represents a slice of the output.
        init: The initial loop carry value. This can be a scalar, tensor, or any
            nested structure. It must match the structure of the first element
            returned by `f`.
        xs: Optional value to scan along its leading axis. This can be a tensor
            or any nested structure. If `xs` is not provided, you must specify
            `length` to define the number of loop iterations.
            Defaults to `None`.
        length: Optional integer specifying the number of loop iterations.
            If `length` is not provided, it defaults to the sizes of leading
            axis of the arrays in `xs`. Defaults to `None`.
        reverse: Optional boolean specifying whether to run the scan iteration
            forward or in reverse, equivalent to reversing the leading axes of
            the arrays in both `xs` and in `ys`. Defaults to `False`.
        unroll: Optional positive integer or boolean specifying how many scan
            iterations to unroll within a single iteration of a loop. On
            TensorFlow this sets the `parallel_iterations` of the underlying
            `tf.while_loop`; `True` means all iterations (10 when the length is
            not static) and `False` means 1. Defaults to `1`.

    Returns:
        A pair where the first element represents the final loop carry value and
        the second element represents the stacked outputs of `f` when scanned
        over the leading axis of the inputs (`None` if `f` returns `None` as
        its output).

    Raises:
        ValueError: If `unroll` is not a positive int or a bool, or if both
            `xs` and `length` are `None`.
        TypeError: If `f` is not callable.
        TypeError: If called on the symbolic tensors of a functional model
            (`tfkit.Input`-derived): a Python function cannot be saved as
            model data, so call it inside a custom layer's `call()` instead.

    Example:
        >>> sum_fn = lambda c, x: (c + x, c + x)
        >>> init = tfkit.ops.array(0)
        >>> xs = tfkit.ops.array([1, 2, 3, 4, 5])
        >>> carry, result = tfkit.ops.scan(sum_fn, init, xs)
        >>> carry
        <tf.Tensor: shape=(), dtype=int32, numpy=15>
        >>> result.numpy()
        array([ 1,  3,  6, 10, 15], dtype=int32)
        >>> _, result = tfkit.ops.scan(lambda c, _: (c * 2, c), tfkit.ops.array(1.0), length=3)
        >>> result.numpy()
        array([1., 2., 4.], dtype=float32)
    """
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
    _, carry, arrays = tf.while_loop(
        lambda step, *_: step < n, body, (tf.constant(0), init, arrays), parallel_iterations=max(int(parallel), 1)
    )
    ys = [a.stack() for a in arrays]
    return carry, (None if y_specs is None else tf.nest.pack_sequence_as(y_specs, ys))


def associative_scan(f: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """Performs a scan with an associative binary operation, in parallel.

    This operation is similar to `scan`, with the key difference that
    `associative_scan` is a parallel implementation with
    potentially significant performance benefits, especially when jit compiled.
    The catch is that it can only be used when `f` is a binary associative
    operation (i.e. it must verify `f(a, f(b, c)) == f(f(a, b), c)`).
    tfkit computes it in `log2(n)` rounds (Hillis-Steele), each applying `f`
    to whole slices at once.

    For an introduction to associative scans, refer to this paper:
    Blelloch, Guy E. 1990.
    `Prefix Sums and Their Applications <https://www.cs.cmu.edu/~guyb/papers/Ble93.pdf>`_.

    Args:
        f: A Python callable implementing an associative binary operation with
            signature `r = f(a, b)`. Function `f` must be associative, i.e.,
            it must satisfy the equation
            `f(a, f(b, c)) == f(f(a, b), c)`.
            The inputs and result are (possibly nested Python tree structures
            of) array(s) matching `elems`. Each array has a dimension in place
            of the `axis` dimension. `f` should be applied elementwise over
            the `axis` dimension.
            The result `r` has the same shape (and structure) as the
            two inputs `a` and `b`.
        elems: A (possibly nested Python tree structure of) array(s), each with
            an `axis` dimension of size `num_elems`.
        reverse: A boolean stating if the scan should be reversed with respect
            to the `axis` dimension. Defaults to `False`.
        axis: an integer identifying the axis over which the scan should occur.
            Defaults to `0`.

    Returns:
        A (possibly nested Python tree structure of) array(s) of the same shape
        and structure as `elems`, in which the `k`'th element of `axis` is
        the result of recursively applying `f` to combine the first `k`
        elements of `elems` along `axis`. For example, given
        `elems = [a, b, c, ...]`, the result would be
        `[a, f(a, b), f(f(a, b), c), ...]`.

    Raises:
        ValueError: If `elems` holds no tensors, if `axis` is out of range, or
            if the tensors of `elems` differ in size along `axis`.
        TypeError: If `f` is not callable.
        TypeError: If called on the symbolic tensors of a functional model
            (`tfkit.Input`-derived): a Python function cannot be saved as
            model data, so call it inside a custom layer's `call()` instead.

    Example:
        >>> sum_fn = lambda x, y: x + y
        >>> xs = tfkit.ops.arange(5)
        >>> tfkit.ops.associative_scan(sum_fn, xs, axis=0).numpy()
        array([ 0,  1,  3,  6, 10], dtype=int32)
        >>> tfkit.ops.associative_scan(sum_fn, xs, reverse=True).numpy()
        array([10, 10,  9,  7,  4], dtype=int32)
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
        raise ValueError(
            f"tfkit.ops.associative_scan: every elems tensor must have the same size along axis {axis}, "
            f"got shapes {[tuple(t.shape) for t in flat]}"
        )
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
        _, moved = tf.while_loop(
            lambda offset, _: offset < n,
            lambda offset, values: (offset * 2, step(offset, values, n)),
            (tf.constant(1), moved),
            shape_invariants=(tf.TensorShape([]), invariants),
        )
    if reverse:
        moved = [tf.reverse(t, [0]) for t in moved]
    return tf.nest.pack_sequence_as(elems, [tf.experimental.numpy.moveaxis(t, 0, axis) for t in moved])


def map(f: Callable[[Any], Any], xs: Any) -> Any:  # noqa: A001 (Keras's name)
    """Map a function over leading array axes.

    Like Python's builtin map, except inputs and outputs are in the form of
    stacked arrays. Consider using the `vectorized_map()` transform instead,
    unless you need to apply a function element by element for reduced memory
    usage or heterogeneous computation with other control flow primitives.

    When `xs` is an array type, the semantics of `map()` are given by this
    Python implementation::

        def map(f, xs):
            return np.stack([f(x) for x in xs])

    Args:
        f: Callable defines the function to apply element-wise over the first
            axis or axes of `xs`.
        xs: Values over which to map along the leading axis: a tensor or a
            nested structure of tensors.

    Returns:
        Mapped values, with the structure `f` returns.

    Raises:
        TypeError: If `f` is not callable.
        TypeError: If called on the symbolic tensors of a functional model
            (`tfkit.Input`-derived): a Python function cannot be saved as
            model data, so call it inside a custom layer's `call()` instead.

    Example:
        >>> f = lambda x: x**2
        >>> xs = tfkit.ops.arange(10)
        >>> tfkit.ops.map(f, xs).numpy()
        array([ 0,  1,  4,  9, 16, 25, 36, 49, 64, 81], dtype=int32)
        >>> f = lambda x: {"y1": x**2, "y2": x * 10}  # Can have nested outputs
        >>> ys = tfkit.ops.map(f, xs)
        >>> ys["y2"].numpy()
        array([ 0, 10, 20, 30, 40, 50, 60, 70, 80, 90], dtype=int32)
    """
    _eager_or_traced("map", xs)
    _check_callable("map", "f", f)
    xs = tf.nest.map_structure(tf.convert_to_tensor, xs)
    first = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape[1:], t.dtype), xs)
    signature = _trace_outputs(f, first)
    return tf.map_fn(f, xs, fn_output_signature=signature)


def vectorized_map(function: Callable[[Any], Any], elements: Any) -> Any:
    """Parallel map of `function` on axis 0 of tensor(s) `elements`.

    The loop is vectorized into one batched computation where TensorFlow can
    (`tf.vectorized_map`), falling back to a `tf.while_loop` otherwise.
    Schematically, `vectorized_map` implements the following,
    in the case of a single tensor input `elements`::

        def vectorized_map(function, elements):
            outputs = []
            for e in elements:
                outputs.append(function(e))
            return np.stack(outputs)

    In the case of an iterable of tensors `elements`, `function` receives the
    same structure of slices (one element of each tensor).

    Args:
        function: Callable applied to each slice of `elements` along axis 0.
        elements: A tensor or a nested structure of tensors with the same size
            along axis 0.

    Returns:
        The outputs of `function`, stacked along a new axis 0.

    Raises:
        TypeError: If `function` is not callable.
        TypeError: If called on the symbolic tensors of a functional model
            (`tfkit.Input`-derived): a Python function cannot be saved as
            model data, so call it inside a custom layer's `call()` instead.

    Example:
        >>> x = tfkit.ops.reshape(tfkit.ops.arange(6.0), (3, 2))
        >>> tfkit.ops.vectorized_map(lambda row: tfkit.ops.sum(row), x).numpy()
        array([1., 5., 9.], dtype=float32)
    """
    _eager_or_traced("vectorized_map", elements)
    _check_callable("vectorized_map", "function", function)
    return tf.vectorized_map(function, elements)


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator to define a function with a custom gradient.

    This decorator allows fine grained control over the gradients of a sequence
    for operations. This may be useful for multiple reasons, including providing
    a more efficient or numerically stable gradient for a sequence of
    operations. It wraps `tf.custom_gradient`, so `grad_fn` takes the upstream
    gradient as its only argument (the TensorFlow/JAX form of Keras's
    `grad_fn`); a function that also takes variables may accept a `variables`
    keyword, as `tf.custom_gradient` describes.

    Args:
        f: Function `f(*args)` that returns a tuple `(output, grad_fn)`, where
            `args` is a sequence of (nested structures of) tensor inputs to the
            function, `output` is a (nested structure of) tensor outputs, and
            `grad_fn(upstream)` returns a tuple of tensors the same size as
            (flattened) `args`: the derivatives of tensors in `output` with
            respect to the tensors in `args`. `upstream` is a tensor or sequence
            of tensors holding the initial value gradients for each tensor in
            `output`.

    Returns:
        A function `h(*args)` which returns the same value as
        `f(*args)[0]` and whose gradient is determined by
        `f(*args)[1]`.

    Raises:
        TypeError: If `f` is not callable, or (when `h` is called) if its
            arguments are symbolic tensors of a functional model.

    Example:
        >>> @tfkit.ops.custom_gradient
        ... def log1pexp(x):
        ...     e = tfkit.ops.exp(x)
        ...     def grad(upstream):
        ...         return upstream * (1.0 - 1.0 / (1.0 + e))
        ...     return tfkit.ops.log(1.0 + e), grad
        >>> x = tf.constant(0.0)
        >>> with tf.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = log1pexp(x)
        >>> tape.gradient(y, x).numpy()
        np.float32(0.5)
    """
    _check_callable("custom_gradient", "f", f)
    with_gradient = tf.custom_gradient(f)

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        _eager_or_traced("custom_gradient", args, kwargs)
        return with_gradient(*args, **kwargs)

    return call


__all__ = [
    "cond",
    "switch",
    "while_loop",
    "fori_loop",
    "scan",
    "associative_scan",
    "map",
    "vectorized_map",
    "custom_gradient",
]
