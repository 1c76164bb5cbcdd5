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
    """Regularizer base class.

    Regularizers allow you to apply penalties on layer parameters or layer activity
    during optimization. These penalties are summed into the loss function that the
    network optimizes. They are passed to layers through the `kernel_regularizer`,
    `bias_regularizer` and `activity_regularizer` arguments (by name, config dict or
    object). A regularizer is called as `regularizer(x)` and returns a scalar penalty
    for the weight `x`; this base class returns `0.0`.

    Subclasses implement `__call__` and, when they take arguments, `get_config`;
    `from_config` is `cls(**config)`. Any callable `f(weight)` returning a scalar also
    works as a regularizer.

    Example:
        >>> class L2Regularizer(tfkit.regularizers.Regularizer):
        ...     def __init__(self, l2=0.01):
        ...         self.l2 = l2
        ...     def __call__(self, x):
        ...         return self.l2 * tf.reduce_sum(tf.square(x))
        ...     def get_config(self):
        ...         return {"l2": float(self.l2)}
        >>> regularizer = L2Regularizer(l2=0.5)
        >>> float(regularizer(np.ones((2, 2), dtype="float32")))
        2.0
        >>> layer = tfkit.layers.Dense(3, kernel_regularizer=regularizer)
        >>> float(tfkit.regularizers.Regularizer()(np.ones(3)))
        0.0
    """

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
    """A regularizer that applies both L1 and L2 regularization penalties.

    The L1 regularization penalty is computed as `loss = l1 * reduce_sum(abs(x))`.
    The L2 regularization penalty is computed as `loss = l2 * reduce_sum(square(x))`
    (no factor 1/2, as in Keras). `L1L2` may be passed to a layer as a string
    identifier, `"l1_l2"`, which gives `L1L2()` with both factors `0.0`. Also
    available as `tfkit.regularizers.l1_l2`.

    Args:
        l1: A non-negative `float`, the L1 regularization factor. Defaults to `0.0`.
        l2: A non-negative `float`, the L2 regularization factor. Defaults to `0.0`.

    Call arguments:
        x: The weight to penalize, a tensor (or anything `tf.convert_to_tensor` accepts).

    Raises:
        ValueError: If `l1` or `l2` is not a finite non-negative number.

    Example:
        >>> regularizer = tfkit.regularizers.L1L2(l1=0.1, l2=0.5)
        >>> x = np.array([[1.0, -2.0], [0.0, 1.0]], dtype="float32")
        >>> round(float(regularizer(x)), 4)
        3.4
        >>> regularizer.get_config()
        {'l1': 0.1, 'l2': 0.5}
    """

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
    """A regularizer that applies a L1 regularization penalty.

    The L1 regularization penalty is computed as `loss = l1 * reduce_sum(abs(x))`.
    L1 may be passed to a layer as a string identifier, `"l1"`, which gives `L1()`
    (`l1=0.01`). Also available as `tfkit.regularizers.l1`.

    Args:
        l1: A non-negative `float`, the L1 regularization factor; `None` means the
            default. Defaults to `0.01`.

    Call arguments:
        x: The weight to penalize, a tensor (or anything `tf.convert_to_tensor` accepts).

    Raises:
        ValueError: If `l1` is not a finite non-negative number.

    Example:
        >>> regularizer = tfkit.regularizers.L1(0.5)
        >>> float(regularizer(np.array([1.0, -2.0, 3.0], dtype="float32")))
        3.0
        >>> layer = tfkit.layers.Dense(3, kernel_regularizer="l1")
    """

    def __init__(self, l1: float = 0.01) -> None:
        self.l1 = _penalty_factor(0.01 if l1 is None else l1, "l1", "L1")

    def __call__(self, x: Any) -> tf.Tensor:
        x = tf.convert_to_tensor(x)
        return tf.cast(self.l1, x.dtype) * tf.reduce_sum(tf.abs(x))

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1}


@registry.builtin(_KIND, "l2")
class L2(Regularizer):
    """A regularizer that applies a L2 regularization penalty.

    The L2 regularization penalty is computed as `loss = l2 * reduce_sum(square(x))`
    (no factor 1/2, as in Keras). L2 may be passed to a layer as a string identifier,
    `"l2"`, which gives `L2()` (`l2=0.01`). Also available as
    `tfkit.regularizers.l2`.

    Args:
        l2: A non-negative `float`, the L2 regularization factor; `None` means the
            default. Defaults to `0.01`.

    Call arguments:
        x: The weight to penalize, a tensor (or anything `tf.convert_to_tensor` accepts).

    Raises:
        ValueError: If `l2` is not a finite non-negative number.

    Example:
        >>> regularizer = tfkit.regularizers.L2(0.5)
        >>> float(regularizer(np.array([1.0, -2.0, 3.0], dtype="float32")))
        7.0
        >>> tfkit.regularizers.serialize(regularizer)
        {'class_name': 'L2', 'config': {'l2': 0.5}}
    """

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = _penalty_factor(0.01 if l2 is None else l2, "l2", "L2")

    def __call__(self, x: Any) -> tf.Tensor:
        x = tf.convert_to_tensor(x)
        return tf.cast(self.l2, x.dtype) * tf.reduce_sum(tf.square(x))

    def get_config(self) -> dict[str, Any]:
        return {"l2": self.l2}


