"""Metrics: Keras 3 metric classes as ``tf.Module``s with distribution-aware state.

    acc = tfkit.metrics.get("sparse_categorical_accuracy")
    acc.update_state(y_true, y_pred); acc.result()
    tfkit.metrics.resolve_accuracy("accuracy", loss, y_true.shape, y_pred.shape)  # the right accuracy

Module map: ``base`` (``Metric``), ``reduction`` (``Mean``, ``Sum``,
``MeanMetricWrapper``), ``accuracy``, ``regression`` (error and
crossentropy means), ``confusion_matrix`` (threshold counting),
``confusion`` (``Precision``, ``Recall``, counts), ``auc``, ``f_score``,
``iou`` (IoU family), ``correlation`` (Pearson, concordance), ``r2_score``,
``sensitivity_specificity`` (PrecisionAtRecall and the like).
``identifiers`` holds lookup and (de)serialization, ``compile_resolution``
``compile``'s name rules (which accuracy ``"accuracy"`` means).
"""

from __future__ import annotations

from tfkit.metrics.accuracy import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from tfkit.metrics.auc import AUC
from tfkit.metrics.base import Metric
from tfkit.metrics.compile_resolution import resolve_accuracy, resolve_compile_metric
from tfkit.metrics.confusion import FalseNegatives, FalsePositives, Precision, Recall, TrueNegatives, TruePositives
from tfkit.metrics.correlation import (
    ConcordanceCorrelation,
    PearsonCorrelation,
    concordance_correlation,
    pearson_correlation,
)
from tfkit.metrics.f_score import F1Score, FBetaScore
from tfkit.metrics.identifiers import deserialize, get, serialize
from tfkit.metrics.iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from tfkit.metrics.r2_score import R2Score
from tfkit.metrics.reduction import Mean, MeanMetricWrapper, Sum
from tfkit.metrics.regression import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Hinge,
    KLDivergence,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    RootMeanSquaredError,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from tfkit.metrics.sensitivity_specificity import (
    PrecisionAtRecall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
)

__all__ = [
    "Metric",
    "Mean",
    "Sum",
    "MeanMetricWrapper",
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "SparseCategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy",
    "MeanSquaredError",
    "RootMeanSquaredError",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "CosineSimilarity",
    "LogCoshError",
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "KLDivergence",
    "Poisson",
    "Hinge",
    "SquaredHinge",
    "CategoricalHinge",
    "AUC",
    "Precision",
    "Recall",
    "TruePositives",
    "FalsePositives",
    "TrueNegatives",
    "FalseNegatives",
    "F1Score",
    "FBetaScore",
    "IoU",
    "MeanIoU",
    "BinaryIoU",
    "OneHotIoU",
    "OneHotMeanIoU",
    "R2Score",
    "PearsonCorrelation",
    "ConcordanceCorrelation",
    "pearson_correlation",
    "concordance_correlation",
    "PrecisionAtRecall",
    "RecallAtPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "sparse_categorical_accuracy",
    "top_k_categorical_accuracy",
    "sparse_top_k_categorical_accuracy",
    "get",
    "serialize",
    "deserialize",
    "resolve_accuracy",
    "resolve_compile_metric",
]

# Keras 3's keras.metrics also exposes the per-sample loss functions under their names: all of
# tfkit.losses.functions but cosine_similarity, and categorical_focal_crossentropy.
from tfkit.losses import functions as _loss_functions  # noqa: E402
from tfkit.losses.extra_functions import categorical_focal_crossentropy  # noqa: E402,F401
from tfkit.losses.functions import *  # noqa: E402,F403

del cosine_similarity  # noqa: F821  (keras.metrics has the CosineSimilarity class only)
__all__ += [name for name in _loss_functions.__all__ if name != "cosine_similarity"] + [
    "categorical_focal_crossentropy"
]
