"""``tfkit.config``: Keras 3's global settings (``keras.config``) under Keras's names.

    tfkit.config.set_floatx("float64")            # new layers' default dtype
    tfkit.config.set_max_epochs(1)                # every fit runs at most one epoch (debugging)
    tfkit.config.disable_interactive_logging()    # progress lines go to Python logging, not stdout

The values live in ``tfkit.base.settings`` (and the dtype policy in
``tfkit.base.dtype_policy``), where the library reads them. Where TensorFlow has
no counterpart the name is kept and says so: flash attention (TensorFlow has
none; Keras's TensorFlow backend ignores the switch too) and
``enable_unsafe_deserialization`` (tfkit never deserializes code, so it unlocks
nothing; see its docstring). ``enable_compilation_cache`` is tfkit's own: XLA's
compiled programs kept on disk for later processes.
"""

from __future__ import annotations

import warnings
from typing import Any

import tensorflow as tf

from tfkit.base import settings
from tfkit.base.compilation_cache import enable_compilation_cache
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
    "backend",
    "enable_compilation_cache",
    "disable_flash_attention",
    "disable_interactive_logging",
    "disable_traceback_filtering",
    "dtype_policy",
    "enable_flash_attention",
    "enable_interactive_logging",
    "enable_traceback_filtering",
    "enable_unsafe_deserialization",
    "epsilon",
    "floatx",
    "image_data_format",
    "is_flash_attention_enabled",
    "is_interactive_logging_enabled",
    "is_traceback_filtering_enabled",
    "max_epochs",
    "max_steps_per_epoch",
    "set_backend",
    "set_dtype_policy",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "set_max_epochs",
    "set_max_steps_per_epoch",
]


def dtype_policy() -> DTypePolicy:
    """Returns the global dtype policy, the one new layers take when given no `dtype`.

    Returns:
        A `tfkit.DTypePolicy`: `"float32"` until `set_dtype_policy` is
        called (or `floatx()` if that was changed).

    Example:
        >>> tfkit.config.dtype_policy()
        <DTypePolicy "float32">
    """
    return global_policy()


def set_dtype_policy(policy: Any) -> None:
    """Sets the global dtype policy, the one new layers take when given no `dtype`.

    With `"mixed_float16"` or `"mixed_bfloat16"`, layers compute in 16 bits
    and keep float32 weights (`compile` then wraps the optimizer in a
    `LossScaleOptimizer` for float16).

    Args:
        policy: A policy name (`"float32"`, `"mixed_float16"`,
            `"mixed_bfloat16"`, ...), a `tfkit.DTypePolicy`, or `None` to
            go back to the default.

    Raises:
        ValueError: For an unknown policy name.

    Example:
        >>> tfkit.config.set_dtype_policy("mixed_float16")
        >>> tfkit.layers.Dense(2).compute_dtype
        'float16'
        >>> tfkit.config.set_dtype_policy(None)
        >>> tfkit.config.dtype_policy().name
        'float32'
    """
    set_global_policy(policy)


def set_backend(backend: str) -> None:
    """Sets the backend: tfkit runs on TensorFlow only, so only `"tensorflow"` is accepted.

    Args:
        backend: The backend name; must be `"tensorflow"`.

    Raises:
        ValueError: For any other backend.

    Example:
        >>> tfkit.config.set_backend("tensorflow")
        >>> tfkit.config.set_backend("jax")
        Traceback (most recent call last):
        ...
        ValueError: set_backend: tfkit runs on TensorFlow only; expected 'tensorflow', got 'jax'
    """
    if backend != "tensorflow":
        raise ValueError(f"set_backend: tfkit runs on TensorFlow only; expected 'tensorflow', got {backend!r}")


def enable_interactive_logging() -> None:
    """Turns interactive logging on: progress bars and epoch lines are written to stdout (the default).

    Example:
        >>> tfkit.config.enable_interactive_logging()
        >>> tfkit.config.is_interactive_logging_enabled()
        True
    """
    settings.set_interactive_logging(True)