@registry.builtin(_KIND, "orthogonal_regularizer")
class OrthogonalRegularizer(Regularizer):
    """Regularizer that encourages input vectors to be orthogonal to each other.

    It can be applied to either the rows of a matrix (`mode="rows"`) or its columns
    (`mode="columns"`). When applied to a `Dense` kernel of shape
    `(input_dim, units)`, rows mode will seek to make the feature vectors (i.e. the
    basis of the output space) orthogonal to each other.

    With `v_i` the L2-normalized rows (or columns) and `n` their count, the penalty is
    `factor * 0.5 * sum_{i != j} |v_i . v_j| / (n * (n - 1) / 2)`. Also available as
    `tfkit.regularizers.orthogonal_regularizer` and under the name
    `"orthogonal_regularizer"`.

    Args:
        factor: A non-negative `float`, the regularization factor. The penalty is
            proportional to `factor` times the mean of the dot products between the
            L2-normalized rows (or columns) of the input. Defaults to `0.01`.
        mode: `"rows"` or `"columns"`. In rows mode, the regularization effect seeks to
            make the rows of the input orthogonal to each other; in columns mode, it
            seeks to make the columns orthogonal to each other. Defaults to `"rows"`.

    Call arguments:
        x: The weight to penalize, a 2D tensor (or anything `tf.convert_to_tensor` accepts).

    Raises:
        ValueError: If `factor` is not a finite non-negative number or `mode` is not
            `"rows"` or `"columns"`; when called, if the weight is not 2D.

    Example:
        >>> regularizer = tfkit.regularizers.OrthogonalRegularizer(factor=1.0)
        >>> float(regularizer(np.eye(3, dtype="float32")))
        0.0
        >>> x = np.array([[1.0, 0.0], [1.0, 1.0]], dtype="float32")
        >>> round(float(regularizer(x)), 4)
        0.7071
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
    """Retrieves a regularizer instance from an identifier.

    Args:
        identifier: The regularizer to look up: a name (`"l2"`, also the names of custom
            objects in scope) gives a default instance, a
            `{"class_name": ..., "config": ...}` dict is rebuilt with `from_config`, a class
            gives a default instance, a `Regularizer` or any callable `f(weight)` is
            returned as it is, and `None` gives `None`.

    Returns:
        A regularizer (a callable `f(weight)` returning a scalar), or `None`.

    Raises:
        ValueError: If `identifier` cannot be interpreted (an unknown name, a malformed
            dict, or an object that is not callable).

    Example:
        >>> tfkit.regularizers.get("l2")
        L2(l2=0.01)
        >>> tfkit.regularizers.get({"class_name": "L1", "config": {"l1": 0.5}})
        L1(l1=0.5)
        >>> tfkit.regularizers.get(None) is None
        True
    """
    if identifier is None:
        return None
    return registry.resolve_callable(
        _KIND, identifier, "a name such as 'l2', a {'class_name', 'config'} dict, a Regularizer or a callable(weight)"
    )


def serialize(regularizer: Any) -> Any:
    """Returns the serializable form of a regularizer.

    Args:
        regularizer: A `Regularizer` object, saved as a
            `{"class_name": ..., "config": ...}` dict (with `"module"` and
            `"registered_name"` keys for a registered custom class); a class or a plain
            function, saved as its name; or `None`.

    Returns:
        A dict, a name, or `None` for `None`.

    Raises:
        ValueError: If `regularizer` is a function with no name to be saved under (a
            lambda).

    Example:
        >>> tfkit.regularizers.serialize(tfkit.regularizers.L1L2(l1=0.1))
        {'class_name': 'L1L2', 'config': {'l1': 0.1, 'l2': 0.0}}
    """
    return registry.to_config(_KIND, regularizer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns a regularizer from its serialized form (the inverse of `serialize`).

    Args:
        config: A `{"class_name": ..., "config": ...}` dict or a name, as written by
            `serialize`. A name of a class gives a default instance; any other object is
            returned unchanged.
        custom_objects: Optional `dict` mapping names to custom classes or functions,
            looked up before the built-in regularizers. Defaults to `None`.

    Returns:
        The regularizer.

    Raises:
        ValueError: If the name is unknown or the dict is malformed.

    Example:
        >>> tfkit.regularizers.deserialize({"class_name": "L2", "config": {"l2": 0.1}})
        L2(l2=0.1)
    """
    return registry.resolve(_KIND, config, custom_objects)
