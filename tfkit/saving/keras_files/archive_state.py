"""Training state from a ``.keras`` archive into a compiled tfkit model: optimizer variables and tfkit's extras.

    restore_training_state(model, path, snapshot, report, custom_objects)   # after compile; what the importer runs

A Keras 3 archive stores the optimizer's variables as ``optimizer/vars/<i>``
in Keras's order; ``optimizer_layout`` says which tfkit variable each one is.
They go into the model's optimizer (built for its trainable weights first)
all or nothing: every count, shape and dtype is checked before any value is
assigned; a mismatch (a Keras optimizer tfkit lays out differently, another
set of trainable weights) leaves the fresh optimizer and is reported, with a
warning, as the rest of an import is. An archive tfkit wrote also holds
``tfkit.json`` (``archive_writer``): the compile arguments in tfkit's terms,
with which the model is compiled again before the variables are restored,
and the data-shuffling seed, so ``fit`` continues exactly where it stopped.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from tfkit.base import registry
from tfkit.saving import weights_io
from tfkit.saving.h5_snapshot import Snapshot, SnapshotDataset
from tfkit.saving.keras_files.archive import is_zip
from tfkit.saving.keras_files.archive_writer import read_extras
from tfkit.saving.keras_files.config_from_keras import ImportReport
from tfkit.saving.keras_files.optimizer_layout import stored_pairs


def restore_training_state(
    model: Any,
    path: str,
    snapshot: Snapshot | None,
    report: ImportReport,
    custom_objects: Mapping[str, Any] | None = None,
) -> None:
    """Compile ``model`` as tfkit saved it (if it did), then restore its optimizer and training state."""
    if not is_zip(path):
        return
    extra = read_extras(path)
    compiled = extra.get("compile_config") if extra else None
    if isinstance(compiled, dict):
        try:
            with registry.custom_object_scope(custom_objects or {}):
                model.compile_from_config(compiled)
        except (ValueError, TypeError, KeyError) as error:
            report.add(
                f"tfkit.json: compile_config not applied ({type(error).__name__}: {str(error)[:200]}); "
                f"compiled from config.json's compile_config instead"
            )
        else:  # what config.json's (Keras's) compile arguments could not say, tfkit's own said
            report.unmapped[:] = [line for line in report.unmapped if not line.startswith("compile_config")]
    if getattr(model, "optimizer", None) is None:
        return
    if snapshot is not None:
        restore_optimizer(model, snapshot.tables.get("optimizer", {}), path, report)
    if extra and isinstance(extra.get("training"), dict):
        _restore_training(model, extra["training"], path, report)


def restore_optimizer(model: Any, table: dict[str, Any], source: str, report: ImportReport) -> None:
    """``optimizer/vars/<i>`` (``table``: ``"vars/<i>"`` -> dataset) into the model's optimizer, all or nothing."""
    optimizer = model.optimizer
    if not table:
        return
    trainable = model.trainable_weights
    head = len(optimizer.variables) if not optimizer.built else None
    if head is not None and len(table) == head:  # saved before the optimizer was built: no slots
        pairs = [(v, table.get(f"vars/{i}"), f"optimizer/vars/{i}") for i, v in enumerate(optimizer.variables)]
        problems = [
            f"{where}: {weights_io.problem(v, d) if d is not None else 'missing'}"
            for v, d, where in pairs
            if d is None or weights_io.problem(v, d)
        ]
        if not problems:
            weights_io.assign(pairs)
            return
    optimizer.build(trainable)
    try:
        pairs = stored_pairs(optimizer, trainable, table, source)
    except ValueError as error:
        report.add(f"optimizer state not restored (the optimizer starts afresh): {error}")
        return
    weights_io.assign(pairs)


def _restore_training(model: Any, training: dict[str, Any], source: str, report: ImportReport) -> None:
    """The data-shuffling seed (``model._checkpoint_state()``) from ``tfkit.json``; checked, then assigned."""
    state = model._checkpoint_state()
    pairs = []
    for name, data in training.items():
        variable = state.get(name)
        if variable is None or not isinstance(data, dict):
            continue
        try:
            array = np.asarray(data.get("value"), dtype=variable.dtype.as_numpy_dtype)
        except (TypeError, ValueError):
            array = None
        if array is None or list(array.shape) != variable.shape.as_list() or data.get("dtype") != variable.dtype.name:
            report.add(
                f"tfkit.json: training state {name!r} does not fit the model's ({variable.dtype.name} "
                f"{variable.shape.as_list()}); not restored"
            )
            continue
        pairs.append(
            (
                variable,
                SnapshotDataset(array.shape, array.dtype, variable.dtype.name, array),
                f"{source}: tfkit.json training/{name}",
            )
        )
    weights_io.assign(pairs)
