"""Activations: plain functions of a tensor, found by name.

    relu = tfkit.activations.get("relu")
    y = relu(tf.constant([-1.0, 2.0]))              # [0., 2.]
    tfkit.activations.serialize(relu)                # "relu"

Every function takes anything ``tf.convert_to_tensor`` accepts and returns
a tensor of the same dtype. ``get(None)`` gives :func:`linear`, as in Keras.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.symbolic import traceable

_KIND = "activations"


def _axes(axis: int | tuple[int, ...] | list[int]) -> int | list[int]:
    return list(axis) if isinstance(axis, (tuple, list)) else axis


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def relu(
    x: Any,
    negative_slope: float = 0.0,
    max_value: float | None = None,
    threshold: float = 0.0,
) -> tf.Tensor:
    """Rectified linear unit, Keras's general form.

    ``max_value`` for ``x >= max_value``; ``x`` for ``threshold <= x <
    max_value``; ``negative_slope * (x - threshold)`` below ``threshold``.
    """
    x = tf.convert_to_tensor(x)
    if negative_slope < 0 or (max_value is not None and max_value < 0):
        raise ValueError(
            f"relu expected negative_slope >= 0 and max_value >= 0 (or None), "
            f"got negative_slope={negative_slope!r}, max_value={max_value!r}"
        )
    if threshold != 0:
        y = x * tf.cast(x > threshold, x.dtype)
    else:
        y = tf.nn.relu(x)
    if max_value is not None:
        y = tf.minimum(y, tf.cast(max_value, x.dtype))
    if negative_slope != 0:
        y -= tf.cast(negative_slope, x.dtype) * tf.nn.relu(tf.cast(threshold, x.dtype) - x)
    return y


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def relu6(x: Any) -> tf.Tensor:
    """``min(max(x, 0), 6)``."""
    return tf.nn.relu6(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def leaky_relu(x: Any, negative_slope: float = 0.2) -> tf.Tensor:
    """``x`` for ``x >= 0``, ``negative_slope * x`` otherwise."""
    return tf.nn.leaky_relu(x, alpha=negative_slope)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def elu(x: Any, alpha: float = 1.0) -> tf.Tensor:
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""
    y = tf.nn.elu(x)
    if alpha == 1:
        return y
    return tf.where(y > 0, y, tf.cast(alpha, y.dtype) * y)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def selu(x: Any) -> tf.Tensor:
    """Scaled ELU: ``1.0507 * elu(x, alpha=1.6733)``."""
    return tf.nn.selu(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def gelu(x: Any, approximate: bool = False) -> tf.Tensor:
    """Gaussian error linear unit; ``approximate=True`` uses the tanh form."""
    return tf.nn.gelu(x, approximate=approximate)


@registry.builtin(_KIND, "swish")
@traceable("tfkit.activations")
def silu(x: Any) -> tf.Tensor:
    """``x * sigmoid(x)`` (also called swish)."""
    return tf.nn.silu(x)


@registry.builtin(_KIND, "hard_swish")
@traceable("tfkit.activations")
def hard_silu(x: Any) -> tf.Tensor:
    """``x * hard_sigmoid(x)``."""
    x = tf.convert_to_tensor(x)
    return x * hard_sigmoid(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def mish(x: Any) -> tf.Tensor:
    """``x * tanh(softplus(x))``."""
    x = tf.convert_to_tensor(x)
    return x * tf.tanh(tf.math.softplus(x))


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def sigmoid(x: Any) -> tf.Tensor:
    """``1 / (1 + exp(-x))``."""
    return tf.sigmoid(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def hard_sigmoid(x: Any) -> tf.Tensor:
    """Piecewise-linear sigmoid, Keras 3's definition: ``relu6(x + 3) / 6``."""
    x = tf.convert_to_tensor(x)
    return tf.nn.relu6(x + tf.cast(3.0, x.dtype)) / tf.cast(6.0, x.dtype)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def log_sigmoid(x: Any) -> tf.Tensor:
    """``log(sigmoid(x))``, computed stably."""
    return tf.math.log_sigmoid(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def tanh(x: Any) -> tf.Tensor:
    """Hyperbolic tangent."""
    return tf.tanh(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def softplus(x: Any) -> tf.Tensor:
    """``log(exp(x) + 1)``, computed stably."""
    return tf.math.softplus(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def softsign(x: Any) -> tf.Tensor:
    """``x / (abs(x) + 1)``."""
    return tf.math.softsign(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def exponential(x: Any) -> tf.Tensor:
    """``exp(x)``."""
    return tf.exp(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def softmax(x: Any, axis: int | tuple[int, ...] = -1) -> tf.Tensor:
    """``exp(x) / sum(exp(x))`` over ``axis`` (an int or a tuple of ints)."""
    x = tf.convert_to_tensor(x)
    if isinstance(axis, int):
        return tf.nn.softmax(x, axis=axis)
    shifted = x - tf.stop_gradient(tf.reduce_max(x, axis=_axes(axis), keepdims=True))
    exp = tf.exp(shifted)
    return exp / tf.reduce_sum(exp, axis=_axes(axis), keepdims=True)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def log_softmax(x: Any, axis: int | tuple[int, ...] = -1) -> tf.Tensor:
    """``x - logsumexp(x)`` over ``axis`` (an int or a tuple of ints)."""
    x = tf.convert_to_tensor(x)
    if isinstance(axis, int):
        return tf.nn.log_softmax(x, axis=axis)
    return x - tf.reduce_logsumexp(x, axis=_axes(axis), keepdims=True)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def linear(x: Any) -> Any:
    """The identity: returns ``x`` unchanged."""
    return x


# ------------------------------------------------- more of Keras 3's activations


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def celu(x: Any, alpha: float = 1.0) -> tf.Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    x = tf.convert_to_tensor(x)
    alpha = tf.cast(alpha, x.dtype)
    return tf.nn.relu(x) + tf.minimum(tf.zeros_like(x), alpha * (tf.exp(x / alpha) - 1))


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def glu(x: Any, axis: int = -1) -> tf.Tensor:
    """Gated linear unit: split ``x`` in two halves ``a, b`` along ``axis``; ``a * sigmoid(b)``."""
    a, b = tf.split(tf.convert_to_tensor(x), 2, axis=axis)
    return a * tf.sigmoid(b)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def hard_tanh(x: Any) -> tf.Tensor:
    """``clip(x, -1, 1)``."""
    return tf.clip_by_value(tf.convert_to_tensor(x), -1.0, 1.0)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def hard_shrink(x: Any, threshold: float = 0.5) -> tf.Tensor:
    """``x`` where ``|x| > threshold``, else 0."""
    x = tf.convert_to_tensor(x)
    return tf.where(tf.abs(x) > threshold, x, tf.zeros_like(x))


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def soft_shrink(x: Any, threshold: float = 0.5) -> tf.Tensor:
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0."""
    x = tf.convert_to_tensor(x)
    t = tf.cast(threshold, x.dtype)
    return tf.where(x > t, x - t, tf.where(x < -t, x + t, tf.zeros_like(x)))


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def tanh_shrink(x: Any) -> tf.Tensor:
    """``x - tanh(x)``."""
    x = tf.convert_to_tensor(x)
    return x - tf.tanh(x)


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def squareplus(x: Any, b: float = 4.0) -> tf.Tensor:
    """``(x + sqrt(x**2 + b)) / 2``."""
    x = tf.convert_to_tensor(x)
    return (x + tf.sqrt(tf.square(x) + tf.cast(b, x.dtype))) / 2


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def sparse_plus(x: Any) -> tf.Tensor:
    """0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between."""
    x = tf.convert_to_tensor(x)
    return tf.where(x <= -1, tf.zeros_like(x), tf.where(x >= 1, x, tf.square(x + 1) / 4))


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def sparse_sigmoid(x: Any) -> tf.Tensor:
    """0 below -1, 1 above 1, ``(x + 1) / 2`` between."""
    x = tf.convert_to_tensor(x)
    return tf.where(x <= -1, tf.zeros_like(x), tf.where(x >= 1, tf.ones_like(x), (x + 1) / 2))


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def threshold(x: Any, threshold: float, default_value: float) -> tf.Tensor:
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = tf.convert_to_tensor(x)
    return tf.where(x > threshold, x, tf.cast(default_value, x.dtype))


@registry.builtin(_KIND)
@traceable("tfkit.activations")
def sparsemax(x: Any, axis: int = -1) -> tf.Tensor:
    """Sparsemax along ``axis`` (Martins & Astudillo, 2016): the Euclidean projection of ``x`` onto the
    probability simplex, ``max(x - tau, 0)`` with ``tau`` chosen so the result sums to 1; unlike softmax,
    small entries become exactly 0."""
    x = tf.convert_to_tensor(x)
    rank = x.shape.rank
    axis = axis % rank
    last = list(range(rank))
    last[axis], last[-1] = last[-1], last[axis]
    z = tf.transpose(x, last) if axis != rank - 1 else x
    z_sorted = tf.sort(z, axis=-1, direction="DESCENDING")
    cumulative = tf.cumsum(z_sorted, axis=-1)
    k = tf.cast(tf.range(1, tf.shape(z)[-1] + 1), z.dtype)
    in_support = tf.cast(1 + k * z_sorted > cumulative, z.dtype)
    support_size = tf.reduce_sum(in_support, axis=-1, keepdims=True)
    support_sum = tf.reduce_sum(z_sorted * in_support, axis=-1, keepdims=True)
    tau = (support_sum - 1) / support_size
    out = tf.maximum(z - tau, tf.zeros_like(z))
    return tf.transpose(out, last) if axis != rank - 1 else out


swish = silu                 # Keras's other names for the same functions
hard_swish = hard_silu


# ------------------------------------------------------------- lookup / config


def get(identifier: Any) -> Callable[..., Any]:
    """An activation from a name, a config or a callable; ``None`` gives :func:`linear`."""
    if identifier is None:
        return linear
    return registry.resolve_callable(
        _KIND, identifier, "a name such as 'relu', a {'class_name', 'config'} dict or a callable"
    )


def serialize(activation: Any) -> Any:
    """The registered name of an activation function (``"relu"``)."""
    return registry.to_config(_KIND, activation)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize`."""
    return registry.resolve(_KIND, config, custom_objects)
