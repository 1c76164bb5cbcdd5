"""The activations of ``keras.ops.nn`` that TensorFlow has no single op for: shrinks, GLU, sparsemax, polar.

    y = tfkit.ops.hard_silu(x)                  # x * relu6(x + 3) / 6
    g = tfkit.ops.glu(tfkit.ops.ones((2, 8)))   # halves the last axis: shape (2, 4)
    p = tfkit.ops.sparsemax(logits, axis=-1)    # a probability vector with exact zeros

Integer inputs are computed in float32 (Keras's TensorFlow backend rejects most of them).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export, float_of, promote, tensor


def _float(x: Any) -> tf.Tensor:
    return float_of(tensor(x))


def sparse_sigmoid(x: Any) -> tf.Tensor:
    """Sparse sigmoid activation function.

    It is defined as

    - `f(x) = 0` for `x <= -1`,
    - `f(x) = 0.5 * (x + 1)` for `-1 < x < 1`,
    - `f(x) = 1` for `x >= 1`.

    Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> np.round(tfkit.ops.sparse_sigmoid(x).numpy(), 4)
        array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    x = _float(x)
    return tf.clip_by_value(0.5 * (x + 1.0), tf.cast(0.0, x.dtype), tf.cast(1.0, x.dtype))


def tanh_shrink(x: Any) -> tf.Tensor:
    """Applies the tanh shrink function element-wise.

    It is defined as `f(x) = x - tanh(x)`. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> np.round(tfkit.ops.tanh_shrink(x).numpy(), 4)
        array([-1.036 , -0.0379,  0.    ,  0.0379,  1.036 ], dtype=float32)
    """
    x = _float(x)
    return x - tf.tanh(x)


def soft_shrink(x: Any, threshold: float = 0.5) -> tf.Tensor:
    """Soft Shrink activation function.

    It is defined as

    - `f(x) = x - threshold` if `x > threshold`,
    - `f(x) = x + threshold` if `x < -threshold`,
    - `f(x) = 0` otherwise.

    Integer inputs are computed in float32.

    Args:
        x: Input tensor.
        threshold: Threshold value. Defaults to `0.5`.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.soft_shrink(x).numpy(), 4)
        array([-0.5,  0. ,  0.5], dtype=float32)
        >>> np.round(tfkit.ops.soft_shrink(x, threshold=0.25).numpy(), 4)
        array([-0.75,  0.  ,  0.75], dtype=float32)
    """
    x = _float(x)
    t = tf.cast(threshold, x.dtype)
    return tf.sign(x) * tf.maximum(tf.abs(x) - t, tf.zeros_like(x))


def hard_shrink(x: Any, threshold: float = 0.5) -> tf.Tensor:
    """Hard Shrink activation function.

    The Hard Shrink function is a thresholding operation defined as:

    `f(x) = x` if `|x| > threshold`, `f(x) = 0` otherwise.

    Integer inputs are computed in float32.

    Args:
        x: Input tensor.
        threshold: Threshold value. Defaults to `0.5`.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> np.round(tfkit.ops.hard_shrink(x).numpy(), 4)
        array([-2.,  0.,  0.,  0.,  2.], dtype=float32)
        >>> np.round(tfkit.ops.hard_shrink(x, threshold=0.25).numpy(), 4)
        array([-2. , -0.5,  0. ,  0.5,  2. ], dtype=float32)
    """
    x = _float(x)
    return tf.where(tf.abs(x) > tf.cast(threshold, x.dtype), x, tf.zeros_like(x))


def hard_tanh(x: Any) -> tf.Tensor:
    """Applies the HardTanh function element-wise.

    It is defined as `f(x) = -1 for x < -1`, `f(x) = x for -1 <= x <= 1`,
    `f(x) = 1 for x > 1`. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> np.round(tfkit.ops.hard_tanh(x).numpy(), 4)
        array([-1. , -0.5,  0. ,  0.5,  1. ], dtype=float32)
    """
    x = _float(x)
    return tf.clip_by_value(x, tf.cast(-1.0, x.dtype), tf.cast(1.0, x.dtype))


