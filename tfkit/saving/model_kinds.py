"""What kind of model an object or class is, as saving needs to know it: asked of the registry, not imported.

    is_model(layer)               # a tfkit.Model (every model is a Trainer)
    is_graph_model(layer)         # a Functional or a Sequential: its config is its graph
    graph_model_kind(cls, config) # "Functional", "Sequential" or None: how a stored config rebuilds cls

``Model.save`` calls ``tfkit.saving`` directly, so saving sits below
``tfkit.models`` and cannot import the model classes. It knows a model by the
training engine every model inherits (``Trainer``) and the two graph models
(``Functional``, ``Sequential``) by their built-in registered names, which
``tfkit.models`` registers when it is imported (``import tfkit`` imports it
before anything is saved or loaded).
"""

from __future__ import annotations

import inspect
from typing import Any

from tfkit.base import registry
from tfkit.training.trainer import Trainer

# What a functional model's config holds besides a subclass's own arguments.
GRAPH_KEYS = ("layers", "input_layers", "output_layers")


def is_model(layer: Any) -> bool:
    """Whether ``layer`` is a ``tfkit.Model`` (of any class: functional, sequential or subclassed)."""
    return isinstance(layer, Trainer)


def _builtin_model(name: str) -> type:
    return registry.builtin_object("layers", name)


def is_functional(layer: Any) -> bool:
    """Whether ``layer`` is a ``Functional`` model (or an instance of a subclass of it)."""
    return isinstance(layer, _builtin_model("Functional"))


def is_sequential(layer: Any) -> bool:
    """Whether ``layer`` is a ``Sequential`` model (or an instance of a subclass of it)."""
    return isinstance(layer, _builtin_model("Sequential"))


def is_graph_model(layer: Any) -> bool:
    """Whether ``layer`` is a ``Functional`` or ``Sequential`` model, whose layers are its graph's."""
    return is_functional(layer) or is_sequential(layer)


def is_functional_config(config: Any) -> bool:
    """Whether ``config`` describes a graph of layers (it has ``layers``, ``input_layers`` and ``output_layers``)."""
    return isinstance(config, dict) and all(key in config for key in GRAPH_KEYS)


def graph_model_kind(cls: Any, config: dict) -> str | None:
    """``"Functional"`` (``"Sequential"``) when ``config`` is the graph of a model class other than Keras's own:
    a subclass of ``Model`` (or of ``Sequential``) built the functional way, whose config lists its layers and how
    they connect, as Keras 3's ``Model.from_config`` revives it. An unknown class (``cls`` None) with such a config
    is read the same way (rebuilding it then names the class to register)."""
    if not isinstance(config.get("layers"), list):
        return None
    if all(key in config for key in GRAPH_KEYS[1:]):
        return "Functional" if cls is None or (isinstance(cls, type) and issubclass(cls, Trainer)) else None
    return "Sequential" if isinstance(cls, type) and issubclass(cls, _builtin_model("Sequential")) else None


def functional_like_constructor(cls: type) -> bool:
    """Whether ``cls(inputs, outputs, name=...)`` is a call ``cls``'s constructor takes, so a model of ``cls`` is
    saved as its graph and rebuilt from it.

    Keras 3 (``functional_like_constructor``) asks for exactly ``(inputs, outputs, name)`` or ``(*args, **kwargs)``;
    a subclass with an extra argument, ``__init__(self, inputs, outputs, alpha=1.0, **kwargs)``, then saves only
    its base keys and ``alpha``, and Keras cannot rebuild it. Any constructor that names ``inputs`` and
    ``outputs`` counts here, and the config's other keys go back to it (``alpha=...``). A subclass whose
    constructor builds its own graph (``MyModel(units=3)``) is saved by its constructor's arguments, as in Keras.
    """
    try:
        parameters = list(inspect.signature(cls.__init__).parameters.values())
    except (TypeError, ValueError):
        return False
    names = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    kinds = {p.kind for p in parameters}
    return {"inputs", "outputs"} <= names or {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD} <= kinds
