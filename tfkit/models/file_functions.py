"""The file functions a model calls (``model.save`` ...), handed down by ``tfkit.saving``, which sits above it.

    files().save_model(model, "m.h5")          # what Model.save does
    provide(FileFunctions(save_model=..., ...)) # tfkit.saving does this once, when it is imported

``tfkit.saving`` rebuilds models from files, so it must import the model
classes; models therefore cannot import it. Instead the saving package
gives its functions to this module when it is imported (``import tfkit``
imports it), and ``Model``'s methods call them through :func:`files`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable


@dataclasses.dataclass(frozen=True)
class FileFunctions:
    """``tfkit.saving``'s entry points, with the signatures of its functions of the same names."""

    save_model: Callable[..., None]
    load_model: Callable[..., Any]
    save_weights: Callable[..., None]
    load_weights: Callable[..., None]
    export_model: Callable[..., str]


_provided: FileFunctions | None = None


def provide(functions: FileFunctions) -> None:
    """Called by ``tfkit.saving`` when it is imported."""
    global _provided
    _provided = functions


def files() -> FileFunctions:
    """The saving functions; ``RuntimeError`` if ``tfkit.saving`` was never imported."""
    if _provided is None:
        raise RuntimeError("tfkit.saving is not loaded: `import tfkit` (or tfkit.saving) before saving a model")
    return _provided
