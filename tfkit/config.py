"""``tfkit.config``: Keras 3's global settings (``keras.config``) under Keras's names.

    tfkit.config.set_floatx("float64")            # new layers' default dtype
    tfkit.config.set_max_epochs(1)                # every fit runs at most one epoch (debugging)
    tfkit.config.disable_interactive_logging()    # progress lines go to Python logging, not stdout

The values live in ``tfkit.base.settings`` (and the dtype policy in
``tfkit.base.dtype_policy``), where the library reads them. Where TensorFlow has
no counterpart the name is kept and says so: flash attention (TensorFlow has
none; Keras's TensorFlow backend ignores the switch too) and
``enable_unsafe_deserialization`` (tfkit never deserializes code, so it unlocks
nothing; see its docstring).
"""

from __future__ import annotations

import warnings
from typing import Any

import tensorflow as tf

from tfkit.base import settings
from tfkit.base.dtype_policy import DTypePolicy, global_policy, set_global_policy
from tfkit.base.settings import (  # Keras's names, re-exported
    backend,
    epsilon,
    floatx,
    image_data_format,
    is_interactive_logging_enabled,
    max_epochs,
    max_steps_per_epoch,
    set_epsilon,
    set_floatx,
    set_image_data_format,
    set_max_epochs,
    set_max_steps_per_epoch,
)

__all__ = [
    "backend", "disable_flash_attention", "disable_interactive_logging", "disable_traceback_filtering",
    "dtype_policy", "enable_flash_attention", "enable_interactive_logging", "enable_traceback_filtering",
    "enable_unsafe_deserialization", "epsilon", "floatx", "image_data_format", "is_flash_attention_enabled",
    "is_interactive_logging_enabled", "is_traceback_filtering_enabled", "max_epochs", "max_steps_per_epoch",
    "set_backend", "set_dtype_policy", "set_epsilon", "set_floatx", "set_image_data_format", "set_max_epochs",
    "set_max_steps_per_epoch",
]


def dtype_policy() -> DTypePolicy:
    """The global dtype policy new layers take (``float32`` until :func:`set_dtype_policy`)."""
    return global_policy()


def set_dtype_policy(policy: Any) -> None:
    """Set the global dtype policy: a name (``"mixed_float16"``), a ``DTypePolicy``, or None for float32."""
    set_global_policy(policy)


def set_backend(backend: str) -> None:
    """tfkit runs on TensorFlow only: ``"tensorflow"`` is accepted, any other backend is refused."""
    if backend != "tensorflow":
        raise ValueError(f"set_backend: tfkit runs on TensorFlow only; expected 'tensorflow', got {backend!r}")


def enable_interactive_logging() -> None:
    """Progress bars and epoch lines are written to stdout (the default)."""
    settings.set_interactive_logging(True)


def disable_interactive_logging() -> None:
    """Progress bars and epoch lines go to Python ``logging`` (logger ``"tfkit"``, level INFO) instead of stdout."""
    settings.set_interactive_logging(False)


def enable_traceback_filtering() -> None:
    """Hide TensorFlow's internal frames from tracebacks (TensorFlow's own switch, on by default)."""
    tf.debugging.enable_traceback_filtering()


def disable_traceback_filtering() -> None:
    """Show full tracebacks, TensorFlow's internal frames included."""
    tf.debugging.disable_traceback_filtering()


def is_traceback_filtering_enabled() -> bool:
    return bool(tf.debugging.is_traceback_filtering_enabled())


def enable_flash_attention() -> None:
    """Record the switch (read back by :func:`is_flash_attention_enabled`). TensorFlow has no flash attention:
    attention ops keep their TensorFlow kernels, as under Keras's TensorFlow backend."""
    settings.set_flash_attention(True)


def disable_flash_attention() -> None:
    settings.set_flash_attention(False)


def is_flash_attention_enabled() -> bool | None:
    """None until enabled or disabled (Keras's "decide automatically"), then True or False."""
    return settings.flash_attention()


def enable_unsafe_deserialization() -> None:
    """Keras's switch to turn safe mode off globally; in tfkit it unlocks ``TFSMLayer`` configs only.

    tfkit's files hold data only and its loaders never turn a file's content into code (no lambdas, no pickles,
    no module imports), with or without ``safe_mode=False``. What safe mode still guards is a ``TFSMLayer``,
    whose config names a SavedModel folder to load and run: after this call (as with ``safe_mode=False``)
    such configs load. The call warns once that code in a file is still refused. Custom code goes through
    registered classes (``tfkit.saving.register_serializable``) instead.
    """
    if not settings.unsafe_deserialization():
        warnings.warn("tfkit.config.enable_unsafe_deserialization: tfkit never deserializes code from a file; "
                      "configs with lambdas or pickled functions are still refused. Register your classes "
                      "with tfkit.saving.register_serializable instead.", UserWarning, stacklevel=2)
    settings.set_unsafe_deserialization(True)
