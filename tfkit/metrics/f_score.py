"""F-beta and F1 scores for multi-class and multi-label predictions of shape ``(batch, classes)``.

    f1 = F1Score(average="macro", threshold=0.5)
    f1.update_state(y_true_one_hot, y_prob)
    f1.result()                                    # scalar (a vector per class when average=None)

Without a ``threshold``, the highest score of each sample is the predicted
class. ``average``: ``None`` (one score per class), ``"micro"`` (global
counts), ``"macro"`` (mean of class scores), ``"weighted"`` (mean weighted
by each class's support). Keras 3 formulas, epsilon included.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.losses.reduction import EPSILON
from tfkit.metrics.base import Metric

AVERAGES = (None, "micro", "macro", "weighted")


@registry.builtin("metrics", "fbeta_score")
class FBetaScore(Metric):
    """Compute the F-Beta score.

    `F_beta = (1 + beta^2) * precision * recall / (beta^2 * precision + recall)`,
    the weighted harmonic mean of precision and recall: `beta > 1` favours
    recall, `beta < 1` precision. A small epsilon (`1e-7`) keeps the
    divisions finite.
    For multi-class and multi-label problems: `y_true` and `y_pred` have
    shape `(batch_size, num_classes)` (one-hot or multi-hot labels, and
    scores). The per-class true positive, false positive and false
    negative counts (weighted by `sample_weight`) are created at the first
    update and accumulate until `reset_state()`; `result()` is a scalar, or
    one score per class with `average=None`.

    Args:
        average: How the per-class scores are averaged: `None` (no averaging:
            one score per class), `"micro"` (one score from the global
            counts), `"macro"` (the unweighted mean of the class scores) or
            `"weighted"` (the mean weighted by each class's support, the
            number of true instances). Defaults to `None`.
        beta: A float `> 0`, the weight of recall against precision.
            Defaults to `1.0`.
        threshold: Optional float in `(0, 1]`: predictions above it are
            positive. With `None`, the highest score of each sample (ties
            included) is the predicted class; an all-zero row predicts
            nothing. Defaults to `None`.
        name: Optional name for the metric instance. Defaults to
            `"fbeta_score"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If `average` is not one of the values above, `beta` is not a
            number `> 0`,
            `threshold` is not in `(0, 1]`, or (at the first update) the
            inputs are not 2D with a known last dimension.

    Example:
        >>> y_true = np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]], np.int32)
        >>> y_pred = np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]], np.float32)
        >>> metric = tfkit.metrics.FBetaScore(beta=2.0, threshold=0.5)
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        array([0.3846, 0.9091, 0.8333], dtype=float32)
        >>> metric = tfkit.metrics.FBetaScore(beta=2.0, threshold=0.5, average="macro")
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.709)
    """

    def __init__(
        self,
        average: str | None = None,
        beta: float = 1.0,
        threshold: float | None = None,
        name: str = "fbeta_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        if average not in AVERAGES:
            raise ValueError(f"{type(self).__name__} average must be one of {AVERAGES}, got {average!r}")
        if not isinstance(beta, (int, float)) or isinstance(beta, bool) or beta <= 0.0:
            raise ValueError(f"{type(self).__name__} beta must be a float > 0, got {beta!r}")
        if threshold is not None and (
            not isinstance(threshold, (int, float)) or isinstance(threshold, bool) or not 0.0 < threshold <= 1.0
        ):
            raise ValueError(
                f"{type(self).__name__} threshold must be a float with 0 < threshold <= 1, got {threshold!r}"
            )
        self.average = average
        self.beta = float(beta)
        self.threshold = None if threshold is None else float(threshold)
        self._axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape: tf.TensorShape, y_pred_shape: tf.TensorShape) -> None:
        if y_pred_shape.rank != 2 or y_true_shape.rank != 2 or y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError(
                f"{type(self).__name__} '{self.name}' expects 2D inputs of shape (batch_size, num_classes) with "
                f"num_classes known; got y_true.shape={y_true_shape} and y_pred.shape={y_pred_shape}"
            )
        shape = () if self.average == "micro" else (int(y_pred_shape[-1]),)
        self.true_positives = self.add_variable(shape, name="true_positives")
        self.false_positives = self.add_variable(shape, name="false_positives")
        self.false_negatives = self.add_variable(shape, name="false_negatives")
        self.intermediate_weights = self.add_variable(shape, name="intermediate_weights")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Accumulate the per-class counts of one batch.

        Args:
            y_true: One-hot or multi-hot labels, of shape
                `(batch_size, num_classes)`.
            y_pred: The predicted scores, of `y_true`'s shape.
            sample_weight: Optional weights: one per sample (`(batch_size,)`)
                or a tensor that broadcasts to `y_true`. Defaults to `None`.

        Raises:
            ValueError: At the first update, if the inputs are not 2D with a
                known last dimension.
        """
        y_true = tf.cast(tf.convert_to_tensor(y_true), self.dtype)
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), self.dtype)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        if self.threshold is None:
            top = tf.reduce_max(y_pred, axis=-1, keepdims=True)
            # Ties at the top all count; an all-zero row predicts nothing.
            predicted = tf.logical_and(y_pred >= top, tf.abs(y_pred) > 1e-9)
        else:
            predicted = y_pred > self.threshold
        y_pred = tf.cast(predicted, self.dtype)
        weight = None
        if sample_weight is not None:
            weight = tf.cast(tf.convert_to_tensor(sample_weight), self.dtype)
            if weight.shape.rank == 1:
                weight = tf.expand_dims(weight, 1)

        def weighted_sum(value: tf.Tensor) -> tf.Tensor:
            if weight is not None:
                value = value * weight
            return tf.reduce_sum(value, axis=self._axis)

        self.true_positives.assign_add(weighted_sum(y_pred * y_true))
        self.false_positives.assign_add(weighted_sum(y_pred * (1.0 - y_true)))
        self.false_negatives.assign_add(weighted_sum((1.0 - y_pred) * y_true))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self) -> tf.Tensor:
        """Return the score so far: a scalar, or one score per class with `average=None`."""
        tp, fp = tf.identity(self.true_positives), tf.identity(self.false_positives)
        fn = tf.identity(self.false_negatives)
        precision = tp / (tp + fp + EPSILON)
        recall = tp / (tp + fn + EPSILON)
        b2 = self.beta**2
        score = (1.0 + b2) * (precision * recall) / (b2 * precision + recall + EPSILON)
        if self.average == "weighted":
            support = tf.identity(self.intermediate_weights)
            return tf.reduce_sum(score * support / (tf.reduce_sum(support) + EPSILON))
        if self.average is not None:
            return tf.reduce_mean(score)
        return score

    def reset_state(self) -> None:
        """Reset the counts to zero (a no-op before the first update)."""
        if self._built:
            super().reset_state()

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "average": self.average, "beta": self.beta, "threshold": self.threshold}


@registry.builtin("metrics", "f1_score")
class F1Score(FBetaScore):
    """Compute the F-1 Score.

    `F1 = 2 * precision * recall / (precision + recall)`, the harmonic mean of
    precision and recall: `FBetaScore` with `beta=1`.
    For multi-class and multi-label problems: `y_true` and `y_pred` have
    shape `(batch_size, num_classes)` (one-hot or multi-hot labels, and
    scores). The per-class true positive, false positive and false
    negative counts (weighted by `sample_weight`) are created at the first
    update and accumulate until `reset_state()`; `result()` is a scalar, or
    one score per class with `average=None`.

    Args:
        average: How the per-class scores are averaged: `None` (no averaging:
            one score per class), `"micro"` (one score from the global
            counts), `"macro"` (the unweighted mean of the class scores) or
            `"weighted"` (the mean weighted by each class's support, the
            number of true instances). Defaults to `None`.
        threshold: Optional float in `(0, 1]`: predictions above it are
            positive. With `None`, the highest score of each sample (ties
            included) is the predicted class; an all-zero row predicts
            nothing. Defaults to `None`.
        name: Optional name for the metric instance. Defaults to
            `"f1_score"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If `average` is not one of the values above,
            `threshold` is not in `(0, 1]`, or (at the first update) the
            inputs are not 2D with a known last dimension.

    Example:
        >>> y_true = np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]], np.int32)
        >>> y_pred = np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]], np.float32)
        >>> metric = tfkit.metrics.F1Score(threshold=0.5)
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        array([0.5   , 0.8   , 0.6667], dtype=float32)
        >>> metric = tfkit.metrics.F1Score(threshold=0.5, average="micro")
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.6667)
    """

    def __init__(
        self, average: str | None = None, threshold: float | None = None, name: str = "f1_score", dtype: Any = None
    ) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["beta"]
        return config
