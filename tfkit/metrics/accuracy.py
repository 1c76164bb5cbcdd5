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
    """1.0 where ``y_true == y_pred`` exactly, else 0.0."""
    y_pred = _float_pred(y_pred)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return tf.cast(tf.equal(y_true, y_pred), tf.float32)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> tf.Tensor:
    """1.0 where ``(y_pred > threshold) == y_true``, element-wise."""
    y_pred = _float_pred(y_pred)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    predicted = tf.cast(y_pred > tf.cast(threshold, y_pred.dtype), y_pred.dtype)
    return tf.cast(tf.equal(y_true, predicted), tf.float32)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def categorical_accuracy(y_true: Any, y_pred: Any) -> tf.Tensor:
    """1.0 where ``argmax(y_true) == argmax(y_pred)`` over the last axis (one-hot targets)."""
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
    """1.0 where the class id ``y_true`` equals ``argmax(y_pred)``."""
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
    """1.0 where the one-hot target's class is among the ``k`` highest scores."""
    y_pred = _float_pred(y_pred)
    targets = tf.argmax(tf.convert_to_tensor(y_true), axis=-1)
    return _in_top_k(targets, y_pred, k)


@registry.builtin("functions")
@tf.autograph.experimental.do_not_convert
def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5, from_sorted_ids: bool = False) -> tf.Tensor:
    """1.0 where the class id ``y_true`` is among the ``k`` highest scores.

    With ``from_sorted_ids=True``, ``y_pred`` holds class ids sorted by score
    (best first) and the target is looked for among the first ``k``.
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
    """How often predictions equal labels exactly."""

    function = accuracy

    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "binary_accuracy")
class BinaryAccuracy(BuiltinMeanMetric):
    """How often ``y_pred > threshold`` matches 0/1 labels."""

    function = binary_accuracy

    def __init__(self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5) -> None:
        super().__init__(name, dtype, threshold=threshold)


@registry.builtin("metrics", "categorical_accuracy")
class CategoricalAccuracy(BuiltinMeanMetric):
    """How often the arg-max of the predictions matches the one-hot label."""

    function = categorical_accuracy

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "sparse_categorical_accuracy")
class SparseCategoricalAccuracy(BuiltinMeanMetric):
    """How often the arg-max of the predictions matches the integer label."""

    function = sparse_categorical_accuracy

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype)


@registry.builtin("metrics", "top_k_categorical_accuracy")
class TopKCategoricalAccuracy(BuiltinMeanMetric):
    """How often the one-hot label is among the top ``k`` predictions."""

    function = top_k_categorical_accuracy

    def __init__(self, k: int = 5, name: str = "top_k_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(name, dtype, k=k)


@registry.builtin("metrics", "sparse_top_k_categorical_accuracy")
class SparseTopKCategoricalAccuracy(BuiltinMeanMetric):
    """How often the integer label is among the top ``k`` predictions."""

    function = sparse_top_k_categorical_accuracy

    def __init__(
        self, k: int = 5, name: str = "sparse_top_k_categorical_accuracy", dtype: Any = None, from_sorted_ids: bool = False
    ) -> None:
        super().__init__(name, dtype, k=k, from_sorted_ids=from_sorted_ids)
