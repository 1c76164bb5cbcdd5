"""Which metric an entry of ``compile(metrics=[...])`` means: ``"accuracy"`` chosen from the loss and shapes.

resolve_compile_metric("accuracy", loss="sparse_categorical_crossentropy")   # SparseCategoricalAccuracy
resolve_accuracy("acc", None, (None,), (None, 10))                           # the same, from the shapes
resolve_compile_metric("mae")                                                # through get()
"""

from __future__ import annotations

from typing import Any

from tfkit import losses as _losses
from tfkit.metrics.accuracy import BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy
from tfkit.metrics.base import Metric
from tfkit.metrics.identifiers import get

ACCURACY_NAMES = ("accuracy", "acc")


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


def resolve_compile_metric(
    identifier: Any, loss: Any = None, y_true_shape: Any = None, y_pred_shape: Any = None
) -> Metric:
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
