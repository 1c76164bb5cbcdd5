"""Nested state and output sizes of RNN cells, and the variables of a stateful RNN.

    zeros = zeros_for([4, tf.TensorShape([2, 3])], batch_size=8)   # [(8, 4), (8, 2, 3)]
    step_shapes = map_shapes(lambda s: (s[0], *s[2:]), ((None, 5, 3), (None, 5, 2, 2)))
    states = RNNStates(zeros)                  # non-trainable variables, reset() zeros them

A cell's ``state_size`` (and ``output_size``) is a *size* or a nest of them:
a size is an int, a ``tf.TensorShape`` or ``None``; lists, tuples and dicts
around sizes are structure (``LSTMCell``: ``[units, units]``; a stack of
cells: one entry per cell; the guide's ``NestedCell``: ``[TensorShape([u1]),
TensorShape([u2, u3])]``). Shapes handed to ``build`` are nests of shape
tuples, where a tuple of ints (or ``None``) is one shape.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import tensorflow as tf

from tfkit.base.argument_validation import is_shape
from tfkit.base.variable_roles import StateOwner
from tfkit.distribution import values as distribution_values

__all__: list[str] = []


def is_size(size: Any) -> bool:
    """Whether ``size`` is one state's size (not a structure of them)."""
    return size is None or isinstance(size, (int, np.integer, tf.TensorShape)) and not isinstance(size, bool)


def map_sizes(fn: Callable[[Any], Any], sizes: Any) -> Any:
    """Apply ``fn`` to every size in the nest ``sizes``, keeping lists, tuples and dicts."""
    if is_size(sizes):
        return fn(sizes)
    if isinstance(sizes, dict):
        return {key: map_sizes(fn, value) for key, value in sizes.items()}
    if isinstance(sizes, (list, tuple)):
        mapped = [map_sizes(fn, value) for value in sizes]
        if isinstance(sizes, list):  # plain lists, also for tf.Module's wrapped attribute lists
            return mapped
        return type(sizes)(*mapped) if hasattr(sizes, "_fields") else tuple(mapped)
    raise ValueError(
        f"An RNN cell's state_size and output_size must be ints, tf.TensorShapes or lists/tuples/dicts "
        f"of them, got {sizes!r}"
    )


def size_dims(size: Any) -> tuple:
    """The per-example dimensions of one size: ``4 -> (4,)``, ``TensorShape([2, 3]) -> (2, 3)``."""
    if isinstance(size, tf.TensorShape):
        return tuple(size.as_list())
    if size is None:
        raise ValueError("An RNN cell's state_size or output_size is None: the cell must know its sizes")
    return (int(size),)


def zeros_for(sizes: Any, batch_size: Any, dtype: Any = tf.float32) -> Any:
    """Zero tensors of shape ``(batch_size, *dims)`` for every size in the nest ``sizes``."""

    static_batch = tf.get_static_value(batch_size) if tf.is_tensor(batch_size) else batch_size

    def zeros(size: Any) -> tf.Tensor:
        dims = size_dims(size)
        if static_batch is not None:
            return tf.zeros((int(static_batch), *dims), dtype=dtype)
        value = tf.zeros(
            tf.concat([tf.reshape(tf.cast(batch_size, tf.int32), [1]), tf.constant(dims, tf.int32)], axis=0),
            dtype=dtype,
        )
        value.set_shape((None, *dims))
        return value

    return map_sizes(zeros, sizes)


def map_shapes(fn: Callable[[tuple], Any], shapes: Any) -> Any:
    """Apply ``fn`` to every shape tuple in the nest ``shapes``."""
    if is_shape(shapes):
        return fn(tuple(tf.TensorShape(shapes).as_list()))
    if isinstance(shapes, dict):
        return {key: map_shapes(fn, value) for key, value in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        mapped = [map_shapes(fn, value) for value in shapes]
        if isinstance(shapes, list):
            return mapped
        return type(shapes)(*mapped) if hasattr(shapes, "_fields") else tuple(mapped)
    raise ValueError(f"Expected a shape or a nest of shapes, got {shapes!r}")


def flat_shapes(shapes: Any) -> list[tuple]:
    """The shape tuples of the nest ``shapes``, in ``tf.nest`` order."""
    found: list[tuple] = []
    map_shapes(found.append, shapes)
    return found


def as_state_list(states: Any) -> list[Any]:
    """States as a list, as a cell receives them: a single tensor becomes ``[tensor]``."""
    if isinstance(states, (list, tuple)) and not hasattr(states, "_fields"):
        return list(states)
    return [states]


class RNNStates(tf.Module, StateOwner):
    """The carried-over states of a stateful RNN: variables that are state, not weights.

    ``values`` holds one variable per state tensor, flat; ``structure`` is
    the nest they stand for (per-cell lists for a stack of cells).
    """

    def __init__(self, initial_values: Any, name: str = "rnn_states") -> None:
        super().__init__(name=name)
        # Kept off tf.Module's tracking, which would wrap the nest's lists.
        object.__setattr__(self, "_structure", tf.nest.map_structure(lambda _: None, initial_values))
        with tf.init_scope(), distribution_values.variable_scope():  # on a mesh, laid out as the distribution says
            self.values = [
                tf.Variable(v, trainable=False, name=f"rnn_state_{i}")
                for i, v in enumerate(tf.nest.flatten(initial_values))
            ]

    @property
    def structure(self) -> Any:
        """The variables packed in the states' nest."""
        return tf.nest.pack_sequence_as(self._structure, list(self.values))

    def read(self) -> Any:
        return tf.nest.pack_sequence_as(self._structure, [v.read_value() for v in self.values])

    def assign(self, values: Any) -> None:
        flat = tf.nest.flatten(values)
        for variable, value in zip(self.values, flat):
            variable.assign(tf.cast(value, variable.dtype))

    def reset(self) -> None:
        for variable in self.values:
            variable.assign(tf.zeros_like(variable))
