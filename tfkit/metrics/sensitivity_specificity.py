"""Metrics at a fixed operating point: PrecisionAtRecall, RecallAtPrecision,
SensitivityAtSpecificity and SpecificityAtSensitivity.

    metric = PrecisionAtRecall(recall=0.8, num_thresholds=200)
    metric.update_state(y_true, y_prob)
    metric.result()      # best precision among thresholds whose recall is >= 0.8

The confusion counts are kept per threshold with AUC's machinery
(:mod:`tfkit.metrics.confusion_matrix`): ``num_thresholds`` evenly spaced
thresholds in ``[0, 1]`` (a single threshold of 0.5 when ``num_thresholds=1``),
as in Keras 3.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.metrics.base import Metric
from tfkit.metrics.confusion_matrix import update_confusion_matrix_variables


class SensitivitySpecificityBase(Metric):
    """Per-threshold TP/FP/TN/FN counts and the "best value under a constraint" search."""

    #: the name of the constraint argument (``"recall"``, ``"precision"``, ...), for messages and configs.
    _constraint = "value"

    def __init__(
        self,
        value: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        cls = type(self).__name__
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{cls}: {self._constraint} must be a number in [0, 1], got {self._constraint}={value!r}")
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) or num_thresholds <= 0:
            raise ValueError(f"{cls}: num_thresholds must be an int > 0, got num_thresholds={num_thresholds!r}")
        if class_id is not None and (isinstance(class_id, bool) or not isinstance(class_id, int)):
            raise ValueError(f"{cls}: class_id must be an int or None, got class_id={class_id!r}")
        super().__init__(name=name, dtype=dtype)
        self.value = value
        self.num_thresholds = num_thresholds
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds = [0.5]
            self._evenly = False
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0] + inner + [1.0]
            self._evenly = True
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape, name="true_positives")
        self.false_positives = self.add_variable(shape, name="false_positives")
        self.true_negatives = self.add_variable(shape, name="true_negatives")
        self.false_negatives = self.add_variable(shape, name="false_negatives")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Accumulate the per-threshold confusion counts of one batch.

        Args:
            y_true: Ground truth values, read as booleans.
            y_pred: The predicted probabilities, in `[0, 1]`, of `y_true`'s
                shape.
            sample_weight: Optional weights, a scalar or a tensor that
                broadcasts to `y_pred`. Defaults to `None`.
        """
        update_confusion_matrix_variables(
            {
                "tp": self.true_positives,
                "tn": self.true_negatives,
                "fp": self.false_positives,
                "fn": self.false_negatives,
            },
            y_true,
            y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._evenly,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )

    def _rates(self) -> dict[str, tf.Tensor]:
        tp, fp = tf.identity(self.true_positives), tf.identity(self.false_positives)
        tn, fn = tf.identity(self.true_negatives), tf.identity(self.false_negatives)
        recall = tf.math.divide_no_nan(tp, tp + fn)
        return {
            "recall": recall,
            "sensitivity": recall,
            "precision": tf.math.divide_no_nan(tp, tp + fp),
            "specificity": tf.math.divide_no_nan(tn, tn + fp),
        }

    def _max_under_constraint(self, constrained: tf.Tensor, dependent: tf.Tensor) -> tf.Tensor:
        """The largest ``dependent`` among thresholds where ``constrained >= value`` (0 if none)."""
        feasible = constrained >= tf.cast(self.value, constrained.dtype)
        return tf.maximum(tf.reduce_max(tf.where(feasible, dependent, tf.zeros_like(dependent))), 0.0)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "class_id": self.class_id,
            "num_thresholds": self.num_thresholds,
            self._constraint: self.value,
        }


