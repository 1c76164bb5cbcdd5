"""Intersection-over-union metrics for segmentation: IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU.

    miou = MeanIoU(num_classes=3)
    miou.update_state([0, 1, 2, 2], [0, 1, 1, 2])
    miou.result()                       # mean over classes of tp / (tp + fp + fn)

State is a ``(num_classes, num_classes)`` confusion matrix (rows: true class,
columns: predicted class) of dtype ``int64`` unless told otherwise, as in
Keras 3 (float sample weights are then truncated; pass ``dtype="float32"``
for fractional weights). Labels outside ``[0, num_classes)``, and
``ignore_class``, are left out.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.losses.reduction import EPSILON
from tfkit.metrics.base import Metric, plain_data


def confusion_matrix(y_true: tf.Tensor, y_pred: tf.Tensor, num_classes: int, weights: tf.Tensor, dtype: tf.DType) -> tf.Tensor:
    """Weighted ``(num_classes, num_classes)`` counts of (true, predicted) pairs; ids must be in range."""
    ids = tf.cast(y_true, tf.int32) * num_classes + tf.cast(y_pred, tf.int32)
    counts = tf.math.unsorted_segment_sum(tf.cast(weights, dtype), ids, num_classes * num_classes)
    return tf.reshape(counts, (num_classes, num_classes))


class _IoUBase(Metric):
    """The confusion-matrix state and its update, shared by every IoU metric."""

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"{type(self).__name__}: num_classes must be an int >= 1, got num_classes={num_classes!r}")
        if ignore_class is not None and (isinstance(ignore_class, bool) or not isinstance(ignore_class, int)):
            raise ValueError(f"{type(self).__name__}: ignore_class must be an int or None, got {ignore_class!r}")
        super().__init__(name=name, dtype=dtype or "int64")
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = bool(sparse_y_true)
        self.sparse_y_pred = bool(sparse_y_pred)
        self.axis = axis
        self.total_cm = self.add_variable((num_classes, num_classes), name="total_confusion_matrix")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        dtype = tf.as_dtype(self.dtype)
        y_true, y_pred = tf.convert_to_tensor(y_true), tf.convert_to_tensor(y_pred)
        if not self.sparse_y_true:
            y_true = tf.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = tf.argmax(y_pred, axis=self.axis)
        y_true = tf.reshape(tf.cast(y_true, dtype), [-1])
        y_pred = tf.reshape(tf.cast(y_pred, dtype), [-1])
        weights = tf.ones((), dtype) if sample_weight is None else tf.cast(tf.convert_to_tensor(sample_weight), dtype)
        if weights.shape.rank is not None and weights.shape.rank > 1:
            weights = tf.reshape(weights, [-1])
        weights = tf.broadcast_to(weights, tf.shape(y_true))
        n = tf.cast(self.num_classes, dtype)
        zero = tf.zeros((), dtype)
        valid = (y_true >= zero) & (y_true < n) & (y_pred >= zero) & (y_pred < n)
        if self.ignore_class is not None:
            valid = valid & tf.not_equal(y_true, tf.cast(self.ignore_class, dtype))
        y_true = tf.where(valid, y_true, tf.zeros_like(y_true))
        y_pred = tf.where(valid, y_pred, tf.zeros_like(y_pred))
        weights = tf.where(valid, weights, tf.zeros_like(weights))
        self.total_cm.assign_add(confusion_matrix(y_true, y_pred, self.num_classes, weights, self.total_cm.dtype))


@registry.builtin("metrics")
class IoU(_IoUBase):
    """Mean over ``target_class_ids`` of ``tp / (tp + fp + fn)`` (classes never seen are left out of the mean)."""

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Sequence[int],
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ) -> None:
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis)
        ids = list(plain_data(target_class_ids))
        if not ids or any(isinstance(i, bool) or not isinstance(i, int) for i in ids):
            raise ValueError(f"{type(self).__name__}: target_class_ids must be a non-empty list of ints, got {target_class_ids!r}")
        if max(ids) >= num_classes or min(ids) < 0:
            raise ValueError(
                f"{type(self).__name__}: target class ids must be in [0, {num_classes}), got target_class_ids={ids}"
            )
        self.target_class_ids = ids

    def result(self) -> tf.Tensor:
        cm = tf.cast(tf.identity(self.total_cm), tf.float32)
        true_positives = tf.linalg.diag_part(cm)
        denominator = tf.reduce_sum(cm, axis=0) + tf.reduce_sum(cm, axis=1) - true_positives
        ids = tf.constant(self.target_class_ids, tf.int32)
        true_positives = tf.gather(true_positives, ids)
        denominator = tf.gather(denominator, ids)
        valid = denominator > 1e-9
        iou = tf.where(valid, true_positives / (denominator + EPSILON), tf.zeros_like(denominator))
        return tf.reduce_sum(iou) / (tf.reduce_sum(tf.cast(valid, tf.float32)) + EPSILON)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "num_classes": self.num_classes,
            "target_class_ids": plain_data(self.target_class_ids),
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


@registry.builtin("metrics")
class BinaryIoU(IoU):
    """IoU of a binary problem: predictions ``>= threshold`` are class 1."""

    def __init__(
        self,
        target_class_ids: Sequence[int] = (0, 1),
        threshold: float = 0.5,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise ValueError(f"BinaryIoU: threshold must be a number, got threshold={threshold!r}")
        self.threshold = float(threshold)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), tf.float32)
        y_pred = tf.cast(y_pred >= self.threshold, tf.as_dtype(self.dtype))
        super().update_state(y_true, y_pred, sample_weight)

    def get_config(self) -> dict[str, Any]:
        return {"target_class_ids": plain_data(self.target_class_ids), "threshold": self.threshold,
                "name": self.name, "dtype": self.dtype}


@registry.builtin("metrics")
class MeanIoU(IoU):
    """IoU averaged over all ``num_classes`` classes."""

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"{type(self).__name__}: num_classes must be an int >= 1, got num_classes={num_classes!r}")
        super().__init__(num_classes, list(range(num_classes)), name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["target_class_ids"]
        return config


@registry.builtin("metrics")
class OneHotIoU(IoU):
    """IoU with one-hot ``y_true`` (and, unless ``sparse_y_pred``, per-class scores as ``y_pred``)."""

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Sequence[int],
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ) -> None:
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


@registry.builtin("metrics")
class OneHotMeanIoU(MeanIoU):
    """MeanIoU with one-hot ``y_true`` (and, unless ``sparse_y_pred``, per-class scores as ``y_pred``)."""

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ) -> None:
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["sparse_y_true"]
        return config
