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
from tfkit.base import symbolic as _symbolic
from tfkit.base.symbolic import traceable as _traceable

_KIND = "activations"


def _axes(axis: int | tuple[int, ...] | list[int]) -> int | list[int]:
    return list(axis) if isinstance(axis, (tuple, list)) else axis


# On symbolic tensors (a functional model's definition), the activations that Keras 3 records as
# several operations record the same ones here, so that the model saves as .keras; the others record
# one node, which a .keras file names by the Keras operation of the same name (Relu, Softmax, ...).
# Operations of tfkit.ops are named, not imported (tfkit.ops imports this module).


def _op(name: str, *args: Any, **kwargs: Any) -> Any:
    """A node of the ``tfkit.ops`` operation ``name`` on symbolic arguments."""
    return _symbolic.apply_op(f"tfkit.ops.{name}", None, args, kwargs)


def _check_relu(negative_slope: float, max_value: float | None) -> None:
    if negative_slope < 0 or (max_value is not None and max_value < 0):
        raise ValueError(
            f"relu expected negative_slope >= 0 and max_value >= 0 (or None), "
            f"got negative_slope={negative_slope!r}, max_value={max_value!r}"
        )


def _relu_nodes(x: Any, negative_slope: float = 0.0, max_value: float | None = None, threshold: float = 0.0) -> Any:
    """``relu`` with arguments as Keras 3's ``ReLU.static_call`` builds it of operations; plain ``relu``: one node."""
    if negative_slope == 0 and max_value is None and threshold == 0:
        return NotImplemented
    _check_relu(negative_slope, max_value)
    if negative_slope != 0 and max_value is None and threshold == 0:
        return leaky_relu(x, negative_slope=negative_slope)
    negative = relu(threshold - x) if negative_slope != 0 else None
    clip = max_value is not None
    if threshold != 0:
        y = _op("where", x > threshold, x, 0.0)
    elif max_value == 6:
        y, clip = relu6(x), False
    else:
        y = relu(x)
    if clip:
        y = _op("clip", y, 0.0, float(max_value))
    return y - negative_slope * negative if negative is not None else y


