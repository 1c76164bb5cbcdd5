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
This file adds lookup, (de)serialization and ``compile``'s name rules.
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit import losses as _losses
from tfkit.base import registry
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
from tfkit.metrics.confusion import (
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
)
from tfkit.metrics.correlation import (
    ConcordanceCorrelation,
    PearsonCorrelation,
    concordance_correlation,
    pearson_correlation,
)
from tfkit.metrics.f_score import F1Score, FBetaScore
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

ACCURACY_NAMES = ("accuracy", "acc")


def _wrap(obj: Any, name: str | None) -> Metric:
    if isinstance(obj, type) and issubclass(obj, Metric):
        obj = obj()
    if isinstance(obj, Metric):
        return obj
    if callable(obj):
        return MeanMetricWrapper(obj, name=name or getattr(obj, "__name__", None))
    raise ValueError(
        f"Could not interpret metric identifier {obj!r}: expected a metric name such as 'mae', "
        "a {'class_name': ..., 'config': ...} dict, a Metric instance or class, or a function fn(y_true, y_pred)"
    )


def get(identifier: Any) -> Metric | None:
    """Retrieve a Keras metric as a `Metric` instance.

    A string gives a fresh metric named after that string, as Keras's
    `compile(metrics=["mae"])` does (`get("mse").name == "mse"`); a built-in
    loss function's name (such as `"huber"`) gives its running mean. A
    config dict is deserialized, a `Metric` subclass gives a default
    instance, a `Metric` instance and `None` come back as they are, and a
    function `fn(y_true, y_pred)` is wrapped in a `MeanMetricWrapper`.
    `"accuracy"` here is the exact-match `Accuracy`; `compile` resolves it
    with `resolve_accuracy` instead.

    Args:
        identifier: A metric name, a config dict, a `Metric` subclass or
            instance, a function `fn(y_true, y_pred)`, or `None`.

    Returns:
        A `Metric` instance, or `None` for `None`.

    Raises:
        ValueError: If `identifier` is an unknown name or cannot be
            interpreted as a metric.

    Example:
        >>> tfkit.metrics.get("mse")
        <MeanSquaredError name=mse>
        >>> tfkit.metrics.get("huber")
        <MeanMetricWrapper name=huber>
        >>> tfkit.metrics.get(tfkit.metrics.AUC)
        <AUC name=auc>
    """
    if identifier is None or isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        try:
            obj = registry.resolve("metrics", identifier)
        except ValueError:
            obj = _loss_function_named(identifier)
            if obj is None:
                raise
        metric = _wrap(obj, identifier)
        metric.name = identifier
        return metric
    if isinstance(identifier, dict):
        return _wrap(deserialize(identifier), None)
    return _wrap(identifier, None)


def _loss_function_named(name: str) -> Any:
    """A built-in loss function such as ``"huber"`` usable as a metric, else None."""
    try:
        fn = registry.lookup("functions", name)
    except ValueError:
        return None
    return fn if getattr(_losses, name, None) is fn else None


def serialize(metric: Any) -> Any:
    """Serialize a metric to plain data, for saving in a config.

    Args:
        metric: A `Metric` instance (or class), a registered metric
            function, or `None`.

    Returns:
        A `{"class_name": ..., "config": ...}` dict for a `Metric`, the
        registered name for a function, or `None` for `None`.

    Raises:
        ValueError: If `metric` is a function or class that is not
            registered.

    Example:
        >>> tfkit.metrics.serialize(tfkit.metrics.MeanSquaredError())
        {'class_name': 'MeanSquaredError', 'config': {'name': 'mean_squared_error', 'dtype': 'float32'}}
        >>> tfkit.metrics.serialize(tfkit.metrics.accuracy)
        'accuracy'
    """
    if metric is None:
        return None
    if callable(metric) and not isinstance(metric, (Metric, type)):
        return registry.to_config("functions", metric)
    return registry.to_config("metrics", metric)


def deserialize(config: Any, custom_objects: Mapping[str, Any] | None = None) -> Any:
    """Deserialize a metric: the inverse of `serialize`.

    A config dict gives the `Metric` it describes; a metric name gives a
    metric with its default name; a built-in loss function's name that is
    no metric name (such as `"huber"`) gives the function.

    Args:
        config: A `{"class_name": ..., "config": ...}` dict or a name.
        custom_objects: Optional dict mapping names to custom classes or
            functions, looked up first. Defaults to `None`.

    Returns:
        A `Metric` instance, or a function.

    Raises:
        ValueError: If the name is unknown.

    Example:
        >>> tfkit.metrics.deserialize("mse")
        <MeanSquaredError name=mean_squared_error>
        >>> config = tfkit.metrics.serialize(tfkit.metrics.AUC(num_thresholds=3))
        >>> tfkit.metrics.deserialize(config).num_thresholds
        3
    """
    if isinstance(config, str):
        try:
            return registry.resolve("metrics", config, custom_objects)
        except ValueError:
            fn = _loss_function_named(config)
            if fn is None:
                raise
            return fn
    return registry.resolve("metrics", config, custom_objects)


def _dims(shape: Any) -> list[int | None] | None:
    if shape is None:
        return None
    try:
        dims = list(shape)
    except TypeError:  # a TensorShape of unknown rank
        return None
    return [None if d is None else int(d) for d in dims]


