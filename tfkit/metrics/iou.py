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


def confusion_matrix(
    y_true: tf.Tensor, y_pred: tf.Tensor, num_classes: int, weights: tf.Tensor, dtype: tf.DType
) -> tf.Tensor:
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
        """Accumulate the confusion matrix of one batch.

        Args:
            y_true: Ground truth class ids (or per-class scores when
                `sparse_y_true=False`); flattened.
            y_pred: Predicted class ids (or per-class scores when
                `sparse_y_pred=False`); flattened.
            sample_weight: Optional weights, a scalar or one weight per
                (flattened) value. Defaults to `None`.
        """
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
    """Compute the Intersection-Over-Union metric for specific target classes.

    IoU is `true_positives / (true_positives + false_positives + false_negatives)`
    per class, a common metric for semantic segmentation. The state is a
    `(num_classes, num_classes)` confusion matrix (rows: true class,
    columns: predicted class), weighted by `sample_weight` and accumulated
    until `reset_state()`. Labels outside `[0, num_classes)`, and
    `ignore_class`, are left out. Classes that never appear (in labels or
    predictions) are left out of the mean.
    `result()` is the mean IoU over `target_class_ids`.

    Args:
        num_classes: The number of possible class values, an int `>= 1`.
        target_class_ids: A list (or tuple) of the class ids, in
            `[0, num_classes)`, whose IoUs are averaged.
        name: Optional name for the metric instance. Defaults to `None`,
            which means the snake-case class name, as in Keras 3 (`"io_u"`,
            `"mean_io_u"`, `"binary_io_u"`, ...).
        dtype: The dtype of the confusion matrix. Defaults to `None`, which
            means `"int64"` (fractional sample weights are then truncated;
            pass `"float32"` for them).
        ignore_class: Optional int, a class id left out of the metric. Defaults
            to `None`.
        sparse_y_true: Whether `y_true` holds class ids (`True`) or one score
            per class along `axis` (`False`, the arg-max is taken). Defaults
            to `True`.
        sparse_y_pred: Whether `y_pred` holds class ids (`True`) or one score
            per class along `axis` (`False`, the arg-max is taken). Defaults
            to `True`.
        axis: The class axis of the non-sparse inputs. Defaults to `-1`.

    Raises:
        ValueError: If `num_classes` is not an int `>= 1` or `ignore_class` is
            not an int or `None`.
        ValueError: If `target_class_ids` is empty, holds non-ints, or an id
            outside `[0, num_classes)`.

    Example:
        >>> metric = tfkit.metrics.IoU(num_classes=2, target_class_ids=[0])
        >>> metric.update_state([0, 1, 0, 1], [0, 0, 1, 1])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.3333)
        >>> metric = tfkit.metrics.IoU(num_classes=2, target_class_ids=[0], dtype="float32")
        >>> metric.update_state([0, 1, 0, 1], [0, 0, 1, 1], sample_weight=[0.3, 0.3, 0.3, 0.1])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.3333)
    """

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
        super().__init__(
            num_classes,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )
        ids = list(plain_data(target_class_ids))
        if not ids or any(isinstance(i, bool) or not isinstance(i, int) for i in ids):
            raise ValueError(
                f"{type(self).__name__}: target_class_ids must be a non-empty list of ints, got {target_class_ids!r}"
            )
        if max(ids) >= num_classes or min(ids) < 0:
            raise ValueError(
                f"{type(self).__name__}: target class ids must be in [0, {num_classes}), got target_class_ids={ids}"
            )
        self.target_class_ids = ids

    def result(self) -> tf.Tensor:
        """Return the mean IoU over the target classes seen so far, a float32 scalar."""
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
    """Compute the Intersection-Over-Union metric for class 0 and/or 1.

    For binary problems: `y_true` holds 0 or 1, and a prediction `>= threshold`
    is class 1, else class 0. IoU is
    `true_positives / (true_positives + false_positives + false_negatives)`
    per class, from the confusion matrix accumulated until `reset_state()`;
    `result()` is its mean over `target_class_ids`.

    Args:
        target_class_ids: A list (or tuple) of the classes, among 0 and 1,
            whose IoUs are averaged. Defaults to `(0, 1)`.
        threshold: A number, the threshold from which a prediction is class
            1. Defaults to `0.5`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means the snake-case class name, as in Keras 3 (`"io_u"`,
            `"mean_io_u"`, `"binary_io_u"`, ...).
        dtype: The dtype of the confusion matrix. Defaults to `None`, which
            means `"int64"` (fractional sample weights are then truncated;
            pass `"float32"` for them).

    Raises:
        ValueError: If `target_class_ids` is empty, holds non-ints, or an id
            outside `[0, num_classes)`.
        ValueError: If `threshold` is not a number.

    Example:
        >>> metric = tfkit.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.3)
        >>> metric.update_state([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.3333)
    """

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
        """Accumulate the confusion matrix of one batch, `y_pred` thresholded.

        Args:
            y_true: Ground truth values, 0 or 1.
            y_pred: Predicted values; `>= threshold` is class 1.
            sample_weight: Optional weights, a scalar or one weight per
                value. Defaults to `None`.
        """
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), tf.float32)
        y_pred = tf.cast(y_pred >= self.threshold, tf.as_dtype(self.dtype))
        super().update_state(y_true, y_pred, sample_weight)

    def get_config(self) -> dict[str, Any]:
        return {
            "target_class_ids": plain_data(self.target_class_ids),
            "threshold": self.threshold,
            "name": self.name,
            "dtype": self.dtype,
        }


