"""``EarlyStopping``: stop ``fit`` when the monitored value stops improving.

    stop = tfkit.callbacks.EarlyStopping(monitor="val_loss", patience=3, restore_best_weights=True)
    history = model.fit(x, y, validation_split=0.2, epochs=100, callbacks=[stop])
    stop.stopped_epoch   # the epoch (0-based) training stopped at, or 0
"""

from __future__ import annotations

from typing import Any

from tfkit.base import registry
from tfkit.callbacks.monitor import MonitorCallback


@registry.builtin("callbacks")
class EarlyStopping(MonitorCallback):
    """Sets ``model.stop_training`` after ``patience`` epochs without improvement.

    Args:
        monitor: logged quantity to watch.
        min_delta: smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: 1 prints a message when stopping or restoring.
        mode: "auto", "min" or "max".
        baseline: training stops unless the value beats this within ``patience`` epochs.
        restore_best_weights: at the end, set the weights of the best epoch seen.
        start_from_epoch: epochs of warm-up during which nothing is monitored.
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ) -> None:
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = int(patience)
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = int(start_from_epoch)
        self.wait = 0
        self.stopped_epoch = 0
        self.best_epoch = 0
        self.best_weights: list[Any] | None = None

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self._monitor_value(logs, "early stopping")
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            # The first monitored epoch is the best so far even if it misses the baseline.
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)
