"""R2Score: the coefficient of determination of a regression, accumulated over batches.

    r2 = R2Score()
    r2.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
    r2.result()                 # 1 - sum((y - y_hat)^2) / sum((y - mean(y))^2) = 0.5714

Inputs are ``(batch, outputs)``; the state (per-output sums) is created at
the first update, when the number of outputs is known. ``class_aggregation``
and ``num_regressors`` (adjusted R2) follow Keras 3.
"""

from __future__ import annotations

import warnings
from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.losses.reduction import squeeze_or_expand_to_same_rank
from tfkit.metrics.base import Metric

CLASS_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


@registry.builtin("metrics", "r2_score")
class R2Score(Metric):
    """Compute the R2 score, the coefficient of determination of a regression.

    `R2 = 1 - SS_res / SS_tot` per output, where `SS_res` is the sum of
    squared residuals `sum((y_true - y_pred)^2)` and `SS_tot` the total sum
    of squares `sum((y_true - mean(y_true))^2)`, accumulated over every
    batch since the last `reset_state()`. It is 1 for perfect predictions,
    0 for predicting the mean, and can be negative. With `num_regressors`,
    the adjusted R2 `1 - (1 - R2) * (n - 1) / (n - p - 1)` is returned,
    `n` the number of values seen and `p` the number of regressors (falling
    back, with a warning when eager, to the plain score when `p >= n - 1`).

    Inputs are `(batch_size, num_outputs)`; the per-output state is created
    at the first update, when the number of outputs is known. `result()` is
    0 before any update.

    Args:
        class_aggregation: How to aggregate the per-output scores:
            `"uniform_average"` (their mean), `"variance_weighted_average"`
            (their mean weighted by each output's variance), or `None` (one
            score per output). Defaults to `"uniform_average"`.
        num_regressors: The number of independent regressors of the model,
            for the adjusted R2; `0` gives the plain R2. Defaults to `0`.
        name: Optional name for the metric instance. Defaults to
            `"r2_score"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Raises:
        ValueError: If `class_aggregation` is not one of the values above,
            `num_regressors` is not an int `>= 0`, or (at the first update)
            the inputs are not 2D with a known last dimension.

    Example:
        >>> metric = tfkit.metrics.R2Score()
        >>> metric.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.5714)
        >>> metric = tfkit.metrics.R2Score(class_aggregation=None)
        >>> metric.update_state([[1.0, 0.0], [4.0, 1.0], [3.0, 2.0]], [[2.0, 0.0], [4.0, 1.0], [4.0, 3.0]])
        >>> np.round(metric.result().numpy(), 4)
        array([0.5714, 0.5   ], dtype=float32)
    """

    def __init__(
        self,
        class_aggregation: str | None = "uniform_average",
        num_regressors: int = 0,
        name: str = "r2_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in CLASS_AGGREGATIONS:
            raise ValueError(
                f"R2Score: class_aggregation must be one of {CLASS_AGGREGATIONS}, got class_aggregation={class_aggregation!r}"
            )
        if isinstance(num_regressors, bool) or not isinstance(num_regressors, int) or num_regressors < 0:
            raise ValueError(f"R2Score: num_regressors must be an int >= 0, got num_regressors={num_regressors!r}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable((), name="num_samples")
        self._built = False

    def _build(self, y_true_shape: tf.TensorShape, y_pred_shape: tf.TensorShape) -> None:
        if y_pred_shape.rank != 2 or y_true_shape.rank != 2 or y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError(
                f"R2Score '{self.name}' expects 2D inputs of shape (batch_size, output_dim) with output_dim known; "
                f"got y_true.shape={y_true_shape} and y_pred.shape={y_pred_shape}"
            )
        outputs = int(y_pred_shape[-1])
        self.squared_sum = self.add_variable((outputs,), name="squared_sum")
        self.sum = self.add_variable((outputs,), name="sum")
        self.total_mse = self.add_variable((outputs,), name="residual")
        self.count = self.add_variable((outputs,), name="count")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Accumulate the per-output sums of one batch.

        Args:
            y_true: Ground truth values, of shape `(batch_size, num_outputs)`.
            y_pred: The predicted values, of `y_true`'s shape.
            sample_weight: Optional weights: a scalar, one weight per sample
                (`(batch_size,)`), or a tensor that broadcasts to `y_true`.
                Defaults to `None`.

        Raises:
            ValueError: At the first update, if the inputs are not 2D with a
                known last dimension.
        """
        y_true = tf.cast(tf.convert_to_tensor(y_true), self.dtype)
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        weight = (
            tf.ones((), self.dtype)
            if sample_weight is None
            else tf.cast(tf.convert_to_tensor(sample_weight), self.dtype)
        )
        if weight.shape.rank == 1:
            weight = tf.expand_dims(weight, 1)
        weight = tf.broadcast_to(weight, tf.shape(y_true))
        weighted_true = y_true * weight
        self.sum.assign_add(tf.reduce_sum(weighted_true, axis=0))
        self.squared_sum.assign_add(tf.reduce_sum(y_true * weighted_true, axis=0))
        self.total_mse.assign_add(tf.reduce_sum(tf.square(y_true - y_pred) * weight, axis=0))
        self.count.assign_add(tf.reduce_sum(weight, axis=0))
        self.num_samples.assign_add(tf.cast(tf.size(y_true), self.dtype))

    def result(self) -> tf.Tensor:
        """Return the R2 score so far: a scalar, or one score per output with `class_aggregation=None`."""
        if not self._built:
            return tf.constant(0.0, self.dtype)
        total_sum = tf.identity(self.sum)
        mean = total_sum / tf.identity(self.count)
        total = tf.identity(self.squared_sum) - total_sum * mean
        raw = 1.0 - tf.identity(self.total_mse) / total
        raw = tf.where(tf.math.is_inf(raw), tf.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = tf.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = tf.reduce_sum(total * raw) / tf.reduce_sum(total)
        else:
            score = raw
        if self.num_regressors == 0:
            return score
        n = tf.cast(tf.identity(self.num_samples), tf.float32)
        p = tf.constant(float(self.num_regressors), tf.float32)
        if tf.executing_eagerly() and self.num_regressors >= float(n.numpy()) - 1:
            warnings.warn(
                f"R2Score '{self.name}': num_regressors={self.num_regressors} leaves no degrees of freedom for "
                f"{int(n.numpy())} values; falling back to the standard R2 score.",
                stacklevel=2,
            )
        adjusted = 1.0 - (1.0 - tf.cast(score, tf.float32)) * (n - 1.0) / (n - p - 1.0)
        # Keras 3 falls back to the plain score when p >= n - 1.
        return tf.where(p < n - 1.0, tf.cast(adjusted, score.dtype), score)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }
