"""Correlation metrics: Pearson and concordance correlation, per sample, averaged over batches.

    pcc = PearsonCorrelation()
    pcc.update_state([[1.0, 2.0, 3.0]], [[2.0, 4.0, 7.0]])
    pcc.result()                              # correlation along the last axis, averaged over samples

Formulas follow Keras 3 (population standard deviation and variance; the
concordance covariance term is Keras 3's ``(y_true - mean(y_pred)) * (y_pred - mean(y_pred))``).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.losses.reduction import EPSILON, squeeze_or_expand_to_same_rank
from tfkit.metrics.reduction import BuiltinMeanMetric


def _pair(y_true: Any, y_pred: Any) -> tuple[tf.Tensor, tf.Tensor]:
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def pearson_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> tf.Tensor:
    """Pearson correlation coefficient of ``y_true`` and ``y_pred`` along ``axis``."""
    y_true, y_pred = _pair(y_true, y_pred)
    true_centered = y_true - tf.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_centered = y_pred - tf.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_centered = true_centered / tf.math.reduce_std(true_centered, axis=axis, keepdims=True)
    pred_centered = pred_centered / tf.math.reduce_std(pred_centered, axis=axis, keepdims=True)
    return tf.reduce_mean(true_centered * pred_centered, axis=axis)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def concordance_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> tf.Tensor:
    """Lin's concordance correlation coefficient along ``axis`` (Keras 3's formula)."""
    y_true, y_pred = _pair(y_true, y_pred)
    true_mean = tf.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_mean = tf.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_var = tf.math.reduce_variance(y_true - true_mean, axis=axis, keepdims=True)
    pred_var = tf.math.reduce_variance(y_pred - pred_mean, axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_var + pred_var + tf.square(true_mean - pred_mean)
    return tf.reduce_mean(2.0 * covariance / (norm + EPSILON), axis=axis)


@registry.builtin("metrics", "pearson_correlation")
class PearsonCorrelation(BuiltinMeanMetric):
    """Running mean of the per-sample Pearson correlation."""

    function = pearson_correlation

    def __init__(self, name: str = "pearson_correlation", dtype: Any = None, axis: int = -1) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"PearsonCorrelation: axis must be an int, got axis={axis!r}")
        super().__init__(name, dtype, axis=axis)


@registry.builtin("metrics", "concordance_correlation")
class ConcordanceCorrelation(BuiltinMeanMetric):
    """Running mean of the per-sample concordance correlation."""

    function = concordance_correlation

    def __init__(self, name: str = "concordance_correlation", dtype: Any = None, axis: int = -1) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"ConcordanceCorrelation: axis must be an int, got axis={axis!r}")
        super().__init__(name, dtype, axis=axis)
