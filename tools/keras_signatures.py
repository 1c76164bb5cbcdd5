"""Arguments Keras 3 accepts that tfkit does not, for the names both have.

    from keras_signatures import argument_gaps
    argument_gaps(keras.layers.BatchNormalization, tfkit.layers.BatchNormalization)
    # ["renorm", "renorm_clipping", "renorm_momentum"] while tfkit lacks batch renormalization

A name can be present and still refuse what Keras code passes it. For a class the
constructor is compared, for a function its own parameters. tfkit's ``**kwargs``
covers an argument only when some class in its MRO names it (``Layer.__init__``
takes ``name`` and ``dtype``; the optimizer base takes ``clipnorm`` ...): an
argument no tfkit signature names is refused at run time, so it is a gap. Keras's
own ``*args`` / ``**kwargs`` are not arguments to match. Parameter names count too:
``set_image_data_format(data_format=...)`` must work when Keras code passes a keyword.
"""

from __future__ import annotations

import inspect
from typing import Any

# "path.argument" -> why tfkit leaves the argument out (it means something on another backend only)
EXCLUDED_ARGUMENTS = {
    "Variable.layout": "a per-variable sharding layout: tfkit lays each variable out by the current "
    "tfkit.distribution (its LayoutMap) when it is created, so the argument is not taken"
}

_SKIPPED_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def _signature(target: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(target)  # a class: its constructor (__new__ or __init__), without self
    except (TypeError, ValueError):  # builtins and C functions without a signature
        return None


def _named_by_tfkit(ours: Any) -> set[str]:
    """The argument names some tfkit signature of ``ours`` names (``**kwargs`` names nothing)."""
    owners = (
        [
            vars(klass)[method]
            for klass in inspect.getmro(ours)
            for method in ("__new__", "__init__")
            if method in vars(klass) and klass is not object
        ]
        if inspect.isclass(ours)
        else [ours]
    )
    names = set()
    for owner in owners:
        try:
            parameters = inspect.signature(owner).parameters.values()
        except (TypeError, ValueError):
            continue
        names.update(parameter.name for parameter in parameters if parameter.kind not in _SKIPPED_KINDS)
    return names


def argument_gaps(theirs: Any, ours: Any, path: str = "") -> list[str]:
    """Keras's argument names (in Keras's order) that no tfkit signature of ``ours`` names.

    ``path`` (``"Variable"``, ``"layers.Dense"``) looks up ``EXCLUDED_ARGUMENTS``.
    """
    keras_signature = _signature(theirs)
    if keras_signature is None or _signature(ours) is None:
        return []
    named = _named_by_tfkit(ours)
    return [
        name
        for name, parameter in keras_signature.parameters.items()
        if name not in ("self", "cls")
        and parameter.kind not in _SKIPPED_KINDS
        and name not in named
        and f"{path}.{name}" not in EXCLUDED_ARGUMENTS
    ]
