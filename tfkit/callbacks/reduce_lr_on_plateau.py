"""``ReduceLROnPlateau``: divide the learning rate when progress stalls.

reduce = tfkit.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=5, min_lr=1e-5)
model.fit(x, y, validation_split=0.2, epochs=50, callbacks=[reduce])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.base import registry
from tfkit.callbacks.learning_rate_access import read_learning_rate, set_learning_rate
from tfkit.callbacks.monitor import MonitorCallback


@registry.builtin("callbacks")
class ReduceLROnPlateau(MonitorCallback):
    """Reduce learning rate when a metric has stopped improving.

    Models often benefit from reducing the learning rate by a factor of 2-10 once
    learning stagnates. This callback monitors a quantity and if no improvement is
    seen for a `patience` number of epochs, the learning rate is reduced:
    `new_lr = max(lr * factor, min_lr)`. At each epoch end the current learning rate is
    added to the logs as `"learning_rate"`. The optimizer's learning rate must be a
    number (a variable), not a `LearningRateSchedule`.

    Args:
        monitor: The name of the logged quantity to monitor, such as `"val_loss"` or
            `"val_accuracy"` (validation quantities need validation data in `fit`).
            Defaults to `"val_loss"`.
        factor: Factor by which the learning rate will be reduced:
            `new_lr = lr * factor`. Must be below 1. Defaults to `0.1`.
        patience: Number of epochs with no improvement after which the learning rate
            will be reduced. Defaults to `10`.
        verbose: Integer. 0: quiet, 1: update messages. Defaults to `0`.
        mode: One of `"auto"`, `"min"`, `"max"`. In `"min"` mode, the quantity should
            decrease; in `"max"` mode it should increase; in `"auto"` mode the direction
            is taken from the model's metric of that name (its `direction`), or else from
            the name: losses and errors are minimized, accuracies and scores maximized. An
            unknown mode warns and falls back to `"auto"`. Defaults to `"auto"`.
        min_delta: Threshold for measuring the new optimum, to only focus on significant
            changes. Defaults to `1e-4`.
        cooldown: Number of epochs to wait before resuming normal operation after the
            learning rate has been reduced. Defaults to `0`.
        min_lr: Lower bound on the learning rate. Defaults to `0.0`.

    Raises:
        ValueError: If `factor` is 1 or more; at the first epoch end, if `mode="auto"`
            cannot tell whether `monitor` should be minimized or maximized.

    Example:
        >>> reduce_lr = tfkit.callbacks.ReduceLROnPlateau(
        ...     monitor="val_loss", factor=0.2, patience=5, min_lr=0.001)
        >>> reduce_lr.factor, reduce_lr.patience, reduce_lr.min_lr
        (0.2, 5, 0.001)
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 0,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0.0,
    ) -> None:
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau needs factor < 1.0 (new_lr = lr * factor); got factor={factor}")
        self.factor = float(factor)
        self.patience = int(patience)
        self.verbose = verbose
        self.cooldown = int(cooldown)
        self.min_lr = float(min_lr)
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        if logs is None:
            logs = {}
        optimizer = self.model.optimizer
        logs["learning_rate"] = read_learning_rate(optimizer)
        current = self._monitor_value(logs, "learning rate reduction")
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
            return
        if self.in_cooldown():
            return
        self.wait += 1
        if self.wait < self.patience:
            return
        old_lr = read_learning_rate(optimizer)
        if old_lr > np.float32(self.min_lr):
            new_lr = max(old_lr * self.factor, self.min_lr)
            set_learning_rate(optimizer, new_lr)
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
            self.cooldown_counter = self.cooldown
            self.wait = 0