@registry.builtin("metrics")
class MeanIoU(IoU):
    """Compute the mean Intersection-Over-Union metric.

    IoU is `true_positives / (true_positives + false_positives + false_negatives)`
    per class, a common metric for semantic segmentation. The state is a
    `(num_classes, num_classes)` confusion matrix (rows: true class,
    columns: predicted class), weighted by `sample_weight` and accumulated
    until `reset_state()`. Labels outside `[0, num_classes)`, and
    `ignore_class`, are left out. Classes that never appear (in labels or
    predictions) are left out of the mean.
    `result()` is the mean IoU over all `num_classes` classes.

    Args:
        num_classes: The number of possible class values, an int `>= 1`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means the snake-case class name, as in Keras 3 (`"io_u"`,
            `"mean_io_u"`, `"binary_io_u"`, ...).
        dtype: The dtype of the confusion matrix. Defaults to `None`, which
            means `"int64"` (fractional sample weights are then truncated;
            pass `"float32"` for them).
        ignore_class: Optional int, a class id left out of the metric. Defaults
            to `None`.
        sparse_y_true: Whether `y_true` holds class ids (`True`) or one score
            per class along `axis` (`False`, the arg-max is taken). Defaults
            to `True`.
        sparse_y_pred: Whether `y_pred` holds class ids (`True`) or one score
            per class along `axis` (`False`, the arg-max is taken). Defaults
            to `True`.
        axis: The class axis of the non-sparse inputs. Defaults to `-1`.

    Raises:
        ValueError: If `num_classes` is not an int `>= 1` or `ignore_class` is
            not an int or `None`.

    Example:
        >>> metric = tfkit.metrics.MeanIoU(num_classes=2)
        >>> metric.update_state([0, 0, 1, 1], [0, 1, 0, 1])
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.3333)
    """

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
        super().__init__(
            num_classes,
            list(range(num_classes)),
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["target_class_ids"]
        return config


@registry.builtin("metrics")
class OneHotIoU(IoU):
    """Compute the Intersection-Over-Union metric for one-hot encoded labels.

    `IoU` with one-hot `y_true` and, unless `sparse_y_pred=True`, one score
    per class as `y_pred` (the arg-max along `axis` is the predicted class).
    IoU is `true_positives / (true_positives + false_positives + false_negatives)`
    per class, a common metric for semantic segmentation. The state is a
    `(num_classes, num_classes)` confusion matrix (rows: true class,
    columns: predicted class), weighted by `sample_weight` and accumulated
    until `reset_state()`. Labels outside `[0, num_classes)`, and
    `ignore_class`, are left out. Classes that never appear (in labels or
    predictions) are left out of the mean.
    `result()` is the mean IoU over `target_class_ids`.

    Args:
        num_classes: The number of possible class values, an int `>= 1`.
        target_class_ids: A list (or tuple) of the class ids, in
            `[0, num_classes)`, whose IoUs are averaged.
        name: Optional name for the metric instance. Defaults to `None`,
            which means the snake-case class name, as in Keras 3 (`"io_u"`,
            `"mean_io_u"`, `"binary_io_u"`, ...).
        dtype: The dtype of the confusion matrix. Defaults to `None`, which
            means `"int64"` (fractional sample weights are then truncated;
            pass `"float32"` for them).
        ignore_class: Optional int, a class id left out of the metric. Defaults
            to `None`.
        sparse_y_pred: Whether `y_pred` holds class ids (`True`) or one score
            per class along `axis` (`False`, the arg-max is taken). Defaults
            to `False`.
        axis: The class axis of the non-sparse inputs. Defaults to `-1`.

    Raises:
        ValueError: If `num_classes` is not an int `>= 1` or `ignore_class` is
            not an int or `None`.
        ValueError: If `target_class_ids` is empty, holds non-ints, or an id
            outside `[0, num_classes)`.

    Example:
        >>> y_true = [[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]]
        >>> y_pred = [[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]]
        >>> metric = tfkit.metrics.OneHotIoU(num_classes=3, target_class_ids=[0, 2])
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.1667)
    """

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
        super().__init__(
            num_classes,
            target_class_ids,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


@registry.builtin("metrics")
class OneHotMeanIoU(MeanIoU):
    """Compute the mean Intersection-Over-Union metric for one-hot encoded labels.

    `MeanIoU` with one-hot `y_true` and, unless `sparse_y_pred=True`, one
    score per class as `y_pred` (the arg-max along `axis` is the predicted
    class).
    IoU is `true_positives / (true_positives + false_positives + false_negatives)`
    per class, a common metric for semantic segmentation. The state is a
    `(num_classes, num_classes)` confusion matrix (rows: true class,
    columns: predicted class), weighted by `sample_weight` and accumulated
    until `reset_state()`. Labels outside `[0, num_classes)`, and
    `ignore_class`, are left out. Classes that never appear (in labels or
    predictions) are left out of the mean.
    `result()` is the mean IoU over all `num_classes` classes.

    Args:
        num_classes: The number of possible class values, an int `>= 1`.
        name: Optional name for the metric instance. Defaults to `None`,
            which means the snake-case class name, as in Keras 3 (`"io_u"`,
            `"mean_io_u"`, `"binary_io_u"`, ...).
        dtype: The dtype of the confusion matrix. Defaults to `None`, which
            means `"int64"` (fractional sample weights are then truncated;
            pass `"float32"` for them).
        ignore_class: Optional int, a class id left out of the metric. Defaults
            to `None`.
        sparse_y_pred: Whether `y_pred` holds class ids (`True`) or one score
            per class along `axis` (`False`, the arg-max is taken). Defaults
            to `False`.
        axis: The class axis of the non-sparse inputs. Defaults to `-1`.

    Raises:
        ValueError: If `num_classes` is not an int `>= 1` or `ignore_class` is
            not an int or `None`.

    Example:
        >>> y_true = [[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]]
        >>> y_pred = [[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]]
        >>> metric = tfkit.metrics.OneHotMeanIoU(num_classes=3)
        >>> metric.update_state(y_true, y_pred)
        >>> np.round(metric.result().numpy(), 4)
        np.float32(0.1111)
    """

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ) -> None:
        super().__init__(
            num_classes,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["sparse_y_true"]
        return config
