"""A task's own weights (its head) in a file of their own, ``task.weights.h5``, as KerasHub writes and reads it.

    save_task_weights(classifier, "my_preset/task.weights.h5")    # the head (and optimizer), not the backbone
    load_task_weights(classifier, "my_preset/task.weights.h5")    # all or nothing

The file is Keras 3's weights layout of the whole task (``layers/<key>/vars/<i>``,
keys counted over all the task's layers) with the backbone and every layer in
it left out, as KerasHub's ``save_weights(task, objects_to_skip=backbone
layers)`` writes it; so a head's keys are those of the task's full weights file
(``layers/dense`` for BERT's ``logits``, ``layers/masked_lm_head`` for its
masked-LM head). The backbone's weights go to ``model.weights.h5``. The
optimizer's variables are written as they are (``iterations`` and the learning
rate before training, every slot after), as Keras's ``save_weights`` writes
them, so KerasHub's loader finds what its own fresh task holds. Reading pairs
every stored array with the task's variables outside its backbone; the
optimizer's state is not read.
"""

from __future__ import annotations

import os
from typing import Any

from tfkit.files import atomic
from tfkit.saving import h5_format, h5_writer, weights_io
from tfkit.saving.h5_snapshot import read_snapshot
from tfkit.saving.keras_files import optimizer_layout
from tfkit.saving.keras_files.weights_layout import keras3_pairs, keras3_paths
from tfkit.saving.keras_files.weights_to_keras import write_keras_weights

SUFFIX = ".weights.h5"


def _checked_path(filepath: Any) -> str:
    path = os.fspath(filepath)
    if not path.endswith(SUFFIX):
        raise ValueError(f"The filename must end in `{SUFFIX}`. Received: filepath={path}")
    return path


def backbone_layers(task: Any) -> list[Any]:
    """The task's backbone and every layer in it: what a task weights file leaves out."""
    return [layer for _, layer in keras3_paths(task.backbone)]


def has_task_weights(task: Any) -> bool:
    """Whether ``task`` holds weights its backbone does not (a classification head)."""
    backbone_ids = {id(w) for w in task.backbone.weights}
    return any(id(w) not in backbone_ids for w in task.weights)


def save_task_weights(task: Any, filepath: Any) -> None:
    """Writes ``task``'s weights outside its backbone to ``filepath`` (``*.weights.h5``), atomically."""
    path = _checked_path(filepath)
    if not has_task_weights(task):
        raise ValueError(
            f"Task {type(task).__name__} '{task.name}' has no weights not in the `backbone`. "
            f"`save_task_weights()` has nothing to save."
        )
    with atomic.atomic_file(path) as tmp:
        with h5_writer.create(tmp) as f:
            write_keras_weights(f, task, include_optimizer=False, skip=backbone_layers(task))
            optimizer = getattr(task, "optimizer", None)
            if optimizer is not None:  # as it is: not the built copy a .keras archive stores for a new optimizer
                group = f.create_group("optimizer").create_group("vars")
                group.attrs["name"] = optimizer.name
                for index, (array, dtype) in enumerate(
                    optimizer_layout.stored_arrays(optimizer, task.trainable_weights)
                ):
                    h5_format.write_array(group, str(index), array, dtype)


def assign_task_weights(task: Any, tables: dict[str, dict[str, Any]], source: str) -> None:
    """Assigns a task weights file's arrays (``tables``, as ``read_snapshot`` gives them) to ``task``'s head."""
    weights_io.assign(keras3_pairs(task, tables, source, skip=backbone_layers(task)))


def load_task_weights(task: Any, filepath: Any) -> None:
    """Reads ``task``'s weights outside its backbone from ``filepath``; nothing changes if any does not fit."""
    path = _checked_path(filepath)
    snapshot = read_snapshot(path, ("*",))
    assign_task_weights(task, snapshot.tables, path)
