"""``LearningRateScheduler``: set the learning rate at each epoch start.

    halve_after_5 = lambda epoch, lr: lr if epoch < 5 else lr * 0.5
    model.fit(x, y, epochs=10, callbacks=[tfkit.callbacks.LearningRateScheduler(halve_after_5)])
    history.history["learning_rate"]   # the rate used in each epoch
"""

from __future__ import annotations

import numbers
from typing import Any, Callable

import numpy as np

from tfkit.base import registry
from tfkit.callbacks.callback import Callback
from tfkit.callbacks.learning_rate_access import read_learning_rate, set_learning_rate


@registry.builtin("callbacks")
class LearningRateScheduler(Callback):
    """Assigns ``schedule(epoch, lr)`` (or ``schedule(epoch)``) to the optimizer's learning rate.

    Args:
        schedule: function of the 0-based epoch and the current rate, returning a float.
        verbose: 1 prints the new rate at each epoch.
    """

    def __init__(self, schedule: Callable[..., float], verbose: int = 0) -> None:
        super().__init__()
        if not callable(schedule):
            raise ValueError(f"LearningRateScheduler needs a callable schedule(epoch, lr); got {type(schedule).__name__}")
        self.schedule = schedule
        self.verbose = verbose

    def _new_rate(self, epoch: int, current: float) -> float:
        try:
            value = self.schedule(epoch, current)
        except TypeError:  # a schedule of the epoch only
            value = self.schedule(epoch)
        if hasattr(value, "numpy"):
            value = value.numpy()
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"The schedule of LearningRateScheduler must return a float; got {value!r} at epoch {epoch}")
        return float(value)

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        optimizer = self.model.optimizer
        rate = self._new_rate(epoch, read_learning_rate(optimizer))
        set_learning_rate(optimizer, rate)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {rate}.")

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if logs is not None:
            logs["learning_rate"] = read_learning_rate(self.model.optimizer)
