"""Precision, recall and the raw confusion counts, at one or several thresholds.

    precision = Precision()                       # threshold 0.5
    precision.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    precision.result()                            # 2/3

``top_k`` keeps only the k highest predictions of each sample as positive;
``class_id`` restricts the metric to one column of ``(batch, classes)`` data.
With several thresholds, ``result()`` is a vector (one value per threshold).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.metrics.base import Metric, plain_data
from tfkit.metrics.confusion_matrix import (
    NEG_INF,
    is_evenly_distributed,
    parse_thresholds,
    update_confusion_matrix_variables,
)

_LONG_NAMES = {"tp": "true_positives", "fp": "false_positives", "tn": "true_negatives", "fn": "false_negatives"}


class _ThresholdedMetric(Metric):
    """Shared set-up: thresholds (default 0.5, or "any" with top_k), top_k, class_id."""

    _counts: tuple[str, ...] = ()

    def __init__(
        self,
        thresholds: Any = None,
        top_k: int | None = None,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = 0.5 if top_k is None else NEG_INF
        self.thresholds = parse_thresholds(thresholds, default)
        self._evenly = is_evenly_distributed(self.thresholds)
        for key in self._counts:
            setattr(self, _LONG_NAMES[key], self.add_variable(shape=(len(self.thresholds),), name=_LONG_NAMES[key]))

    def _count_variables(self) -> dict[str, tf.Variable]:
        return {key: getattr(self, _LONG_NAMES[key]) for key in self._counts}

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Accumulate the confusion counts of one batch.

        Args:
            y_true: Ground truth values, read as booleans.
            y_pred: The predicted values, in `[0, 1]`, of `y_true`'s shape.
            sample_weight: Optional weights, a scalar or a tensor that
                broadcasts to `y_pred` (one weight per sample is expanded).
                Defaults to `None`.

        Raises:
            ValueError: With `class_id`, if `y_pred` is of rank 1.
        """
        update_confusion_matrix_variables(
            self._count_variables(),
            y_true,
            y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._evenly,
            top_k=self.top_k,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )

    def _per_threshold(self, value: tf.Tensor) -> tf.Tensor:
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict[str, Any]:
        thresholds = plain_data(self.init_thresholds)
        return {**super().get_config(), "thresholds": thresholds, "top_k": self.top_k, "class_id": self.class_id}


