"""``LSTM`` / ``GRU``'s ``use_cudnn`` argument, with Keras 3's meaning where tfkit has no cuDNN kernel.

    layer = tfkit.layers.LSTM(32, use_cudnn="auto")     # tfkit's own kernels, on CPU and GPU alike
    tfkit.layers.LSTM(32, use_cudnn=True)(x)            # ValueError: no cuDNN implementation to use

Keras's ``"auto"`` takes cuDNN when the configuration allows and falls back to the
generic loop otherwise; ``True`` makes a call fail when cuDNN cannot be used. tfkit always
runs its own loop (on a GPU its input projection is one large matmul, as cuDNN does), so
``"auto"`` and ``False`` behave alike and ``True`` fails at the first call, as Keras's
does wherever cuDNN is not available. Keras leaves ``use_cudnn`` out of the config.
"""

from __future__ import annotations

from typing import Any

USE_CUDNN_VALUES = ("auto", True, False)


def checked_use_cudnn(value: Any, who: str) -> Any:
    """``value`` when it is one of Keras's ``"auto"``, ``True``, ``False``; a ValueError naming the layer otherwise."""
    if not any(value is allowed or value == allowed and isinstance(value, str) for allowed in USE_CUDNN_VALUES):
        raise ValueError(f"{who}: use_cudnn must be one of 'auto', True, False, got {value!r}")
    return value


def refuse_cudnn(layer: Any) -> None:
    """Raise when the layer was made with ``use_cudnn=True`` (called at the start of each call)."""
    if getattr(layer, "use_cudnn", "auto") is True:
        raise ValueError(
            f"{type(layer).__name__} layer '{layer.name}': use_cudnn=True was specified, but tfkit has no cuDNN "
            f"implementation (Keras raises the same where cuDNN cannot be used). Pass use_cudnn='auto' to run "
            f"tfkit's own kernels."
        )
