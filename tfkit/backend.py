"""``tfkit.backend``: Keras's backend configuration names, for code that reads them.

    eps = tfkit.backend.epsilon()           # 1e-07
    tfkit.backend.clear_session()           # automatic layer names start over
"""

from __future__ import annotations

from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine.naming import clear_session as reset_names

_config = {"epsilon": 1e-7, "floatx": "float32", "image_data_format": "channels_last"}


def backend() -> str:
    """The backend's name: tfkit always runs on ``"tensorflow"``."""
    return "tensorflow"


def epsilon() -> float:
    return _config["epsilon"]


def set_epsilon(value: float) -> None:
    _config["epsilon"] = float(value)


def floatx() -> str:
    return _config["floatx"]


def set_floatx(value: str) -> None:
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(f"set_floatx expects float16, bfloat16, float32 or float64, got {value!r}")
    _config["floatx"] = value


def image_data_format() -> str:
    return _config["image_data_format"]


def set_image_data_format(value: str) -> None:
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f"set_image_data_format expects 'channels_last' or 'channels_first', got {value!r}")
    _config["image_data_format"] = value


def clear_session() -> None:
    """Reset automatic layer names (``dense``, ``dense_1``, ... start over), as ``keras.backend.clear_session``."""
    reset_names()


def is_keras_tensor(x: object) -> bool:
    """Whether ``x`` is a symbolic tensor of a functional model (from ``tfkit.Input``)."""
    return isinstance(x, SymbolicTensor)
