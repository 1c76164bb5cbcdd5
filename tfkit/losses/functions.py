"""Loss functions: ``fn(y_true, y_pred) -> per-sample losses`` (the last axis reduced).

    y_true = tf.constant([[0.0, 1.0], [0.0, 0.0]])
    y_pred = tf.constant([[1.0, 1.0], [1.0, 0.0]])
    mean_squared_error(y_true, y_pred)  # [0.5, 0.5]

Formulas, defaults and epsilon (1e-7) follow Keras 3. ``y_true`` is cast to
``y_pred``'s dtype; probabilities are clipped to ``[eps, 1 - eps]``;
``from_logits=True`` uses TensorFlow's fused, numerically stable
``tf.nn.*_with_logits`` ops, and so does ``from_logits=False`` when (inside a
``tf.function``) ``y_pred`` is visibly the output of a sigmoid or softmax op.
Nothing branches in Python on tensor values, so every function works inside
``tf.function(jit_compile=True)``.
"""

from __future__ import annotations

import warnings
from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine import masking
from tfkit.losses.reduction import EPSILON, squeeze_or_expand_to_same_rank

__all__ = [
    "mean_squared_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error",
    "cosine_similarity",
    "huber",
    "log_cosh",
    "hinge",
    "squared_hinge",
    "categorical_hinge",
    "kl_divergence",
    "poisson",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
]


def _prepare(y_true: Any, y_pred: Any, same_rank: bool = True) -> tuple[tf.Tensor, tf.Tensor]:
    """``y_pred`` as a float tensor, ``y_true`` cast to its dtype (ranks matched)."""
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    if same_rank:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return y_true, y_pred


def _check_same_shape(fn_name: str, y_true: tf.Tensor, y_pred: tf.Tensor) -> None:
    if y_true.shape.rank is None or y_pred.shape.rank is None:
        return
    if not y_true.shape.is_compatible_with(y_pred.shape):
        raise ValueError(
            f"{fn_name} expects y_true and y_pred of the same shape; "
            f"got y_true.shape={y_true.shape} and y_pred.shape={y_pred.shape}"
        )


def _logits_behind(output: tf.Tensor, op_type: str) -> tf.Tensor | None:
    """The logits a graph tensor was computed from by ``op_type`` (Sigmoid/Softmax), else None."""
    if isinstance(output, tf.Variable) or not tf.is_symbolic_tensor(output):
        return None
    op = getattr(output, "op", None)
    if op is None or op.type != op_type or len(op.inputs) != 1:
        return None
    return op.inputs[0]


