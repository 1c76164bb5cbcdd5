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
    """``tp / (tp + fp)``: the fraction of positive predictions that are right."""

    _counts = ("tp", "fp")

    def __init__(
        self, thresholds: Any = None, top_k: int | None = None, class_id: int | None = None,
        name: str | None = None, dtype: Any = None,
    ) -> None:
        super().__init__(thresholds, top_k, class_id, name=name or "precision", dtype=dtype)

    def result(self) -> tf.Tensor:
        tp, fp = tf.identity(self.true_positives), tf.identity(self.false_positives)
        return self._per_threshold(tf.math.divide_no_nan(tp, tp + fp))


@registry.builtin("metrics", "recall")
class Recall(_ThresholdedMetric):
    """``tp / (tp + fn)``: the fraction of actual positives that are found."""

    _counts = ("tp", "fn")

    def __init__(
        self, thresholds: Any = None, top_k: int | None = None, class_id: int | None = None,
        name: str | None = None, dtype: Any = None,
    ) -> None:
        super().__init__(thresholds, top_k, class_id, name=name or "recall", dtype=dtype)

    def result(self) -> tf.Tensor:
        tp, fn = tf.identity(self.true_positives), tf.identity(self.false_negatives)
        return self._per_threshold(tf.math.divide_no_nan(tp, tp + fn))


class _ConditionCount(_ThresholdedMetric):
    """One weighted count (``tp``, ``fp``, ``tn`` or ``fn``) per threshold."""

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(thresholds, None, None, name=name, dtype=dtype)

    def result(self) -> tf.Tensor:
        return self._per_threshold(tf.identity(self._metric_variables[0]))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["top_k"], config["class_id"]
        return config


@registry.builtin("metrics", "true_positives")
class TruePositives(_ConditionCount):
    """Weighted count of positive labels predicted positive."""

    _counts = ("tp",)


@registry.builtin("metrics", "false_positives")
class FalsePositives(_ConditionCount):
    """Weighted count of negative labels predicted positive."""

    _counts = ("fp",)


@registry.builtin("metrics", "true_negatives")
class TrueNegatives(_ConditionCount):
    """Weighted count of negative labels predicted negative."""

    _counts = ("tn",)


@registry.builtin("metrics", "false_negatives")
class FalseNegatives(_ConditionCount):
    """Weighted count of positive labels predicted negative."""

    _counts = ("fn",)
