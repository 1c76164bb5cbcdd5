"""Accuracy metrics: per-sample match functions and the running means over them.

    acc = SparseCategoricalAccuracy()
    acc.update_state([2, 1], [[0.1, 0.2, 0.7], [0.9, 0.05, 0.05]])
    acc.result()                                   # 0.5

Formulas follow Keras 3. Top-k accuracies count ties at the k-th score as
hits (``tf.math.in_top_k``).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.losses.reduction import squeeze_or_expand_to_same_rank
from tfkit.metrics.reduction import BuiltinMeanMetric


def _float_pred(y_pred: Any) -> tf.Tensor:
    y_pred = tf.convert_to_tensor(y_pred)
    return y_pred if y_pred.dtype.is_floating else tf.cast(y_pred, tf.float32)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def accuracy(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute how often predictions exactly equal labels, element-wise.

    `y_true` is cast to `y_pred`'s dtype (float32 for integer predictions), and
    a rank difference of one trailing axis of size 1 is evened out.

    Args:
        y_true: Ground truth values.
        y_pred: The predicted values, of `y_true`'s shape.

    Returns:
        A float32 tensor holding 1.0 where `y_true == y_pred`, else 0.0.

    Example:
        >>> tfkit.metrics.accuracy([[1], [2]], [[1], [3]]).numpy()
        array([[1.],
               [0.]], dtype=float32)
    """
    y_pred = _float_pred(y_pred)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return tf.cast(tf.equal(y_true, y_pred), tf.float32)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> tf.Tensor:
    """Compute how often predictions match binary labels, element-wise.

    A prediction counts as 1 when it is above `threshold`, else 0.

    Args:
        y_true: Ground truth values, 0 or 1.
        y_pred: The predicted values (probabilities), of `y_true`'s shape.
        threshold: A float, the threshold above which a prediction is 1.
            Defaults to `0.5`.

    Returns:
        A float32 tensor holding 1.0 where `(y_pred > threshold) == y_true`,
        else 0.0.

    Example:
        >>> tfkit.metrics.binary_accuracy([1, 1, 0, 0], [0.98, 1.0, 0.0, 0.6]).numpy()
        array([1., 1., 1., 0.], dtype=float32)
    """
    y_pred = _float_pred(y_pred)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    predicted = tf.cast(y_pred > tf.cast(threshold, y_pred.dtype), y_pred.dtype)
    return tf.cast(tf.equal(y_true, predicted), tf.float32)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def categorical_accuracy(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute how often the arg-max of the predictions matches the one-hot labels.

    Args:
        y_true: One-hot labels, of shape `(batch_size, ..., num_classes)`.
        y_pred: The predicted scores, of `y_true`'s shape.

    Returns:
        A float32 tensor of shape `(batch_size, ...)` holding 1.0 where
        `argmax(y_true, -1) == argmax(y_pred, -1)`, else 0.0.

    Example:
        >>> y_true = [[0, 0, 1], [0, 1, 0]]
        >>> y_pred = [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]]
        >>> tfkit.metrics.categorical_accuracy(y_true, y_pred).numpy()
        array([0., 1.], dtype=float32)
    """
    y_pred = _float_pred(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    return tf.cast(tf.equal(tf.argmax(y_true, axis=-1), tf.argmax(y_pred, axis=-1)), tf.float32)


def _squeeze_class_axis(y_true: tf.Tensor, y_pred: tf.Tensor) -> tf.Tensor:
    """Class-id targets shaped like ``y_pred`` with a size-1 last axis lose that axis."""
    if y_true.shape.rank is not None and y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        return tf.squeeze(y_true, -1)
    return y_true


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> tf.Tensor:
    """Compute how often the arg-max of the predictions matches the integer labels.

    Args:
        y_true: Integer class ids, of shape `(batch_size, ...)` (or with a
            trailing axis of size 1).
        y_pred: The predicted scores, of shape `(batch_size, ..., num_classes)`.

    Returns:
        A float32 tensor of shape `(batch_size, ...)` holding 1.0 where
        `y_true == argmax(y_pred, -1)`, else 0.0.

    Example:
        >>> y_true = [[2], [1]]
        >>> y_pred = [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0]]
        >>> tfkit.metrics.sparse_categorical_accuracy(y_true, y_pred).numpy()
        array([0., 1.], dtype=float32)
    """
    y_pred = _float_pred(y_pred)
    y_true = _squeeze_class_axis(tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype), y_pred)
    predicted = tf.cast(tf.argmax(y_pred, axis=-1), y_pred.dtype)
    return tf.cast(tf.equal(y_true, predicted), tf.float32)


def _in_top_k(targets: tf.Tensor, predictions: tf.Tensor, k: int) -> tf.Tensor:
    """``in_top_k`` over any leading shape: result has ``targets``' shape."""
    shape = tf.shape(targets)
    flat_pred = tf.reshape(tf.cast(predictions, tf.float32), [-1, tf.shape(predictions)[-1]])
    hits = tf.math.in_top_k(tf.reshape(tf.cast(targets, tf.int32), [-1]), flat_pred, k)
    return tf.reshape(tf.cast(hits, tf.float32), shape)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> tf.Tensor:
    """Compute how often the one-hot label's class is among the top `k` predictions.

    Ties at the k-th score count as hits (`tf.math.in_top_k`).

    Args:
        y_true: One-hot labels, of shape `(batch_size, ..., num_classes)`.
        y_pred: The predicted scores, of `y_true`'s shape.
        k: The number of top predictions to look at. Defaults to `5`.

    Returns:
        A float32 tensor of shape `(batch_size, ...)` holding 1.0 where the
        label's class is among the `k` highest scores, else 0.0.

    Example:
        >>> y_true = [[0, 0, 1], [0, 1, 0]]
        >>> y_pred = [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]]
        >>> tfkit.metrics.top_k_categorical_accuracy(y_true, y_pred, k=1).numpy()
        array([0., 1.], dtype=float32)
        >>> tfkit.metrics.top_k_categorical_accuracy(y_true, y_pred, k=2).numpy()
        array([1., 1.], dtype=float32)
    """
    y_pred = _float_pred(y_pred)
    targets = tf.argmax(tf.convert_to_tensor(y_true), axis=-1)
    return _in_top_k(targets, y_pred, k)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5, from_sorted_ids: bool = False) -> tf.Tensor:
    """Compute how often the integer label is among the top `k` predictions.

    Ties at the k-th score count as hits (`tf.math.in_top_k`). With
    `from_sorted_ids=True`, `y_pred` holds class ids sorted by score (best
    first), as `tf.math.top_k` returns them, and the label is looked for
    among the first `k`.

    Args:
        y_true: Integer class ids, of shape `(batch_size, ...)` (or with a
            trailing axis of size 1).
        y_pred: The predicted scores, of shape `(batch_size, ..., num_classes)`,
            or sorted class ids with `from_sorted_ids=True`.
        k: The number of top predictions to look at. Defaults to `5`.
        from_sorted_ids: Whether `y_pred` holds sorted class ids instead of
            scores. Defaults to `False`.

    Returns:
        A float32 tensor of shape `(batch_size, ...)` holding 1.0 where the
        label is among the top `k`, else 0.0.

    Example:
        >>> y_pred = [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]]
        >>> tfkit.metrics.sparse_top_k_categorical_accuracy([2, 1], y_pred, k=1).numpy()
        array([0., 1.], dtype=float32)
        >>> sorted_ids = [[1, 2, 0], [1, 0, 2]]
        >>> tfkit.metrics.sparse_top_k_categorical_accuracy(
        ...     [2, 1], sorted_ids, k=2, from_sorted_ids=True).numpy()
        array([1., 1.], dtype=float32)
    """
    y_pred = _float_pred(y_pred) if not from_sorted_ids else tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    if from_sorted_ids:
        y_true = _squeeze_class_axis(tf.cast(y_true, y_pred.dtype), y_pred)
        hits = tf.reduce_any(tf.equal(tf.expand_dims(y_true, -1), y_pred[..., :k]), axis=-1)
        return tf.cast(hits, tf.float32)
    y_true = _squeeze_class_axis(y_true, y_pred)
    return _in_top_k(y_true, y_pred, k)


