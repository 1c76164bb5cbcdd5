"""``vectorize`` of ``keras.ops`` on TensorFlow: lift a function of elements (or core blocks) to tensors.

    import tfkit.ops as ops
    dist = ops.vectorize(lambda a, b: ops.sqrt(ops.sum((a - b) ** 2)), signature="(n),(n)->()")
    d = dist(points, centre)             # points (B, n), centre (n,) -> (B,)

Without a ``signature`` the function sees scalars; with one, each argument's
trailing core dimensions (``(n)``, ``(m,n)``, ``()``) reach it whole and the
leading loop dimensions broadcast, as numpy's ``vectorize``. Arguments named in
``excluded`` (positions or keywords) pass through unchanged. The loop runs as
``tf.vectorized_map``.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, Iterable

import tensorflow as tf

from tfkit.base.symbolic import is_symbolic
from tfkit.ops._convert import tensor

_CORE = re.compile(r"\(([^()]*)\)")
_SIGNATURE = re.compile(r"^\s*\([^()]*\)(\s*,\s*\([^()]*\))*\s*->\s*\([^()]*\)(\s*,\s*\([^()]*\))*\s*$")


def _core_dims(signature: str) -> list[tuple[str, ...]]:
    """The core dimension names of each input in a gufunc ``signature`` such as ``"(m,n),(n)->(m)"``."""
    if not isinstance(signature, str) or not _SIGNATURE.match(signature):
        raise ValueError(f"signature must look like '(m,n),(n)->(m)'; got signature={signature!r}")
    inputs = signature.split("->")[0]
    return [tuple(d.strip() for d in group.split(",") if d.strip()) for group in _CORE.findall(inputs)]


def vectorize(
    pyfunc: Callable, *, excluded: Iterable[int | str] | None = None, signature: str | None = None
) -> Callable:
    """Turn a function into a vectorized function.

    The vectorized function maps `pyfunc` over its tensor arguments, as NumPy's `vectorize`. Without a
    `signature`, `pyfunc` sees scalars: the arguments are broadcast together and `pyfunc` is applied to
    each element. With a `signature` such as `"(m,n),(n)->(m)"`, each argument's trailing core
    dimensions reach `pyfunc` whole and the leading loop dimensions are broadcast. The loop runs as
    `tf.vectorized_map`, so `pyfunc` must be traceable TensorFlow code.

    The vectorized function cannot be called on symbolic tensors (it could not be saved with a
    functional model): call it inside a custom layer's `call` instead.

    Args:
        pyfunc: Callable of a single tensor argument per input, or of core blocks with `signature`.
        excluded: Positions (ints) or keyword names (strings) of arguments that are passed to `pyfunc`
            unchanged instead of being vectorized. `None` arguments are always passed unchanged.
            Defaults to `None`.
        signature: Generalized universal function signature, e.g., `"(m,n),(n)->(m)"` for vectorized
            matrix-vector multiplication; its input groups give the core dimensions of each vectorized
            argument. Defaults to `None`, which makes every core a scalar.

    Returns:
        A new function that applies `pyfunc` to every element (or core block) of its input along the
        loop dimensions, and returns the results stacked with the loop shape in front.

    Raises:
        ValueError: If `pyfunc` is not callable or `signature` is malformed; the returned function raises
            `ValueError` when the number of vectorized arguments does not match the signature or an
            argument has fewer dimensions than its core, and `TypeError` on symbolic tensors.

    Example:
        >>> add = tfkit.ops.vectorize(lambda a, b: a + b)
        >>> add([1, 2], [10, 20]).numpy()
        array([11, 22], dtype=int32)
        >>> dist = tfkit.ops.vectorize(
        ...     lambda a, b: tfkit.ops.sqrt(tfkit.ops.sum((a - b) ** 2)), signature="(n),(n)->()")
        >>> dist(np.array([[0.0, 0.0], [3.0, 4.0]]), np.array([0.0, 0.0])).numpy()
        array([0., 5.], dtype=float32)
        >>> scale = tfkit.ops.vectorize(lambda a, factor: a * factor, excluded={"factor"})
        >>> scale(np.array([1.0, 2.0]), factor=3.0).numpy()
        array([3., 6.], dtype=float32)
    """
    if not callable(pyfunc):
        raise ValueError(f"vectorize needs a callable pyfunc; got pyfunc={pyfunc!r}")
    skip = set(excluded or ())
    cores = None if signature is None else _core_dims(signature)

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if is_symbolic((args, kwargs)):
            raise TypeError(
                "A vectorized Python function cannot be recorded in a functional model (it could not "
                "be saved); call it inside a custom layer's call instead"
            )
        slots = [i for i in range(len(args)) if i not in skip and args[i] is not None] + [
            k for k in kwargs if k not in skip
        ]
        values = [tensor(args[s] if isinstance(s, int) else kwargs[s]) for s in slots]
        core = cores if cores is not None else [()] * len(values)
        if len(core) != len(values):
            raise ValueError(f"signature {signature!r} describes {len(core)} input(s); got {len(values)}")
        loop = tf.constant([], tf.int32)
        for value, dims in zip(values, core):
            if len(value.shape) < len(dims):
                raise ValueError(
                    f"An argument of shape {tuple(value.shape)} has fewer dimensions than its core "
                    f"dimensions {dims} in signature {signature!r}"
                )
            loop = tf.broadcast_dynamic_shape(loop, tf.shape(value)[: len(value.shape) - len(dims)])
        flat = []
        for value, dims in zip(values, core):
            tail = tf.shape(value)[len(value.shape) - len(dims) :]
            spread = tf.broadcast_to(value, tf.concat([loop, tail], 0))
            flat.append(tf.reshape(spread, tf.concat([[-1], tail], 0)))

        def one(items: tuple) -> Any:
            call_args, call_kwargs = list(args), dict(kwargs)
            for slot, item in zip(slots, items):
                if isinstance(slot, int):
                    call_args[slot] = item
                else:
                    call_kwargs[slot] = item
            return pyfunc(*call_args, **call_kwargs)

        out = tf.vectorized_map(one, tuple(flat))
        return tf.nest.map_structure(lambda o: tf.reshape(o, tf.concat([loop, tf.shape(o)[1:]], 0)), out)

    return wrapped


__all__ = ["vectorize"]
