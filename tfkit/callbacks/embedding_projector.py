"""TensorBoard's embedding projector: a checkpoint of every ``Embedding`` matrix and a ``projector_config.pbtxt``.

    write_projector(model, "logs/train", epoch=3, metadata={"embedding": "words.tsv"})

The projector plugin reads ``projector_config.pbtxt`` in the run folder; each
``embeddings { tensor_name ... metadata_path ... }`` entry names a variable in
the checkpoint written beside it (``keras_embedding.ckpt-<epoch>``).
"""

from __future__ import annotations

import os
from typing import Any, Mapping

import tensorflow as tf

from tfkit.engine import tracking
from tfkit.layers.embedding import Embedding

CHECKPOINT_NAME = "keras_embedding.ckpt"


def embedding_layers(model: Any) -> list[Any]:

    return [layer for layer in tracking.flatten_layers(model) if isinstance(layer, Embedding) and layer.built]


def write_projector(model: Any, run_dir: str, epoch: int, metadata: Any = None) -> str | None:
    """Write the checkpoint and the config; returns the config's path (None when the model has no embeddings)."""
    found = embedding_layers(model)
    if not found:
        return None
    os.makedirs(run_dir, exist_ok=True)
    keys = {f"layer_{i}_{layer.name}".replace("/", "_"): layer.embeddings for i, layer in enumerate(found)}
    tf.train.Checkpoint(**keys).write(os.path.join(run_dir, f"{CHECKPOINT_NAME}-{epoch}"))
    if isinstance(metadata, str):
        metadata = {layer.name: metadata for layer in found}
    lines = []
    for (key, _), layer in zip(keys.items(), found):
        lines.append("embeddings {")
        lines.append(f'  tensor_name: "{key}/.ATTRIBUTES/VARIABLE_VALUE"')
        path = (metadata or {}).get(layer.name) if isinstance(metadata, Mapping) else None
        if path:
            lines.append(f'  metadata_path: "{path}"')
        lines.append("}")
    config = os.path.join(run_dir, "projector_config.pbtxt")
    with open(config, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return config
