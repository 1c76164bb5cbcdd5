"""Keras's global backend settings (epsilon, floatx, image data format), at the bottom of tfkit.

    from tfkit.base import settings
    settings.image_data_format()              # "channels_last"
    settings.set_epsilon(1e-6)                # what tfkit.backend.set_epsilon does

Users reach these through ``tfkit.backend`` and ``tfkit.config`` (Keras's
names); ops, layers, the progress bar and ``fit`` read them here, so the lowest
layers need not import the public modules.
"""

from __future__ import annotations

import numbers
import os

_config = {"epsilon": 1e-7, "floatx": "float32", "image_data_format": "channels_last"}
# Debugging caps on fit/evaluate/predict (keras.config.set_max_epochs, ...); None = no cap.
# Keras's environment variables set them too, so a script runs shortened without edits.
_caps: dict[str, int | None] = {}
_CAP_VARIABLES = {"max_epochs": "KERAS_MAX_EPOCHS", "max_steps_per_epoch": "KERAS_MAX_STEPS_PER_EPOCH"}
_switches = {"interactive_logging": True, "flash_attention": None, "unsafe_deserialization": False}


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


def set_image_data_format(data_format: str) -> None:
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"set_image_data_format expects 'channels_last' or 'channels_first', got {data_format!r}")
    _config["image_data_format"] = data_format


def _check_cap(value: object, source: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{source} must be a positive integer or None, got {value!r}")
    return int(value)


def _cap(name: str) -> int | None:
    if name not in _caps:
        variable = _CAP_VARIABLES[name]
        text = os.environ.get(variable)
        try:
            value = None if text in (None, "") else int(text)
        except ValueError:
            raise ValueError(f"The environment variable {variable} must be a positive integer, got {text!r}") from None
        _caps[name] = _check_cap(value, f"The environment variable {variable}")
    return _caps[name]


def max_epochs() -> int | None:
    """The cap on ``fit``'s epochs (``set_max_epochs`` or ``KERAS_MAX_EPOCHS``), or None."""
    return _cap("max_epochs")


def set_max_epochs(max_epochs: int | None) -> None:
    _caps["max_epochs"] = _check_cap(max_epochs, "set_max_epochs: max_epochs")


def max_steps_per_epoch() -> int | None:
    """The cap on steps per epoch of fit/evaluate/predict (``KERAS_MAX_STEPS_PER_EPOCH``), or None."""
    return _cap("max_steps_per_epoch")


def set_max_steps_per_epoch(max_steps_per_epoch: int | None) -> None:
    _caps["max_steps_per_epoch"] = _check_cap(max_steps_per_epoch, "set_max_steps_per_epoch: max_steps_per_epoch")


def is_interactive_logging_enabled() -> bool:
    """True: progress bars and epoch lines go to stdout; False: to Python's ``logging`` (logger ``tfkit``)."""
    return bool(_switches["interactive_logging"])


def set_interactive_logging(enabled: bool) -> None:
    _switches["interactive_logging"] = bool(enabled)


def flash_attention() -> bool | None:
    """The flash-attention switch (None until set); TensorFlow has no flash attention, so no op reads it."""
    return _switches["flash_attention"]


def set_flash_attention(enabled: bool | None) -> None:
    """True / False as the config functions set it; None is Keras's "decide automatically" (the default)."""
    _switches["flash_attention"] = None if enabled is None else bool(enabled)


def unsafe_deserialization() -> bool:
    """Whether ``enable_unsafe_deserialization`` was called (it unlocks nothing: tfkit loads no code)."""
    return bool(_switches["unsafe_deserialization"])


def set_unsafe_deserialization(enabled: bool) -> None:
    _switches["unsafe_deserialization"] = bool(enabled)
