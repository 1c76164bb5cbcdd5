"""Error metrics: running (weighted) means of the regression and crossentropy loss functions.

    rmse = RootMeanSquaredError()
    rmse.update_state([[0.0], [1.0]], [[1.0], [1.0]])
    rmse.result()                                  # sqrt(0.5)

Each class is the running mean of the same-named function in
:mod:`tfkit.losses` (Keras 3 names and defaults).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.losses import functions as F
from tfkit.losses.reduction import squeeze_or_expand_to_same_rank
from tfkit.metrics.reduction import BuiltinMeanMetric, Mean


@registry.builtin("metrics", "mean_squared_error", "mse", "MSE")
class MeanSquaredError(BuiltinMeanMetric):
    """Compute the mean squared error between `y_true` and `y_pred`.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.mean_squared_error` per sample.
    Per-sample weights weight each sample's error.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"mean_squared_error"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> metric = tfkit.metrics.MeanSquaredError()
        >>> metric.update_state(y_true, y_pred)
        >>> metric.result().numpy()
        np.float32(0.5)
        >>> metric.reset_state()
        >>> metric.update_state(y_true, y_pred, sample_weight=[1, 0])
        >>> metric.result().numpy()
        np.float32(0.5)
    """

    function = F.mean_squared_error

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "mean_absolute_error", "mae", "MAE")
class MeanAbsoluteError(BuiltinMeanMetric):
    """Compute the mean absolute error between `y_true` and `y_pred`.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.mean_absolute_error` per sample.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"mean_absolute_error"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> metric = tfkit.metrics.MeanAbsoluteError()
        >>> metric.update_state(y_true, y_pred)
        >>> metric.result().numpy()
        np.float32(0.5)
    """

    function = F.mean_absolute_error

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "mean_absolute_percentage_error", "mape", "MAPE")
class MeanAbsolutePercentageError(BuiltinMeanMetric):
    """Compute the mean absolute percentage error between `y_true` and `y_pred`.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.mean_absolute_percentage_error` per sample.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"mean_absolute_percentage_error"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[1.0, 2.0], [2.0, 4.0]]
        >>> y_pred = [[1.5, 2.0], [1.0, 4.0]]
        >>> metric = tfkit.metrics.MeanAbsolutePercentageError()
        >>> metric.update_state(y_true, y_pred)
        >>> metric.result().numpy()
        np.float32(25.0)
    """

    function = F.mean_absolute_percentage_error

    def __init__(self, name: str = "mean_absolute_percentage_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "mean_squared_logarithmic_error", "msle", "MSLE")
class MeanSquaredLogarithmicError(BuiltinMeanMetric):
    """Compute the mean squared logarithmic error between `y_true` and `y_pred`.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.mean_squared_logarithmic_error` per sample.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"mean_squared_logarithmic_error"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> metric = tfkit.metrics.MeanSquaredLogarithmicError()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.2402)
    """

    function = F.mean_squared_logarithmic_error

    def __init__(self, name: str = "mean_squared_logarithmic_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "root_mean_squared_error")
class RootMeanSquaredError(Mean):
    """Compute the root mean squared error metric between `y_true` and `y_pred`.

    `sqrt(mean(square(y_true - y_pred)))`: the squared errors are averaged
    per sample, then a running (weighted) mean over all samples seen since
    the last `reset_state()` is kept, and `result()` is its square root.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"root_mean_squared_error"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> metric = tfkit.metrics.RootMeanSquaredError()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.7071)
    """

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Accumulate the squared errors of one batch.

        Args:
            y_true: Ground truth values.
            y_pred: The predicted values, of `y_true`'s shape.
            sample_weight: Optional weights, a scalar or a tensor that
                broadcasts to the errors. Defaults to `None`.
        """
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), self.dtype)
        y_true = tf.cast(tf.convert_to_tensor(y_true), self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(tf.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self) -> tf.Tensor:
        """Return the root of the mean squared error so far, a scalar tensor."""
        return tf.sqrt(super().result())


def _cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> tf.Tensor:
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)`` (1 means same direction)."""
    return -F.cosine_similarity(y_true, y_pred, axis=axis)


@registry.builtin("metrics", "cosine_similarity")
class CosineSimilarity(BuiltinMeanMetric):
    """Compute the cosine similarity between the labels and predictions.

    `cosine_similarity = sum(l2_norm(y_true) * l2_norm(y_pred), axis)`, between
    -1 and 1 (1 for the same direction; unlike the loss, not negated),
    averaged over all samples seen.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"cosine_similarity"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        axis: The axis along which the cosine similarity is computed.
            Defaults to `-1`.

    Example:
        >>> y_true = [[0.0, 1.0], [1.0, 1.0]]
        >>> y_pred = [[1.0, 0.0], [1.0, 1.0]]
        >>> metric = tfkit.metrics.CosineSimilarity(axis=1)
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.5)
    """

    function = _cosine_similarity

    def __init__(self, name: str = "cosine_similarity", dtype: Any = None, axis: int = -1) -> None:
        super().__init__(name, dtype, axis=axis)


@registry.builtin("metrics", "log_cosh_error", "logcosh")
class LogCoshError(BuiltinMeanMetric):
    """Compute the logarithm of the hyperbolic cosine of the prediction error.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.log_cosh` per sample.
    Note the default name, `"logcosh"`, as in Keras 3.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"logcosh"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> metric = tfkit.metrics.LogCoshError()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.1471)
    """

    function = F.log_cosh

    def __init__(self, name: str = "logcosh", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "binary_crossentropy", "bce", "BCE")
class BinaryCrossentropy(BuiltinMeanMetric):
    """Compute the crossentropy metric between the labels and predictions.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.binary_crossentropy` per sample.
    Use it when there are only two label classes, 0 and 1.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"binary_crossentropy"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`; targets are smoothed towards
            0.5. Defaults to `0.0`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> metric = tfkit.metrics.BinaryCrossentropy()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.8149)
    """

    function = F.binary_crossentropy

    def __init__(
        self,
        name: str = "binary_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(name, dtype, from_logits=from_logits, label_smoothing=label_smoothing)


@registry.builtin("metrics", "categorical_crossentropy")
class CategoricalCrossentropy(BuiltinMeanMetric):
    """Compute the crossentropy metric between the labels and predictions.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.categorical_crossentropy` per sample.
    Use it with one-hot labels over two or more classes.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"categorical_crossentropy"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`; targets are smoothed to
            `t * (1 - label_smoothing) + label_smoothing / num_classes`.
            Defaults to `0.0`.
        axis: The class axis. Defaults to `-1`.

    Example:
        >>> y_true = [[0, 1, 0], [0, 0, 1]]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> metric = tfkit.metrics.CategoricalCrossentropy()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(1.1769)
    """

    function = F.categorical_crossentropy

    def __init__(
        self,
        name: str = "categorical_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
    ) -> None:
        super().__init__(name, dtype, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


@registry.builtin("metrics", "sparse_categorical_crossentropy")
class SparseCategoricalCrossentropy(BuiltinMeanMetric):
    """Compute the crossentropy metric between the labels and predictions, labels as integers.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.sparse_categorical_crossentropy` per sample.
    Use it with integer class ids over two or more classes. Targets equal
    to `ignore_class` are left out of the mean, as they are left out of the
    loss (Keras 3.15's metric counts them as zeros, so its value differs
    from the loss it tracks).

    Args:
        name: Optional name for the metric instance. Defaults to
            `"sparse_categorical_crossentropy"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        ignore_class: Optional integer, a class id to leave out. Defaults to
            `None`.
        axis: The class axis; only the last axis is supported. Defaults to
            `-1`.

    Example:
        >>> y_true = [1, 2]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> metric = tfkit.metrics.SparseCategoricalCrossentropy()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(1.1769)
    """

    function = F.sparse_categorical_crossentropy

    def __init__(
        self,
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        ignore_class: int | None = None,
        axis: int = -1,
    ) -> None:
        # ignore_class: those targets leave the mean, as they leave the loss's (Keras 3.15's metric counts
        # them as zeros, so its value differs from the loss it tracks)
        super().__init__(name, dtype, from_logits=from_logits, ignore_class=ignore_class, axis=axis)


@registry.builtin("metrics", "kl_divergence", "kld", "KLD")
class KLDivergence(BuiltinMeanMetric):
    """Compute the Kullback-Leibler divergence metric between `y_true` and `y_pred`.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.kl_divergence` per sample.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"kl_divergence"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.5, 0.5], [0.9, 0.1]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> metric = tfkit.metrics.KLDivergence()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.2855)
    """

    function = F.kl_divergence

    def __init__(self, name: str = "kl_divergence", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "poisson")
class Poisson(BuiltinMeanMetric):
    """Compute the Poisson metric between `y_true` and `y_pred`.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.poisson` per sample.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"poisson"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> metric = tfkit.metrics.Poisson()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.7291)
    """

    function = F.poisson

    def __init__(self, name: str = "poisson", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "hinge")
class Hinge(BuiltinMeanMetric):
    """Compute the hinge metric between `y_true` and `y_pred`.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.hinge` per sample.
    Labels should be -1 or 1; 0/1 labels are converted to -1/1.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"hinge"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> metric = tfkit.metrics.Hinge()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(1.3)
    """

    function = F.hinge

    def __init__(self, name: str = "hinge", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "squared_hinge")
class SquaredHinge(BuiltinMeanMetric):
    """Compute the squared hinge metric between `y_true` and `y_pred`.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.squared_hinge` per sample.
    Labels should be -1 or 1; 0/1 labels are converted to -1/1.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"squared_hinge"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> metric = tfkit.metrics.SquaredHinge()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(1.86)
    """

    function = F.squared_hinge

    def __init__(self, name: str = "squared_hinge", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "categorical_hinge")
class CategoricalHinge(BuiltinMeanMetric):
    """Compute the categorical hinge metric between `y_true` and `y_pred`.

    The running (weighted) mean, over all samples seen since the last
    `reset_state()`, of `tfkit.losses.categorical_hinge` per sample.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"categorical_hinge"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> metric = tfkit.metrics.CategoricalHinge()
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(1.4)
    """

    function = F.categorical_hinge

    def __init__(self, name: str = "categorical_hinge", dtype: Any = None) -> None:
        super().__init__(name, dtype)
