"""Regularizers: a weight in, a scalar penalty out (added to the layer's losses).

    reg = tfkit.regularizers.l2(1e-3)                # an L2 object
    penalty = reg(kernel)                            # 1e-3 * sum(kernel ** 2)
    tfkit.regularizers.serialize(reg)                # {"class_name": "L2", "config": {"l2": 0.001}}

Formulas are Keras's: ``L1 = l1 * sum(|x|)``, ``L2 = l2 * sum(x ** 2)``
(no factor 1/2). The lowercase names ``l1``, ``l2``, ``l1_l2`` and
``orthogonal_regularizer`` are the classes themselves, as in Keras.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.base import registry

_KIND = "regularizers"


def _penalty_factor(value: Any, name: str, who: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{who} expected {name} to be a non-negative number, got {value!r}") from error
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{who} expected {name} to be a non-negative number, got {value!r}")
    return number


@registry.base("regularizers")
class Regularizer:
    """Base class: ``regularizer(x)`` returns a scalar penalty for weight ``x``."""

    def __call__(self, x: Any) -> tf.Tensor:
        return tf.constant(0.0)

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Regularizer":
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


@registry.builtin(_KIND, "l1_l2")
class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)``."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _penalty_factor(l1, "l1", type(self).__name__)
        self.l2 = _penalty_factor(l2, "l2", type(self).__name__)

    def __call__(self, x: Any) -> tf.Tensor:
        x = tf.convert_to_tensor(x)
        penalty = tf.zeros((), dtype=x.dtype)
        if self.l1:
            penalty += tf.cast(self.l1, x.dtype) * tf.reduce_sum(tf.abs(x))
        if self.l2:
            penalty += tf.cast(self.l2, x.dtype) * tf.reduce_sum(tf.square(x))
        return penalty

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1, "l2": self.l2}


@registry.builtin(_KIND, "l1")
class L1(Regularizer):
    """``l1 * sum(|x|)``."""

    def __init__(self, l1: float = 0.01) -> None:
        self.l1 = _penalty_factor(0.01 if l1 is None else l1, "l1", "L1")

    def __call__(self, x: Any) -> tf.Tensor:
        x = tf.convert_to_tensor(x)
        return tf.cast(self.l1, x.dtype) * tf.reduce_sum(tf.abs(x))

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1}


@registry.builtin(_KIND, "l2")
class L2(Regularizer):
    """``l2 * sum(x ** 2)``."""

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = _penalty_factor(0.01 if l2 is None else l2, "l2", "L2")

    def __call__(self, x: Any) -> tf.Tensor:
        x = tf.convert_to_tensor(x)
        return tf.cast(self.l2, x.dtype) * tf.reduce_sum(tf.square(x))

    def get_config(self) -> dict[str, Any]:
        return {"l2": self.l2}


@registry.builtin(_KIND, "orthogonal_regularizer")
class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (or columns) of a 2-D weight towards being orthogonal.

    With ``v_i`` the L2-normalized rows (``mode="rows"``) or columns
    (``mode="columns"``) and ``n`` their count, the penalty is
    ``factor * 0.5 * sum_{i != j} |v_i . v_j| / (n * (n - 1) / 2)``.
    """

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        self.factor = _penalty_factor(factor, "factor", "OrthogonalRegularizer")
        if mode not in ("rows", "columns"):
            raise ValueError(f"OrthogonalRegularizer expected mode 'rows' or 'columns', got {mode!r}")
        self.mode = mode

    def __call__(self, x: Any) -> tf.Tensor:
        x = tf.convert_to_tensor(x)
        if x.shape.rank != 2:
            raise ValueError(f"OrthogonalRegularizer needs a 2-D weight, got shape {tuple(x.shape)}")
        if self.mode == "rows":
            vectors = tf.math.l2_normalize(x, axis=1)
        else:
            vectors = tf.transpose(tf.math.l2_normalize(x, axis=0))
        size = tf.shape(vectors)[0]
        product = tf.matmul(vectors, vectors, transpose_b=True)
        off_diagonal = product * (1.0 - tf.eye(size, dtype=x.dtype))
        n = tf.cast(size, x.dtype)
        pairs = n * (n - 1.0) / 2.0
        return tf.cast(self.factor, x.dtype) * 0.5 * tf.reduce_sum(tf.abs(off_diagonal)) / pairs

    def get_config(self) -> dict[str, Any]:
        return {"factor": self.factor, "mode": self.mode}


# Keras's lowercase names are the classes themselves: ``l2(1e-3)`` is ``L2(1e-3)``.
l1 = L1
l2 = L2
l1_l2 = L1L2
orthogonal_regularizer = OrthogonalRegularizer


# ------------------------------------------------------------- lookup / config


def get(identifier: Any) -> Any:
    """A regularizer from a name, a config dict, an object or a callable; ``None`` stays ``None``."""
    if identifier is None:
        return None
    return registry.resolve_callable(
        _KIND, identifier, "a name such as 'l2', a {'class_name', 'config'} dict, a Regularizer or a callable(weight)"
    )


def serialize(regularizer: Any) -> Any:
    """``{"class_name": ..., "config": ...}`` for an object, a name for a function."""
    return registry.to_config(_KIND, regularizer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize`."""
    return registry.resolve(_KIND, config, custom_objects)