@registry.builtin("metrics", "precision")
class Precision(_ThresholdedMetric):
    """Compute the precision of the predictions with respect to the labels.

    `precision = true_positives / (true_positives + false_positives)`: the
    fraction of positive predictions that are right (0 when nothing is
    predicted positive). The counts are weighted by `sample_weight` and
    accumulate until `reset_state()`. With `top_k`, only the `k` highest
    predictions of each sample count as positive; with `class_id`, only that
    class (column) is considered.

    Args:
        thresholds: Optional float, or list/tuple of floats, in `[0, 1]`. A
            prediction above a threshold counts as positive. With a list,
            one value is computed per threshold and `result()` is a vector.
            Defaults to `None`, which means `0.5` (or no threshold when `top_k` is set).
        top_k: Optional int: only the `top_k` highest predictions of each
            sample (last axis) can count as positive. Defaults to `None`.
        class_id: Optional int, a class index: the metric is computed on
            that column of `(batch_size, num_classes)` data only.
            Defaults to `None`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means `"precision"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If a threshold is outside `[0, 1]`.

    Example:
        >>> metric = tfkit.metrics.Precision()
        >>> metric.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.6667)
        >>> metric.reset_state()
        >>> metric.update_state([0, 1, 1, 1], [1, 0, 1, 1], sample_weight=[0, 0, 1, 0])
        >>> metric.result().numpy()
        np.float32(1.0)
        >>> metric = tfkit.metrics.Precision(top_k=2)
        >>> metric.update_state([[0, 0, 1, 1]], [[0.1, 0.2, 0.9, 0.3]])
        >>> metric.result().numpy()
        np.float32(1.0)
        >>> metric = tfkit.metrics.Precision(thresholds=[0.3, 0.7])
        >>> metric.update_state([0, 1, 1, 1], [0.5, 0.2, 0.8, 0.9])
        >>> np.round(metric.result().numpy(), 4)
        array([0.6667, 1.    ], dtype=float32)
    """

    _counts = ("tp", "fp")

    def __init__(
        self,
        thresholds: Any = None,
        top_k: int | None = None,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(thresholds, top_k, class_id, name=name or "precision", dtype=dtype)

    def result(self) -> tf.Tensor:
        """Return the precision so far: a scalar, or one value per threshold."""
        tp, fp = tf.identity(self.true_positives), tf.identity(self.false_positives)
        return self._per_threshold(tf.math.divide_no_nan(tp, tp + fp))


@registry.builtin("metrics", "recall")
class Recall(_ThresholdedMetric):
    """Compute the recall of the predictions with respect to the labels.

    `recall = true_positives / (true_positives + false_negatives)`: the
    fraction of actual positives that are found (0 when there are none).
    The counts are weighted by `sample_weight` and accumulate until
    `reset_state()`. With `top_k`, only the `k` highest predictions of each
    sample count as positive; with `class_id`, only that class (column) is
    considered.

    Args:
        thresholds: Optional float, or list/tuple of floats, in `[0, 1]`. A
            prediction above a threshold counts as positive. With a list,
            one value is computed per threshold and `result()` is a vector.
            Defaults to `None`, which means `0.5` (or no threshold when `top_k` is set).
        top_k: Optional int: only the `top_k` highest predictions of each
            sample (last axis) can count as positive. Defaults to `None`.
        class_id: Optional int, a class index: the metric is computed on
            that column of `(batch_size, num_classes)` data only.
            Defaults to `None`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means `"recall"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If a threshold is outside `[0, 1]`.

    Example:
        >>> metric = tfkit.metrics.Recall()
        >>> metric.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.6667)
        >>> metric = tfkit.metrics.Recall(class_id=1)
        >>> metric.update_state([[0, 1], [1, 0], [0, 1]], [[0.2, 0.8], [0.3, 0.7], [0.6, 0.4]])
        >>> metric.result().numpy()
        np.float32(0.5)
    """

    _counts = ("tp", "fn")

    def __init__(
        self,
        thresholds: Any = None,
        top_k: int | None = None,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(thresholds, top_k, class_id, name=name or "recall", dtype=dtype)

    def result(self) -> tf.Tensor:
        """Return the recall so far: a scalar, or one value per threshold."""
        tp, fn = tf.identity(self.true_positives), tf.identity(self.false_negatives)
        return self._per_threshold(tf.math.divide_no_nan(tp, tp + fn))


class _ConditionCount(_ThresholdedMetric):
    """One weighted count (``tp``, ``fp``, ``tn`` or ``fn``) per threshold."""

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(thresholds, None, None, name=name, dtype=dtype)

    def result(self) -> tf.Tensor:
        """Return the weighted count so far: a scalar, or one value per threshold."""
        return self._per_threshold(tf.identity(self._metric_variables[0]))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["top_k"], config["class_id"]
        return config


@registry.builtin("metrics", "true_positives")
class TruePositives(_ConditionCount):
    """Calculate the number of true positives.

    If `sample_weight` is given, the sum of the weights of the true positives
    (a `sample_weight` of 0 masks values out). `y_true` is read as
    booleans; a prediction above the threshold counts as positive. The
    count accumulates until `reset_state()`.

    Args:
        thresholds: Optional float, or list/tuple of floats, in `[0, 1]`. A
            prediction above a threshold counts as positive. With a list,
            one value is computed per threshold and `result()` is a vector.
            Defaults to `None`, which means `0.5`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means `"true_positives"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If a threshold is outside `[0, 1]`.

    Example:
        >>> metric = tfkit.metrics.TruePositives()
        >>> metric.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> metric.result().numpy()
        np.float32(2.0)
        >>> metric = tfkit.metrics.TruePositives(thresholds=[0.3, 0.7])
        >>> metric.update_state([0, 1, 1, 1], [0.5, 0.2, 0.8, 0.6])
        >>> metric.result().numpy()
        array([2., 1.], dtype=float32)
    """

    _counts = ("tp",)


@registry.builtin("metrics", "false_positives")
class FalsePositives(_ConditionCount):
    """Calculate the number of false positives.

    If `sample_weight` is given, the sum of the weights of the false positives
    (a `sample_weight` of 0 masks values out). `y_true` is read as
    booleans; a prediction above the threshold counts as positive. The
    count accumulates until `reset_state()`.

    Args:
        thresholds: Optional float, or list/tuple of floats, in `[0, 1]`. A
            prediction above a threshold counts as positive. With a list,
            one value is computed per threshold and `result()` is a vector.
            Defaults to `None`, which means `0.5`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means `"false_positives"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If a threshold is outside `[0, 1]`.

    Example:
        >>> metric = tfkit.metrics.FalsePositives()
        >>> metric.update_state([0, 1, 0, 0], [0, 0, 1, 1])
        >>> metric.result().numpy()
        np.float32(2.0)
    """

    _counts = ("fp",)


@registry.builtin("metrics", "true_negatives")
class TrueNegatives(_ConditionCount):
    """Calculate the number of true negatives.

    If `sample_weight` is given, the sum of the weights of the true negatives
    (a `sample_weight` of 0 masks values out). `y_true` is read as
    booleans; a prediction above the threshold counts as positive. The
    count accumulates until `reset_state()`.

    Args:
        thresholds: Optional float, or list/tuple of floats, in `[0, 1]`. A
            prediction above a threshold counts as positive. With a list,
            one value is computed per threshold and `result()` is a vector.
            Defaults to `None`, which means `0.5`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means `"true_negatives"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If a threshold is outside `[0, 1]`.

    Example:
        >>> metric = tfkit.metrics.TrueNegatives()
        >>> metric.update_state([0, 1, 0, 0], [1, 1, 0, 0])
        >>> metric.result().numpy()
        np.float32(2.0)
    """

    _counts = ("tn",)


@registry.builtin("metrics", "false_negatives")
class FalseNegatives(_ConditionCount):
    """Calculate the number of false negatives.

    If `sample_weight` is given, the sum of the weights of the false negatives
    (a `sample_weight` of 0 masks values out). `y_true` is read as
    booleans; a prediction above the threshold counts as positive. The
    count accumulates until `reset_state()`.

    Args:
        thresholds: Optional float, or list/tuple of floats, in `[0, 1]`. A
            prediction above a threshold counts as positive. With a list,
            one value is computed per threshold and `result()` is a vector.
            Defaults to `None`, which means `0.5`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means `"false_negatives"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If a threshold is outside `[0, 1]`.

    Example:
        >>> metric = tfkit.metrics.FalseNegatives()
        >>> metric.update_state([0, 1, 1, 1], [0, 1, 0, 0])
        >>> metric.result().numpy()
        np.float32(2.0)
    """

    _counts = ("fn",)
