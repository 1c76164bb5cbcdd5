"""Keras 3's newer loss functions: segmentation, focal, noise-robust, metric-learning and sequence losses.

    dice(y_true, y_pred, axis=(1, 2, 3))            # one Dice loss per sample
    categorical_focal_crossentropy(one_hot, probs)  # per-sample focal crossentropy
    ctc(labels, logits)                             # per-sample CTC loss (label 0 is the blank)

Formulas, defaults and epsilon (1e-7) follow Keras 3 (``keras/src/losses``).
None of them branches in Python on tensor values.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine import masking
from tfkit.losses.reduction import EPSILON

__all__ = [
    "dice", "tversky", "categorical_focal_crossentropy", "categorical_generalized_cross_entropy",
    "circle", "ctc", "build_pos_neg_masks", "check_axis",
]


def _float_pair(y_true: Any, y_pred: Any) -> tuple[tf.Tensor, tf.Tensor]:
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    return tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype), y_pred


def check_axis(fn_name: str, axis: Any) -> Any:
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in axis):
            raise ValueError(f"{fn_name}: axis must be None, an int or a tuple of ints; got axis={axis!r}")
        return list(axis)
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ValueError(f"{fn_name}: axis must be None, an int or a tuple of ints; got axis={axis!r}")
    return axis


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def dice(y_true: Any, y_pred: Any, axis: Any = None) -> tf.Tensor:
    """``1 - 2 sum(y_true y_pred) / (sum(y_true) + sum(y_pred) + eps)`` over ``axis`` (all axes when None)."""
    axis = check_axis("dice", axis)
    y_true, y_pred = _float_pair(y_true, y_pred)
    intersection = tf.reduce_sum(y_true * y_pred, axis=axis)
    total = tf.reduce_sum(y_true, axis=axis) + tf.reduce_sum(y_pred, axis=axis) + EPSILON
    return 1.0 - 2.0 * intersection / total


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def tversky(y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5, axis: Any = None) -> tf.Tensor:
    """``1 - tp / (tp + alpha fp + beta fn + eps)`` with soft counts over ``axis``.

    As in Keras 3, ``fp = sum((1 - y_pred) y_true)`` and ``fn = sum(y_pred (1 - y_true))``.
    """
    axis = check_axis("tversky", axis)
    y_true, y_pred = _float_pair(y_true, y_pred)
    intersection = tf.reduce_sum(y_true * y_pred, axis=axis)
    fp = tf.reduce_sum((1.0 - y_pred) * y_true, axis=axis)
    fn = tf.reduce_sum(y_pred * (1.0 - y_true), axis=axis)
    return 1.0 - intersection / (intersection + fp * alpha + fn * beta + EPSILON)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def categorical_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    alpha: Any = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> tf.Tensor:
    """``sum(alpha (1 - p)^gamma * -y_true log(p), axis)``, ``p`` the renormalized, clipped probabilities.

    ``alpha`` is a number or one weight per class.
    """
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ValueError(f"categorical_focal_crossentropy: axis must be an int, got axis={axis!r}")
    y_true, y_pred = _float_pair(y_true, y_pred)
    if y_pred.shape.rank and y_pred.shape[-1] == 1:
        warnings.warn(
            "categorical_focal_crossentropy expects y_pred of shape (batch, num_classes) with num_classes > 1, "
            f"got y_pred.shape={y_pred.shape}. With two classes, use binary_focal_crossentropy.",
            SyntaxWarning,
            stacklevel=2,
        )
    if label_smoothing:
        num_classes = tf.cast(tf.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    if from_logits:
        y_pred = tf.nn.softmax(y_pred, axis=axis)
    output = y_pred / tf.reduce_sum(y_pred, axis=axis, keepdims=True)
    output = tf.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    cce = -y_true * tf.math.log(output)
    weighting = tf.pow(1.0 - output, gamma) * tf.cast(alpha, y_pred.dtype)
    return tf.reduce_sum(weighting * cce, axis=axis)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def categorical_generalized_cross_entropy(y_true: Any, y_pred: Any, q: float = 0.5) -> tf.Tensor:
    """``(1 - p^q) / q``, ``p`` the predicted probability of the true class (``y_true`` holds class ids)."""
    if isinstance(q, (int, float)) and not 0 < q < 1:
        raise ValueError(f"categorical_generalized_cross_entropy: q must be in the interval (0, 1), got q={q!r}")
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    labels = tf.cast(tf.convert_to_tensor(y_true), tf.int32)
    if labels.shape.rank is not None and labels.shape.rank == y_pred.shape.rank and labels.shape[-1] == 1:
        labels = tf.squeeze(labels, -1)  # (batch, 1) class ids, as the Keras docstring allows
    one_hot = tf.one_hot(labels, tf.shape(y_pred)[-1], dtype=y_pred.dtype)
    p = tf.reduce_sum(y_pred * one_hot, axis=-1)
    return (1.0 - tf.pow(p, q)) / q


def build_pos_neg_masks(query_labels: tf.Tensor, key_labels: tf.Tensor, remove_diagonal: bool = True) -> tuple[tf.Tensor, tf.Tensor]:
    """Boolean ``(queries, keys)`` masks of same-label and different-label pairs (diagonal left out of positives)."""
    if query_labels.shape.rank == 1:
        query_labels = tf.reshape(query_labels, (-1, 1))
    if key_labels.shape.rank == 1:
        key_labels = tf.reshape(key_labels, (-1, 1))
    positive = tf.equal(query_labels, tf.transpose(key_labels))
    negative = tf.logical_not(positive)
    if remove_diagonal:
        eye = tf.eye(tf.size(query_labels), tf.size(key_labels), dtype=tf.bool)
        positive = tf.logical_and(positive, tf.logical_not(eye))
    return positive, negative


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def circle(
    y_true: Any,
    y_pred: Any,
    ref_labels: Any = None,
    ref_embeddings: Any = None,
    remove_diagonal: bool = True,
    gamma: float = 80,
    margin: float = 0.4,
) -> tf.Tensor:
    """Circle loss (Sun et al., 2020) of L2-normalized embeddings ``y_pred`` with integer labels ``y_true``.

    Samples with no positive or no negative pair get a loss of 0 and are
    masked out of mean reductions, as in Keras 3.
    """
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    if y_pred.shape.rank is not None and y_pred.shape.rank != 2:
        raise ValueError(f"circle expects y_pred of shape (batch, embedding_dim), got y_pred.shape={y_pred.shape}")
    y_true = tf.cast(tf.convert_to_tensor(y_true), tf.int32)
    ref_embeddings = y_pred if ref_embeddings is None else tf.cast(tf.convert_to_tensor(ref_embeddings), y_pred.dtype)
    ref_labels = y_true if ref_labels is None else tf.cast(tf.convert_to_tensor(ref_labels), tf.int32)
    distances = tf.maximum(1.0 - tf.matmul(y_pred, ref_embeddings, transpose_b=True), 0.0)
    positive, negative = build_pos_neg_masks(y_true, ref_labels, remove_diagonal=remove_diagonal)
    pos_float, neg_float = tf.cast(positive, distances.dtype), tf.cast(negative, distances.dtype)
    pos_weights = tf.maximum((margin + distances) * pos_float, 0.0)
    neg_weights = tf.maximum((1.0 + margin - distances) * neg_float, 0.0)
    pos_scores = -gamma * pos_weights * (margin - distances)
    neg_scores = gamma * neg_weights * ((1.0 - margin) - distances)
    minus_inf = tf.constant(-math.inf, distances.dtype)
    p_loss = tf.reduce_logsumexp(tf.where(positive, pos_scores, minus_inf), axis=1)
    n_loss = tf.reduce_logsumexp(tf.where(negative, neg_scores, minus_inf), axis=1)
    loss = tf.nn.softplus(p_loss + n_loss)
    masking.set_mask(loss, loss > 0)
    return loss


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def ctc(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Connectionist Temporal Classification loss per sample.

    ``y_true``: ``(batch, max_label_length)`` integer labels, 0 is the blank
    and pads the labels. ``y_pred``: ``(batch, time, num_classes)`` logits
    (not softmaxed). Every sample uses all ``time`` steps.
    """
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    if y_true.shape.rank != 2:
        raise ValueError(
            f"ctc expects y_true of shape (batch_size, max_length) holding integer labels; got y_true.shape={y_true.shape}"
        )
    if y_pred.shape.rank != 3:
        raise ValueError(
            f"ctc expects y_pred (logits) of shape (batch_size, max_length, num_classes); got y_pred.shape={y_pred.shape}"
        )
    result_dtype = y_pred.dtype if y_pred.dtype in (tf.float32, tf.float64) else tf.float32
    labels = tf.cast(y_true, tf.int32)
    shape = tf.shape(y_pred)
    logit_length = tf.fill([shape[0]], shape[1])
    label_length = tf.reduce_sum(tf.cast(tf.not_equal(labels, 0), tf.int32), axis=-1)
    loss = tf.nn.ctc_loss(
        labels=labels,
        logits=tf.cast(y_pred, tf.float32),
        label_length=label_length,
        logit_length=logit_length,
        blank_index=0,
        logits_time_major=False,
    )
    return tf.cast(loss, result_dtype)
