"""Masks carried on tensors from the layer that makes them to the layers that use them.

x = embedding(tokens)          # Embedding(mask_zero=True) attaches a mask to x
masking.get_mask(x)            # (batch, time) bool tensor
lstm(x)                        # receives it as ``mask=`` automatically
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

# The attribute Keras uses: code that reads ``x._keras_mask`` on a layer's output works unchanged.
_ATTR = "_keras_mask"


def get_mask(tensor: Any) -> Any:
    """The mask attached to ``tensor``, or ``None``."""
    return getattr(tensor, _ATTR, None)


def set_mask(tensor: Any, mask: Any) -> None:
    """Attach ``mask`` to ``tensor`` (silently skipped for objects that take no attributes)."""
    try:
        setattr(tensor, _ATTR, mask)
    except (AttributeError, TypeError):
        pass


def get_mask_structure(inputs: Any) -> Any:
    """Masks of a (nested) input, same structure; ``None`` when no tensor has one."""
    if not isinstance(inputs, (list, tuple, dict)):
        return get_mask(inputs)
    flat = [get_mask(t) for t in tf.nest.flatten(inputs)]
    if all(m is None for m in flat):
        return None
    return tf.nest.pack_sequence_as(inputs, flat)


def set_mask_structure(outputs: Any, masks: Any) -> None:
    """Attach masks to outputs: one mask for every output, or a matching structure."""
    flat_outputs = tf.nest.flatten(outputs)
    if tf.is_tensor(masks) or masks is None:
        for out in flat_outputs:
            set_mask(out, masks)
        return
    flat_masks = tf.nest.flatten(masks)
    if len(flat_masks) != len(flat_outputs):
        return
    for out, mask in zip(flat_outputs, flat_masks):
        set_mask(out, mask)
