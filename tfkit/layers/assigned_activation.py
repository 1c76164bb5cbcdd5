"""Applying a layer's ``activation`` attribute, which users may reassign after building.

    model.layers[-1].activation = None       # Grad-CAM: read the logits, not the softmax
    outputs = assigned_activation.apply(layer, outputs)   # in the layer's call: identity for None

Keras's Dense, EinsumDense, the convolutions and SimpleRNNCell skip a ``None``
activation and call whatever else is stored there; tfkit's layers of those
kinds do the same through :func:`apply`. A name (``"relu"``) stored by hand is
not looked up (Keras does not either): it is refused with a TypeError that says
what to assign instead.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf


def apply(layer: Any, outputs: tf.Tensor) -> tf.Tensor:
    """``layer.activation(outputs)``, or ``outputs`` unchanged when the activation is ``None``."""
    activation = layer.activation
    if activation is None:
        return outputs
    if not callable(activation):
        named = isinstance(activation, str)
        hint = f" (assign tfkit.activations.get({activation!r}) to use it by name)" if named else ""
        raise TypeError(
            f"{type(layer).__name__} layer '{layer.name}': `activation` must be a callable or None, "
            f"got {activation!r} of type {type(activation).__name__}{hint}"
        )
    return activation(outputs)
