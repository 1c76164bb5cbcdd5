"""The path an optimizer matches a variable by (Muon's ``exclude_layers``, ``OptimizerMap`` keys).

    variable = tf.Variable(0.0, name="encoder/dense/kernel")
    variable_path(variable)                       # "encoder/dense/kernel"
    re.fullmatch("encoder/.*", variable_path(variable))

A Keras-style variable has a ``path``; a tfkit weight is a ``tf.Variable``
whose name is its layer path (``encoder/dense/kernel:0``), used without ``:0``.
"""

from __future__ import annotations

from typing import Any


def variable_path(variable: Any) -> str:
    """``variable.path`` when it has one, else its name without the ``:0`` suffix."""
    path = getattr(variable, "path", None)
    if isinstance(path, str):
        return path
    return str(getattr(variable, "name", "")).split(":")[0]