def disable_interactive_logging() -> None:
    """Turns interactive logging off: progress lines go to Python `logging` instead of stdout.

    They are logged by the logger `"tfkit"` at level INFO, which suits
    non-interactive runs (log files, clusters).

    Example:
        >>> tfkit.config.disable_interactive_logging()
        >>> tfkit.config.is_interactive_logging_enabled()
        False
        >>> tfkit.config.enable_interactive_logging()
    """
    settings.set_interactive_logging(False)


def enable_traceback_filtering() -> None:
    """Turns traceback filtering on: TensorFlow's internal frames are hidden from tracebacks.

    It is TensorFlow's own switch (`tf.debugging.enable_traceback_filtering`),
    on by default.

    Example:
        >>> tfkit.config.enable_traceback_filtering()
        >>> tfkit.config.is_traceback_filtering_enabled()
        True
    """
    tf.debugging.enable_traceback_filtering()


def disable_traceback_filtering() -> None:
    """Turns traceback filtering off: tracebacks show TensorFlow's internal frames too.

    Example:
        >>> tfkit.config.disable_traceback_filtering()
        >>> tfkit.config.is_traceback_filtering_enabled()
        False
        >>> tfkit.config.enable_traceback_filtering()
    """
    tf.debugging.disable_traceback_filtering()


def is_traceback_filtering_enabled() -> bool:
    """Checks whether traceback filtering is enabled (TensorFlow's switch).

    Returns:
        A bool, `True` by default.

    Example:
        >>> tfkit.config.is_traceback_filtering_enabled()
        True
    """
    return bool(tf.debugging.is_traceback_filtering_enabled())


def enable_flash_attention() -> None:
    """Records that flash attention is enabled; TensorFlow has no flash attention, so no kernel changes.

    The switch is read back by `is_flash_attention_enabled`. Attention ops
    keep their TensorFlow kernels, as under Keras's TensorFlow backend.

    Example:
        >>> tfkit.config.enable_flash_attention()
        >>> tfkit.config.is_flash_attention_enabled()
        True
        >>> tfkit.config.disable_flash_attention()
    """
    settings.set_flash_attention(True)


def disable_flash_attention() -> None:
    """Records that flash attention is disabled; TensorFlow has no flash attention, so no kernel changes.

    Example:
        >>> tfkit.config.disable_flash_attention()
        >>> tfkit.config.is_flash_attention_enabled()
        False
    """
    settings.set_flash_attention(False)


def is_flash_attention_enabled() -> bool | None:
    """Checks whether flash attention was enabled.

    Returns:
        `None` until `enable_flash_attention` or `disable_flash_attention`
        is called (Keras's "decide automatically"), then `True` or `False`.

    Example:
        >>> tfkit.config.enable_flash_attention()
        >>> tfkit.config.is_flash_attention_enabled()
        True
        >>> tfkit.config.disable_flash_attention()
    """
    return settings.flash_attention()


def enable_unsafe_deserialization() -> None:
    """Keras's switch to turn safe mode off globally; in tfkit it unlocks ``TFSMLayer`` configs only.

    tfkit's files hold data only and its loaders never turn a file's content into code (no lambdas, no pickles,
    no module imports), with or without ``safe_mode=False``. What safe mode still guards is a ``TFSMLayer``,
    whose config names a SavedModel folder to load and run: after this call (as with ``safe_mode=False``)
    such configs load. The call warns once that code in a file is still refused. Custom code goes through
    registered classes (``tfkit.saving.register_keras_serializable``) instead.

    The switch holds for the rest of the process: as in Keras, there is no
    public call to turn it back off (the example below resets tfkit's internal
    flag so that it leaves safe mode as it was).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     tfkit.config.enable_unsafe_deserialization()
        >>> caught[0].category.__name__
        'UserWarning'
        >>> tfkit.base.settings.set_unsafe_deserialization(False)   # internal: undo, for this example only
    """
    if not settings.unsafe_deserialization():
        warnings.warn(
            "tfkit.config.enable_unsafe_deserialization: tfkit never deserializes code from a file; "
            "configs with lambdas or pickled functions are still refused. Register your classes "
            "with @tfkit.saving.register_keras_serializable() instead.",
            UserWarning,
            stacklevel=2,
        )
    settings.set_unsafe_deserialization(True)
