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
    """Running mean of ``mean(square(y_true - y_pred), -1)``."""

    function = F.mean_squared_error

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "mean_absolute_error", "mae", "MAE")
class MeanAbsoluteError(BuiltinMeanMetric):
    """Running mean of ``mean(abs(y_true - y_pred), -1)``."""

    function = F.mean_absolute_error

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "mean_absolute_percentage_error", "mape", "MAPE")
class MeanAbsolutePercentageError(BuiltinMeanMetric):
    """Running mean of the absolute percentage error."""

    function = F.mean_absolute_percentage_error

    def __init__(self, name: str = "mean_absolute_percentage_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "mean_squared_logarithmic_error", "msle", "MSLE")
class MeanSquaredLogarithmicError(BuiltinMeanMetric):
    """Running mean of the squared logarithmic error."""

    function = F.mean_squared_logarithmic_error

    def __init__(self, name: str = "mean_squared_logarithmic_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "root_mean_squared_error")
class RootMeanSquaredError(Mean):
    """``sqrt`` of the running (weighted) mean of squared errors."""

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), self.dtype)
        y_true = tf.cast(tf.convert_to_tensor(y_true), self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(tf.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self) -> tf.Tensor:
        return tf.sqrt(super().result())


def _cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> tf.Tensor:
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)`` (1 means same direction)."""
    return -F.cosine_similarity(y_true, y_pred, axis=axis)


@registry.builtin("metrics", "cosine_similarity")
class CosineSimilarity(BuiltinMeanMetric):
    """Running mean of the cosine similarity between labels and predictions."""

    function = _cosine_similarity

    def __init__(self, name: str = "cosine_similarity", dtype: Any = None, axis: int = -1) -> None:
        super().__init__(name, dtype, axis=axis)


@registry.builtin("metrics", "log_cosh_error", "logcosh")
class LogCoshError(BuiltinMeanMetric):
    """Running mean of ``log(cosh(y_pred - y_true))``."""

    function = F.log_cosh

    def __init__(self, name: str = "logcosh", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "binary_crossentropy", "bce", "BCE")
class BinaryCrossentropy(BuiltinMeanMetric):
    """Running mean of the binary crossentropy."""

    function = F.binary_crossentropy

    def __init__(
        self, name: str = "binary_crossentropy", dtype: Any = None, from_logits: bool = False, label_smoothing: float = 0.0
    ) -> None:
        super().__init__(name, dtype, from_logits=from_logits, label_smoothing=label_smoothing)


@registry.builtin("metrics", "categorical_crossentropy")
class CategoricalCrossentropy(BuiltinMeanMetric):
    """Running mean of the categorical crossentropy."""

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
    """Running mean of the sparse categorical crossentropy."""

    function = F.sparse_categorical_crossentropy

    def __init__(self, name: str = "sparse_categorical_crossentropy", dtype: Any = None, from_logits: bool = False,
                 ignore_class: int | None = None, axis: int = -1) -> None:
        # ignore_class: those targets leave the mean, as they leave the loss's (Keras 3.15's metric counts
        # them as zeros, so its value differs from the loss it tracks)
        super().__init__(name, dtype, from_logits=from_logits, ignore_class=ignore_class, axis=axis)


@registry.builtin("metrics", "kl_divergence", "kld", "KLD")
class KLDivergence(BuiltinMeanMetric):
    """Running mean of the Kullback-Leibler divergence."""

    function = F.kl_divergence

    def __init__(self, name: str = "kl_divergence", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "poisson")
class Poisson(BuiltinMeanMetric):
    """Running mean of the Poisson loss."""

    function = F.poisson

    def __init__(self, name: str = "poisson", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "hinge")
class Hinge(BuiltinMeanMetric):
    """Running mean of the hinge loss."""

    function = F.hinge

    def __init__(self, name: str = "hinge", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "squared_hinge")
class SquaredHinge(BuiltinMeanMetric):
    """Running mean of the squared hinge loss."""

    function = F.squared_hinge

    def __init__(self, name: str = "squared_hinge", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "categorical_hinge")
class CategoricalHinge(BuiltinMeanMetric):
    """Running mean of the categorical hinge loss."""

    function = F.categorical_hinge

    def __init__(self, name: str = "categorical_hinge", dtype: Any = None) -> None:
        super().__init__(name, dtype)
