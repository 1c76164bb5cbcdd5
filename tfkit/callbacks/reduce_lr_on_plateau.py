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
    """Multiplies the learning rate by ``factor`` after ``patience`` epochs without improvement.

    Args:
        monitor: logged quantity to watch.
        factor: ``new_lr = lr * factor``; must be below 1.
        patience: epochs without improvement before reducing.
        verbose: 1 prints a message at each reduction.
        mode: "auto", "min" or "max".
        min_delta: smallest change that counts as an improvement.
        cooldown: epochs to wait after a reduction before counting again.
        min_lr: the rate is never reduced below this.
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
