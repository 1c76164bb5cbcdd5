"""Saving and loading: names, configs, files and exports.

    model.save("vae.keras"); model = tfkit.saving.load_model("vae.keras")   # Keras 3's archive (.h5: tfkit's HDF5)
    tfkit.saving.export_saved_model(model, "export/models/vae", version=1)
    tfkit.saving.register_keras_serializable(package="my_pkg")(MyLayer)

Module map: ``keras_files`` (Keras 3's ``.keras`` archives and ``.weights.h5``, both ways; tf-keras files
in), ``h5_format`` / ``weights_io`` / ``h5`` (tfkit's HDF5 model and weights files),
``checkpoint`` (TensorFlow checkpoints), ``guard`` (memory limits while
rebuilding), ``graph_budget`` (graph ops traced during a rebuild; what a config
may multiply is checked by ``tfkit.engine.config_cost`` and charged through
``tfkit.base.load_budget``), ``export`` (SavedModel for TensorFlow Serving), ``export_formats`` / ``export_onnx`` / ``export_tflite`` /
``export_fold`` / ``export_check`` / ``export_blame`` (ONNX and TFLite files
checked against ``predict``), ``file_description`` (what ``tfkit inspect`` prints).

The public functions live in ``saving_api`` (``save_model``, ``load_model``,
``save_weights``, ``load_weights``), ``export_api`` (``export_saved_model``,
``export_model``) and ``serialization_api`` (``serialize``, ``deserialize``);
this file only re-exports them. This package sits at the top of tfkit: it
imports the model classes it rebuilds, and ``saving_api`` hands the file
functions down to ``tfkit.models.file_functions`` for ``Model``'s methods.
"""

from __future__ import annotations

from tfkit.base import registry  # noqa: F401  tfkit.saving.registry, as before the move
from tfkit.base.registry import custom_object_scope, get_custom_objects, register_serializable  # noqa: F401
from tfkit.saving import checkpoint, export, export_check, export_formats, h5, keras_files, one_device  # noqa: F401
from tfkit.saving.export_api import export_model, export_saved_model  # noqa: F401
from tfkit.saving.keras_file_editor import KerasFileEditor  # noqa: F401
from tfkit.saving.saving_api import load_model, load_weights, save_model, save_weights  # noqa: F401
from tfkit.saving.serialization_api import deserialize, serialize  # noqa: F401
from tfkit.utils.serialization import (  # noqa: F401  Keras's names, the same functions as tfkit.utils'
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    serialize_keras_object,
)

# Keras's names for the same things.
register_keras_serializable = register_serializable
CustomObjectScope = custom_object_scope
