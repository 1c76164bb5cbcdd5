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
    """Base class for weight constraints.

    A `Constraint` instance works like a stateless function: it is applied to a
    weight after each optimizer update, and returns the projected weight. Users who
    subclass this class should override the `__call__` method, which takes a single
    weight parameter and returns a projected version of that parameter (e.g.
    normalized or clipped), and, when they take arguments, `get_config`;
    `from_config` is `cls(**config)`. This base class returns `w` unchanged.
    Constraints are passed to layers through arguments such as `kernel_constraint`
    and `bias_constraint`, or to `add_weight` as `constraint`.

    Example:
        >>> class NonNegative(tfkit.constraints.Constraint):
        ...     def __call__(self, w):
        ...         return tf.maximum(w, 0.0)
        >>> weight = tf.constant((-1.0, 1.0))
        >>> NonNegative()(weight).numpy()
        array([0., 1.], dtype=float32)
        >>> layer = tfkit.layers.Dense(4, kernel_constraint=NonNegative())
    """

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
    """Constrains the weights to be non-negative.

    Negative entries become zero (`-0.0`, as they are multiplied by `0`). Also
    available as `tfkit.constraints.non_neg` and under the name `"non_neg"`.

    Call arguments:
        w: The weight to project, a tensor (or anything `tf.convert_to_tensor` accepts).

    Example:
        >>> constraint = tfkit.constraints.NonNeg()
        >>> constraint(np.array([-1.0, 0.5, 2.0], dtype="float32")).numpy()
        array([-0. ,  0.5,  2. ], dtype=float32)
    """

    def __call__(self, w: Any) -> tf.Tensor:
        w = tf.convert_to_tensor(w)
        return w * tf.cast(w >= 0, w.dtype)


