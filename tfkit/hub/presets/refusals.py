"""Every refusal of a preset is one ``ValueError`` naming it, whatever library found the fault.

    class Backbone(Model):
        @classmethod
        @refuses_bad_presets
        def from_preset(cls, preset, ...): ...    # a ZeroDivisionError deep in a build: ValueError("preset p ...")

tfkit.hub's readers check what they can and name the file and field; this is
the net under them, as ``tfkit.saving.errors.loader`` is under tfkit's model
loaders: a ``TypeError``, ``KeyError`` or ``ZeroDivisionError`` a preset's data
provokes in a library becomes a ``ValueError`` naming the preset, its cause
chained, and a ``ValueError`` from a check that knew no file (a dtype policy's
name, a layer's argument) gains the preset's name. A missing file stays a ``FileNotFoundError`` (``files``'
``MissingPresetFileError`` is both), a missing optional package an
``ImportError``, and Ctrl-C a ``KeyboardInterrupt``.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable

from tfkit.saving.errors import refusing


def refuses_bad_presets(function: Callable) -> Callable:
    """Decorates a ``from_preset`` (``cls, preset, ...``): what the preset provokes leaves as ``ValueError``."""

    @functools.wraps(function)
    def load(cls: Any, preset: Any, *args: Any, **kwargs: Any) -> Any:
        name = os.fspath(preset) if isinstance(preset, (str, os.PathLike)) else repr(preset)
        try:
            with refusing(f"preset {name}"):
                return function(cls, preset, *args, **kwargs)
        except ValueError as error:
            if type(error) is not ValueError or str(name) in str(error):
                raise
            raise ValueError(f"preset {name}: {error}") from error  # a check deeper down that knew no file

    return load
