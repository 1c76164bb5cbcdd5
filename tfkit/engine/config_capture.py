"""Automatic ``get_config`` for layers whose constructor takes plain values.

    class Linear(tfkit.Layer):
        def __init__(self, units=32, **kwargs): ...
    Linear(64).get_config()  # {'name': 'linear', 'trainable': True, 'dtype': 'float32', 'units': 64}

``Layer.__new__`` records the arguments a layer was constructed with; the
base ``get_config`` returns them when every one is plain data (numbers,
strings, booleans, None, and lists/tuples/dicts of those).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

BASE_KEYS = ("name", "trainable", "dtype")


@functools.lru_cache(maxsize=None)
def _init_parameters(cls: type) -> tuple[list[str], bool]:
    try:
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return [], True
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    has_var_kw = any(p.kind == p.VAR_KEYWORD for p in params)
    keyword = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
    return names + keyword, has_var_kw


def capture(cls: type, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The constructor arguments by name (positional ones named from the signature)."""
    names, _ = _init_parameters(cls)
    captured = dict(zip(names, args))
    if len(args) > len(names):
        captured["*args"] = args[len(names) :]
    captured.update(kwargs)
    return captured


def accepts(cls: type, key: str) -> bool:
    """Whether ``cls(**{key: ...})`` is a valid call."""
    names, has_var_kw = _init_parameters(cls)
    return has_var_kw or key in names


def is_plain(value: Any) -> bool:
    """True for JSON-like data: what a config may hold without custom code."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_plain(v) for k, v in value.items())
    return False


def plain_config(layer_name: str, cls: type, captured: dict[str, Any]) -> dict[str, Any]:
    """``captured`` minus base keys, or a ``NotImplementedError`` saying what to write."""
    if "*args" in captured:
        raise NotImplementedError(
            f"Layer '{layer_name}' ({cls.__name__}) was built with extra positional arguments, "
            f"which cannot be captured automatically. Implement get_config() in {cls.__name__}."
        )
    bad = {k: v for k, v in captured.items() if k not in BASE_KEYS and not is_plain(v)}
    if bad:
        listing = ", ".join(f"{k} ({type(v).__name__})" for k, v in bad.items())
        raise NotImplementedError(
            f"Layer '{layer_name}' ({cls.__name__}) cannot be serialized automatically: "
            f"constructor argument(s) {listing} are not plain values (numbers, strings, "
            f"booleans, None, lists or dicts of those). Implement get_config() in "
            f"{cls.__name__} returning plain values, and from_config() if rebuilding "
            f"needs more than {cls.__name__}(**config)."
        )
    return {k: _copy_plain(v) for k, v in captured.items() if k not in BASE_KEYS}


def _copy_plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _copy_plain(v) for k, v in value.items()}
    return value


def to_plain(value: Any) -> Any:
    """Lists/dicts (including TensorFlow's tracking wrappers) copied to plain Python containers."""
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(to_plain(v) for v in value)
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    return value


def declared_arguments(
    cls: type, captured: dict[str, Any], stop_at: type, leave_out: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Every named argument of ``cls``'s constructors: its ``captured`` value, else the signature's default.

    A constructor that takes ``**kwargs`` passes them to its base's, so the base's
    arguments are ``cls``'s too: the walk goes up the MRO through each class that
    defines ``__init__`` while the last one took ``**kwargs``, and stops before
    ``stop_at`` (the layer base, whose ``name``/``dtype`` are not arguments here).
    The dict names each argument once, subclass first (``self``, ``*args``,
    ``**kwargs`` and ``leave_out`` apart); one without a default that was not given
    is left out.
    """
    arguments: dict[str, Any] = {}
    for klass in cls.__mro__:
        if klass is stop_at:
            break
        if "__init__" not in klass.__dict__ or not issubclass(klass, stop_at):
            continue  # a mixin's
        parameters = list(inspect.signature(klass.__init__).parameters.values())[1:]
        for parameter in parameters:
            if parameter.name in arguments or parameter.name in leave_out:
                continue
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            if parameter.name in captured:
                arguments[parameter.name] = captured[parameter.name]
            elif parameter.default is not parameter.empty:
                arguments[parameter.name] = parameter.default
        if not any(parameter.kind == parameter.VAR_KEYWORD for parameter in parameters):
            break
    return arguments
