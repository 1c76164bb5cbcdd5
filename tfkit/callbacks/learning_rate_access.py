"""Reading and setting an optimizer's learning rate from callbacks.

lr = read_learning_rate(model.optimizer)          # a Python float
set_learning_rate(model.optimizer, lr * 0.1)      # assigns the variable
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _learning_rate_of(optimizer: Any) -> Any:
    if optimizer is None:
        raise ValueError(
            "This callback needs a compiled model: model.optimizer is None. Call model.compile(...) first."
        )
    if not hasattr(optimizer, "learning_rate"):
        raise ValueError(
            f"This callback needs an optimizer with a 'learning_rate' attribute; {type(optimizer).__name__} has none."
        )
    return optimizer.learning_rate


def read_learning_rate(optimizer: Any) -> float:
    """The optimizer's current learning rate as a Python float.

    A variable or tensor is read with ``.numpy()``; a schedule (a callable
    without ``numpy``) is evaluated at ``optimizer.iterations``.
    """
    learning_rate = _learning_rate_of(optimizer)
    if hasattr(learning_rate, "numpy"):
        return float(np.asarray(learning_rate.numpy()))
    if callable(learning_rate):
        value = learning_rate(optimizer.iterations)
        return float(np.asarray(value.numpy() if hasattr(value, "numpy") else value))
    return float(learning_rate)


def set_learning_rate(optimizer: Any, value: float) -> None:
    """Assign ``value`` to the optimizer's learning rate (a variable, or a plain float)."""
    learning_rate = _learning_rate_of(optimizer)
    value = float(value)
    if hasattr(learning_rate, "assign"):
        learning_rate.assign(value)
    elif callable(learning_rate):
        raise ValueError(
            f"The optimizer's learning rate is a schedule ({type(learning_rate).__name__}); "
            "a callback cannot overwrite it. Compile with a float learning rate to let callbacks change it."
        )
    else:
        optimizer.learning_rate = value
