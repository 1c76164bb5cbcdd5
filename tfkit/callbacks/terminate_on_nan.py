"""``TerminateOnNaN``: stop ``fit`` as soon as the loss is NaN or infinite.

    model.fit(x, y, callbacks=[tfkit.callbacks.TerminateOnNaN(), tfkit.callbacks.ModelCheckpoint("m.weights.h5")])
    # Batch 17: Invalid loss, terminating training
    # RuntimeWarning: fit stopped at epoch 3, batch 18: TerminateOnNaN saw loss nan. ... 'm.weights.h5' (epoch 2) ...

``stopped_at`` records where it stopped; ``nan_stop_report`` turns that and
the callbacks' saved files into the one message ``fit`` ends with.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, NamedTuple

from tfkit.base import registry
from tfkit.callbacks.callback import Callback
from tfkit.callbacks.finite_weights import first_non_finite_weight
from tfkit.callbacks.model_checkpoint import ModelCheckpoint


class NaNStop(NamedTuple):
    """Where ``TerminateOnNaN`` stopped: 1-based epoch, 1-based batch (``None``: at the epoch's end), the loss."""

    epoch: int
    batch: int | None
    loss: float


@registry.builtin("callbacks")
class TerminateOnNaN(Callback):
    """Callback that terminates training when a NaN loss is encountered.

    It checks `logs["loss"]` after every training batch (and every epoch); when the
    loss is NaN or infinite it prints a message and sets `model.stop_training`, or
    raises. `stopped_at` records where it stopped: a `NaNStop(epoch, batch, loss)`
    (1-based epoch; 1-based batch, or `None` at an epoch's end), or `None`. `fit` then
    ends with a `RuntimeWarning` saying where it stopped, whether the weights in memory
    are still finite, and which file each `ModelCheckpoint` saved last (those skip
    non-finite weights, so it is the last good one).

    Args:
        raise_error: `bool`. If `True`, raise a `RuntimeError` when a NaN or infinite
            loss is encountered, instead of setting `model.stop_training`.
            Defaults to `False`.

    Raises:
        RuntimeError: With `raise_error=True`, when the loss is NaN or infinite.

    Example:
        >>> model = tfkit.Sequential([tfkit.layers.Dense(1)])
        >>> terminate = tfkit.callbacks.TerminateOnNaN()
        >>> terminate.set_model(model)
        >>> terminate.on_batch_end(4, {"loss": float("nan")})
        Batch 4: Invalid loss, terminating training
        >>> model.stop_training, terminate.stopped_at.batch
        (True, 5)
    """

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = raise_error
        self.stopped_at: NaNStop | None = None
        self._epoch = 0

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.stopped_at = None

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._epoch = epoch

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._check(logs, f"batch {batch}", f"Batch {batch}", batch + 1)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._epoch = epoch
        if self.stopped_at is None:
            self._check(logs, f"epoch {epoch}", f"Epoch {epoch + 1}", None)

    def _check(self, logs: dict[str, Any] | None, where: str, label: str, batch: int | None) -> None:
        loss = (logs or {}).get("loss")
        if loss is None:
            return
        loss = float(loss)
        if math.isfinite(loss):
            return
        if self.raise_error:
            raise RuntimeError(
                f"NaN or Inf loss encountered at {where}. Loss value: {loss}. Terminating training immediately."
            )
        print(f"{label}: Invalid loss, terminating training")
        self.stopped_at = NaNStop(self._epoch + 1, batch, loss)
        self.model.stop_training = True


def nan_stop_report(callbacks: Iterable[Any], model: Any) -> str | None:
    """The message a ``fit`` that ``TerminateOnNaN`` stopped ends with (``None`` if none stopped it).

    It says what stopped training and where, whether the weights in memory are still finite, and
    which file each ``ModelCheckpoint`` saved last (those skip non-finite weights, so it is the last
    good one).
    """
    callbacks = list(callbacks)
    stop = next((c.stopped_at for c in callbacks if isinstance(c, TerminateOnNaN) and c.stopped_at), None)
    if stop is None:
        return None
    where = f"epoch {stop.epoch}, batch {stop.batch}" if stop.batch is not None else f"the end of epoch {stop.epoch}"
    bad = first_non_finite_weight(model)
    weights = (
        f"The model's weights in memory are not finite (weight '{bad}' holds NaN or infinity)."
        if bad
        else "The model's weights in memory are still finite."
    )
    lines = [f"fit stopped at {where} (counting from 1): TerminateOnNaN saw loss {stop.loss}. {weights}"]
    for checkpoint in (c for c in callbacks if isinstance(c, ModelCheckpoint)):
        if checkpoint.last_saved is None:
            lines.append(f"ModelCheckpoint({checkpoint.filepath!r}) saved no file before training stopped.")
        else:
            kind = "model.load_weights" if checkpoint.save_weights_only else "tfkit.saving.load_model"
            lines.append(
                f"The last checkpoint saved is {checkpoint.last_saved.describe()}: load it with {kind}"
                f"({checkpoint.last_saved.path!r})."
            )
    return " ".join(lines)
