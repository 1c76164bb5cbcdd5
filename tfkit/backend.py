"""``tfkit.backend``: Keras's backend configuration names, for code that reads them.

    eps = tfkit.backend.epsilon()           # 1e-07
    tfkit.backend.clear_session()           # automatic layer names start over
"""

from __future__ import annotations

from tfkit.base.settings import (  # noqa: F401  Keras's names, re-exported
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)
from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine.naming import clear_session as reset_names


def clear_session() -> None:
    """Reset automatic layer names (``dense``, ``dense_1``, ... start over), as ``keras.backend.clear_session``."""
    reset_names()


def is_keras_tensor(x: object) -> bool:
    """Whether ``x`` is a symbolic tensor of a functional model (from ``tfkit.Input``)."""
    return isinstance(x, SymbolicTensor)
