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
    """Collects ``logs`` at each epoch end into ``history[name]`` lists."""

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
