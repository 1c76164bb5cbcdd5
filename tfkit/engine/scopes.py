"""Keras 3's top-level scopes on TensorFlow: ``name_scope``, ``device`` and ``remat``.

    with tfkit.name_scope("block"): y = layer(x)      # tf.name_scope("block")
    with tfkit.device("gpu:0"): y = model(x)          # tf.device("GPU:0")
    f = tfkit.remat(f)                                 # tf.recompute_grad: activations recomputed in backprop
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf


class name_scope:  # Keras's lower-case class name
    """A ``tf.name_scope(name)`` context; Keras's extra keyword arguments (``caller``, ``deduplicate``,
    ``override_parent``) are accepted and have no TensorFlow meaning."""

    def __init__(self, name: str, **kwargs: Any) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"name_scope: name must be a non-empty string, got {name!r}")
        unknown = set(kwargs) - {"caller", "deduplicate", "override_parent"}
        if unknown:
            raise TypeError(f"name_scope got unexpected keyword argument(s) {sorted(unknown)}")
        self.name = name
        self._scope: Any = None

    def __enter__(self) -> str:
        self._scope = tf.name_scope(self.name)
        return self._scope.__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        self._scope.__exit__(*exc_info)
        self._scope = None


def device(device_name: str) -> Any:
    """A ``tf.device`` context: ``"cpu"``, ``"gpu:1"`` (Keras's spellings) or any TensorFlow device string."""
    if not isinstance(device_name, str) or not device_name:
        raise ValueError(f"device: expected a device name such as 'cpu:0' or 'gpu:0', got {device_name!r}")
    if "/" not in device_name:
        device_name = device_name.upper()
    return tf.device(device_name)


def remat(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` with rematerialization (``tf.recompute_grad``): its intermediate activations are not kept for
    the backward pass but recomputed, trading compute for memory. Same values and gradients as ``f``."""
    if not callable(f):
        raise TypeError(f"remat expects a callable, got {type(f).__name__}")
    return tf.recompute_grad(f)
