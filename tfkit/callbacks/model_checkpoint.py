"""``ModelCheckpoint``: save the model or its weights while training.

    save = tfkit.callbacks.ModelCheckpoint("ckpt/model-{epoch:02d}-{val_loss:.2f}.weights.h5",
                                           save_weights_only=True, save_best_only=True)
    model.fit(x, y, validation_split=0.2, epochs=10, callbacks=[save])

``filepath`` is formatted with ``epoch`` (1-based), ``batch`` (1-based, when
saving every ``save_freq`` batches) and every key of the logs. Weights that are
not finite (training diverged) are never saved: a warning names the file and
the first bad weight, and the file already there is left as it was.
``last_saved`` says which file was written last, and at which epoch.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, NamedTuple

import numpy as np

from tfkit.base import registry
from tfkit.callbacks.finite_weights import finite_before_saving
from tfkit.callbacks.monitor import MonitorCallback
from tfkit.callbacks.save_schedule import SaveSchedule


class SavedCheckpoint(NamedTuple):
    """A file ``ModelCheckpoint`` wrote: its path, the 1-based epoch, and the 1-based batch (``None`` at epoch end)."""

    path: str
    epoch: int
    batch: int | None

    def describe(self) -> str:
        batch = f", batch {self.batch}" if self.batch is not None else ""
        return f"{self.path!r} (epoch {self.epoch}{batch})"


@registry.builtin("callbacks")
class ModelCheckpoint(MonitorCallback):
    """Callback to save the model or model weights at some frequency.

    `ModelCheckpoint` is used in conjunction with training using `model.fit()` to save
    a model or weights (in a checkpoint file) at some interval, so the model or weights
    can be loaded later to continue the training from the state saved. It calls
    `model.save_weights(path)` (with `save_weights_only=True`) or `model.save(path)` at
    epoch ends or every `save_freq` batches.

    A few options this callback provides include:

    - Whether to only keep the model that has achieved the "best performance" so far,
      or whether to save the model at the end of every epoch regardless of
      performance.
    - Definition of "best"; which quantity to monitor and whether it should be
      maximized or minimized.
    - The frequency it should save at. Currently, the callback supports saving at the
      end of every epoch, or after a fixed number of training batches.
    - Whether only weights are saved, or the whole model is saved.

    Every save is atomic: the file is written beside the target and renamed over it,
    so an interrupted save (a crash, a kill, a power loss) leaves the previous file
    intact. Weights that are not finite (training diverged) are never saved: a
    `RuntimeWarning` names the file and the first bad weight, and the file already
    there is left as it was. With `save_best_only`, `best` changes only once the file
    is written. The folder of the file is created if needed. `last_saved` says which
    file was written last, and at which epoch: a `SavedCheckpoint(path, epoch, batch)`
    (1-based epoch; 1-based batch, or `None` at an epoch end), or `None`.

    Args:
        filepath: String or `os.PathLike`, the path to save the model file. `filepath`
            can contain named formatting options, which will be filled with the value of
            `epoch` (1-based), `batch` (1-based, when saving every `save_freq` batches)
            and every key in `logs` (passed in `on_epoch_end` or `on_train_batch_end`).
            For example: if `filepath` is `"{epoch:02d}-{val_loss:.2f}.keras"`, then the
            model checkpoints will be saved with the epoch number and the validation loss
            in the filename. The file name should end with `.weights.h5` when
            `save_weights_only=True` (any other path is a TensorFlow checkpoint prefix),
            or with `.keras` (also `.h5`) when saving the whole model.
        monitor: The name of the logged quantity compared when `save_best_only=True`, such as `"val_loss"` or
            `"val_accuracy"` (validation quantities need validation data in `fit`).
            Defaults to `"val_loss"`.
        verbose: Verbosity mode, 0 or 1. Mode 0 is silent, and mode 1 displays messages
            when the callback takes an action. Defaults to `0`.
        save_best_only: If `save_best_only=True`, it only saves when the model is
            considered the "best", i.e. `monitor` improved; the latest best model
            according to the quantity monitored will not be overwritten unless
            `filepath` has formatting options. If `monitor` is missing from the logs (or
            is not a scalar), it warns and saves anyway. Defaults to `False`.
        save_weights_only: If `True`, then only the model's weights will be saved
            (`model.save_weights(filepath)`), else the full model is saved
            (`model.save(filepath)`). Defaults to `False`.
        mode: One of `"auto"`, `"min"`, `"max"`. In `"min"` mode, the quantity should
            decrease; in `"max"` mode it should increase; in `"auto"` mode the direction
            is taken from the model's metric of that name (its `direction`), or else from
            the name: losses and errors are minimized, accuracies and scores maximized. An
            unknown mode warns and falls back to `"auto"`. Defaults to `"auto"`.
        save_freq: `"epoch"` or integer. When using `"epoch"`, the callback saves the
            model after each epoch. When using an integer, the callback saves the model at
            the end of this many batches (counted across epochs). Defaults to `"epoch"`.
        initial_value_threshold: Floating point initial "best" value of the metric to be
            monitored. Only applies if `save_best_only=True`: the model is only saved if
            its performance beats this value. Defaults to `None`.

    Raises:
        ValueError: If `save_freq` is neither `"epoch"` nor a positive integer.
        KeyError: When saving, if `filepath` names a field that is neither `epoch`,
            `batch` nor a logged name.
        IsADirectoryError: When saving, if the formatted path is an existing directory.

    Example:
        >>> checkpoint = tfkit.callbacks.ModelCheckpoint(
        ...     "checkpoints/model-{epoch:02d}-{val_loss:.2f}.weights.h5",
        ...     save_weights_only=True, monitor="val_loss", save_best_only=True)
        >>> checkpoint.format_path(epoch=2, batch=None, logs={"val_loss": 0.1234})
        'checkpoints/model-03-0.12.weights.h5'
        >>> checkpoint.last_saved is None
        True
    """

    def __init__(
        self,
        filepath: str | os.PathLike,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: str | int = "epoch",
        initial_value_threshold: float | None = None,
    ) -> None:
        super().__init__(monitor, mode, initial_value_threshold)
        self._schedule = SaveSchedule(save_freq, "ModelCheckpoint")
        self.filepath = os.fspath(filepath)
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._current_epoch = 0
        self.last_saved: SavedCheckpoint | None = None

    def _implements_train_batch_hooks(self) -> bool:
        return self._schedule.per_batch

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self._schedule.batch_ended(batch):
            self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def format_path(self, epoch: int, batch: int | None, logs: dict[str, Any] | None) -> str:
        """The file path for 0-based ``epoch`` / ``batch`` with ``logs`` filled in."""
        fields = dict(logs or {})
        fields["epoch"] = epoch + 1
        if batch is not None and "batch" not in fields:
            fields["batch"] = batch + 1
        try:
            return self.filepath.format(**fields)
        except KeyError as error:
            raise KeyError(
                f"ModelCheckpoint could not format filepath {self.filepath!r}: no value for {error}. "
                f"Available fields: {', '.join(sorted(fields))}."
            ) from None

    def _should_save(self, epoch: int, logs: dict[str, Any] | None) -> tuple[bool, Any]:
        """``(save?, the new best value or None)``; ``best`` changes only once the file is written."""
        if not self.save_best_only:
            return True, None
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(
                f"ModelCheckpoint can save the best model only with {self.monitor!r} in the logs; saving anyway.",
                stacklevel=3,
            )
            return True, None
        if np.ndim(current) > 0:
            warnings.warn(
                f"ModelCheckpoint: {self.monitor!r} is not a scalar ({current!r}); saving every time.", stacklevel=3
            )
            return True, None
        if self._is_improvement(current, self.best):
            return True, current
        if self.verbose > 0:
            best = "None" if self.best is None else f"{self.best:.5f}"
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False, None

    def _kept(self, filepath: str) -> str:
        """What the user still has when a save is skipped."""
        here = f"{filepath!r} was left as it was" if os.path.exists(filepath) else f"{filepath!r} was not written"
        if self.last_saved is None:
            return f"{here}; this ModelCheckpoint has saved no file yet"
        if self.last_saved.path == filepath:
            return f"{here}: it holds the last checkpoint saved, {self.last_saved.describe()}"
        return f"{here}; the last checkpoint saved is {self.last_saved.describe()}"

    def _save(self, epoch: int, batch: int | None, logs: dict[str, Any] | None) -> None:
        filepath = self.format_path(epoch, batch, logs)
        save, improved = self._should_save(epoch, logs)
        if not save:
            return
        if os.path.isdir(filepath):
            raise IsADirectoryError(
                f"ModelCheckpoint needs a file path, but {filepath!r} is an existing directory. Give a file name."
            )
        if not finite_before_saving(self.model, "ModelCheckpoint", filepath, self._kept(filepath)):
            return
        if self.verbose > 0:
            if improved is not None:
                best = "None" if self.best is None else f"{self.best:.5f}"
                print(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to {improved:.5f}, "
                    f"saving model to {filepath}"
                )
            else:
                print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
        if improved is not None:
            self.best = improved
        directory = os.path.dirname(filepath)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath)
        else:
            self.model.save(filepath)
        self.last_saved = SavedCheckpoint(filepath, epoch + 1, None if batch is None else batch + 1)