@registry.builtin("metrics", "accuracy")
class Accuracy(BuiltinMeanMetric):
    """Calculate how often predictions equal labels.

    The running (weighted) mean of `tfkit.metrics.accuracy`: the fraction of
    predictions exactly equal to their label. `sample_weight` of 0 masks
    values out.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"accuracy"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> metric = tfkit.metrics.Accuracy()
        >>> metric.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]])
        >>> metric.result().numpy()
        np.float32(0.75)
    """

    function = accuracy

    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "binary_accuracy")
class BinaryAccuracy(BuiltinMeanMetric):
    """Calculate how often predictions match binary labels.

    The running (weighted) mean of `tfkit.metrics.binary_accuracy`: a
    prediction above `threshold` counts as 1, else 0.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"binary_accuracy"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        threshold: A float, the threshold above which a prediction counts as
            1. Defaults to `0.5`.

    Example:
        >>> metric = tfkit.metrics.BinaryAccuracy()
        >>> metric.update_state([[1], [1], [0], [0]], [[0.98], [1.0], [0.0], [0.6]])
        >>> metric.result().numpy()
        np.float32(0.75)
    """

    function = binary_accuracy

    def __init__(self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5) -> None:
        super().__init__(name, dtype, threshold=threshold)


@registry.builtin("metrics", "categorical_accuracy")
class CategoricalAccuracy(BuiltinMeanMetric):
    """Calculate how often predictions match one-hot labels.

    The running (weighted) mean of `tfkit.metrics.categorical_accuracy`: the
    fraction of samples whose highest-scoring class is the label's class.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"categorical_accuracy"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> metric = tfkit.metrics.CategoricalAccuracy()
        >>> metric.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]])
        >>> metric.result().numpy()
        np.float32(0.5)
    """

    function = categorical_accuracy

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "sparse_categorical_accuracy")
class SparseCategoricalAccuracy(BuiltinMeanMetric):
    """Calculate how often predictions match integer labels.

    The running (weighted) mean of `tfkit.metrics.sparse_categorical_accuracy`:
    the fraction of samples whose highest-scoring class is the label.

    Args:
        name: Optional name for the metric instance. Defaults to
            `"sparse_categorical_accuracy"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> metric = tfkit.metrics.SparseCategoricalAccuracy()
        >>> metric.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0]])
        >>> metric.result().numpy()
        np.float32(0.5)
    """

    function = sparse_categorical_accuracy

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "top_k_categorical_accuracy")
class TopKCategoricalAccuracy(BuiltinMeanMetric):
    """Compute how often one-hot labels are in the top `k` predictions.

    The running (weighted) mean of `tfkit.metrics.top_k_categorical_accuracy`.

    Args:
        k: The number of top predictions to look at. Defaults to `5`.
        name: Optional name for the metric instance. Defaults to
            `"top_k_categorical_accuracy"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> metric = tfkit.metrics.TopKCategoricalAccuracy(k=1)
        >>> metric.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]])
        >>> metric.result().numpy()
        np.float32(0.5)
    """

    function = top_k_categorical_accuracy

    def __init__(self, k: int = 5, name: str = "top_k_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype, k=k)


@registry.builtin("metrics", "sparse_top_k_categorical_accuracy")
class SparseTopKCategoricalAccuracy(BuiltinMeanMetric):
    """Compute how often integer labels are in the top `k` predictions.

    The running (weighted) mean of
    `tfkit.metrics.sparse_top_k_categorical_accuracy`.

    Args:
        k: The number of top predictions to look at. Defaults to `5`.
        name: Optional name for the metric instance. Defaults to
            `"sparse_top_k_categorical_accuracy"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        from_sorted_ids: Whether `y_pred` holds class ids sorted by score (best
            first) instead of scores. Defaults to `False`.

    Example:
        >>> metric = tfkit.metrics.SparseTopKCategoricalAccuracy(k=1)
        >>> metric.update_state([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0.0]])
        >>> metric.result().numpy()
        np.float32(0.5)
    """

    function = sparse_top_k_categorical_accuracy

    def __init__(
        self,
        k: int = 5,
        name: str = "sparse_top_k_categorical_accuracy",
        dtype: Any = None,
        from_sorted_ids: bool = False,
    ) -> None:
        super().__init__(name, dtype, k=k, from_sorted_ids=from_sorted_ids)
