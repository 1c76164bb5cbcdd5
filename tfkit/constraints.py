"""Constraints: projections applied to a weight after each optimizer update.

    constraint = tfkit.constraints.get("max_norm")   # MaxNorm(max_value=2, axis=0)
    w = constraint(kernel)                           # columns rescaled to norm <= 2
    tfkit.constraints.serialize(constraint)          # {"class_name": "MaxNorm", "config": {...}}

Formulas are Keras's, with ``epsilon = 1e-7`` guarding divisions. ``axis``
is the axis (or axes) along which norms are taken: for a Dense kernel of
shape ``(input_dim, units)`` the default ``axis=0`` constrains each unit's
incoming weight vector. The lowercase names (``max_norm`` ...) are the
classes themselves, as in Keras.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry

_KIND = "constraints"
EPSILON = 1e-7


def _axis_config(axis: Any) -> Any:
    return list(axis) if isinstance(axis, (tuple, list)) else axis


def _norms(w: tf.Tensor, axis: Any) -> tf.Tensor:
    return tf.sqrt(tf.reduce_sum(tf.square(w), axis=_axis_config(axis), keepdims=True))


@registry.base("constraints")
class Constraint:
    """Base class: ``constraint(w)`` returns the projected weight (here ``w`` itself)."""

    def __call__(self, w: Any) -> tf.Tensor:
        return w

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Constraint":
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


@registry.builtin(_KIND, "non_neg")
class NonNeg(Constraint):
    """Negative entries become zero."""

    def __call__(self, w: Any) -> tf.Tensor:
        w = tf.convert_to_tensor(w)
        return w * tf.cast(w >= 0, w.dtype)


@registry.builtin(_KIND, "max_norm")
class MaxNorm(Constraint):
    """Rescales vectors along ``axis`` whose L2 norm exceeds ``max_value``."""

    def __init__(self, max_value: float = 2, axis: int | list[int] = 0) -> None:
        if max_value < 0:
            raise ValueError(f"MaxNorm expected max_value >= 0, got {max_value!r}")
        self.max_value = max_value
        self.axis = _axis_config(axis)

    def __call__(self, w: Any) -> tf.Tensor:
        w = tf.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = tf.clip_by_value(norms, 0.0, tf.cast(self.max_value, w.dtype))
        return w * (desired / (tf.cast(EPSILON, w.dtype) + norms))

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.max_value, "axis": self.axis}


@registry.builtin(_KIND, "min_max_norm")
class MinMaxNorm(Constraint):
    """Moves vector norms along ``axis`` into ``[min_value, max_value]``.

    The new norm is ``rate * clip(norm, min_value, max_value) + (1 - rate) *
    norm``: ``rate=1`` clips at once, smaller rates move part of the way.
    """

    def __init__(
        self,
        min_value: float = 0.0,
        max_value: float = 1.0,
        rate: float = 1.0,
        axis: int | list[int] = 0,
    ) -> None:
        if not 0 <= min_value <= max_value:
            raise ValueError(
                f"MinMaxNorm expected 0 <= min_value <= max_value, got min_value={min_value!r}, max_value={max_value!r}"
            )
        if not 0 <= rate <= 1:
            raise ValueError(f"MinMaxNorm expected rate in [0, 1], got {rate!r}")
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = _axis_config(axis)

    def __call__(self, w: Any) -> tf.Tensor:
        w = tf.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = tf.clip_by_value(norms, tf.cast(self.min_value, w.dtype), tf.cast(self.max_value, w.dtype))
        rate = tf.cast(self.rate, w.dtype)
        desired = rate * clipped + (1 - rate) * norms
        return w * (desired / (tf.cast(EPSILON, w.dtype) + norms))

    def get_config(self) -> dict[str, Any]:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


@registry.builtin(_KIND, "unit_norm")
class UnitNorm(Constraint):
    """Divides vectors along ``axis`` by their L2 norm."""

    def __init__(self, axis: int | list[int] = 0) -> None:
        self.axis = _axis_config(axis)

    def __call__(self, w: Any) -> tf.Tensor:
        w = tf.convert_to_tensor(w)
        return w / (tf.cast(EPSILON, w.dtype) + _norms(w, self.axis))

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis}


# Keras's lowercase names are the classes themselves.
non_neg = NonNeg
max_norm = MaxNorm
min_max_norm = MinMaxNorm
unit_norm = UnitNorm


# ------------------------------------------------------------- lookup / config


def get(identifier: Any) -> Any:
    """A constraint from a name, a config dict, an object or a callable; ``None`` stays ``None``."""
    if identifier is None:
        return None
    return registry.resolve_callable(
        _KIND, identifier, "a name such as 'max_norm', a {'class_name', 'config'} dict, a Constraint or a callable(weight)"
    )


def serialize(constraint: Any) -> Any:
    """``{"class_name": ..., "config": ...}`` for an object, a name for a function."""
    return registry.to_config(_KIND, constraint)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize`."""
    return registry.resolve(_KIND, config, custom_objects)
