"""Joined projection kernels made once and handed from one compiled call to the next, while tracing.

    with JoinedKernels() as made:                     # tracing the first call: join, and keep what was joined
        ...                                           # (project_heads_together asks `current()` for its kernel)
    outputs = (..., made.tensors())                   # the first call returns the joined kernels
    with JoinedKernels(given=dict(zip(keys, kernels))):   # tracing a later call that takes them as inputs
        ...

``project_heads_together`` joins an attention layer's query, key and value
kernels inside each compiled call: once per ``generate``, but once per part
when ``stream_generate`` runs the loop in parts (about 6 ms a part for GPT-2
124M on this CPU). A scope made while tracing the first part keeps each join
(one per group of layers, however often the trace asks); its tensors become
that call's outputs, and the later parts take them as inputs and join nothing.
The scope lives only while Python traces: it holds no state between calls.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

import tensorflow as tf

_SCOPES: list["JoinedKernels"] = []


class JoinedKernels:
    """A tracing scope in which each group of layers' joined kernel is made once, or taken as given.

    Args:
        given: Optional dict of joined kernels by key (`key_of`), from an
            earlier call's outputs: those are used instead of joining again.
            Defaults to `None` (join, and keep each join).

    Example:
        >>> from tfkit.hub.layers.joined_kernels import JoinedKernels, joined_kernel
        >>> with JoinedKernels() as made:
        ...     first = joined_kernel(("q", "k"), lambda: tf.ones((2, 3)))
        ...     again = joined_kernel(("q", "k"), lambda: tf.zeros((2, 3)))  # the kept join, not this one
        >>> made.keys, float(tf.reduce_sum(again))
        ([('q', 'k')], 6.0)
    """

    def __init__(self, given: dict[Hashable, tf.Tensor] | None = None) -> None:
        self.given = dict(given or {})
        self.made: dict[Hashable, tf.Tensor] = {}

    @property
    def keys(self) -> list[Hashable]:
        """The keys of the kernels joined in this scope, in the order they were first asked for."""
        return list(self.made)

    def tensors(self) -> tuple[tf.Tensor, ...]:
        """The kernels joined in this scope, in the order of `keys`."""
        return tuple(self.made.values())

    def kernel(self, key: Hashable, join: Callable[[], tf.Tensor]) -> tf.Tensor:
        """The kernel for `key`: given, already joined in this scope, or `join()` now (and kept)."""
        if key in self.given:
            return self.given[key]
        if key not in self.made:
            self.made[key] = join()
        return self.made[key]

    def __enter__(self) -> "JoinedKernels":
        _SCOPES.append(self)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _SCOPES.remove(self)


def joined_kernel(key: Hashable, join: Callable[[], tf.Tensor]) -> tf.Tensor:
    """`join()`, or the innermost `JoinedKernels` scope's kernel for `key`.

    Args:
        key: What identifies the joined layers (`key_of`).
        join: Makes the joined kernel.

    Returns:
        The joined kernel.

    Example:
        >>> from tfkit.hub.layers.joined_kernels import joined_kernel
        >>> joined_kernel(("q", "k"), lambda: tf.ones((2, 3))).shape   # outside a scope: join() itself
        TensorShape([2, 3])
    """
    return _SCOPES[-1].kernel(key, join) if _SCOPES else join()


def key_of(layers: Any) -> tuple[int, ...]:
    """The key of a group of layers joined together: their identities, in order.

    Args:
        layers: The layers whose kernels are joined.

    Returns:
        A tuple of ints.

    Example:
        >>> from tfkit.hub.layers.joined_kernels import key_of
        >>> first, second = object(), object()
        >>> key_of([first, second]) == (id(first), id(second))
        True
    """
    return tuple(id(layer) for layer in layers)