@registry.builtin("metrics")
class SensitivityAtSpecificity(SensitivitySpecificityBase):
    """Compute the best sensitivity where specificity is at least a given value.

    Sensitivity (recall) is `tp / (tp + fn)`, specificity `tn / (tn + fp)`.
    The weighted true/false positive/negative counts are kept per threshold
    (`num_thresholds` evenly spaced thresholds in `[0, 1]`, a prediction
    above a threshold counting as positive) and accumulate until
    `reset_state()`. `result()` is the largest sensitivity among the thresholds
    whose specificity is at least `specificity`, or 0 if there is none.

    Args:
        specificity: A number in `[0, 1]`, the minimal specificity.
        num_thresholds: The number of thresholds, an integer `> 0`: evenly
            spaced in `[0, 1]`, or the single threshold 0.5 when `1`.
            Defaults to `200`.
        class_id: Optional int, a class index: the metric is computed on
            that column of `(batch_size, num_classes)` data only.
            Defaults to `None`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means the snake-case class name.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If `specificity` is not a number in `[0, 1]`,
            `num_thresholds` is not an int `> 0`, or `class_id` is not an
            int or `None`.

    Example:
        >>> metric = tfkit.metrics.SensitivityAtSpecificity(0.5)
        >>> metric.update_state([0, 0, 0, 1, 1], [0.0, 0.3, 0.8, 0.3, 0.8])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.5)
    """

    _constraint = "specificity"

    def __init__(
        self,
        specificity: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(specificity, num_thresholds, class_id, name=name, dtype=dtype)
        self.specificity = specificity

    def result(self) -> tf.Tensor:
        rates = self._rates()
        return self._max_under_constraint(rates["specificity"], rates["sensitivity"])


@registry.builtin("metrics")
class SpecificityAtSensitivity(SensitivitySpecificityBase):
    """Compute the best specificity where sensitivity is at least a given value.

    Sensitivity (recall) is `tp / (tp + fn)`, specificity `tn / (tn + fp)`.
    The weighted true/false positive/negative counts are kept per threshold
    (`num_thresholds` evenly spaced thresholds in `[0, 1]`, a prediction
    above a threshold counting as positive) and accumulate until
    `reset_state()`. `result()` is the largest specificity among the thresholds
    whose sensitivity is at least `sensitivity`, or 0 if there is none.

    Args:
        sensitivity: A number in `[0, 1]`, the minimal sensitivity.
        num_thresholds: The number of thresholds, an integer `> 0`: evenly
            spaced in `[0, 1]`, or the single threshold 0.5 when `1`.
            Defaults to `200`.
        class_id: Optional int, a class index: the metric is computed on
            that column of `(batch_size, num_classes)` data only.
            Defaults to `None`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means the snake-case class name.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If `sensitivity` is not a number in `[0, 1]`,
            `num_thresholds` is not an int `> 0`, or `class_id` is not an
            int or `None`.

    Example:
        >>> metric = tfkit.metrics.SpecificityAtSensitivity(0.5)
        >>> metric.update_state([0, 0, 0, 1, 1], [0.0, 0.3, 0.8, 0.3, 0.8])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.6667)
    """

    _constraint = "sensitivity"

    def __init__(
        self,
        sensitivity: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(sensitivity, num_thresholds, class_id, name=name, dtype=dtype)
        self.sensitivity = sensitivity

    def result(self) -> tf.Tensor:
        rates = self._rates()
        return self._max_under_constraint(rates["sensitivity"], rates["specificity"])


@registry.builtin("metrics")
class PrecisionAtRecall(SensitivitySpecificityBase):
    """Compute the best precision where recall is at least a given value.

    Precision is `tp / (tp + fp)`, recall `tp / (tp + fn)`.
    The weighted true/false positive/negative counts are kept per threshold
    (`num_thresholds` evenly spaced thresholds in `[0, 1]`, a prediction
    above a threshold counting as positive) and accumulate until
    `reset_state()`. `result()` is the largest precision among the thresholds
    whose recall is at least `recall`, or 0 if there is none.

    Args:
        recall: A number in `[0, 1]`, the minimal recall.
        num_thresholds: The number of thresholds, an integer `> 0`: evenly
            spaced in `[0, 1]`, or the single threshold 0.5 when `1`.
            Defaults to `200`.
        class_id: Optional int, a class index: the metric is computed on
            that column of `(batch_size, num_classes)` data only.
            Defaults to `None`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means the snake-case class name.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If `recall` is not a number in `[0, 1]`,
            `num_thresholds` is not an int `> 0`, or `class_id` is not an
            int or `None`.

    Example:
        >>> metric = tfkit.metrics.PrecisionAtRecall(0.5)
        >>> metric.update_state([0, 0, 0, 1, 1], [0.0, 0.3, 0.8, 0.3, 0.8])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.5)
    """

    _constraint = "recall"

    def __init__(
        self,
        recall: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(recall, num_thresholds, class_id, name=name, dtype=dtype)
        self.recall = recall

    def result(self) -> tf.Tensor:
        rates = self._rates()
        return self._max_under_constraint(rates["recall"], rates["precision"])


@registry.builtin("metrics")
class RecallAtPrecision(SensitivitySpecificityBase):
    """Compute the best recall where precision is at least a given value.

    Precision is `tp / (tp + fp)`, recall `tp / (tp + fn)`.
    The weighted true/false positive/negative counts are kept per threshold
    (`num_thresholds` evenly spaced thresholds in `[0, 1]`, a prediction
    above a threshold counting as positive) and accumulate until
    `reset_state()`. `result()` is the largest recall among the thresholds
    whose precision is at least `precision`, or 0 if there is none.

    Args:
        precision: A number in `[0, 1]`, the minimal precision.
        num_thresholds: The number of thresholds, an integer `> 0`: evenly
            spaced in `[0, 1]`, or the single threshold 0.5 when `1`.
            Defaults to `200`.
        class_id: Optional int, a class index: the metric is computed on
            that column of `(batch_size, num_classes)` data only.
            Defaults to `None`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means the snake-case class name.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If `precision` is not a number in `[0, 1]`,
            `num_thresholds` is not an int `> 0`, or `class_id` is not an
            int or `None`.

    Example:
        >>> metric = tfkit.metrics.RecallAtPrecision(0.8)
        >>> metric.update_state([0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.5)
    """

    _constraint = "precision"

    def __init__(
        self,
        precision: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(precision, num_thresholds, class_id, name=name, dtype=dtype)
        self.precision = precision

    def result(self) -> tf.Tensor:
        rates = self._rates()
        return self._max_under_constraint(rates["precision"], rates["recall"])