def resolve_accuracy(name: str, loss: Any, y_true_shape: Any, y_pred_shape: Any) -> Metric:
    """Pick the accuracy metric that `compile(metrics=["accuracy"])` means, as Keras does.

    Binary crossentropy losses (or predictions whose last dimension is 1)
    give `BinaryAccuracy`; sparse categorical crossentropy (or integer
    targets: rank lower than the predictions', or a last dimension of 1
    against several classes) gives `SparseCategoricalAccuracy`; anything
    else `CategoricalAccuracy`.

    Args:
        name: The name of the returned metric (such as `"accuracy"` or
            `"acc"`).
        loss: The model's loss (object, function or name, see
            `tfkit.losses.is_loss_of_kind`), or `None`.
        y_true_shape: The targets' shape (a tuple or `tf.TensorShape`), or
            `None` if unknown.
        y_pred_shape: The predictions' shape, or `None` if unknown.

    Returns:
        A new `BinaryAccuracy`, `SparseCategoricalAccuracy` or
        `CategoricalAccuracy` named `name`.

    Example:
        >>> tfkit.metrics.resolve_accuracy("accuracy", "binary_crossentropy", (None, 1), (None, 1))
        <BinaryAccuracy name=accuracy>
        >>> tfkit.metrics.resolve_accuracy("acc", None, (None,), (None, 10))
        <SparseCategoricalAccuracy name=acc>
        >>> tfkit.metrics.resolve_accuracy("accuracy", None, (None, 10), (None, 10))
        <CategoricalAccuracy name=accuracy>
    """
    if _losses.is_loss_of_kind(loss, "binary"):
        return BinaryAccuracy(name=name)
    if _losses.is_loss_of_kind(loss, "sparse"):
        return SparseCategoricalAccuracy(name=name)
    true_dims, pred_dims = _dims(y_true_shape), _dims(y_pred_shape)
    if pred_dims and pred_dims[-1] == 1:
        return BinaryAccuracy(name=name)
    if pred_dims and true_dims is not None:
        if len(true_dims) < len(pred_dims):
            return SparseCategoricalAccuracy(name=name)
        if true_dims and true_dims[-1] == 1 and (pred_dims[-1] or 0) > 1:
            return SparseCategoricalAccuracy(name=name)
    return CategoricalAccuracy(name=name)


def resolve_compile_metric(identifier: Any, loss: Any = None, y_true_shape: Any = None, y_pred_shape: Any = None) -> Metric:
    """Turn one entry of `compile(metrics=[...])` into a `Metric`.

    `"accuracy"` and `"acc"` (any case) are resolved by `resolve_accuracy`
    from the loss and the shapes; anything else goes through `get`.

    Args:
        identifier: A metric name, config dict, class, instance or function.
        loss: The model's loss, used to resolve `"accuracy"`. Defaults to
            `None`.
        y_true_shape: The targets' shape, used to resolve `"accuracy"`.
            Defaults to `None`.
        y_pred_shape: The predictions' shape, used to resolve `"accuracy"`.
            Defaults to `None`.

    Returns:
        A `Metric` instance.

    Raises:
        ValueError: If `identifier` is `None` or cannot be interpreted as a
            metric.

    Example:
        >>> tfkit.metrics.resolve_compile_metric("accuracy", loss="sparse_categorical_crossentropy")
        <SparseCategoricalAccuracy name=accuracy>
        >>> tfkit.metrics.resolve_compile_metric("mae")
        <MeanAbsoluteError name=mae>
    """
    if isinstance(identifier, str) and identifier.lower() in ACCURACY_NAMES:
        return resolve_accuracy(identifier, loss, y_true_shape, y_pred_shape)
    metric = get(identifier)
    if metric is None:
        raise ValueError("Expected a metric, got None")
    return metric


__all__ = [
    "Metric", "Mean", "Sum", "MeanMetricWrapper",
    "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "SparseCategoricalAccuracy",
    "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy",
    "MeanSquaredError", "RootMeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError", "CosineSimilarity", "LogCoshError",
    "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "KLDivergence", "Poisson",
    "Hinge", "SquaredHinge", "CategoricalHinge",
    "AUC", "Precision", "Recall", "TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives",
    "F1Score", "FBetaScore",
    "IoU", "MeanIoU", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU", "R2Score", "PearsonCorrelation",
    "ConcordanceCorrelation", "pearson_correlation", "concordance_correlation",
    "PrecisionAtRecall", "RecallAtPrecision", "SensitivityAtSpecificity", "SpecificityAtSensitivity",
    "accuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
    "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy",
    "get", "serialize", "deserialize", "resolve_accuracy", "resolve_compile_metric",
]

# Keras 3's keras.metrics also exposes the per-sample loss functions under their names.
from tfkit.losses.extra_functions import categorical_focal_crossentropy  # noqa: E402,F401
from tfkit.losses.functions import (  # noqa: E402,F401
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)

__all__ += [
    "categorical_focal_crossentropy", "binary_crossentropy", "binary_focal_crossentropy", "categorical_crossentropy",
    "categorical_hinge", "hinge",
    "huber", "kl_divergence", "log_cosh", "mean_absolute_error", "mean_absolute_percentage_error",
    "mean_squared_error", "mean_squared_logarithmic_error", "poisson", "sparse_categorical_crossentropy",
    "squared_hinge",
]