def threshold(x: Any, threshold: float, default_value: float) -> tf.Tensor:  # noqa: A002 (Keras's name)
    """Threshold activation function.

    The function thresholds the input `x` as follows:
    `f(x) = x` if `x > threshold`,
    `f(x) = default_value` otherwise.

    `x` and `default_value` are brought to one dtype first: an integer `x`
    stays integer unless `default_value` is a float. The comparison is exact
    for integer `x` (`1 > 0.5` holds).

    Args:
        x: Input tensor.
        threshold: The value that decides when to retain or replace x.
        default_value: Value to assign when `x <= threshold`.

    Returns:
        A tensor with the same shape as `x`.

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0, 2.0])
        >>> tfkit.ops.threshold(x, 0.5, 0.0).numpy()
        array([0., 0., 1., 2.], dtype=float32)
        >>> tfkit.ops.threshold(tfkit.ops.array([1, 2, 3]), 1.5, 0).numpy()
        array([0, 2, 3], dtype=int32)
    """
    x, default = promote(x, default_value)
    compared = x if x.dtype.is_floating else tf.cast(x, tf.float64)  # 1 > 0.5 must not become 1 > 0
    above = compared > tf.cast(threshold, compared.dtype)
    return tf.where(above, x, tf.broadcast_to(default, tf.shape(x)))


def sparse_plus(x: Any) -> tf.Tensor:
    """SparsePlus activation function.

    It is defined as

    - `f(x) = 0` for `x <= -1`,
    - `f(x) = (1/4) * (x + 1)^2` for `-1 < x < 1`,
    - `f(x) = x` for `x >= 1`.

    A smooth version of ReLU. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> np.round(tfkit.ops.sparse_plus(x).numpy(), 4)
        array([0.    , 0.0625, 0.25  , 0.5625, 2.    ], dtype=float32)
    """
    x = _float(x)
    middle = 0.25 * tf.square(x + 1.0)
    return tf.where(x <= -1.0, tf.zeros_like(x), tf.where(x < 1.0, middle, x))


def squareplus(x: Any, b: float = 4) -> tf.Tensor:
    """Squareplus activation function.

    The Squareplus activation function is defined as:

    `f(x) = (x + sqrt(x^2 + b)) / 2`

    A smooth approximation of ReLU (`b=0` gives ReLU itself). Integer inputs are computed in float32.

    Args:
        x: Input tensor.
        b: Smoothness parameter, a non-negative number. Defaults to `4`.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> np.round(tfkit.ops.squareplus(x).numpy(), 4)
        array([0.4142, 0.7808, 1.    , 1.2808, 2.4142], dtype=float32)
    """
    x = _float(x)
    return 0.5 * (x + tf.sqrt(tf.square(x) + tf.cast(b, x.dtype)))


def log_sigmoid(x: Any) -> tf.Tensor:
    """Logarithm of the sigmoid activation function.

    It is defined as `f(x) = log(1 / (1 + exp(-x)))`, computed in a
    numerically stable way. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> np.round(tfkit.ops.log_sigmoid(x).numpy(), 4)
        array([-2.1269, -0.9741, -0.6931, -0.4741, -0.1269], dtype=float32)
    """
    return tf.math.log_sigmoid(_float(x))


def hard_silu(x: Any) -> tf.Tensor:
    """Hard SiLU activation function, also known as Hard Swish.

    It is defined as:

    - `0` if `x < -3`
    - `x` if `x > 3`
    - `x * (x + 3) / 6` if `-3 <= x <= 3`

    It's a faster, piecewise linear approximation of the silu activation:
    `x * relu6(x + 3) / 6`. Integer inputs are computed in float32. `tfkit.ops.hard_swish` is the same
    function.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> np.round(tfkit.ops.hard_silu(x).numpy(), 4)
        array([-0.3333, -0.2083,  0.    ,  0.2917,  1.6667], dtype=float32)
    """
    x = _float(x)
    return x * tf.nn.relu6(x + 3.0) / 6.0


def celu(x: Any, alpha: float = 1.0) -> tf.Tensor:
    """Continuously-differentiable exponential linear unit.

    It is defined as:

    `f(x) = alpha * (exp(x / alpha) - 1) for x < 0`, `f(x) = x for x >= 0`,

    that is `max(x, 0) + alpha * expm1(min(x, 0) / alpha)`: an ELU that stays
    differentiable at 0 for any `alpha`. Integer inputs are computed in float32.

    Args:
        x: Input tensor.
        alpha: the `alpha` value for the CELU formulation. Defaults to `1.0`.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> np.round(tfkit.ops.celu(x).numpy(), 4)
        array([-0.8647, -0.3935,  0.    ,  0.5   ,  2.    ], dtype=float32)
    """
    x = _float(x)
    a = tf.cast(alpha, x.dtype)
    return tf.maximum(x, 0.0) + a * tf.math.expm1(tf.minimum(x, 0.0) / a)


