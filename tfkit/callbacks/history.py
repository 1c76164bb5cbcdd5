"""``History``: every epoch's logs, returned by ``fit``.

history = model.fit(x, y, epochs=3)
history.history["loss"]   # [0.31, 0.12, 0.08]
history.epoch             # [0, 1, 2]
"""

from __future__ import annotations

from typing import Any

from tfkit.base import registry
from tfkit.callbacks.callback import Callback


@registry.builtin("callbacks")
class History(Callback):
    """Callback that records events into a `History` object.

    This callback is automatically applied to every model trained with `fit`, and the
    `History` object is returned by `fit` (and kept as `model.history`). It collects the
    `logs` of each epoch end: `history.history` maps each logged name (`"loss"`,
    `"val_loss"`, the metrics) to the list of its values, one per epoch, and
    `history.epoch` lists the (0-based) epochs seen in the last `fit`.

    Example:
        >>> history = tfkit.callbacks.History()   # what model.fit returns
        >>> history.on_train_begin()
        >>> history.on_epoch_end(0, {"loss": 0.5, "val_loss": 0.75})
        >>> history.on_epoch_end(1, {"loss": 0.25, "val_loss": 0.5})
        >>> history.epoch, history.history
        ([0, 1], {'loss': [0.5, 0.25], 'val_loss': [0.75, 0.5]})
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: list[int] = []

    def set_model(self, model: Any) -> None:
        super().set_model(model)
        if model is not None:
            model.history = self

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epoch.append(epoch)
        for name, value in (logs or {}).items():
            self.history.setdefault(name, []).append(value)
        if self.model is not None:
            self.model.history = self
