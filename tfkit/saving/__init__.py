"""Saving and loading: names, configs, files and exports.

    model.save("vae.keras"); model = tfkit.saving.load_model("vae.keras")   # Keras 3's archive (.h5: tfkit's HDF5)
    tfkit.saving.export_saved_model(model, "export/models/vae", version=1)
    tfkit.saving.register_keras_serializable(package="my_pkg")(MyLayer)

How ``model.save("m.keras")`` reaches the disk, each step a function to jump to:

    Model.save                                 tfkit/models/model.py
    saving_api.save_model                      format from the suffix; in a cluster the chief writes the real
                                               path, other workers a scratch copy (files/worker_files.py)
    keras_files.archive_writer.save_archive    config.json (config_to_keras, object_to_keras), model.weights.h5
                                               (weights_to_keras), metadata.json, assets/
    files.atomic.atomic_file                   written beside the target, synced, renamed over it

An ``.h5`` path goes to ``h5.save_model`` (``h5_writer``) instead, and ``save_weights`` /
``load_weights`` / ``load_model`` start in ``saving_api`` the same way.

Module map: ``keras_files`` (Keras 3's ``.keras`` archives and ``.weights.h5``, both ways; tf-keras files
in), ``h5_format`` / ``weights_io`` / ``h5`` (tfkit's HDF5 model and weights files),
``checkpoint`` (TensorFlow checkpoints), ``model_config`` (a model's config and back) and
``model_kinds`` (which model class an object is, asked of the registry), ``guard`` (memory limits while
rebuilding), ``graph_budget`` (graph ops traced during a rebuild; what a config
may multiply is checked by ``tfkit.engine.config_cost`` and charged through
``tfkit.base.load_budget``), ``file_description`` (what ``tfkit inspect`` prints).
"Export" means one thing in tfkit: writing a model for serving or another runtime:
``export`` (SavedModel for TensorFlow Serving), ``export_archive`` (Keras's ``ExportArchive``),
``export_formats`` / ``export_onnx`` / ``export_tflite`` / ``export_fold`` / ``export_check`` /
``export_blame`` (ONNX and TFLite files checked against ``predict``); Keras's own formats are
saved, not exported (``keras_files``).

The public functions live in ``saving_api`` (``save_model``, ``load_model``,
``save_weights``, ``load_weights``), ``export_api`` (``export_saved_model``,
``export_model``) and ``serialization_api`` (``serialize``, ``deserialize``);
this file only re-exports them. This package sits below ``tfkit.models``:
``Model``'s file methods call ``saving_api`` and ``export_api`` directly, and
saving finds the model classes through the registry (``model_kinds``),
never by importing them.
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