def glu(x: Any, axis: int = -1) -> tf.Tensor:
    """Gated Linear Unit (GLU) activation function.

    It is defined as:

    `f(x) = a * sigmoid(b)`
    where `x` is split into `a` and `b` along the given axis. Integer inputs
    are computed in float32.

    Args:
        x: Input tensor.
        axis: The axis along which to split the input tensor; its size must be
            even. Defaults to `-1`.

    Returns:
        A tensor with the same shape as `x` except that `axis` is halved.

    Raises:
        ValueError: If `axis` is out of range, or its size is odd.

    Example:
        >>> x = np.array([[1.0, 2.0, 0.0, 0.0]])
        >>> tfkit.ops.glu(x).numpy()
        array([[0.5, 1. ]], dtype=float32)
    """
    x = _float(x)
    if not -len(x.shape) <= axis < len(x.shape):
        raise ValueError(f"glu: axis={axis} is out of range for x of shape {tuple(x.shape)}")
    size = x.shape[axis]
    if size is not None and size % 2:
        raise ValueError(f"glu: the size of axis {axis} must be even, got x of shape {tuple(x.shape)}")
    first, second = tf.split(x, 2, axis=axis)
    return first * tf.sigmoid(second)


def sparsemax(x: Any, axis: int = -1) -> tf.Tensor:
    """Sparsemax activation function.

    For each batch `i`, and class `j`,
    sparsemax activation function is defined as:

    `sparsemax(x)[i, j] = max(x[i, j] - tau(x[i, :]), 0).`

    It is the Euclidean projection of `x` onto the probability simplex
    (Martins & Astudillo, 2016): like softmax the outputs are non-negative and
    sum to 1, but small inputs get exact zeros. Integer inputs are computed in
    float32.

    Args:
        x: Input tensor.
        axis: `int`, axis along which the sparsemax operation is applied.
            Defaults to `-1`.

    Returns:
        A tensor, output of sparsemax transformation. Has the same type and
        shape as `x`.

    Raises:
        ValueError: If `axis` is out of range.

    Example:
        >>> x = np.array([-0.5, 0, 1, 0.5])
        >>> np.round(tfkit.ops.sparsemax(x).numpy(), 4)
        array([0.  , 0.  , 0.75, 0.25], dtype=float32)
    """
    x = _float(x)
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"sparsemax: axis={axis} is out of range for x of shape {tuple(x.shape)}")
    axis = axis % rank
    ordered = tf.sort(x, axis=axis, direction="DESCENDING")
    cumulative = tf.cumsum(ordered, axis=axis)
    shape = [1] * rank
    shape[axis] = -1
    k = tf.reshape(tf.range(1, tf.shape(x)[axis] + 1, dtype=x.dtype), shape)
    support = ordered * k > cumulative - 1.0
    count = tf.reduce_sum(tf.cast(support, x.dtype), axis=axis, keepdims=True)
    total = tf.reduce_sum(tf.where(support, ordered, tf.zeros_like(ordered)), axis=axis, keepdims=True)
    tau = (total - 1.0) / count
    return tf.maximum(x - tau, tf.zeros_like(x))


def polar(abs_: Any, angle: Any) -> tf.Tensor:
    r"""Constructs a complex tensor from polar coordinates.

    The result is `abs_ * (cos(angle) + 1j * sin(angle))`; float32 (and
    integer) inputs give complex64.

    Args:
        abs\_: The absolute value (magnitude) of the complex tensor.
        angle: The angle (in radians) of the complex tensor.

    Returns:
        A complex tensor with the broadcast shape of `abs_` and `angle`.

    Example:
        >>> magnitude = np.array([1.0, 2.0])
        >>> angle = np.array([0.0, np.pi / 2])
        >>> np.round(tfkit.ops.polar(magnitude, angle).numpy(), 4) + 0.0
        array([1.+0.j, 0.+2.j], dtype=complex64)
    """
    magnitude, angle = promote(float_of(tensor(abs_)), float_of(tensor(angle)))
    return tf.complex(magnitude * tf.cos(angle), magnitude * tf.sin(angle))


__all__ = [
    "sparse_sigmoid",
    "tanh_shrink",
    "soft_shrink",
    "hard_shrink",
    "hard_tanh",
    "threshold",
    "sparse_plus",
    "squareplus",
    "log_sigmoid",
    "hard_silu",
    "hard_swish",
    "celu",
    "glu",
    "sparsemax",
    "polar",
]
export(globals(), [name for name in __all__ if name != "hard_swish"])
hard_swish = hard_silu  # the same function, as in Keras (records as tfkit.ops.hard_silu)