@registry.builtin(_KIND)
@_traceable("tfkit.activations", decompose=_relu_nodes)
def relu(x: Any, negative_slope: float = 0.0, max_value: float | None = None, threshold: float = 0.0) -> tf.Tensor:
    """Applies the rectified linear unit activation function.

    With default values, this returns the standard ReLU activation:
    `max(x, 0)`, the element-wise maximum of 0 and the input tensor.

    Modifying default parameters allows you to use non-zero thresholds,
    change the max value of the activation, and to use a non-zero multiple
    of the input for values below the threshold. In full: `max_value` for
    `x >= max_value`, `x` for `threshold <= x < max_value`, and
    `negative_slope * (x - threshold)` otherwise.

    Args:
        x: Input tensor, or anything `tf.convert_to_tensor` accepts.
        negative_slope: A non-negative `float` that controls the slope for values lower than
            the threshold. Defaults to `0.0`.
        max_value: A non-negative `float` that sets the saturation threshold (the largest
            value the function will return), or `None` for no upper bound. Defaults to `None`.
        threshold: A `float` giving the threshold value of the activation function below
            which values will be damped or set to zero. Defaults to `0.0`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Raises:
        ValueError: If `negative_slope` is negative, or `max_value` is negative.

    Example:
        >>> x = np.array([-10.0, -5.0, 0.0, 5.0, 10.0], dtype="float32")
        >>> tfkit.activations.relu(x).numpy()
        array([ 0.,  0.,  0.,  5., 10.], dtype=float32)
        >>> tfkit.activations.relu(x, negative_slope=0.5).numpy()
        array([-5. , -2.5,  0. ,  5. , 10. ], dtype=float32)
        >>> tfkit.activations.relu(x, max_value=5.0).numpy()
        array([0., 0., 0., 5., 5.], dtype=float32)
        >>> tfkit.activations.relu(x, threshold=5.0).numpy()
        array([-0., -0.,  0.,  0., 10.], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    _check_relu(negative_slope, max_value)
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
@_traceable("tfkit.activations")
def relu6(x: Any) -> tf.Tensor:
    """Relu6 activation function.

    It's the ReLU function, but truncated to a maximum value of 6:
    `min(max(x, 0), 6)`.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.relu6(x * 4).numpy(), 4)
        array([0., 0., 0., 2., 6.], dtype=float32)
    """
    return tf.nn.relu6(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def leaky_relu(x: Any, negative_slope: float = 0.2) -> tf.Tensor:
    """Leaky relu activation function.

    Returns `x` for `x >= 0` and `negative_slope * x` otherwise, so that a small
    gradient flows when the unit is not active.

    Args:
        x: Input tensor.
        negative_slope: A `float` that controls the slope for values lower than
            0. Defaults to `0.2`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.leaky_relu(x).numpy(), 4)
        array([-0.4, -0.1,  0. ,  0.5,  2. ], dtype=float32)
    """
    return tf.nn.leaky_relu(x, alpha=negative_slope)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def elu(x: Any, alpha: float = 1.0) -> tf.Tensor:
    """Exponential Linear Unit.

    The exponential linear unit (ELU) with `alpha > 0` is `x` if `x > 0` and
    `alpha * (exp(x) - 1)` if `x <= 0`. ELUs have negative values, which push the
    mean of the activations closer to zero; they saturate to `-alpha` for large
    negative inputs.

    Args:
        x: Input tensor.
        alpha: A scalar, the slope of the negative section: the value ELU saturates
            to for large negative inputs is `-alpha`. Defaults to `1.0`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    References:
        Clevert et al., 2016, "Fast and Accurate Deep Network Learning by
        Exponential Linear Units (ELUs)".

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.elu(x).numpy(), 4)
        array([-0.8647, -0.3935,  0.    ,  0.5   ,  2.    ], dtype=float32)
    """
    y = tf.nn.elu(x)
    if alpha == 1:
        return y
    return tf.where(y > 0, y, tf.cast(alpha, y.dtype) * y)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def selu(x: Any) -> tf.Tensor:
    """Scaled Exponential Linear Unit (SELU).

    `selu(x) = scale * x` if `x > 0` and `scale * alpha * (exp(x) - 1)` otherwise,
    with `alpha=1.67326324` and `scale=1.05070098`, i.e. `1.0507 * elu(x, alpha=1.6733)`.
    The constants are chosen so that the mean and variance of the inputs are preserved
    between consecutive layers, provided the weights are initialized with
    `LecunNormal` and the inputs are standardized. Pair it with `AlphaDropout`
    rather than `Dropout`.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    References:
        Klambauer et al., 2017, "Self-Normalizing Neural Networks".

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.selu(x).numpy(), 4)
        array([-1.5202, -0.6918,  0.    ,  0.5254,  2.1014], dtype=float32)
    """
    return tf.nn.selu(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def gelu(x: Any, approximate: bool = False) -> tf.Tensor:
    """Gaussian error linear unit (GELU) activation function.

    The GELU is `x * P(X <= x)` where `P(X) ~ N(0, 1)`, i.e.
    `0.5 * x * (1 + erf(x / sqrt(2)))`. It weights inputs by their value rather
    than gating them by their sign as ReLU does.

    Args:
        x: Input tensor.
        approximate: A `bool`, whether to use the tanh approximation
            `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))`.
            Defaults to `False`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    References:
        Hendrycks et al., 2016, "Gaussian Error Linear Units (GELUs)".

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.gelu(x).numpy(), 4)
        array([-0.0455, -0.1543,  0.    ,  0.3457,  1.9545], dtype=float32)
    """
    return tf.nn.gelu(x, approximate=approximate)


@registry.builtin(_KIND, "swish")
@_traceable("tfkit.activations")
def silu(x: Any) -> tf.Tensor:
    """Swish (or Silu) activation function.

    It is defined as `swish(x) = x * sigmoid(x)`. The Swish (or Silu) activation
    function is a smooth, non-monotonic function that is unbounded above and
    bounded below. `tfkit.activations.swish` is the same function, and
    `"swish"` is an accepted name for it.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    References:
        Ramachandran et al., 2017, "Searching for Activation Functions".

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.silu(x).numpy(), 4)
        array([-0.2384, -0.1888,  0.    ,  0.3112,  1.7616], dtype=float32)
    """
    return tf.nn.silu(x)


@registry.builtin(_KIND, "hard_swish")
@_traceable("tfkit.activations")
def hard_silu(x: Any) -> tf.Tensor:
    """Hard SiLU activation function, also known as Hard Swish.

    It is defined as `x * hard_sigmoid(x) = x * relu6(x + 3) / 6`: `0` if
    `x < -3`, `x` if `x > 3`, and `x * (x + 3) / 6` in between. It is a faster,
    piecewise-polynomial approximation of `silu`. `tfkit.activations.hard_swish`
    is the same function, and `"hard_swish"` is an accepted name for it.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    References:
        Howard et al., 2019, "Searching for MobileNetV3".

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.hard_silu(x).numpy(), 4)
        array([-0.3333, -0.2083,  0.    ,  0.2917,  1.6667], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    return x * hard_sigmoid(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations", decompose=lambda x: x * tanh(softplus(x)))
def mish(x: Any) -> tf.Tensor:
    """Mish activation function.

    It is defined as `mish(x) = x * tanh(softplus(x))`, a smooth, non-monotonic
    function close to `silu`. On the symbolic tensors of a functional model it
    records those three operations, so the model saves as `.keras` (Keras 3's
    `mish` raises on a `KerasTensor`).

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    References:
        Misra, 2019, "Mish: A Self Regularized Non-Monotonic Activation Function".

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.mish(x).numpy(), 4)
        array([-0.2525, -0.2207,  0.    ,  0.3752,  1.944 ], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    return x * tf.tanh(tf.math.softplus(x))


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def sigmoid(x: Any) -> tf.Tensor:
    """Sigmoid activation function.

    It is defined as `sigmoid(x) = 1 / (1 + exp(-x))`. For small values (<-5),
    `sigmoid` returns a value close to zero, and for large values (>5) the
    result of the function gets close to 1. The outputs are in `(0, 1)`, so it is
    the usual activation of a binary classifier's output.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.sigmoid(x).numpy(), 4)
        array([0.1192, 0.3775, 0.5   , 0.6225, 0.8808], dtype=float32)
    """
    return tf.sigmoid(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def hard_sigmoid(x: Any) -> tf.Tensor:
    """Hard sigmoid activation function.

    The hard sigmoid activation is a piecewise-linear approximation of the
    sigmoid, with Keras 3's definition `relu6(x + 3) / 6`: `0` if `x <= -3`,
    `1` if `x >= 3`, and `x / 6 + 0.5` in between.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.hard_sigmoid(x * 2).numpy(), 4)
        array([0.    , 0.3333, 0.5   , 0.6667, 1.    ], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    return tf.nn.relu6(x + tf.cast(3.0, x.dtype)) / tf.cast(6.0, x.dtype)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def log_sigmoid(x: Any) -> tf.Tensor:
    """Logarithm of the sigmoid activation function.

    It is defined as `f(x) = log(1 / (1 + exp(-x)))`, computed in a numerically
    stable way (it does not overflow for large negative `x`).

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.log_sigmoid(x).numpy(), 4)
        array([-2.1269, -0.9741, -0.6931, -0.4741, -0.1269], dtype=float32)
    """
    return tf.math.log_sigmoid(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def tanh(x: Any) -> tf.Tensor:
    """Hyperbolic tangent activation function.

    It is defined as `tanh(x) = sinh(x) / cosh(x)`, i.e.
    `(exp(x) - exp(-x)) / (exp(x) + exp(-x))`; the outputs are in `(-1, 1)`.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.tanh(x).numpy(), 4)
        array([-0.964 , -0.4621,  0.    ,  0.4621,  0.964 ], dtype=float32)
    """
    return tf.tanh(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def softplus(x: Any) -> tf.Tensor:
    """Softplus activation function.

    It is defined as `softplus(x) = log(exp(x) + 1)`, computed in a numerically
    stable way; a smooth approximation of `relu`.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.softplus(x).numpy(), 4)
        array([0.1269, 0.4741, 0.6931, 0.9741, 2.1269], dtype=float32)
    """
    return tf.math.softplus(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def softsign(x: Any) -> tf.Tensor:
    """Softsign activation function.

    Softsign is defined as `softsign(x) = x / (abs(x) + 1)`; the outputs are in
    `(-1, 1)`.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.softsign(x).numpy(), 4)
        array([-0.6667, -0.3333,  0.    ,  0.3333,  0.6667], dtype=float32)
    """
    return tf.math.softsign(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations", decompose=lambda x: _op("exp", x))
def exponential(x: Any) -> tf.Tensor:
    """Exponential activation function: `exp(x)`.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.exponential(x).numpy(), 4)
        array([0.1353, 0.6065, 1.    , 1.6487, 7.3891], dtype=float32)
    """
    return tf.exp(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def softmax(x: Any, axis: int | tuple[int, ...] = -1) -> tf.Tensor:
    """Softmax converts a vector of values to a probability distribution.

    The elements of the output vector are in range `[0, 1]` and sum to 1 along
    `axis`: `softmax(x) = exp(x) / sum(exp(x))`, computed after subtracting the
    maximum for numerical stability. Softmax is often used as the activation for
    the last layer of a classification network because the result could be
    interpreted as a probability distribution.

    Args:
        x: Input tensor.
        axis: An `int` or a tuple of integers, the axis (or axes) along which the
            softmax normalization is applied. Defaults to `-1`.

    Returns:
        A tensor with the same shape and dtype as `x`, whose values sum to 1 along
        `axis`.

    Example:
        >>> x = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], dtype="float32")
        >>> np.round(tfkit.activations.softmax(x).numpy(), 4)
        array([[0.09  , 0.2447, 0.6652],
               [0.3333, 0.3333, 0.3333]], dtype=float32)
        >>> float(np.round(tfkit.activations.softmax(x, axis=(0, 1)).numpy().sum(), 4))
        1.0
    """
    x = tf.convert_to_tensor(x)
    if isinstance(axis, int):
        return tf.nn.softmax(x, axis=axis)
    shifted = x - tf.stop_gradient(tf.reduce_max(x, axis=_axes(axis), keepdims=True))
    exp = tf.exp(shifted)
    return exp / tf.reduce_sum(exp, axis=_axes(axis), keepdims=True)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def log_softmax(x: Any, axis: int | tuple[int, ...] = -1) -> tf.Tensor:
    """Log-Softmax activation function.

    Each input vector is handled independently: `log_softmax(x) = x - logsumexp(x)`
    along `axis`, a numerically stable `log(softmax(x))`.

    Args:
        x: Input tensor.
        axis: An `int` or a tuple of integers, the axis (or axes) along which the
            normalization is applied. Defaults to `-1`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([[1.0, 2.0, 3.0]], dtype="float32")
        >>> np.round(tfkit.activations.log_softmax(x).numpy(), 4)
        array([[-2.4076, -1.4076, -0.4076]], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    if isinstance(axis, int):
        return tf.nn.log_softmax(x, axis=axis)
    return x - tf.reduce_logsumexp(x, axis=_axes(axis), keepdims=True)


@registry.builtin(_KIND)
@_traceable("tfkit.activations", decompose=lambda x: x)
def linear(x: Any) -> Any:
    """Linear activation function (pass-through).

    A "linear" activation is an identity function: it returns the input,
    unmodified (not even converted to a tensor). `get(None)` returns this function.

    Args:
        x: Input, of any kind.

    Returns:
        `x`, unchanged.

    Example:
        >>> x = np.array([-1.0, 2.0], dtype="float32")
        >>> tfkit.activations.linear(x) is x
        True
    """
    return x


# ------------------------------------------------- more of Keras 3's activations


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def celu(x: Any, alpha: float = 1.0) -> tf.Tensor:
    """Continuously Differentiable Exponential Linear Unit.

    The CeLU activation function is defined as
    `celu(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`. Unlike `elu`,
    its derivative is continuous at 0 for any `alpha`.

    Args:
        x: Input tensor.
        alpha: A nonzero `float`, the `alpha` value of the CeLU formulation.
            Defaults to `1.0`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    References:
        Barron, 2017, "Continuously Differentiable Exponential Linear Units".

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.celu(x, alpha=2.0).numpy(), 4)
        array([-1.2642, -0.4424,  0.    ,  0.5   ,  2.    ], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    alpha = tf.cast(alpha, x.dtype)
    return tf.nn.relu(x) + tf.minimum(tf.zeros_like(x), alpha * (tf.exp(x / alpha) - 1))


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def glu(x: Any, axis: int = -1) -> tf.Tensor:
    """Gated Linear Unit (GLU) activation function.

    The input is split in two halves `a` and `b` along `axis`, and the result is
    `a * sigmoid(b)`.

    Args:
        x: Input tensor; its size along `axis` must be even.
        axis: An `int`, the axis along which to split the input tensor.
            Defaults to `-1`.

    Returns:
        A tensor of the dtype of `x`, half the size of `x` along `axis`.

    Raises:
        InvalidArgumentError: If the size of `x` along `axis` is odd (raised by
            `tf.split`).

    References:
        Dauphin et al., 2017, "Language Modeling with Gated Convolutional Networks".

    Example:
        >>> x = np.array([[1.0, 2.0, 0.0, 10.0]], dtype="float32")
        >>> np.round(tfkit.activations.glu(x).numpy(), 4)
        array([[0.5   , 1.9999]], dtype=float32)
    """
    a, b = tf.split(tf.convert_to_tensor(x), 2, axis=axis)
    return a * tf.sigmoid(b)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def hard_tanh(x: Any) -> tf.Tensor:
    """HardTanh activation function.

    It is defined as `hard_tanh(x) = clip(x, -1, 1)`: `-1` if `x < -1`, `x` if
    `-1 <= x <= 1`, and `1` if `x > 1`.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.hard_tanh(x * 2).numpy(), 4)
        array([-1., -1.,  0.,  1.,  1.], dtype=float32)
    """
    return tf.clip_by_value(tf.convert_to_tensor(x), -1.0, 1.0)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def hard_shrink(x: Any, threshold: float = 0.5) -> tf.Tensor:
    """Hard Shrink activation function.

    It is defined as `x` where `|x| > threshold`, and `0` otherwise.

    Args:
        x: Input tensor.
        threshold: A `float`, the threshold for the hard shrinkage. Defaults to `0.5`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.hard_shrink(x, threshold=1.0).numpy(), 4)
        array([-2.,  0.,  0.,  0.,  2.], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    return tf.where(tf.abs(x) > threshold, x, tf.zeros_like(x))


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def soft_shrink(x: Any, threshold: float = 0.5) -> tf.Tensor:
    """Soft Shrink activation function.

    It is defined as `x - threshold` if `x > threshold`, `x + threshold` if
    `x < -threshold`, and `0` otherwise.

    Args:
        x: Input tensor.
        threshold: A non-negative `float`, the threshold for the soft shrinkage.
            Defaults to `0.5`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.soft_shrink(x).numpy(), 4)
        array([-1.5,  0. ,  0. ,  0. ,  1.5], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    t = tf.cast(threshold, x.dtype)
    return tf.where(x > t, x - t, tf.where(x < -t, x + t, tf.zeros_like(x)))


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def tanh_shrink(x: Any) -> tf.Tensor:
    """Tanh shrink activation function.

    It is defined as `tanh_shrink(x) = x - tanh(x)`.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.tanh_shrink(x).numpy(), 4)
        array([-1.036 , -0.0379,  0.    ,  0.0379,  1.036 ], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    return x - tf.tanh(x)


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def squareplus(x: Any, b: float = 4.0) -> tf.Tensor:
    """Squareplus activation function.

    The Squareplus activation function is defined as
    `squareplus(x) = (x + sqrt(x**2 + b)) / 2`, a smooth approximation of `relu`
    that uses only algebraic operations.

    Args:
        x: Input tensor.
        b: A non-negative `float`, the smoothness: `b=0` gives `relu`. Defaults to `4.0`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    References:
        Barron, 2021, "Squareplus: A Softplus-Like Algebraic Rectifier".

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.squareplus(x).numpy(), 4)
        array([0.4142, 0.7808, 1.    , 1.2808, 2.4142], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    return (x + tf.sqrt(tf.square(x) + tf.cast(b, x.dtype))) / 2


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def sparse_plus(x: Any) -> tf.Tensor:
    """SparsePlus activation function.

    It is defined as `0` for `x <= -1`, `(x + 1)**2 / 4` for `-1 < x < 1`, and `x`
    for `x >= 1`: a smooth `relu` that is exactly 0 below -1.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.sparse_plus(x).numpy(), 4)
        array([0.    , 0.0625, 0.25  , 0.5625, 2.    ], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    return tf.where(x <= -1, tf.zeros_like(x), tf.where(x >= 1, x, tf.square(x + 1) / 4))


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def sparse_sigmoid(x: Any) -> tf.Tensor:
    """Sparse sigmoid activation function.

    It is defined as `0` for `x <= -1`, `(x + 1) / 2` for `-1 < x < 1`, and `1` for
    `x >= 1`: a sigmoid-like function that reaches exactly 0 and 1.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    References:
        Bondell et al., 2024, "Sparse Continuous Distributions and Fenchel-Young Losses".

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.sparse_sigmoid(x).numpy(), 4)
        array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    return tf.where(x <= -1, tf.zeros_like(x), tf.where(x >= 1, tf.ones_like(x), (x + 1) / 2))


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def threshold(x: Any, threshold: float, default_value: float) -> tf.Tensor:
    """Threshold activation function.

    It is defined as `x` where `x > threshold`, and `default_value` otherwise.

    Args:
        x: Input tensor.
        threshold: The value that decides when to retain or replace `x`.
        default_value: The value to assign where `x <= threshold`.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype="float32")
        >>> np.round(tfkit.activations.threshold(x, 0.0, -1.0).numpy(), 4)
        array([-1. , -1. , -1. ,  0.5,  2. ], dtype=float32)
    """
    x = tf.convert_to_tensor(x)
    return tf.where(x > threshold, x, tf.cast(default_value, x.dtype))


@registry.builtin(_KIND)
@_traceable("tfkit.activations")
def sparsemax(x: Any, axis: int = -1) -> tf.Tensor:
    """Sparsemax activation function.

    Sparsemax (Martins & Astudillo, 2016) is the Euclidean projection of `x` onto
    the probability simplex along `axis`: `max(x - tau, 0)` with `tau` chosen so
    that the result sums to 1. Unlike softmax, small entries become exactly 0,
    which gives sparse probability distributions.

    Args:
        x: Input tensor, of known rank.
        axis: An `int`, the axis along which the sparsemax operation is applied.
            Defaults to `-1`.

    Returns:
        A tensor with the same shape and dtype as `x`, non-negative and summing to
        1 along `axis`.

    References:
        Martins & Astudillo, 2016, "From Softmax to Sparsemax: A Sparse Model of
        Attention and Multi-Label Classification".

    Example:
        >>> x = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], dtype="float32")
        >>> np.round(tfkit.activations.sparsemax(x).numpy(), 4)
        array([[0.    , 0.    , 1.    ],
               [0.3333, 0.3333, 0.3333]], dtype=float32)
    """
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


swish = silu  # Keras's other names for the same functions
hard_swish = hard_silu


# ------------------------------------------------------------- lookup / config


def get(identifier: Any) -> Callable[..., Any]:
    """Returns an activation function from an identifier.

    Args:
        identifier: The activation to look up: its name (`"relu"`, also the names
            of custom objects in scope), a `{"class_name": ..., "config": ...}` dict,
            a callable (returned unchanged), a class (a default instance is made), or
            `None`, which gives `linear` (as in Keras).

    Returns:
        A callable activation function.

    Raises:
        ValueError: If `identifier` cannot be interpreted as an activation (an
            unknown name, a malformed dict, or an object that is not callable).

    Example:
        >>> relu = tfkit.activations.get("relu")
        >>> relu is tfkit.activations.relu
        True
        >>> tfkit.activations.get(None) is tfkit.activations.linear
        True
        >>> tfkit.activations.get("swish") is tfkit.activations.silu
        True
    """
    if identifier is None:
        return linear
    return registry.resolve_callable(
        _KIND, identifier, "a name such as 'relu', a {'class_name', 'config'} dict or a callable"
    )


def serialize(activation: Any) -> Any:
    """Returns the name an activation function is saved under.

    Args:
        activation: The activation to serialize: a built-in or registered function
            (saved under its registered name), any other named function (saved under
            its `__name__`; loading it back then needs `custom_objects` or a custom
            object scope), an object with `get_config` (saved as a
            `{"class_name": ..., "config": ...}` dict), or `None`.

    Returns:
        The activation's name (`"relu"`), a config dict, or `None` for `None`.

    Raises:
        ValueError: If `activation` has no name to be saved under (a lambda).

    Example:
        >>> tfkit.activations.serialize(tfkit.activations.relu)
        'relu'
    """
    return registry.to_config(_KIND, activation)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns an activation function from its serialized form (the inverse of `serialize`).

    Args:
        config: A name (`"relu"`) or a `{"class_name": ..., "config": ...}` dict, as
            written by `serialize`. Any other object is returned unchanged.
        custom_objects: Optional `dict` mapping names to custom functions or classes,
            looked up before the built-in activations. Defaults to `None`.

    Returns:
        The activation function.

    Raises:
        ValueError: If the name is unknown or the dict is malformed.

    Example:
        >>> tfkit.activations.deserialize("tanh") is tfkit.activations.tanh
        True
    """
    return registry.resolve(_KIND, config, custom_objects)
