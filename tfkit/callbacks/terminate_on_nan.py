"""``TerminateOnNaN``: stop ``fit`` as soon as the loss is NaN or infinite.

    model.fit(x, y, callbacks=[tfkit.callbacks.TerminateOnNaN()])
    # Batch 17: Invalid loss, terminating training
"""

from __future__ import annotations

import math
from typing import Any

from tfkit.callbacks.callback import Callback
from tfkit.saving import registry


@registry.builtin("callbacks")
class TerminateOnNaN(Callback):
    """Checks ``logs["loss"]`` after every batch (and every epoch).

    Args:
        raise_error: raise ``RuntimeError`` instead of setting ``model.stop_training``.
    """

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._check(logs, f"batch {batch}", f"Batch {batch}")

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._check(logs, f"epoch {epoch}", f"Epoch {epoch + 1}")

    def _check(self, logs: dict[str, Any] | None, where: str, label: str) -> None:
        loss = (logs or {}).get("loss")
        if loss is None:
            return
        loss = float(loss)
        if math.isfinite(loss):
            return
        if self.raise_error:
            raise RuntimeError(f"NaN or Inf loss encountered at {where}. Loss value: {loss}. Terminating training immediately.")
        print(f"{label}: Invalid loss, terminating training")
        self.model.stop_training = True
