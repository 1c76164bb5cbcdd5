"""The small argument checks every layer, op and loop shares, written once.

    units = positive_int(units, "units", "Dense layer 'dense'")   # ValueError naming layer and argument
    if not is_positive_int(batch_size): ...                           # the same test, for callers with their own words
    is_shape((None, 28, 28))                                          # True: a list/tuple/TensorShape of ints and None

A check that returns the cleaned value (``positive_int``) raises a
``ValueError`` that says who asked, which argument, what it expected and what
came: ``Dense layer 'dense' expected `units` to be a positive integer, got 0``.
The predicates (``is_positive_int``, ``is_shape``) are for callers whose
message follows another pattern (``fit: batch_size must be ...``). Like the
rest of ``tfkit.base``, this module imports nothing else of tfkit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

__all__ = ["as_int", "is_positive_int", "positive_int", "is_shape"]


def as_int(value: Any) -> int | None:
    """The integer ``value`` stands for, or None when it is not one.

    Python ints, numpy integers and anything else with ``__index__`` (an eager
    integer scalar tensor) count; bools, floats and everything else do not.
    """
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (float, np.floating)):
        return None
    if isinstance(value, int):
        return value
    index = getattr(value, "__index__", None)
    if index is None:
        return None
    try:
        return int(index())
    except TypeError:  # a symbolic tensor has the method but no value
        return None


def is_positive_int(value: Any) -> bool:
    """Whether ``value`` is an integer (see :func:`as_int`) above zero."""
    number = as_int(value)
    return number is not None and number > 0


def positive_int(value: Any, name: str, who: str, *, allow_none: bool = False) -> int | None:
    """``value`` as a Python int above zero (or None, where ``allow_none``), else a ``ValueError``.

    ``name`` is the argument and ``who`` the one that received it, as error
    messages name them: ``"Conv2D layer 'conv2d'"``.
    """
    if allow_none and value is None:
        return None
    if not is_positive_int(value):
        expected = "a positive integer or None" if allow_none else "a positive integer"
        raise ValueError(f"{who} expected `{name}` to be {expected}, got {value!r}")
    return as_int(value)


def is_shape(value: Any) -> bool:
    """Whether ``value`` is one shape: a list, tuple or ``tf.TensorShape`` of integers and None.

    A structure of shapes (a list of tuples, a dict) is not one shape; an empty
    tuple is (a scalar's).
    """
    if isinstance(value, tf.TensorShape):
        return value.rank is not None
    return isinstance(value, (tuple, list)) and all(
        d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool)) for d in value
    )
