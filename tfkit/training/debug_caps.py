"""Keras's debugging caps on the loops: ``tfkit.config.set_max_epochs`` and ``set_max_steps_per_epoch``.

    tfkit.config.set_max_epochs(1)               # or KERAS_MAX_EPOCHS=1 in the environment
    epochs, kwargs = capped("fit", 10, {})       # (1, {}) and a warning "fit: limiting epochs to 1"
    model.fit(x, y, epochs=10)                   # Model.fit applies it: one epoch

As in Keras, ``fit`` runs at most ``max_epochs`` epochs, and each epoch of
``fit`` (training and validation), ``evaluate`` and ``predict`` at most
``max_steps_per_epoch`` steps; a warning says when a cap shortens a call.
"""

from __future__ import annotations

import warnings
from typing import Any

from tfkit.base import settings

_STEP_ARGUMENTS = {"fit": ("steps_per_epoch", "validation_steps"), "evaluate": ("steps",), "predict": ("steps",)}


def capped(method: str, epochs: int | None, kwargs: dict[str, Any]) -> tuple[int | None, dict[str, Any]]:
    """``epochs`` and a copy of ``kwargs`` with the caps applied (unchanged when no cap is set)."""
    kwargs = dict(kwargs)
    max_epochs = settings.max_epochs()
    if method == "fit" and max_epochs is not None and epochs is not None and max_epochs < epochs:
        warnings.warn(f"{method}: limiting epochs to {max_epochs} (tfkit.config.max_epochs)", stacklevel=3)
        epochs = max_epochs
    max_steps = settings.max_steps_per_epoch()
    if max_steps is None:
        return epochs, kwargs
    for name in _STEP_ARGUMENTS[method]:
        if name == "validation_steps" and kwargs.get("validation_data") is None and not kwargs.get("validation_split"):
            continue
        steps = kwargs.get(name)
        if steps is None or max_steps < steps:
            warnings.warn(f"{method}: limiting {name} to {max_steps} (tfkit.config.max_steps_per_epoch)", stacklevel=3)
            kwargs[name] = max_steps
    return epochs, kwargs
