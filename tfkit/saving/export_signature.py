"""The names an export gives its inputs and outputs.

specs = user_signature([tf.TensorSpec((None, 784), name="digits")])   # one spec, named "digits"
output_names(model, outputs)                                          # ["dense_2"] or dict keys
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.input_signature import clean_name, unique_names


def user_signature(input_signature: Any) -> Any:
    """A user's ``input_signature`` (a spec, or lists/dicts of specs) with clean, unique input names."""
    if isinstance(input_signature, (list, tuple)) and len(input_signature) == 1:
        input_signature = input_signature[0]
    flat = tf.nest.flatten(input_signature)
    if not flat or not all(isinstance(s, tf.TensorSpec) for s in flat):
        raise ValueError(f"input_signature must hold tf.TensorSpec objects, got {input_signature!r}")
    if isinstance(input_signature, dict):
        names: Any = {key: spec.name or key for key, spec in input_signature.items()}
    elif len(flat) == 1:
        names = flat[0].name or "inputs"
    else:
        names = tf.nest.pack_sequence_as(input_signature, [s.name or f"inputs_{i}" for i, s in enumerate(flat)])
    specs = tf.nest.map_structure(
        lambda s, n: tf.TensorSpec(s.shape, s.dtype, name=clean_name(n, "inputs")), input_signature, names
    )
    return specs


def output_names(model: Any, outputs: Any) -> list[str]:
    """The serving signature's output names: dict keys, else the model's output names, else output_i."""
    flat = tf.nest.flatten(outputs)
    if isinstance(outputs, dict):
        names = [str(k) for k in sorted(outputs)]  # tf.nest flattens dicts in sorted key order
    else:
        declared = list(getattr(model, "output_names", None) or []) if getattr(model, "outputs", None) else []
        names = declared if len(declared) == len(flat) else [f"output_{i}" for i in range(len(flat))]
    return unique_names([clean_name(n, "output") for n in names])
