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
    "mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error", "cosine_similarity", "huber", "log_cosh",
    "hinge", "squared_hinge", "categorical_hinge", "kl_divergence", "poisson",
    "binary_crossentropy", "binary_focal_crossentropy", "categorical_crossentropy",
    "sparse_categorical_crossentropy", "l2_normalize",
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
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def mean_absolute_error(y_true: Any, y_pred: Any) -> tf.Tensor:
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> tf.Tensor:
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), eps)), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    diff = tf.abs((y_true - y_pred) / tf.maximum(tf.abs(y_true), tf.cast(EPSILON, y_pred.dtype)))
    return 100.0 * tf.reduce_mean(diff, axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> tf.Tensor:
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``."""
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
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``: -1 means identical directions."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return -tf.reduce_sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> tf.Tensor:
    """``0.5 x^2`` where ``|x| <= delta``, else ``delta |x| - 0.5 delta^2``; mean over the last axis."""
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
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, overflow-free."""
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
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``; 0/1 labels are mapped to -1/1."""
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    y_true = _hinge_labels(y_true)
    return tf.reduce_mean(tf.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def squared_hinge(y_true: Any, y_pred: Any) -> tf.Tensor:
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    y_true = _hinge_labels(y_true)
    return tf.reduce_mean(tf.square(tf.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def categorical_hinge(y_true: Any, y_pred: Any) -> tf.Tensor:
    """``maximum(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)``."""
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    pos = tf.reduce_sum(y_true * y_pred, axis=-1)
    neg = tf.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tf.maximum(neg - pos + 1.0, 0.0)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def kl_divergence(y_true: Any, y_pred: Any) -> tf.Tensor:
    """``sum(y_true * log(y_true / y_pred), axis=-1)`` with both clipped to ``[eps, 1]``."""
    y_true, y_pred = _prepare(y_true, y_pred, same_rank=False)
    y_true = tf.clip_by_value(y_true, EPSILON, 1.0)
    y_pred = tf.clip_by_value(y_pred, EPSILON, 1.0)
    return tf.reduce_sum(y_true * tf.math.log(y_true / y_pred), axis=-1)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def poisson(y_true: Any, y_pred: Any) -> tf.Tensor:
    """``mean(y_pred - y_true * log(y_pred + eps), axis=-1)``."""
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
    """Mean over ``axis`` of ``-(t log p + (1 - t) log(1 - p))``.

    ``label_smoothing`` squeezes targets towards 0.5: ``t (1 - s) + 0.5 s``.
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
    """Binary crossentropy scaled by ``(1 - p_t) ** gamma`` (and ``alpha`` / ``1 - alpha`` when balancing)."""
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
    """``-sum(y_true * log(y_pred), axis)`` for one-hot (or soft) targets.

    Probabilities are renormalized to sum to one, then clipped. With
    ``label_smoothing`` s, targets become ``t (1 - s) + s / num_classes``.
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
    """Categorical crossentropy with integer class ids as targets.

    ``y_true`` has ``y_pred``'s shape without the class axis (or with it of
    size 1). Targets equal to ``ignore_class`` give a loss of 0 and a mask
    (attached to the result, see :mod:`tfkit.engine.masking`) that drops them from
    mean reductions.
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
