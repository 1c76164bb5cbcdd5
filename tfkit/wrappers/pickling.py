"""Pickling the wrappers: tfkit models travel as the bytes of a ``model.save`` file.

    state = {"model_": ModelBytes.from_model(model)}      # in __getstate__
    model = state["model_"].to_model()                     # in __setstate__, compiled as it was saved
    history = history_state(est.history_)                  # History minus its model reference

sklearn pickles estimators (``joblib.dump``, ``cross_val_score(n_jobs=2)``); tfkit
models hold TensorFlow resources that do not pickle, so the wrappers swap them for
the saved file's bytes. Loading goes through ``tfkit.saving.load_model`` (safe mode).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from tfkit.callbacks.history import History
from tfkit.saving import load_model, save_model


class ModelBytes:
    """A tfkit model saved to bytes (an .h5 file's contents, optimizer state included)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    @classmethod
    def from_model(cls, model: Any) -> ModelBytes:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.h5")
            save_model(model, path)
            with open(path, "rb") as file:
                return cls(file.read())

    def to_model(self) -> Any:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.h5")
            with open(path, "wb") as file:
                file.write(self.data)
            return load_model(path)


def history_state(history: Any) -> dict[str, Any]:
    """What a ``History`` recorded, without the model it points to."""
    return {"history": dict(history.history), "epoch": list(history.epoch), "params": getattr(history, "params", {})}


def history_from_state(state: dict[str, Any], model: Any) -> History:
    history = History()
    history.history, history.epoch = state["history"], state["epoch"]
    history.params = state["params"]
    if model is not None:
        history.set_model(model)
    return history
