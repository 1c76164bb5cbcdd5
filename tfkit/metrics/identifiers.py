"""Metrics by name, config, class, instance or function: Keras's ``metrics.get``, ``serialize`` and ``deserialize``.

metric = get("mae")                      # a fresh MeanAbsoluteError named "mae"
config = serialize(metric)               # {"class_name": "MeanAbsoluteError", "config": {...}}
same = deserialize(config)
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit import losses as _losses
from tfkit.base import registry
from tfkit.metrics.base import Metric
from tfkit.metrics.reduction import MeanMetricWrapper


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
