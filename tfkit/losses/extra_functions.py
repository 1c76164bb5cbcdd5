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
    "dice",
    "tversky",
    "categorical_focal_crossentropy",
    "categorical_generalized_cross_entropy",
    "circle",
    "ctc",
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
    """Compute the Dice loss between labels and predictions.

    `loss = 1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + epsilon)`,
    the sums taken over `axis` (`epsilon = 1e-7`). Used for segmentation:
    it measures the overlap of two (soft) masks, 0 for a perfect overlap.

    Args:
        y_true: The ground truth values (0 or 1), a tensor.
        y_pred: The predicted values (probabilities), of `y_true`'s shape.
        axis: The axis or tuple of axes the sums run over, so one loss value
            covers them (for example `(1, 2, 3)` for one value per image).
            `None` reduces every axis, batch included, to one scalar.
            Defaults to `None`.

    Returns:
        The Dice loss values: a scalar with `axis=None`, else of `y_true`'s
        shape without `axis`.

    Raises:
        ValueError: If `axis` is not `None`, an int or a tuple of ints.

    Example:
        >>> y_true = [[1.0, 0.0], [1.0, 1.0]]
        >>> y_pred = [[0.5, 0.5], [1.0, 1.0]]
        >>> np.round(tfkit.losses.dice(y_true, y_pred).numpy(), 4)
        np.float32(0.1667)
        >>> np.round(tfkit.losses.dice(y_true, y_pred, axis=1).numpy(), 4)
        array([0.5, 0. ], dtype=float32)
    """
    axis = check_axis("dice", axis)
    y_true, y_pred = _float_pair(y_true, y_pred)
    intersection = tf.reduce_sum(y_true * y_pred, axis=axis)
    total = tf.reduce_sum(y_true, axis=axis) + tf.reduce_sum(y_pred, axis=axis) + EPSILON
    return 1.0 - 2.0 * intersection / total


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def tversky(y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5, axis: Any = None) -> tf.Tensor:
    """Compute the Tversky loss between labels and predictions.

    `loss = 1 - tp / (tp + alpha * fp + beta * fn + epsilon)`, with soft
    counts summed over `axis`: `tp = sum(y_true * y_pred)`, and, as in
    Keras 3, `fp = sum((1 - y_pred) * y_true)` and
    `fn = sum(y_pred * (1 - y_true))` (so `alpha` weights missed positives
    and `beta` predicted positives whose label is 0). With
    `alpha = beta = 0.5` this is the Dice loss.

    Args:
        y_true: The ground truth values (0 or 1), a tensor.
        y_pred: The predicted values (probabilities), of `y_true`'s shape.
        alpha: The weight of the `fp` term above. Defaults to `0.5`.
        beta: The weight of the `fn` term above. Defaults to `0.5`.
        axis: The axis or tuple of axes the sums run over. `None` reduces
            every axis, batch included, to one scalar. Defaults to `None`.

    Returns:
        The Tversky loss values: a scalar with `axis=None`, else of
        `y_true`'s shape without `axis`.

    Raises:
        ValueError: If `axis` is not `None`, an int or a tuple of ints.

    Example:
        >>> y_true = [[1.0, 0.0], [1.0, 0.0]]
        >>> y_pred = [[0.5, 0.5], [1.0, 1.0]]
        >>> np.round(tfkit.losses.tversky(y_true, y_pred, alpha=0.7, beta=0.3, axis=1).numpy(), 4)
        array([0.5   , 0.2308], dtype=float32)
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
    """Compute the categorical focal crossentropy loss between labels and predictions.

    `loss = sum(alpha * (1 - p)^gamma * -y_true * log(p), axis=axis)`, where
    `p` are the predicted probabilities renormalized to sum to one along
    `axis` and clipped to `[epsilon, 1 - epsilon]` (`epsilon = 1e-7`). The
    factor `(1 - p)^gamma` down-weights easy, well-classified examples
    (Lin et al., 2017). A `y_pred` with a last axis of size 1 gives a
    `SyntaxWarning` (use `binary_focal_crossentropy` for two classes).

    Args:
        y_true: Tensor of one-hot true targets, of shape
            `(batch_size, ..., num_classes)`.
        y_pred: Tensor of predicted targets, of `y_true`'s shape.
        alpha: A weight balancing the classes: a number, or one weight per
            class (a list or tensor of length `num_classes`). Defaults to
            `0.25`.
        gamma: The focusing parameter (`>= 0`). Defaults to `2.0`.
        from_logits: Whether `y_pred` holds logits (a softmax over `axis` is
            then applied) rather than probabilities. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`; targets are smoothed to
            `t * (1 - label_smoothing) + label_smoothing / num_classes`.
            Defaults to `0.0`.
        axis: The class axis. Defaults to `-1`.

    Returns:
        Categorical focal crossentropy values, of `y_true`'s shape without
        `axis`.

    Raises:
        ValueError: If `axis` is not an int.

    Example:
        >>> y_true = [[0, 1, 0], [0, 0, 1]]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> np.round(tfkit.losses.categorical_focal_crossentropy(y_true, y_pred).numpy(), 4)
        array([0.    , 0.4663], dtype=float32)
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
    """Compute the generalized cross entropy loss, robust to noisy labels.

    `loss = (1 - p^q) / q`, where `p` is the predicted probability of the
    true class (Zhang & Sabuncu, 2018). As `q` goes to 0 it approaches the
    categorical crossentropy; at `q = 1` it is the mean absolute error,
    which is more robust to wrong labels.

    Args:
        y_true: Integer class ids, of shape `(batch_size,)` (or
            `(batch_size, 1)`).
        y_pred: Predicted probabilities, of shape `(batch_size, num_classes)`.
        q: The parameter of the loss, in the open interval `(0, 1)`.
            Defaults to `0.5`.

    Returns:
        The loss values, of shape `(batch_size,)`.

    Raises:
        ValueError: If `q` is a number outside `(0, 1)`.

    Example:
        >>> y_true = [1, 2]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> np.round(tfkit.losses.categorical_generalized_cross_entropy(y_true, y_pred).numpy(), 4)
        array([0.0506, 1.3675], dtype=float32)
    """
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


def build_pos_neg_masks(
    query_labels: tf.Tensor, key_labels: tf.Tensor, remove_diagonal: bool = True
) -> tuple[tf.Tensor, tf.Tensor]:
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
    """Compute the Circle loss between integer labels and L2-normalized embeddings.

    Circle loss (Sun et al., 2020) is a metric-learning loss: it pulls
    together embeddings of the same label and pushes apart those of
    different labels, each pair weighted by how far it is from its optimum.
    Distances are cosine distances `1 - dot(a, b)`, so `y_pred` should be
    L2-normalized. Each query (a row of `y_pred`) is compared with every
    reference embedding. Samples with no positive or no negative pair get a
    loss of 0 and are masked out of mean reductions, as in Keras 3.

    Args:
        y_true: Integer labels of the queries, of shape `(batch_size,)`.
        y_pred: L2-normalized query embeddings, of shape
            `(batch_size, embedding_dim)`.
        ref_labels: Optional integer labels of the reference embeddings.
            Defaults to `None`, which means `y_true`.
        ref_embeddings: Optional reference embeddings, of shape
            `(num_refs, embedding_dim)`. Defaults to `None`, which means
            `y_pred` (every pair within the batch).
        remove_diagonal: Whether to leave out the pairs of a sample with
            itself (the diagonal) from the positives; keep it `True` when
            the references are the queries. Defaults to `True`.
        gamma: The scaling factor of the pair scores. Defaults to `80`.
        margin: The relaxation margin: the optimum is `1 - margin` for
            positive similarities and `margin` for negative ones. Defaults
            to `0.4`.

    Returns:
        The Circle loss of each query, of shape `(batch_size,)`.

    Raises:
        ValueError: If `y_pred` is not of rank 2.

    Example:
        >>> embeddings = tf.math.l2_normalize(
        ...     tf.constant([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.6, 0.8]]), axis=-1)
        >>> np.round(tfkit.losses.circle([0, 0, 1, 1], embeddings, gamma=1.0).numpy(), 4)
        array([1.0435, 1.382 , 1.0435, 1.382 ], dtype=float32)
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
    """Compute the Connectionist Temporal Classification (CTC) loss of each sample.

    CTC scores an unsegmented label sequence against per-time-step class
    scores (speech or handwriting recognition), summing over every
    alignment. Class 0 is the blank; it also pads the labels, so a label
    sequence's length is its number of non-zero entries. Every sample uses
    all `time` steps of `y_pred`. Computed with `tf.nn.ctc_loss` in float32.

    Args:
        y_true: Integer labels, of shape `(batch_size, max_label_length)`,
            padded with 0.
        y_pred: Logits (not softmaxed), of shape
            `(batch_size, time, num_classes)`.

    Returns:
        The CTC loss of each sample, of shape `(batch_size,)`, in `y_pred`'s
        dtype when it is float32 or float64, else float32.

    Raises:
        ValueError: If `y_true` is not of rank 2 or `y_pred` not of rank 3.

    Example:
        >>> y_true = [[1, 2], [1, 0]]
        >>> y_pred = np.zeros((2, 3, 3), dtype="float32")
        >>> np.round(tfkit.losses.ctc(y_true, y_pred).numpy(), 4)
        array([1.6864, 1.5041], dtype=float32)
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
