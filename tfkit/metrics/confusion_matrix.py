"""Accumulating true/false positive/negative counts per threshold (Keras 3 rules).

    update_confusion_matrix_variables({"tp": tp_var, "fp": fp_var}, y_true, y_pred, thresholds=[0.5])

A prediction is positive at threshold ``t`` when ``y_pred > t``. Evenly
spaced thresholds (AUC's default) use a bucketing scheme that costs
``O(thresholds + predictions)`` (``unsorted_segment_sum`` plus a reversed
cumulative sum); other thresholds compare every prediction with every
threshold. Both run inside ``tf.function(jit_compile=True)``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import tensorflow as tf

from tfkit.losses.reduction import EPSILON, squeeze_or_expand_to_same_rank

NEG_INF = -1e10
KEYS = ("tp", "fp", "tn", "fn")


def parse_thresholds(thresholds: Any, default: float) -> list[float]:
    """Thresholds as a list of floats in ``[0, 1]`` (``default`` when None)."""
    if thresholds is None:
        return [default]
    values = list(thresholds) if isinstance(thresholds, (list, tuple, np.ndarray)) else [thresholds]
    invalid = [t for t in values if t is None or not 0.0 <= float(t) <= 1.0]
    if invalid:
        raise ValueError(f"Threshold values must be in [0, 1], got {invalid}")
    return [float(t) for t in values]


def is_evenly_distributed(thresholds: Sequence[float]) -> bool:
    """Whether ``thresholds`` are ``i / (n - 1)`` for ``i = 0..n-1`` (n >= 3)."""
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=EPSILON))


def filter_top_k(x: tf.Tensor, k: int) -> tf.Tensor:
    """Keep the ``k`` largest values of the last axis, set the rest to ``NEG_INF``."""
    _, indices = tf.math.top_k(x, k)
    keep = tf.reduce_sum(tf.one_hot(indices, tf.shape(x)[-1], dtype=x.dtype), axis=-2)
    return x * keep + NEG_INF * (1.0 - keep)


def _bucketed_counts(
    y_true: tf.Tensor, y_pred: tf.Tensor, weights: tf.Tensor, num_thresholds: int, with_epsilon: bool, multi_label: bool
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]:
    """TP/FP counts per threshold for evenly spaced thresholds, plus total positive/negative weight."""
    y_pred = tf.clip_by_value(y_pred, 0.0, 1.0)
    true_labels = y_true * weights
    false_labels = (1.0 - y_true) * weights
    buckets = tf.math.ceil(y_pred * tf.cast(num_thresholds - 1, y_pred.dtype)) - 1.0
    if with_epsilon:
        buckets = tf.nn.relu(buckets)
    buckets = tf.cast(buckets, tf.int32)
    if multi_label:
        # One segment range per label: label j uses segments [j * T, (j + 1) * T).
        num_labels = tf.shape(y_pred)[-1]
        offsets = tf.range(num_labels, dtype=tf.int32) * num_thresholds
        ids = buckets + offsets
        segments = num_thresholds * num_labels
        tp = tf.math.unsorted_segment_sum(tf.reshape(true_labels, [-1]), tf.reshape(ids, [-1]), segments)
        fp = tf.math.unsorted_segment_sum(tf.reshape(false_labels, [-1]), tf.reshape(ids, [-1]), segments)
        tp = tf.transpose(tf.reshape(tp, [num_labels, num_thresholds]))
        fp = tf.transpose(tf.reshape(fp, [num_labels, num_thresholds]))
        tp = tf.cumsum(tp, axis=0, reverse=True)
        fp = tf.cumsum(fp, axis=0, reverse=True)
        return tp, fp, tf.reduce_sum(true_labels, axis=0), tf.reduce_sum(false_labels, axis=0)
    true_labels, false_labels = tf.reshape(true_labels, [-1]), tf.reshape(false_labels, [-1])
    buckets = tf.reshape(buckets, [-1])
    tp = tf.cumsum(tf.math.unsorted_segment_sum(true_labels, buckets, num_thresholds), reverse=True)
    fp = tf.cumsum(tf.math.unsorted_segment_sum(false_labels, buckets, num_thresholds), reverse=True)
    return tp, fp, tf.reduce_sum(true_labels), tf.reduce_sum(false_labels)


def _compared_counts(
    y_true: tf.Tensor, y_pred: tf.Tensor, weights: tf.Tensor, thresholds: tf.Tensor, multi_label: bool
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]:
    """TP/FP counts per threshold by comparing every prediction with every threshold."""
    if multi_label:
        # (T, 1, 1) against (1, N, L), summed over N -> (T, L)
        pred_is_pos = tf.cast(tf.expand_dims(y_pred, 0) > tf.reshape(thresholds, [-1, 1, 1]), y_pred.dtype)
        true_labels = tf.expand_dims(y_true * weights, 0)
        false_labels = tf.expand_dims((1.0 - y_true) * weights, 0)
        tp = tf.reduce_sum(pred_is_pos * true_labels, axis=1)
        fp = tf.reduce_sum(pred_is_pos * false_labels, axis=1)
        return tp, fp, tf.reduce_sum(true_labels, axis=[0, 1]), tf.reduce_sum(false_labels, axis=[0, 1])
    y_pred = tf.reshape(y_pred, [1, -1])
    true_labels = tf.reshape(y_true * weights, [1, -1])
    false_labels = tf.reshape((1.0 - y_true) * weights, [1, -1])
    pred_is_pos = tf.cast(y_pred > tf.reshape(thresholds, [-1, 1]), y_pred.dtype)
    tp = tf.reduce_sum(pred_is_pos * true_labels, axis=1)
    fp = tf.reduce_sum(pred_is_pos * false_labels, axis=1)
    return tp, fp, tf.reduce_sum(true_labels), tf.reduce_sum(false_labels)


def update_confusion_matrix_variables(
    variables: Mapping[str, tf.Variable],
    y_true: Any,
    y_pred: Any,
    thresholds: Sequence[float],
    top_k: int | None = None,
    class_id: int | None = None,
    sample_weight: Any = None,
    multi_label: bool = False,
    label_weights: Any = None,
    thresholds_distributed_evenly: bool = False,
) -> None:
    """Add this batch's weighted counts to ``variables`` (keys among ``"tp", "fp", "tn", "fn"``).

    ``y_true`` is cast to bool; ``y_pred`` holds values in ``[0, 1]``;
    ``sample_weight`` broadcasts to ``y_pred`` (per-sample weights are
    expanded). With ``multi_label`` the label axis (last) is kept and the
    variables have shape ``(num_thresholds, num_labels)``.
    """
    unknown = [k for k in variables if k not in KEYS]
    if unknown or not variables:
        raise ValueError(f"Confusion matrix variables must be keyed by {KEYS}; got keys {sorted(variables)}")
    if multi_label and label_weights is not None:
        raise ValueError("label_weights with multi_label=True are applied by the metric's result, not here")
    dtype = next(iter(variables.values())).dtype
    y_true = tf.cast(tf.cast(tf.convert_to_tensor(y_true), tf.bool), dtype)
    y_pred = tf.cast(tf.convert_to_tensor(y_pred), dtype)
    with_epsilon = bool(thresholds[0] < 0.0 or thresholds[-1] > 1.0)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = tf.expand_dims(tf.cast(tf.convert_to_tensor(sample_weight), dtype), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight, expand_rank_1=False)
    if top_k is not None:
        y_pred = filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.shape.rank == 1:
            raise ValueError(
                f"With class_id, y_pred must have shape (num_samples, num_classes); got shape {y_pred.shape}"
            )
        y_true = y_true[..., class_id : class_id + 1]
        y_pred = y_pred[..., class_id : class_id + 1]
        if sample_weight is not None and sample_weight.shape.rank == y_pred.shape.rank and sample_weight.shape[-1] != 1:
            sample_weight = sample_weight[..., class_id : class_id + 1]
    weights = tf.ones_like(y_pred) if sample_weight is None else tf.broadcast_to(sample_weight, tf.shape(y_pred))
    if label_weights is not None:
        weights = weights * tf.broadcast_to(tf.cast(label_weights, dtype), tf.shape(y_pred))
    if multi_label:
        y_true, y_pred, weights = (tf.reshape(t, [-1, tf.shape(y_pred)[-1]]) for t in (y_true, y_pred, weights))
    if thresholds_distributed_evenly:
        tp, fp, pos, neg = _bucketed_counts(y_true, y_pred, weights, len(thresholds), with_epsilon, multi_label)
    else:
        tp, fp, pos, neg = _compared_counts(y_true, y_pred, weights, tf.constant(thresholds, dtype), multi_label)
    updates = {"tp": lambda: tp, "fp": lambda: fp, "tn": lambda: neg - fp, "fn": lambda: pos - tp}
    for key, variable in variables.items():
        variable.assign_add(tf.cast(updates[key](), variable.dtype))
