"""``MonitorCallback``: the shared "did the monitored value improve?" logic.

    class MyCallback(MonitorCallback):
        def on_epoch_end(self, epoch, logs=None):
            if self._is_improvement(logs["val_loss"], self.best): ...

Used by ``EarlyStopping``, ``ModelCheckpoint`` and ``ReduceLROnPlateau``.
With ``mode="auto"`` the direction comes from the model's metric of that
name (a ``direction`` / ``_direction`` attribute of "up" or "down") or, failing
that, from the name: losses and errors go down, accuracies and scores go up.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any, Callable

from tfkit.callbacks.callback import Callback

_LOWER_IS_BETTER = (
    "loss",
    "error",
    "crossentropy",
    "hinge",
    "divergence",
    "mse",
    "mae",
    "mape",
    "msle",
    "rmse",
    "logcosh",
    "poisson",
)
_HIGHER_IS_BETTER = (
    "acc",
    "auc",
    "precision",
    "recall",
    "f1",
    "iou",
    "r2",
    "score",
    "true_positives",
    "true_negatives",
)


def _metric_objects(model: Any) -> list[Any]:
    found: list[Any] = []
    pending = list(getattr(model, "metrics", None) or [])
    while pending:
        metric = pending.pop(0)
        found.append(metric)
        pending.extend(getattr(metric, "metrics", None) or [])
    return found


def infer_direction(monitor: str, model: Any = None) -> str | None:
    """ "min", "max" or ``None`` (unknown) for the quantity named ``monitor``."""
    name = monitor[4:] if monitor.startswith("val_") else monitor
    if name == "loss" or name.endswith("_loss"):
        return "min"
    for metric in _metric_objects(model):
        if getattr(metric, "name", None) == name:
            direction = getattr(metric, "direction", getattr(metric, "_direction", None))
            if direction in ("up", "down"):
                return "max" if direction == "up" else "min"
    lowered = name.lower()
    if any(part in lowered for part in _LOWER_IS_BETTER):
        return "min"
    if any(part in lowered for part in _HIGHER_IS_BETTER):
        return "max"
    return None


class MonitorCallback(Callback):
    """Base class for callbacks that watch a logged quantity for improvement.

    `EarlyStopping`, `ModelCheckpoint` and `ReduceLROnPlateau` build on it. It keeps
    `monitor`, `mode`, `min_delta` and the best value seen (`best`), and gives its
    subclasses `_is_improvement(value, reference)` (whether `value` beats `reference`
    by more than `min_delta` in the monitored direction; any value beats `None`) and
    `_monitor_value(logs, action)` (the monitored value, with a warning when it is
    missing from the logs). The direction is decided at the first comparison.

    Args:
        monitor: The name of the logged quantity to monitor, such as `"val_loss"` or
            `"val_accuracy"` (validation quantities need validation data in `fit`).
            Defaults to `"val_loss"`.
        mode: One of `"auto"`, `"min"`, `"max"`. In `"min"` mode, the quantity should
            decrease; in `"max"` mode it should increase; in `"auto"` mode the direction
            is taken from the model's metric of that name (its `direction`), or else from
            the name: losses and errors are minimized, accuracies and scores maximized. An
            unknown mode warns and falls back to `"auto"`. Defaults to `"auto"`.
        baseline: The starting value of `best`; `None` means that the first value seen
            is the best so far. Defaults to `None`.
        min_delta: Minimum change in the monitored quantity to qualify as an improvement
            (its sign is set from the direction). Defaults to `0`.

    Raises:
        ValueError: At the first comparison, if `mode="auto"` cannot tell whether
            `monitor` should be minimized or maximized.

    Example:
        >>> class BestLoss(tfkit.callbacks.MonitorCallback):
        ...     def on_epoch_end(self, epoch, logs=None):
        ...         value = self._monitor_value(logs, "tracking")
        ...         if value is not None and self._is_improvement(value, self.best):
        ...             self.best = value
        >>> callback = BestLoss(monitor="loss", min_delta=0.1)
        >>> for epoch, loss in enumerate([1.0, 0.95, 0.5]):
        ...     callback.on_epoch_end(epoch, {"loss": loss})
        >>> callback.best
        0.5
    """

    def __init__(
        self, monitor: str = "val_loss", mode: str = "auto", baseline: float | None = None, min_delta: float = 0
    ) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(
                f"{type(self).__name__}: mode {mode!r} is unknown (expected 'auto', 'min' or 'max'); using 'auto'.",
                stacklevel=3,
            )
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op: Callable[[Any, Any], bool] | None = None

    def _set_monitor_op(self) -> None:
        direction = self.mode if self.mode != "auto" else infer_direction(self.monitor, self.model)
        if direction is None:
            raise ValueError(
                f"{type(self).__name__} received monitor={self.monitor!r} but cannot tell whether it should be "
                "minimized or maximized. Pass mode='min' or mode='max'."
            )
        self.monitor_op = operator.lt if direction == "min" else operator.gt
        if direction == "min":
            self.min_delta = -abs(self.min_delta)
        else:
            self.min_delta = abs(self.min_delta)

    def _is_improvement(self, monitor_value: float, reference_value: float | None) -> bool:
        if self.monitor_op is None:
            self._set_monitor_op()
        if reference_value is None:
            return True
        return bool(self.monitor_op(monitor_value - self.min_delta, reference_value))

    def _monitor_value(self, logs: dict[str, Any] | None, action: str) -> float | None:
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"{type(self).__name__}: {action} is conditioned on {self.monitor!r}, which is not in the logs. "
                f"Available: {', '.join(logs) or 'none'}.",
                stacklevel=3,
            )
        return value
