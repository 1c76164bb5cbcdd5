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


FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")  # the floats floatx and weight loading take


def backend() -> str:
    """Returns the name of the backend: tfkit always runs on `"tensorflow"`.

    Returns:
        The string `"tensorflow"`.

    Example:
        >>> tfkit.config.backend()
        'tensorflow'
    """
    return "tensorflow"


def epsilon() -> float:
    """Returns the value of the fuzz factor used in numeric expressions (to avoid dividing by zero).

    Returns:
        A float. Defaults to `1e-07`.

    Example:
        >>> tfkit.config.epsilon()
        1e-07
    """
    return _config["epsilon"]


def set_epsilon(value: float) -> None:
    """Sets the value of the fuzz factor used in numeric expressions.

    Args:
        value: Float, the new epsilon.

    Example:
        >>> tfkit.config.set_epsilon(1e-5)
        >>> tfkit.config.epsilon()
        1e-05
        >>> tfkit.config.set_epsilon(1e-7)
    """
    _config["epsilon"] = float(value)


def floatx() -> str:
    """Returns the default float type, as a string: the dtype of new weights and of float inputs.

    Returns:
        The dtype name, such as `"float32"` (the default).

    Example:
        >>> tfkit.config.floatx()
        'float32'
    """
    return _config["floatx"]


def set_floatx(value: str) -> None:
    """Sets the default float type.

    To run layers in float16 or bfloat16 with float32 weights, use a mixed
    dtype policy instead (`tfkit.config.set_dtype_policy("mixed_float16")`).

    Args:
        value: `"float16"`, `"bfloat16"`, `"float32"` or `"float64"`.

    Raises:
        ValueError: For another value.

    Example:
        >>> tfkit.config.set_floatx("float64")
        >>> tfkit.config.floatx()
        'float64'
        >>> tfkit.config.set_floatx("float32")
    """
    if value not in FLOAT_DTYPES:
        raise ValueError(f"set_floatx expects float16, bfloat16, float32 or float64, got {value!r}")
    _config["floatx"] = value


def image_data_format() -> str:
    """Returns the default image data format convention of image layers and utilities.

    Returns:
        `"channels_last"` (the default: `(batch, height, width, channels)`)
        or `"channels_first"` (`(batch, channels, height, width)`).

    Example:
        >>> tfkit.config.image_data_format()
        'channels_last'
    """
    return _config["image_data_format"]


def set_image_data_format(data_format: str) -> None:
    """Sets the default image data format convention.

    Args:
        data_format: `"channels_last"` or `"channels_first"`.

    Raises:
        ValueError: For another value.

    Example:
        >>> tfkit.config.set_image_data_format("channels_first")
        >>> tfkit.config.image_data_format()
        'channels_first'
        >>> tfkit.config.set_image_data_format("channels_last")
    """
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
    """Returns the cap on the number of epochs of `fit`, or `None` when there is none.

    The cap is set by `set_max_epochs`, or read once from the environment
    variable `KERAS_MAX_EPOCHS`.

    Returns:
        A positive integer, or `None`.

    Raises:
        ValueError: If `KERAS_MAX_EPOCHS` is not a positive integer.

    Example:
        >>> tfkit.config.max_epochs() is None
        True
    """
    return _cap("max_epochs")


def set_max_epochs(max_epochs: int | None) -> None:
    """Limits the number of epochs of every `fit` call, for quick debugging runs.

    A `fit` asked for more epochs runs `max_epochs` and warns.

    Args:
        max_epochs: A positive integer, or `None` to remove the cap.

    Raises:
        ValueError: If `max_epochs` is not a positive integer or `None`.

    Example:
        >>> tfkit.config.set_max_epochs(1)
        >>> tfkit.config.max_epochs()
        1
        >>> tfkit.config.set_max_epochs(None)
    """
    _caps["max_epochs"] = _check_cap(max_epochs, "set_max_epochs: max_epochs")


def max_steps_per_epoch() -> int | None:
    """Returns the cap on the steps per epoch of `fit`, `evaluate` and `predict`, or `None`.

    The cap is set by `set_max_steps_per_epoch`, or read once from the
    environment variable `KERAS_MAX_STEPS_PER_EPOCH`.

    Returns:
        A positive integer, or `None`.

    Raises:
        ValueError: If `KERAS_MAX_STEPS_PER_EPOCH` is not a positive integer.

    Example:
        >>> tfkit.config.max_steps_per_epoch() is None
        True
    """
    return _cap("max_steps_per_epoch")


def set_max_steps_per_epoch(max_steps_per_epoch: int | None) -> None:
    """Limits the steps per epoch of `fit`, `evaluate` and `predict`, for quick debugging runs.

    Loops asked for more steps (or for all the data) run at most this many
    and warn. In-memory data given no `batch_size` is then batched so that
    these steps still cover every sample.

    Args:
        max_steps_per_epoch: A positive integer, or `None` to remove the cap.

    Raises:
        ValueError: If the value is not a positive integer or `None`.

    Example:
        >>> tfkit.config.set_max_steps_per_epoch(2)
        >>> tfkit.config.max_steps_per_epoch()
        2
        >>> tfkit.config.set_max_steps_per_epoch(None)
    """
    _caps["max_steps_per_epoch"] = _check_cap(max_steps_per_epoch, "set_max_steps_per_epoch: max_steps_per_epoch")


def is_interactive_logging_enabled() -> bool:
    """Checks whether interactive logging is enabled.

    When enabled (the default), progress bars and epoch lines are written to
    stdout; when disabled, to Python's `logging` (logger `"tfkit"`).

    Returns:
        A bool.

    Example:
        >>> tfkit.config.is_interactive_logging_enabled()
        True
    """
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
