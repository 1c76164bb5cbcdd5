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
    """Stop training when a monitored metric has stopped improving.

    Assuming the goal of a training is to minimize the loss, the metric to be
    monitored would be `"loss"`, and mode would be `"min"`. A `model.fit()` training
    loop will check at the end of every epoch whether the loss is no longer
    decreasing, considering the `min_delta` and `patience` if applicable. Once it's
    found no longer decreasing, `model.stop_training` is marked `True` and the training
    terminates. The quantity to be monitored needs to be available in the `logs` dict;
    to make it so, pass the loss or metrics at `model.compile()`. A missing quantity
    gives a warning and the epoch is skipped.

    After `fit`, `stopped_epoch` is the (0-based) epoch training stopped at (0 if it
    did not stop early) and `best_epoch` the epoch of the best value, `best`.

    Args:
        monitor: The name of the logged quantity to monitor, such as `"val_loss"` or
            `"val_accuracy"` (validation quantities need validation data in `fit`).
            Defaults to `"val_loss"`.
        min_delta: Minimum change in the monitored quantity to qualify as an improvement,
            i.e. an absolute change of less than `min_delta` will count as no improvement.
            Defaults to `0`.
        patience: Number of epochs with no improvement after which training will be
            stopped. Defaults to `0`.
        verbose: Verbosity mode, 0 or 1. Mode 0 is silent, and mode 1 displays messages
            when the callback takes an action. Defaults to `0`.
        mode: One of `"auto"`, `"min"`, `"max"`. In `"min"` mode, the quantity should
            decrease; in `"max"` mode it should increase; in `"auto"` mode the direction
            is taken from the model's metric of that name (its `direction`), or else from
            the name: losses and errors are minimized, accuracies and scores maximized. An
            unknown mode warns and falls back to `"auto"`. Defaults to `"auto"`.
        baseline: Baseline value for the monitored quantity. If not `None`, training will
            stop if the model doesn't show improvement over the baseline within
            `patience` epochs. Defaults to `None`.
        restore_best_weights: Whether to restore model weights from the epoch with the
            best value of the monitored quantity when training ends. If `False`, the
            model weights obtained at the last step of training are used. An epoch will be
            restored regardless of the performance relative to the `baseline`. If no
            epoch improves on `baseline`, training will run for `patience` epochs and
            restore weights from the best epoch in that set. Defaults to `False`.
        start_from_epoch: Number of epochs to wait before starting to monitor
            improvement. This allows for a warm-up period in which no improvement is
            expected and thus training will not be stopped. Defaults to `0`.

    Raises:
        ValueError: At the first monitored epoch, if `mode="auto"` cannot tell whether
            `monitor` should be minimized or maximized.

    Example:
        >>> callback = tfkit.callbacks.EarlyStopping(monitor="loss", patience=3)
        >>> # This callback will stop the training when there is no improvement in
        >>> # the loss for three consecutive epochs.
        >>> model = tfkit.Sequential([tfkit.layers.Dense(10)])
        >>> model.compile(optimizer=tfkit.optimizers.SGD(), loss="mse")
        >>> history = model.fit(np.arange(100).reshape(5, 20), np.zeros(5),
        ...                     epochs=10, batch_size=1, callbacks=[callback], verbose=0)
        >>> len(history.history["loss"])  # Only 4 epochs are run.
        4
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
