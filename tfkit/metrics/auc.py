"""AUC: area under the ROC or precision-recall curve, approximated over fixed thresholds.

    auc = AUC(num_thresholds=200, curve="ROC")
    auc.update_state(y_true, y_prob)
    auc.result()

Predictions are bucketed by ``num_thresholds`` evenly spaced thresholds in
``[0, 1]`` (plus ``-eps`` and ``1 + eps`` at the ends); the curve through
the per-threshold (FPR, TPR) or (recall, precision) points is then summed
with Keras 3's rules: ``"interpolation"`` uses trapezoids for ROC and the
Davis & Goadrich (2006) interpolation for PR, ``"minoring"`` /
``"majoring"`` the lower / upper Riemann sums.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.losses.reduction import EPSILON
from tfkit.metrics.base import Metric, plain_data
from tfkit.metrics.confusion_matrix import is_evenly_distributed, update_confusion_matrix_variables

CURVES = ("ROC", "PR")
SUMMATION_METHODS = ("interpolation", "minoring", "majoring")


@registry.builtin("metrics", "auc")
class AUC(Metric):
    """Approximate the AUC (area under the curve) of the ROC or PR curves.

    The AUC of the ROC curve (true positive rate against false positive
    rate) or of the precision-recall curve, for binary (or multi-label)
    classifiers. Predictions are bucketed by `num_thresholds` evenly spaced
    thresholds in `[0, 1]` (plus `-epsilon` and `1 + epsilon` at the ends,
    `epsilon = 1e-7`); the weighted true/false positive/negative counts per
    threshold accumulate until `reset_state()`, and `result()` sums the
    curve through the per-threshold points with `summation_method`. The
    approximation improves with `num_thresholds`. `y_pred` should hold
    probabilities in `[0, 1]` (or logits with `from_logits=True`).

    Args:
        num_thresholds: The number of thresholds used to discretize the
            curve, an integer `> 1`. Defaults to `200`.
        curve: `"ROC"` or `"PR"` (precision-recall), case-insensitive.
            Defaults to `"ROC"`.
        summation_method: How the curve is summed: `"interpolation"`
            (trapezoids for ROC, the Davis & Goadrich (2006) interpolation
            of precision for PR), `"minoring"` (lower Riemann sum) or
            `"majoring"` (upper Riemann sum). Defaults to `"interpolation"`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means `"auc"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        thresholds: Optional list of thresholds in `[0, 1]`, used instead of
            `num_thresholds` (which becomes `len(thresholds) + 2`, the two
            end points added). Defaults to `None`.
        multi_label: Whether `y_pred` holds several independent labels (last
            axis): one AUC is computed per label and they are averaged.
            With `False`, all labels are flattened into one binary problem.
            Defaults to `False`.
        num_labels: The number of labels with `multi_label=True`; when
            `None`, found from `y_pred`'s last axis at the first update.
            Defaults to `None`.
        label_weights: Optional non-negative weights, one per label: with
            `multi_label=True`, the weights of the per-label AUCs' average;
            otherwise they weight each label's predictions in the counts.
            Defaults to `None`.
        from_logits: Whether `y_pred` holds logits (a sigmoid is applied
            first). Defaults to `False`.

    Raises:
        ValueError: If `curve` or `summation_method` is not one of the values
            above, `num_thresholds <= 1`, a threshold is outside `[0, 1]`,
            `num_labels` is given without `multi_label=True`, or (at the
            first update with `multi_label=True`) `y_pred` is not of shape
            `(batch_size, num_labels)`.

    Example:
        >>> metric = tfkit.metrics.AUC(num_thresholds=3)
        >>> metric.update_state([0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9])
        >>> metric.result().numpy()
        np.float32(0.75)
        >>> metric.thresholds
        [-1e-07, 0.5, 1.0000001]
        >>> metric = tfkit.metrics.AUC(curve="PR")
        >>> metric.update_state([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.7973)
    """

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: str = "ROC",
        summation_method: str = "interpolation",
        name: str | None = None,
        dtype: Any = None,
        thresholds: Any = None,
        multi_label: bool = False,
        num_labels: int | None = None,
        label_weights: Any = None,
        from_logits: bool = False,
    ) -> None:
        super().__init__(name=name or "auc", dtype=dtype)
        if str(curve).upper() not in CURVES:
            raise ValueError(f"AUC curve must be one of {CURVES}, got {curve!r}")
        if str(summation_method).lower() not in SUMMATION_METHODS:
            raise ValueError(f"AUC summation_method must be one of {SUMMATION_METHODS}, got {summation_method!r}")
        self.curve = str(curve).upper()
        self.summation_method = str(summation_method).lower()
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            if any(not 0.0 <= t <= 1.0 for t in inner):
                raise ValueError(f"AUC thresholds must be in [0, 1], got {list(thresholds)}")
            self.num_thresholds = len(inner) + 2
            self._evenly = is_evenly_distributed([0.0] + inner + [1.0])
        else:
            if int(num_thresholds) <= 1:
                raise ValueError(f"AUC num_thresholds must be an integer > 1, got {num_thresholds}")
            self.num_thresholds = int(num_thresholds)
            inner = [(i + 1) * 1.0 / (self.num_thresholds - 1) for i in range(self.num_thresholds - 2)]
            self._evenly = True
        self._thresholds = [0.0 - EPSILON] + inner + [1.0 + EPSILON]
        self.multi_label = bool(multi_label)
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else np.asarray(label_weights, dtype=self.dtype).tolist()
        self.from_logits = bool(from_logits)
        self._built = False
        if not self.multi_label:
            if num_labels:
                raise ValueError("AUC: num_labels is only used with multi_label=True")
            self._build(None)
        elif num_labels:
            self._build(int(num_labels))

    @property
    def thresholds(self) -> list[float]:
        """The thresholds, including the ``-eps`` and ``1 + eps`` end points."""
        return list(self._thresholds)

    def _build(self, num_labels: int | None) -> None:
        shape = (self.num_thresholds,) if num_labels is None else (self.num_thresholds, num_labels)
        self._num_labels = num_labels
        self.true_positives = self.add_variable(shape, name="true_positives")
        self.false_positives = self.add_variable(shape, name="false_positives")
        self.true_negatives = self.add_variable(shape, name="true_negatives")
        self.false_negatives = self.add_variable(shape, name="false_negatives")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Accumulate the per-threshold confusion counts of one batch.

        Args:
            y_true: Ground truth values, read as booleans.
            y_pred: The predicted probabilities (or logits with
                `from_logits=True`), of `y_true`'s shape.
            sample_weight: Optional weights, a scalar or a tensor that
                broadcasts to `y_pred`. Defaults to `None`.

        Raises:
            ValueError: At the first update with `multi_label=True` and no
                `num_labels`, if `y_pred` is not of shape
                `(batch_size, num_labels)`.
        """
        y_pred = tf.convert_to_tensor(y_pred)
        if not self._built:
            if y_pred.shape.rank != 2 or y_pred.shape[-1] is None:
                raise ValueError(
                    f"AUC '{self.name}' with multi_label=True expects y_pred of shape (batch, num_labels); "
                    f"got {y_pred.shape}"
                )
            self._build(int(y_pred.shape[-1]))
        if self.from_logits:
            y_pred = tf.sigmoid(y_pred)
        update_confusion_matrix_variables(
            {
                "tp": self.true_positives,
                "tn": self.true_negatives,
                "fp": self.false_positives,
                "fn": self.false_negatives,
            },
            y_true,
            y_pred,
            self._thresholds,
            thresholds_distributed_evenly=self._evenly,
            sample_weight=sample_weight,
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights,
        )

    def _average_labels(self, by_threshold: tf.Tensor) -> tf.Tensor:
        """Sum the per-interval areas; with multi_label, average the per-label AUCs."""
        if not self.multi_label:
            return tf.reduce_sum(by_threshold)
        by_label = tf.reduce_sum(by_threshold, axis=0)
        if self.label_weights is None:
            return tf.reduce_mean(by_label)
        weights = tf.constant(self.label_weights, by_label.dtype)
        return tf.math.divide_no_nan(tf.reduce_sum(by_label * weights), tf.reduce_sum(weights))

    def _interpolate_pr_auc(self, tp: tf.Tensor, fp: tf.Tensor, fn: tf.Tensor) -> tf.Tensor:
        """PR AUC with precision interpolated between thresholds (Davis & Goadrich 2006).

        Between two thresholds, TP and P = TP + FP vary linearly, so
        precision = (TP_A + slope (P - P_A)) / P and its integral over recall
        is ``slope * (dTP + intercept * log(P_B / P_A)) / total_positives``.
        """
        n = self.num_thresholds
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        slope = tf.math.divide_no_nan(dtp, tf.maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        both_positive = tf.logical_and(p[: n - 1] > 0, p[1:] > 0)
        ratio = tf.where(both_positive, tf.math.divide_no_nan(p[: n - 1], tf.maximum(p[1:], 0.0)), tf.ones_like(p[1:]))
        increments = tf.math.divide_no_nan(
            slope * (dtp + intercept * tf.math.log(ratio)), tf.maximum(tp[1:] + fn[1:], 0.0)
        )
        return self._average_labels(increments)

    def result(self) -> tf.Tensor:
        """Return the area under the curve so far, a scalar tensor."""
        tp, fp = tf.identity(self.true_positives), tf.identity(self.false_positives)
        tn, fn = tf.identity(self.true_negatives), tf.identity(self.false_negatives)
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc(tp, fp, fn)
        recall = tf.math.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = tf.math.divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, tf.math.divide_no_nan(tp, tp + fp)
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = tf.minimum(y[: n - 1], y[1:])
        else:
            heights = tf.maximum(y[: n - 1], y[1:])
        return self._average_labels((x[: n - 1] - x[1:]) * heights)

    def reset_state(self) -> None:
        """Reset the counts to zero (a no-op before a multi-label metric is built)."""
        if self._built:
            super().reset_state()

    def get_config(self) -> dict[str, Any]:
        config = {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": plain_data(self.label_weights),
            "from_logits": self.from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = plain_data(self._thresholds[1:-1])
        return config
