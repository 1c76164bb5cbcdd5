"""A model whose weights a ``variable_partitioner`` split over parameter servers, copied onto one device for export.

    exported = on_one_device(model)     # the model itself, unless some weight is a ShardedVariable

A SavedModel cannot capture ``tf.distribute``'s ShardedVariable (its serving
function would read a handle that only the chief's process has). The copy is
rebuilt from the model's config, as ``load_model`` rebuilds one, and holds the
gathered values, so the export serves on one device with no cluster.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.saving.model_config import serialize_model
from tfkit.saving.rebuild import rebuild_model


def split_over_servers(model: Any) -> bool:
    """Whether a ``variable_partitioner`` split any of ``model``'s weights."""
    return any(isinstance(w, tf.__internal__.distribute.ShardedVariable) for w in model.weights)


def on_one_device(model: Any) -> Any:
    """``model``, or a copy of it on this device when its weights are split over parameter servers."""
    if not split_over_servers(model):
        return model
    try:
        config = serialize_model(model)
        twin = rebuild_model(config, None, f"export of '{model.name}'")
    except (ValueError, TypeError, NotImplementedError) as error:
        raise ValueError(
            f"export: model '{model.name}' has weights split over parameter servers, and a copy on "
            f"one device could not be rebuilt from its config ({error}). Give the model a get_config, "
            f"or load its saved file on one device and export that"
        ) from error
    twin.set_weights(model.get_weights())
    return twin
