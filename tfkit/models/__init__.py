"""``tfkit.models``: ``Model``, ``Sequential`` and model configs, as ``keras.models``.

    model = tfkit.models.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
    clone = tfkit.models.clone_model(model)
    same = tfkit.models.model_from_json(model.to_json())
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.models.file_functions import files
from tfkit.models.functional import Functional
from tfkit.models.model import Model
from tfkit.models.cloning import clone_model
from tfkit.models.model_config import (
    model_from_config,
    model_from_json,
    serialize_model,
)
from tfkit.models.sequential import Sequential

__all__ = ["Model", "Sequential", "Functional", "clone_model", "model_from_config", "model_from_json",
           "serialize_model", "load_model", "save_model"]


def load_model(filepath: Any, custom_objects: Mapping[str, Any] | None = None, compile: bool = True,
               safe_mode: bool = True) -> Model:
    """``tfkit.saving.load_model`` under its Keras name ``keras.models.load_model``."""
    return files().load_model(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)


def save_model(model: Model, filepath: Any, overwrite: bool = True, include_optimizer: bool = True,
               zipped: bool | None = None) -> None:
    """``tfkit.saving.save_model`` under its Keras name ``keras.models.save_model``."""
    files().save_model(model, filepath, overwrite=overwrite, include_optimizer=include_optimizer, zipped=zipped)