def _resolve_logits(output: tf.Tensor, from_logits: bool, op_type: str, fn_name: str) -> tuple[tf.Tensor, bool]:
    logits = _logits_behind(output, op_type)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(
            f"{fn_name} received from_logits=True, but y_pred was produced by a {op_type} "
            "activation and so does not hold logits. Was this intended?",
            stacklevel=3,
        )
    return logits, True


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def mean_squared_error(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the mean squared error between labels and predictions.

    `loss = mean(square(y_true - y_pred), axis=-1)`. `y_true` is cast to
    `y_pred`'s dtype, and a rank difference of one trailing axis of size 1
    (`(batch,)` against `(batch, 1)`) is evened out.

    Also available as `tfkit.losses.mse` and `tfkit.losses.MSE`.

    Args:
        y_true: Ground truth values, of shape `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.

    Returns:
        Mean squared error values, of shape `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> tfkit.losses.mean_squared_error(y_true, y_pred).numpy()
        array([0.5, 0.5], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def mean_absolute_error(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the mean absolute error between labels and predictions.

    `loss = mean(abs(y_true - y_pred), axis=-1)`. `y_true` is cast to
    `y_pred`'s dtype, and a rank difference of one trailing axis of size 1
    is evened out.

    Also available as `tfkit.losses.mae` and `tfkit.losses.MAE`.

    Args:
        y_true: Ground truth values, of shape `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.

    Returns:
        Mean absolute error values, of shape `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> tfkit.losses.mean_absolute_error(y_true, y_pred).numpy()
        array([0.5, 0.5], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the mean absolute percentage error between labels and predictions.

    `loss = 100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)`,
    with `epsilon = 1e-7` (so zero labels give very large values).

    Also available as `tfkit.losses.mape` and `tfkit.losses.MAPE`.

    Args:
        y_true: Ground truth values, of shape `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.

    Returns:
        Mean absolute percentage error values, of shape
        `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[1.0, 2.0], [2.0, 4.0]]
        >>> y_pred = [[1.5, 2.0], [1.0, 4.0]]
        >>> tfkit.losses.mean_absolute_percentage_error(y_true, y_pred).numpy()
        array([25., 25.], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    diff = tf.abs((y_true - y_pred) / tf.maximum(tf.abs(y_true), tf.cast(EPSILON, y_pred.dtype)))
    return 100.0 * tf.reduce_mean(diff, axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the mean squared logarithmic error between labels and predictions.

    `loss = mean(square(log(y_true + 1) - log(y_pred + 1)), axis=-1)`, with
    both values first clipped below at `epsilon = 1e-7` (negative values
    count as `epsilon`).

    Also available as `tfkit.losses.msle` and `tfkit.losses.MSLE`.

    Args:
        y_true: Ground truth values, of shape `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.

    Returns:
        Mean squared logarithmic error values, of shape
        `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> np.round(tfkit.losses.mean_squared_logarithmic_error(y_true, y_pred).numpy(), 4)
        array([0.2402, 0.2402], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    eps = tf.cast(EPSILON, y_pred.dtype)
    first = tf.math.log(tf.maximum(y_pred, eps) + 1.0)
    second = tf.math.log(tf.maximum(y_true, eps) + 1.0)
    return tf.reduce_mean(tf.square(first - second), axis=-1)


def l2_normalize(x: tf.Tensor, axis: int = -1) -> tf.Tensor:
    """``x / max(norm(x), eps)``, computed as Keras does (``x * min(rsqrt(sum(x^2)), 1/eps)``)."""
    inv_norm = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
    return x * tf.minimum(inv_norm, tf.cast(1.0 / EPSILON, x.dtype))


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> tf.Tensor:
    """Compute the negated cosine similarity between labels and predictions.

    `loss = -sum(l2_normalize(y_true) * l2_normalize(y_pred), axis=axis)`.
    The result is between -1 and 1: -1 means the same direction (so that
    minimizing it brings predictions closer to the targets), 0 orthogonal
    vectors, 1 opposite directions. A zero vector gives 0.

    Args:
        y_true: Ground truth values, a tensor.
        y_pred: The predicted values, a tensor of `y_true`'s shape.
        axis: The axis along which the cosine similarity is computed.
            Defaults to `-1`.

    Returns:
        Cosine similarity values, with `axis` reduced.

    Example:
        >>> y_true = [[0.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
        >>> y_pred = [[1.0, 0.0], [1.0, 1.0], [-1.0, -1.0]]
        >>> np.round(tfkit.losses.cosine_similarity(y_true, y_pred).numpy(), 4) + 0.0
        array([ 0., -1.,  1.], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    return -tf.reduce_sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> tf.Tensor:
    """Compute the Huber loss between labels and predictions.

    With `x = y_pred - y_true`, the loss of each element is `0.5 * x^2` where
    `abs(x) <= delta`, and `delta * abs(x) - 0.5 * delta^2` beyond: quadratic
    for small errors, linear (less sensitive to outliers) for large ones.
    The result is the mean over the last axis.

    Args:
        y_true: Ground truth values, of shape `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.
        delta: A float, the point where the loss changes from quadratic to
            linear. Defaults to `1.0`.

    Returns:
        Huber loss values, of shape `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.huber(y_true, y_pred).numpy(), 4)
        array([0.18, 0.13], dtype=float32)
        >>> tfkit.losses.huber([[0.0], [0.0]], [[1.0], [3.0]], delta=2.0).numpy()
        array([0.5, 4. ], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    delta = tf.cast(delta, y_pred.dtype)
    error = y_pred - y_true
    abs_error = tf.abs(error)
    quadratic = 0.5 * tf.square(error)
    linear = delta * abs_error - 0.5 * tf.square(delta)
    return tf.reduce_mean(tf.where(abs_error <= delta, quadratic, linear), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def log_cosh(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the logarithm of the hyperbolic cosine of the prediction error.

    `loss = mean(log(cosh(y_pred - y_true)), axis=-1)`, computed as
    `x + softplus(-2x) - log(2)` so that large errors do not overflow.
    `log(cosh(x))` is about `x^2 / 2` for small `x` and `abs(x) - log(2)` for
    large `x`: like the mean squared error, but less affected by occasional
    wildly wrong predictions.

    Args:
        y_true: Ground truth values, of shape `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.

    Returns:
        Logcosh error values, of shape `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.log_cosh(y_true, y_pred).numpy(), 4)
        array([0.1701, 0.124 ], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    x = y_pred - y_true
    return tf.reduce_mean(x + tf.nn.softplus(-2.0 * x) - tf.cast(tf.math.log(2.0), x.dtype), axis=-1)


def _hinge_labels(y_true: tf.Tensor) -> tf.Tensor:
    """Binary 0/1 labels become -1/1; labels already in -1/1 stay."""
    is_binary = tf.reduce_all(tf.logical_or(tf.equal(y_true, 0.0), tf.equal(y_true, 1.0)))
    return tf.where(is_binary, 2.0 * y_true - 1.0, y_true)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def hinge(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the hinge loss between labels and predictions.

    `loss = mean(maximum(1 - y_true * y_pred, 0), axis=-1)`. Labels should
    be -1 or 1; if every label of the batch is 0 or 1, they are converted to
    -1 and 1.

    Args:
        y_true: The ground truth values, -1 or 1 (or 0 or 1), of shape
            `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.

    Returns:
        Hinge loss values, of shape `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.hinge(y_true, y_pred).numpy(), 4)
        array([1.1, 1.5], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    y_true = _hinge_labels(y_true)
    return tf.reduce_mean(tf.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def squared_hinge(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the squared hinge loss between labels and predictions.

    `loss = mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)`. Labels
    should be -1 or 1; if every label of the batch is 0 or 1, they are
    converted to -1 and 1.

    Args:
        y_true: The ground truth values, -1 or 1 (or 0 or 1), of shape
            `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.

    Returns:
        Squared hinge loss values, of shape `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.squared_hinge(y_true, y_pred).numpy(), 4)
        array([1.46, 2.26], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    y_true = _hinge_labels(y_true)
    return tf.reduce_mean(tf.square(tf.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def categorical_hinge(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the categorical hinge loss between labels and predictions.

    `loss = maximum(neg - pos + 1, 0)` where
    `pos = sum(y_true * y_pred, axis=-1)` and
    `neg = max((1 - y_true) * y_pred, axis=-1)`.

    Args:
        y_true: The ground truth values, one-hot (0 or 1), of shape
            `(batch_size, num_classes)`.
        y_pred: The predicted values, of shape `(batch_size, num_classes)`.

    Returns:
        Categorical hinge loss values, of shape `(batch_size,)`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.categorical_hinge(y_true, y_pred).numpy(), 4)
        array([1.2, 1.6], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    pos = tf.reduce_sum(y_true * y_pred, axis=-1)
    neg = tf.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tf.maximum(neg - pos + 1.0, 0.0)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def kl_divergence(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the Kullback-Leibler divergence between labels and predictions.

    `loss = sum(y_true * log(y_true / y_pred), axis=-1)`, with both values
    first clipped to `[epsilon, 1]` (`epsilon = 1e-7`). Both are expected to
    be probability distributions over the last axis.

    Also available as `tfkit.losses.kld` and `tfkit.losses.KLD`.

    Args:
        y_true: Tensor of true targets (probabilities), of shape
            `(batch_size, d0, .. dN)`.
        y_pred: Tensor of predicted targets (probabilities), of shape
            `(batch_size, d0, .. dN)`.

    Returns:
        KL divergence values, of shape `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[0.5, 0.5], [0.9, 0.1]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.kl_divergence(y_true, y_pred).numpy(), 4)
        array([0.0204, 0.5507], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    y_true = tf.clip_by_value(y_true, EPSILON, 1.0)
    y_pred = tf.clip_by_value(y_pred, EPSILON, 1.0)
    return tf.reduce_sum(y_true * tf.math.log(y_true / y_pred), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def poisson(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute the Poisson loss between labels and predictions.

    `loss = mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)` with
    `epsilon = 1e-7`: the negative log-likelihood of a Poisson distribution
    of rate `y_pred` (up to a constant), for count data.

    Args:
        y_true: Ground truth values (counts), of shape
            `(batch_size, d0, .. dN)`.
        y_pred: The predicted rates, of shape `(batch_size, d0, .. dN)`.

    Returns:
        Poisson loss values, of shape `(batch_size, d0, .. dN-1)`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.poisson(y_true, y_pred).numpy(), 4)
        array([0.9581, 0.5   ], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    return tf.reduce_mean(y_pred - y_true * tf.math.log(y_pred + EPSILON), axis=-1)


def _elementwise_binary_crossentropy(target: tf.Tensor, output: tf.Tensor, from_logits: bool) -> tf.Tensor:
    _check_same_shape("binary_crossentropy", target, output)
    output, from_logits = _resolve_logits(output, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = tf.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    return -(target * tf.math.log(output) + (1.0 - target) * tf.math.log(1.0 - output))


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def binary_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> tf.Tensor:
    """Compute the binary crossentropy loss between labels and predictions.

    The mean over `axis` of `-(t * log(p) + (1 - t) * log(1 - p))`, with
    probabilities `p` clipped to `[epsilon, 1 - epsilon]` (`epsilon = 1e-7`).
    With `from_logits=True`, TensorFlow's fused, numerically stable
    `tf.nn.sigmoid_cross_entropy_with_logits` is used; so it is with
    `from_logits=False` when (inside a `tf.function`) `y_pred` is visibly the
    output of a sigmoid op, whose input logits are then used.

    Also available as `tfkit.losses.bce`.

    Args:
        y_true: Ground truth values (0 or 1, or soft targets), of shape
            `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`. If above 0, the targets are
            smoothed towards 0.5: `t * (1 - label_smoothing) + 0.5 * label_smoothing`.
            Defaults to `0.0`.
        axis: The axis along which the mean is computed. Defaults to `-1`.

    Returns:
        Binary crossentropy loss values, of shape `(batch_size, d0, .. dN-1)`.

    Raises:
        ValueError: If `y_true` and `y_pred` have incompatible shapes.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.binary_crossentropy(y_true, y_pred).numpy(), 4)
        array([0.9163, 0.7136], dtype=float32)
        >>> logits = [[-18.6, 0.51], [2.94, -12.8]]
        >>> np.round(tfkit.losses.binary_crossentropy(y_true, logits, from_logits=True).numpy(), 4)
        array([0.2352, 1.4958], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return tf.reduce_mean(_elementwise_binary_crossentropy(y_true, y_pred, from_logits), axis=axis)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def binary_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> tf.Tensor:
    """Compute the binary focal crossentropy loss between labels and predictions.

    The binary crossentropy of each element is multiplied by a focal factor
    `(1 - p_t) ** gamma`, where `p_t = t * p + (1 - t) * (1 - p)` is the
    probability given to the true class, which down-weights easy examples
    (Lin et al., 2017). With `apply_class_balancing=True`, positives are
    further weighted by `alpha` and negatives by `1 - alpha`. The result is
    the mean over `axis`. With `gamma=0` and no class balancing, this is the
    binary crossentropy.

    Args:
        y_true: Ground truth values (0 or 1), of shape
            `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of shape `(batch_size, d0, .. dN)`.
        apply_class_balancing: Whether to weight positives by `alpha` and
            negatives by `1 - alpha`. Defaults to `False`.
        alpha: The weight of the positive class when
            `apply_class_balancing=True`, in `[0, 1]`. Defaults to `0.25`.
        gamma: The focusing parameter (`>= 0`); higher values down-weight
            well-classified examples more. Defaults to `2.0`.
        from_logits: Whether `y_pred` holds logits (a sigmoid is then
            applied) rather than probabilities. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`; targets are smoothed towards
            0.5 as in `binary_crossentropy`. Defaults to `0.0`.
        axis: The axis along which the mean is computed. Defaults to `-1`.

    Returns:
        Binary focal crossentropy loss values, of shape
        `(batch_size, d0, .. dN-1)`.

    Raises:
        ValueError: If `y_true` and `y_pred` have incompatible shapes.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.binary_focal_crossentropy(y_true, y_pred).numpy(), 4)
        array([0.3299, 0.2058], dtype=float32)
        >>> np.round(tfkit.losses.binary_focal_crossentropy(
        ...     y_true, y_pred, apply_class_balancing=True).numpy(), 4)
        array([0.1649, 0.1543], dtype=float32)
    """
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = tf.sigmoid(y_pred)
    bce = _elementwise_binary_crossentropy(y_true, y_pred, from_logits=False)
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = tf.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return tf.reduce_mean(focal, axis=axis)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> tf.Tensor:
    """Compute the categorical crossentropy loss between labels and predictions.

    `loss = -sum(y_true * log(y_pred), axis=axis)` for one-hot (or soft)
    targets. Probabilities are first renormalized to sum to one along
    `axis`, then clipped to `[epsilon, 1 - epsilon]` (`epsilon = 1e-7`).
    With `from_logits=True`, TensorFlow's fused
    `tf.nn.softmax_cross_entropy_with_logits` is used; so it is with
    `from_logits=False` when (inside a `tf.function`) `y_pred` is visibly the
    output of a softmax op. A `y_pred` with a last axis of size 1 gives a
    warning (use `binary_crossentropy` for two classes).

    Args:
        y_true: Tensor of one-hot true targets, of shape
            `(batch_size, ..., num_classes)`.
        y_pred: Tensor of predicted targets, of `y_true`'s shape.
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`. If above 0, the targets are
            smoothed: `t * (1 - label_smoothing) + label_smoothing / num_classes`.
            Defaults to `0.0`.
        axis: The class axis along which the crossentropy is computed.
            Defaults to `-1`.

    Returns:
        Categorical crossentropy values, of `y_true`'s shape without `axis`.

    Raises:
        ValueError: If `axis` is not an int, the inputs are scalars, or
            `y_true` and `y_pred` have incompatible shapes.

    Example:
        >>> y_true = [[0, 1, 0], [0, 0, 1]]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> np.round(tfkit.losses.categorical_crossentropy(y_true, y_pred).numpy(), 4)
        array([0.0513, 2.3026], dtype=float32)
        >>> np.round(tfkit.losses.categorical_crossentropy(
        ...     y_true, [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], from_logits=True).numpy(), 4)
        array([1.4076, 0.4076], dtype=float32)
    """
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ValueError(f"categorical_crossentropy expects an int axis, got {axis!r}")
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    if y_true.shape.rank is not None and y_true.shape.rank < 1:
        raise ValueError(f"categorical_crossentropy expects tensors of rank >= 1, got y_true.shape={y_true.shape}")
    _check_same_shape("categorical_crossentropy", y_true, y_pred)
    if y_pred.shape.rank and y_pred.shape[-1] == 1:
        warnings.warn(
            f"categorical_crossentropy expects y_pred of shape (batch, num_classes) with num_classes > 1, "
            f"got y_pred.shape={y_pred.shape}. With two classes, use binary_crossentropy.",
            stacklevel=2,
        )
    if label_smoothing:
        num_classes = tf.cast(tf.shape(y_true)[axis], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    y_pred, from_logits = _resolve_logits(y_pred, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    y_pred = y_pred / tf.reduce_sum(y_pred, axis=axis, keepdims=True)
    y_pred = tf.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
    return -tf.reduce_sum(y_true * tf.math.log(y_pred), axis=axis)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def sparse_categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, ignore_class: int | None = None, axis: int = -1
) -> tf.Tensor:
    """Compute the sparse categorical crossentropy loss: integer class ids as targets.

    `y_true` has `y_pred`'s shape without the class axis (or with it of
    size 1). Probabilities are clipped to `[epsilon, 1 - epsilon]`
    (`epsilon = 1e-7`); with `from_logits=True` (or when, inside a
    `tf.function`, `y_pred` is visibly a softmax's output) TensorFlow's fused
    `tf.nn.sparse_softmax_cross_entropy_with_logits` works on the logits.
    Targets equal to `ignore_class` give a loss of 0 and a mask (attached to
    the result, see `tfkit.engine.masking`) that drops them from mean
    reductions.

    Args:
        y_true: Integer class ids, of shape `(batch_size, d0, .. dN-1)` (or
            `(batch_size, d0, .. dN-1, 1)`).
        y_pred: Predicted probabilities (or logits), of shape
            `(batch_size, d0, .. dN-1, num_classes)`.
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        ignore_class: Optional integer, a class id to ignore (such as a
            "void" class in segmentation). Defaults to `None`.
        axis: The class axis; only the last axis (`-1`, or `rank - 1`) is
            supported. Defaults to `-1`.

    Returns:
        Sparse categorical crossentropy values, of `y_true`'s shape.

    Raises:
        ValueError: If `axis` is not the last axis, or `y_true`'s shape is
            not `y_pred`'s without the class axis.

    Example:
        >>> y_true = [1, 2]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> np.round(tfkit.losses.sparse_categorical_crossentropy(y_true, y_pred).numpy(), 4)
        array([0.0513, 2.3026], dtype=float32)
        >>> np.round(tfkit.losses.sparse_categorical_crossentropy(
        ...     [1, -1], y_pred, ignore_class=-1).numpy(), 4)
        array([0.0513, 0.    ], dtype=float32)
    """
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    y_true = tf.convert_to_tensor(y_true)
    rank = y_pred.shape.rank
    if axis != -1 and axis != (rank - 1 if rank is not None else None):
        raise ValueError(f"sparse_categorical_crossentropy supports only the last axis as class axis, got axis={axis}")
    if y_true.shape.rank is not None and y_true.shape.rank == rank and y_true.shape[-1] == 1:
        y_true = tf.squeeze(y_true, -1)
    if rank is not None and y_true.shape.rank is not None:
        if rank < 1 or y_true.shape.rank != rank - 1 or not y_true.shape.is_compatible_with(y_pred.shape[:-1]):
            raise ValueError(
                "sparse_categorical_crossentropy expects y_true of shape y_pred.shape[:-1] (class ids); "
                f"got y_true.shape={y_true.shape} and y_pred.shape={y_pred.shape}"
            )
    labels = tf.cast(y_true, tf.int64) if y_true.dtype.is_integer else tf.cast(tf.cast(y_true, y_pred.dtype), tf.int64)
    valid = None
    if ignore_class is not None:
        valid = tf.not_equal(labels, tf.cast(ignore_class, tf.int64))
        labels = tf.where(valid, labels, tf.zeros_like(labels))
        y_pred = tf.where(tf.expand_dims(valid, -1), y_pred, tf.zeros_like(y_pred))
    y_pred, from_logits = _resolve_logits(y_pred, from_logits, "Softmax", "sparse_categorical_crossentropy")
    if not from_logits:
        y_pred = tf.math.log(tf.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON))
    result = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=y_pred)
    if valid is not None:
        result = tf.where(valid, result, tf.zeros_like(result))
        masking.set_mask(result, valid)
    return result
