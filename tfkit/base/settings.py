"""Keras's global backend settings (epsilon, floatx, image data format), at the bottom of tfkit.

    from tfkit.base import settings
    settings.image_data_format()              # "channels_last"
    settings.set_epsilon(1e-6)                # what tfkit.backend.set_epsilon does

Users reach these through ``tfkit.backend`` (Keras's names); ops and layers
read them here, so the lowest layers need not import the public module.
"""

from __future__ import annotations

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
