"""Symbolic tensors: shapes and dtypes flowing through a functional model's definition.

    x = tfkit.Input(shape=(3,))          # SymbolicTensor(shape=(None, 3), dtype=float32)
    y = tfkit.layers.Dense(4)(x)         # SymbolicTensor(shape=(None, 4)); records a node
    y.shape, y.dtype, y.name

A symbolic tensor carries no data. It remembers the layer call that made it
(``node``, ``index``), which is how ``Model(inputs, outputs)`` finds its graph.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf


class SymbolicTensor:
    """The spec of a tensor in a functional graph, plus where it came from."""

    def __init__(
        self,
        shape: Any,
        dtype: Any = "float32",
        name: str | None = None,
        node: Any = None,
        index: int = 0,
        mask_spec: Any = None,
    ) -> None:
        self.shape = tuple(tf.TensorShape(shape).as_list())
        self.dtype = tf.as_dtype(dtype)
        self.name = name
        self.node = node
        self.index = index
        self.mask_spec = mask_spec

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def spec(self) -> tf.TensorSpec:
        return tf.TensorSpec(self.shape, self.dtype, name=self.name)

    def __repr__(self) -> str:
        return f"<SymbolicTensor shape={self.shape}, dtype={self.dtype.name}, name={self.name}>"

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: Any) -> bool:
        return self is other

    def __bool__(self) -> bool:
        raise TypeError(
            "A symbolic tensor (from tfkit.Input) has no value: it cannot be used as a Python bool. "
            "Use it inside a layer's call instead."
        )


def is_symbolic(value: Any) -> bool:
    """True if ``value`` (or anything nested in it) is a ``SymbolicTensor``."""
    if isinstance(value, SymbolicTensor):
        return True
    if isinstance(value, (list, tuple, dict)):
        return any(isinstance(v, SymbolicTensor) for v in tf.nest.flatten(value))
    return False
