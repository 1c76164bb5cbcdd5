"""``tfkit.models``: ``Model``, ``Sequential`` and model configs, as ``keras.models``.

model = tfkit.models.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
clone = tfkit.models.clone_model(model)
same = tfkit.models.model_from_json(model.to_json())
"""

from __future__ import annotations

from tfkit.models.cloning import clone_model
from tfkit.models.functional import Functional
from tfkit.models.model import Model
from tfkit.models.sequential import Sequential
from tfkit.saving.model_config import model_from_config, model_from_json, serialize_model
from tfkit.saving.saving_api import load_model, save_model

__all__ = [
    "Model",
    "Sequential",
    "Functional",
    "clone_model",
    "model_from_config",
    "model_from_json",
    "serialize_model",
    "load_model",
    "save_model",
]
