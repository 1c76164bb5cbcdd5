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
    """Compute the Pearson correlation coefficient between labels and predictions.

    Along `axis`, both are centered and divided by their (population)
    standard deviation, and the mean of their product is the correlation,
    between -1 and 1. A constant `y_true` or `y_pred` along `axis` gives
    NaN.

    Args:
        y_true: Ground truth values, of shape `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of `y_true`'s shape.
        axis: The axis along which the correlation is computed. Defaults to
            `-1`.

    Returns:
        The Pearson correlation coefficient, with `axis` reduced.

    Example:
        >>> y_true = [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
        >>> y_pred = [[2.0, 4.0, 7.0], [3.0, 2.0, 1.0]]
        >>> np.round(tfkit.metrics.pearson_correlation(y_true, y_pred).numpy(), 4)
        array([ 0.9934, -1.    ], dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    true_centered = y_true - tf.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_centered = y_pred - tf.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_centered = true_centered / tf.math.reduce_std(true_centered, axis=axis, keepdims=True)
    pred_centered = pred_centered / tf.math.reduce_std(pred_centered, axis=axis, keepdims=True)
    return tf.reduce_mean(true_centered * pred_centered, axis=axis)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def concordance_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> tf.Tensor:
    """Compute Lin's concordance correlation coefficient between labels and predictions.

    `ccc = 2 * cov / (var(y_true) + var(y_pred) + (mean(y_true) - mean(y_pred))^2)`
    along `axis`, with population variances: 1 for perfect agreement; unlike
    the Pearson correlation, shifts and scalings lower it. As in Keras 3,
    the covariance term is the mean of
    `(y_true - mean(y_pred)) * (y_pred - mean(y_pred))`, and `1e-7` is added
    to the denominator.

    Args:
        y_true: Ground truth values, of shape `(batch_size, d0, .. dN)`.
        y_pred: The predicted values, of `y_true`'s shape.
        axis: The axis along which the correlation is computed. Defaults to
            `-1`.

    Returns:
        The concordance correlation coefficient, with `axis` reduced.

    Example:
        >>> y_true = [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
        >>> y_pred = [[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]]
        >>> np.round(tfkit.metrics.concordance_correlation(y_true, y_pred).numpy(), 4)
        array([1.    , 0.5714], dtype=float32)
    """
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
    """Calculate the Pearson correlation coefficient (PCC) between labels and predictions.

    The running (weighted) mean over samples of
    `tfkit.metrics.pearson_correlation`, computed along `axis` within each
    sample.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"pearson_correlation"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        axis: The axis along which the correlation is computed. Defaults to
            `-1`.

    Raises:
        ValueError: If `axis` is not an int.

    Example:
        >>> metric = tfkit.metrics.PearsonCorrelation()
        >>> metric.update_state([[1.0, 2.0, 3.0]], [[2.0, 4.0, 7.0]])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.9934)
    """

    function = pearson_correlation

    def __init__(self, name: str = "pearson_correlation", dtype: Any = None, axis: int = -1) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"PearsonCorrelation: axis must be an int, got axis={axis!r}")
        super().__init__(name, dtype, axis=axis)


@registry.builtin("metrics", "concordance_correlation")
class ConcordanceCorrelation(BuiltinMeanMetric):
    """Calculate the concordance correlation coefficient (CCC) between labels and predictions.

    The running (weighted) mean over samples of
    `tfkit.metrics.concordance_correlation`, computed along `axis` within
    each sample.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"concordance_correlation"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        axis: The axis along which the correlation is computed. Defaults to
            `-1`.

    Raises:
        ValueError: If `axis` is not an int.

    Example:
        >>> metric = tfkit.metrics.ConcordanceCorrelation()
        >>> metric.update_state([[1.0, 2.0, 3.0]], [[2.0, 4.0, 7.0]])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.3226)
    """

    function = concordance_correlation

    def __init__(self, name: str = "concordance_correlation", dtype: Any = None, axis: int = -1) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"ConcordanceCorrelation: axis must be an int, got axis={axis!r}")
        super().__init__(name, dtype, axis=axis)
