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
    """Learning rate scheduler.

    At the beginning of every epoch, this callback gets the updated learning rate
    value from the `schedule` function provided, with the current epoch and current
    learning rate, and applies the updated learning rate on the optimizer. A schedule
    of the epoch only (`schedule(epoch)`) works too. At the end of each epoch, the
    learning rate is added to the logs as `"learning_rate"` (so it appears in
    `History`). The optimizer's learning rate must be a number (a variable), not a
    `LearningRateSchedule`.

    Args:
        schedule: A function that takes an epoch index (integer, indexed from 0) and the
            current learning rate (float) as inputs, and returns a new learning rate as
            output (a float, or a scalar tensor or array).
        verbose: Integer. 0: quiet, 1: print a message when the learning rate is set.
            Defaults to `0`.

    Raises:
        ValueError: If `schedule` is not callable; during `fit`, if it returns something
            other than a number, or the optimizer's learning rate is a schedule.

    Example:
        >>> # This function keeps the initial learning rate for the first ten epochs
        >>> # and decreases it exponentially after that.
        >>> def scheduler(epoch, lr):
        ...     if epoch < 10:
        ...         return lr
        ...     return lr * float(np.exp(-0.1))
        >>> callback = tfkit.callbacks.LearningRateScheduler(scheduler)
        >>> model = tfkit.Sequential([tfkit.layers.Dense(10)])
        >>> model.compile(tfkit.optimizers.SGD(learning_rate=0.01), loss="mse")
        >>> callback.set_model(model)        # model.fit(..., callbacks=[callback]) does this
        >>> callback.on_epoch_begin(10)
        >>> round(float(model.optimizer.learning_rate), 5)
        0.00905
    """

    def __init__(self, schedule: Callable[..., float], verbose: int = 0) -> None:
        super().__init__()
        if not callable(schedule):
            raise ValueError(
                f"LearningRateScheduler needs a callable schedule(epoch, lr); got {type(schedule).__name__}"
            )
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
            raise ValueError(
                f"The schedule of LearningRateScheduler must return a float; got {value!r} at epoch {epoch}"
            )
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
