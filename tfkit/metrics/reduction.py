"""Running sums and means, and ``MeanMetricWrapper`` for per-sample metric functions.

    mean = Mean(); mean.update_state([1.0, 3.0, 5.0, 7.0], sample_weight=[1, 1, 0, 0])
    mean.result()                                              # 2.0
    MeanMetricWrapper(tfkit.losses.mean_squared_error, name="mse")

Per-element values are reduced to one value per sample (mean over the
non-batch axes) before the weighted running mean, as in Keras 3: a sample
counts once, weighted by the mean of its weights.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine import masking
from tfkit.losses.reduction import apply_mask, squeeze_or_expand_to_same_rank
from tfkit.metrics.base import Metric


def reduce_to_samplewise_values(
    values: Any, sample_weight: Any, reduce_fn: Callable[..., tf.Tensor], dtype: Any
) -> tuple[tf.Tensor, tf.Tensor | None]:
    """Weighted values reduced to shape ``(batch,)`` (or a scalar), with the matching weights."""
    mask = masking.get_mask(values)
    values = tf.cast(tf.convert_to_tensor(values), dtype)
    if sample_weight is not None:
        sample_weight = tf.cast(tf.convert_to_tensor(sample_weight), dtype)
        if mask is not None:
            sample_weight = apply_mask(sample_weight, mask, dtype=values.dtype, reduction="sum")
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_rank, values_rank = sample_weight.shape.rank, values.shape.rank
        if values_rank > weight_rank:
            values = reduce_fn(values, axis=list(range(weight_rank, values_rank)))
        sample_weight = tf.broadcast_to(sample_weight, tf.shape(values))
        values = values * sample_weight
        if weight_rank > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, weight_rank)))
    if values.shape.rank > 1:
        values = reduce_fn(values, axis=list(range(1, values.shape.rank)))
    return values, sample_weight


def _is_scalar(value: Any) -> bool:
    shape = getattr(value, "shape", None)
    if shape is None:
        return isinstance(value, (int, float))
    return tf.TensorShape(shape).rank == 0


@registry.builtin("metrics")
class Sum(Metric):
    """Compute the (weighted) sum of the given values.

    For example, if `values` is `[1, 3, 5, 7]` then their sum is 16. If
    `sample_weight` is `[1, 1, 0, 0]` then the sum is 4. This metric creates
    one variable, `total`; `result()` returns it.

    Args:
        name: Optional name for the metric instance. Defaults to `"sum"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> metric = tfkit.metrics.Sum()
        >>> metric.update_state([1, 3, 5, 7])
        >>> metric.result().numpy()
        np.float32(16.0)
        >>> metric.reset_state()
        >>> metric.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
        >>> metric.result().numpy()
        np.float32(4.0)
    """

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), name="total")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Accumulate the weighted sum of `values`.

        Per-element values are first reduced to one value per sample (summed
        over the non-batch axes), as in Keras 3.

        Args:
            values: The values to add, a tensor or array-like of any shape.
            sample_weight: Optional weights, a scalar or a tensor that
                broadcasts to `values` (per-sample weights `(batch,)` cover
                each sample's elements). Defaults to `None` (all ones).
        """
        values, _ = reduce_to_samplewise_values(values, sample_weight, tf.reduce_sum, self.dtype)
        self.total.assign_add(tf.reduce_sum(values))

    def result(self) -> tf.Tensor:
        """Return the sum so far, a scalar tensor."""
        return tf.identity(self.total)


@registry.builtin("metrics")
class Mean(Metric):
    """Compute the (weighted) mean of the given values.

    For example, if `values` is `[1, 3, 5, 7]` then the mean is 4. If
    `sample_weight` is `[1, 1, 0, 0]` then the mean is 2. This metric creates
    two variables, `total` and `count`; `result()` returns `total / count`
    (0 before any update). It is the metric `fit` uses to track the loss.
    Per-element values are averaged per sample first: a sample counts once,
    weighted by the mean of its weights.

    Args:
        name: Optional name for the metric instance. Defaults to `"mean"`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.

    Example:
        >>> metric = tfkit.metrics.Mean()
        >>> metric.update_state([1, 3, 5, 7])
        >>> metric.result().numpy()
        np.float32(4.0)
        >>> metric.reset_state()
        >>> metric.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
        >>> metric.result().numpy()
        np.float32(2.0)
    """

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), name="total")
        self.count = self.add_variable(shape=(), name="count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Accumulate the weighted mean of `values`: adds to `total` and `count`.

        Per-element values are first reduced to one value per sample (averaged
        over the non-batch axes), as in Keras 3.

        Args:
            values: The values to add, a tensor or array-like of any shape.
            sample_weight: Optional weights, a scalar or a tensor that
                broadcasts to `values` (per-sample weights `(batch,)` cover
                each sample's elements). Defaults to `None` (all ones).
        """
        if (
            _is_scalar(values)
            and (sample_weight is None or _is_scalar(sample_weight))
            and masking.get_mask(values) is None
        ):
            # The hot path of every training step (the loss tracker): four ops, no broadcasting.
            value = tf.cast(values, self.dtype)
            weight = tf.ones((), self.dtype) if sample_weight is None else tf.cast(sample_weight, self.dtype)
            self.total.assign_add(value * weight)
            self.count.assign_add(weight)
            return
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, tf.reduce_mean, self.dtype)
        self.total.assign_add(tf.reduce_sum(values))
        if sample_weight is not None:
            num_samples = tf.reduce_sum(sample_weight)
        elif values.shape.rank >= 1:
            num_samples = tf.shape(values)[0]
        else:
            num_samples = 1
        self.count.assign_add(tf.cast(num_samples, self.dtype))

    def result(self) -> tf.Tensor:
        """Return the mean so far, `total / count` (0 when `count` is 0)."""
        return tf.math.divide_no_nan(tf.identity(self.total), tf.identity(self.count))


@registry.builtin("metrics")
class MeanMetricWrapper(Mean):
    """Wrap a stateless metric function with the `Mean` metric.

    The result is the running (weighted) mean of the per-sample values of
    `fn(y_true, y_pred, **kwargs)`. `compile(metrics=[my_fn])` wraps a plain
    function this way. A Keras mask carried by `y_pred`, and one the
    function attaches to its values (as `sparse_categorical_crossentropy`
    does for `ignore_class`), leaves the masked values out of the mean. The
    config stores `fn` by its registered name.

    Args:
        fn: The metric function to wrap, `fn(y_true, y_pred, **kwargs)`,
            returning one value per sample (or per element).
        name: Optional name for the metric instance. Defaults to `None`,
            which means `fn.__name__`.
        dtype: The dtype of the metric's computations. Defaults to `None`,
            which means `"float32"`.
        **kwargs: Keyword arguments passed to `fn` on every update (and
            saved in the config).

    Raises:
        ValueError: If `fn` is not callable.

    Example:
        >>> metric = tfkit.metrics.MeanMetricWrapper(tfkit.losses.huber, delta=2.0)
        >>> metric.name
        'huber'
        >>> metric.update_state([[0.0], [0.0]], [[1.0], [3.0]])
        >>> metric.result().numpy()
        np.float32(2.25)
    """

    def __init__(self, fn: Callable[..., Any], name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        if not callable(fn):
            raise ValueError(f"MeanMetricWrapper expects a callable fn(y_true, y_pred), got {fn!r}")
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = dict(kwargs)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Accumulate the mean of `fn(y_true, y_pred)` for one batch.

        Args:
            y_true: Ground truth values.
            y_pred: The predicted values (a Keras mask on it is honoured).
            sample_weight: Optional weights, a scalar or a tensor that
                broadcasts to the function's values. Defaults to `None`.
        """
        mask = masking.get_mask(y_pred)
        y_true, y_pred = tf.convert_to_tensor(y_true), tf.convert_to_tensor(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        if sample_weight is None and masking.get_mask(values) is not None:
            # the function masked some values (ignore_class): they leave the mean, as they leave the loss's
            sample_weight = tf.ones_like(tf.convert_to_tensor(values), dtype=self.dtype)
        sample_weight = apply_mask(
            None if sample_weight is None else tf.cast(tf.convert_to_tensor(sample_weight), self.dtype),
            mask,
            dtype=tf.as_dtype(self.dtype),
            reduction="sum",
        )
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["fn"] = registry.to_config("functions", self._fn)
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "MeanMetricWrapper":
        config = dict(config)
        fn = config.pop("fn", None)
        if isinstance(fn, str):
            fn = registry.lookup("functions", fn)
        if fn is None:
            raise ValueError(f"A MeanMetricWrapper config needs 'fn' (a registered function name), got {config}")
        return cls(fn, **config)


class BuiltinMeanMetric(MeanMetricWrapper):
    """A mean metric bound to one function; its config is its constructor arguments."""

    function: Callable[..., Any]

    def __init__(self, name: str, dtype: Any, **kwargs: Any) -> None:
        super().__init__(type(self).function, name=name, dtype=dtype, **kwargs)
        for key, value in kwargs.items():
            setattr(self, key, value)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype, **self._fn_kwargs}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "BuiltinMeanMetric":
        return cls(**config)