@registry.builtin(_KIND, "max_norm")
class MaxNorm(Constraint):
    """MaxNorm weight constraint.

    Constrains the weights incident to each hidden unit to have a norm less than or
    equal to a desired value: vectors along `axis` whose L2 norm exceeds `max_value`
    are rescaled to norm `max_value` (the formula is Keras's, with `1e-7` guarding the
    division, so shorter vectors shrink by a negligible factor). Also available as
    `tfkit.constraints.max_norm` and under the name `"max_norm"`.

    Args:
        max_value: A non-negative number, the maximum norm value for the incoming
            weights. Defaults to `2`.
        axis: An `int` or a list of integers, the axis (or axes) along which to calculate
            weight norms. For instance, in a `Dense` layer the weight matrix has shape
            `(input_dim, output_dim)`: set `axis` to `0` to constrain each weight vector of
            length `(input_dim,)`. In a `Conv2D` layer with `data_format="channels_last"`,
            the weight tensor has shape `(rows, cols, input_depth, output_depth)`: set
            `axis` to `[0, 1, 2]` to constrain the weights of each filter tensor of size
            `(rows, cols, input_depth)`. Defaults to `0`.

    Call arguments:
        w: The weight to project, a tensor (or anything `tf.convert_to_tensor` accepts).

    Raises:
        ValueError: If `max_value` is negative.

    Example:
        >>> constraint = tfkit.constraints.MaxNorm(max_value=1.0, axis=0)
        >>> w = np.array([[3.0, 0.3], [4.0, 0.4]], dtype="float32")
        >>> np.round(constraint(w).numpy(), 4)
        array([[0.6, 0.3],
               [0.8, 0.4]], dtype=float32)
    """

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
    """MinMaxNorm weight constraint.

    Constrains the weights incident to each hidden unit to have the norm between a
    lower bound and an upper bound. The new norm is
    `rate * clip(norm, min_value, max_value) + (1 - rate) * norm`: `rate=1.0` clips
    at once, smaller rates move part of the way. Also available as
    `tfkit.constraints.min_max_norm` and under the name `"min_max_norm"`.

    Args:
        min_value: The minimum norm for the incoming weights. Defaults to `0.0`.
        max_value: The maximum norm for the incoming weights. Defaults to `1.0`.
        rate: A `float` in `[0, 1]`, the rate for enforcing the constraint: weights will
            be rescaled to yield `(1 - rate) * norm + rate * norm.clip(min_value, max_value)`.
            Effectively, this means that `rate=1.0` stands for strict enforcement of the
            constraint, while `rate<1.0` means that weights will be rescaled at each step
            to slowly move towards a value inside the desired interval. Defaults to `1.0`.
        axis: An `int` or a list of integers, the axis (or axes) along which to calculate
            weight norms. For instance, in a `Dense` layer the weight matrix has shape
            `(input_dim, output_dim)`: set `axis` to `0` to constrain each weight vector of
            length `(input_dim,)`. In a `Conv2D` layer with `data_format="channels_last"`,
            the weight tensor has shape `(rows, cols, input_depth, output_depth)`: set
            `axis` to `[0, 1, 2]` to constrain the weights of each filter tensor of size
            `(rows, cols, input_depth)`. Defaults to `0`.

    Call arguments:
        w: The weight to project, a tensor (or anything `tf.convert_to_tensor` accepts).

    Raises:
        ValueError: If not `0 <= min_value <= max_value`, or `rate` is not in `[0, 1]`.

    Example:
        >>> constraint = tfkit.constraints.MinMaxNorm(min_value=1.0, max_value=2.0)
        >>> w = np.array([[0.3, 6.0], [0.4, 8.0]], dtype="float32")
        >>> np.round(np.linalg.norm(constraint(w).numpy(), axis=0), 4)
        array([1., 2.], dtype=float32)
    """

    def __init__(
        self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: int | list[int] = 0
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
    """Constrains the weights incident to each hidden unit to have unit norm.

    Vectors along `axis` are divided by their L2 norm (plus `1e-7`). Also available
    as `tfkit.constraints.unit_norm` and under the name `"unit_norm"`.

    Args:
        axis: An `int` or a list of integers, the axis (or axes) along which to calculate
            weight norms. For instance, in a `Dense` layer the weight matrix has shape
            `(input_dim, output_dim)`: set `axis` to `0` to constrain each weight vector of
            length `(input_dim,)`. In a `Conv2D` layer with `data_format="channels_last"`,
            the weight tensor has shape `(rows, cols, input_depth, output_depth)`: set
            `axis` to `[0, 1, 2]` to constrain the weights of each filter tensor of size
            `(rows, cols, input_depth)`. Defaults to `0`.

    Call arguments:
        w: The weight to project, a tensor (or anything `tf.convert_to_tensor` accepts).

    Example:
        >>> constraint = tfkit.constraints.UnitNorm(axis=0)
        >>> w = np.array([[3.0, 0.0], [4.0, 2.0]], dtype="float32")
        >>> np.round(constraint(w).numpy(), 4)
        array([[0.6, 0. ],
               [0.8, 1. ]], dtype=float32)
    """

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
    """Retrieves a constraint instance from an identifier.

    Args:
        identifier: The constraint to look up: a name (`"max_norm"`, also the names of
            custom objects in scope) gives a default instance, a
            `{"class_name": ..., "config": ...}` dict is rebuilt with `from_config`, a class
            gives a default instance, a `Constraint` or any callable `f(weight)` is returned
            as it is, and `None` gives `None`.

    Returns:
        A constraint (a callable `f(weight)` returning the projected weight), or `None`.

    Raises:
        ValueError: If `identifier` cannot be interpreted (an unknown name, a malformed
            dict, or an object that is not callable).

    Example:
        >>> tfkit.constraints.get("max_norm")
        MaxNorm(max_value=2, axis=0)
        >>> tfkit.constraints.get({"class_name": "UnitNorm", "config": {"axis": 1}})
        UnitNorm(axis=1)
        >>> tfkit.constraints.get(None) is None
        True
    """
    if identifier is None:
        return None
    return registry.resolve_callable(
        _KIND,
        identifier,
        "a name such as 'max_norm', a {'class_name', 'config'} dict, a Constraint or a callable(weight)",
    )


def serialize(constraint: Any) -> Any:
    """Returns the serializable form of a constraint.

    Args:
        constraint: A `Constraint` object, saved as a
            `{"class_name": ..., "config": ...}` dict (with `"module"` and
            `"registered_name"` keys for a registered custom class); a class or a plain
            function, saved as its name; or `None`.

    Returns:
        A dict, a name, or `None` for `None`.

    Raises:
        ValueError: If `constraint` is a function with no name to be saved under (a
            lambda).

    Example:
        >>> tfkit.constraints.serialize(tfkit.constraints.MaxNorm(3.0))
        {'class_name': 'MaxNorm', 'config': {'max_value': 3.0, 'axis': 0}}
    """
    return registry.to_config(_KIND, constraint)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns a constraint from its serialized form (the inverse of `serialize`).

    Args:
        config: A `{"class_name": ..., "config": ...}` dict or a name, as written by
            `serialize`. A name of a class gives a default instance; any other object is
            returned unchanged.
        custom_objects: Optional `dict` mapping names to custom classes or functions,
            looked up before the built-in constraints. Defaults to `None`.

    Returns:
        The constraint.

    Raises:
        ValueError: If the name is unknown or the dict is malformed.

    Example:
        >>> tfkit.constraints.deserialize("non_neg")
        NonNeg()
        >>> config = {"class_name": "MaxNorm", "config": {"max_value": 1.0, "axis": [0, 1]}}
        >>> tfkit.constraints.deserialize(config)
        MaxNorm(max_value=1.0, axis=[0, 1])
    """
    return registry.resolve(_KIND, config, custom_objects)
