"""The weights of a Keras 3 ``.keras`` archive into a tfkit model: what ``model.load_weights("m.keras")`` runs.

    load_archive_weights(model, "model.keras")    # layers/<key>/vars/<i>, all or nothing

The archive is read as ``load_model`` reads it (``archive``: members by exact
name, under size limits; ``model.weights.h5`` through the guarded HDF5
reader), and its weights are paired with the model's by Keras 3's layout
(``weights_layout``). An unbuilt model is first built from the input shape
``config.json`` stores; a failed load leaves it as it was.
"""

from __future__ import annotations

from typing import Any

from tfkit.saving import weights_io
from tfkit.saving.build_rollback import rollback_build_on_error
from tfkit.saving.keras_files.archive import read_archive
from tfkit.saving.keras_files.importer import _archive_weights
from tfkit.saving.keras_files.weights_layout import keras3_pairs


def load_archive_weights(model: Any, path: str) -> None:
    """Load the weights a ``.keras`` archive stores into ``model`` (built from the archive's input shape if
    needed); ``ValueError`` naming every mismatch, and nothing changed, if they do not fit."""
    with read_archive(path) as archive:
        if archive.weights_path is None:
            raise ValueError(f"{path}: the archive holds no model.weights.h5")
        snapshot = _archive_weights(archive.weights_path, path)
        with rollback_build_on_error(model):
            if not (model.built and model.weights):
                build = archive.config.get("build_config")
                if not isinstance(build, dict) or build.get("input_shape") is None:
                    raise ValueError(
                        f"Model '{model.name}' is not built and {path} stores no input shape to build "
                        f"it from. Call the model on a batch of data (or model.build(input_shape)) first."
                    )
                weights_io.build_from_config(model, {"input_shape": build["input_shape"]})
            weights_io.assign(keras3_pairs(model, snapshot.tables, path))
