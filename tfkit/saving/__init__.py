"""Saving and loading: names, configs, files and exports.

    model.save("vae.h5"); model = tfkit.saving.load_model("vae.h5")
    tfkit.saving.export_saved_model(model, "export/models/vae", version=1)
    tfkit.saving.register_serializable(package="my_pkg")(MyLayer)

Module map: ``h5_format`` / ``weights_io`` / ``h5`` (HDF5 model and weights files),
``checkpoint`` (TensorFlow checkpoints), ``guard`` (memory limits while
rebuilding), ``graph_budget`` (graph ops traced during a rebuild; what a config
may multiply is checked by ``tfkit.engine.config_cost`` and charged through
``tfkit.base.load_budget``), ``export`` (SavedModel for TensorFlow Serving), ``export_formats`` / ``export_onnx`` / ``export_tflite`` /
``export_fold`` / ``export_check`` / ``export_blame`` (ONNX and TFLite files
checked against ``predict``), ``inspect`` (what ``tfkit inspect`` prints).

This package sits at the top of tfkit: it imports the model classes it
rebuilds, and hands ``save_model``, ``load_model``, ``save_weights``,
``load_weights`` and ``export_model`` down to ``tfkit.models.file_functions``
for ``Model``'s methods.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Mapping

from tfkit.base import registry  # noqa: F401  tfkit.saving.registry, as before the move
from tfkit.base.safe_mode import scope as _safe_mode_scope
from tfkit.base.registry import (
    custom_object_scope,
    get_custom_objects,
    register_serializable,
)
from tfkit.engine import serialization
from tfkit.files import worker_files
from tfkit.models import file_functions
from tfkit.saving import checkpoint, export, export_check, export_formats, h5, keras_files
from tfkit.saving.errors import loader as _loader
from tfkit.saving.keras_file_editor import KerasFileEditor  # noqa: F401
from tfkit.utils.serialization import (  # noqa: F401  Keras's names, the same functions as tfkit.utils'
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    serialize_keras_object,
)

# Keras's names for the same things.
register_keras_serializable = register_serializable
CustomObjectScope = custom_object_scope


def _strategy(model: Any) -> Any:
    return getattr(model, "distribute_strategy", None)


def save_model(model: Any, filepath: str, overwrite: bool = True, include_optimizer: bool = True,
               zipped: bool | None = None) -> None:
    """Save a whole model to an .h5 file (see ``tfkit.saving.h5``); written atomically.

    In a multi-worker cluster every worker calls it and only the chief's file
    stays (see ``tfkit.files.worker_files``). ``zipped`` is Keras's choice between a
    ``.keras`` zip and an unzipped folder; tfkit writes one HDF5 file, so only None/True apply.
    """
    if zipped is False:
        raise ValueError("save_model: zipped=False asks for Keras's unzipped .keras folder; tfkit writes one HDF5 "
                         "file (pass zipped=None or True)")
    with worker_files.writing(filepath, _strategy(model)) as path:
        h5.save_model(model, path, overwrite=overwrite, include_optimizer=include_optimizer)


@_loader
def load_model(
    filepath: str,
    custom_objects: Mapping[str, Any] | None = None,
    compile: bool = True,
    safe_mode: bool = True,
) -> Any:
    """Load a model saved with ``model.save``: built, weights loaded, compiled if ``compile``.

    ``safe_mode`` is decided here only; no file can change it, and tfkit has
    no code deserializer, so code in a file is refused whatever its value.
    What ``safe_mode=False`` unlocks is a ``TFSMLayer``, whose config names a
    SavedModel folder to load (refused in safe mode, as in Keras).
    """

    if not isinstance(safe_mode, bool):
        raise ValueError(f"safe_mode must be True or False, got {safe_mode!r}")
    filepath = os.fspath(filepath)
    if os.path.isdir(filepath) and os.path.exists(os.path.join(filepath, "saved_model.pb")):
        raise ValueError(
            f"{filepath} is a SavedModel export; load it with tf.saved_model.load(path) (it needs no tfkit). "
            f"tfkit.load_model reads .h5 files written by model.save()."
        )
    with _safe_mode_scope(safe_mode):   # what TFSMLayer.from_config reads: it opens a folder its config names
        if keras_files.is_keras_archive(filepath):   # a Keras 3 .keras zip: imported as data
            return keras_files.import_keras(filepath, custom_objects, compile)[0]
        return h5.load_model(filepath, custom_objects=custom_objects, compile=compile)


def save_weights(model: Any, filepath: str, overwrite: bool = True, max_shard_size: Any = None) -> None:
    """``.h5`` paths get a tfkit weights file; any other path is a TensorFlow checkpoint prefix.

    In a multi-worker cluster every worker calls it and only the chief's files stay.
    ``max_shard_size`` (Keras: split ``.weights.h5`` into shards listed by a ``.weights.json``) is not
    offered: tfkit writes one file, so only None applies.
    """
    if max_shard_size is not None:
        raise ValueError(f"save_weights: max_shard_size={max_shard_size!r} asks for Keras's sharded weights files "
                         f"(.weights.json); tfkit writes one weights file, so only max_shard_size=None applies")
    with worker_files.writing(filepath, _strategy(model)) as path:
        if h5.is_h5_path(filepath):
            h5.save_weights_h5(model, path, overwrite=overwrite)
        else:
            checkpoint.save_checkpoint(model, path, overwrite=overwrite)


def load_weights(model: Any, filepath: str, skip_mismatch: bool = False) -> None:
    """Load weights by path from an .h5 file or a TensorFlow checkpoint prefix; all or nothing."""
    _load_weights(filepath, model, skip_mismatch)


@_loader
def _load_weights(filepath: Any, model: Any, skip_mismatch: bool) -> None:

    filepath = os.fspath(filepath)
    if h5.is_h5_path(filepath) or os.path.isfile(filepath) and not checkpoint.is_checkpoint_prefix(filepath):
        h5.load_weights_h5(model, filepath, skip_mismatch=skip_mismatch)
    else:
        checkpoint.load_checkpoint(model, filepath, skip_mismatch=skip_mismatch)


def export_saved_model(
    model: Any,
    filepath: str,
    signatures: dict[str, Any] | None = None,
    input_signature: Any = None,
    jit_compile: bool = False,
    **kwargs: Any,
) -> str:
    """Export a SavedModel for TensorFlow Serving (``version=N`` writes ``filepath/N``).

    In a multi-worker cluster every worker calls it and only the chief's export stays.
    """

    with worker_files.writing(filepath, _strategy(model)) as path:
        written = export.export_saved_model(model, path, signatures=signatures, input_signature=input_signature,
                                            jit_compile=jit_compile, **kwargs)
    return os.path.join(os.fspath(filepath), os.path.relpath(written, path)) if written != path else written


def export_model(
    model: Any,
    filepath: str,
    format: str = "tf_saved_model",
    verbose: bool = True,
    input_signature: Any = None,
    **kwargs: Any,
) -> str:
    """``model.export``: a SavedModel folder, or one ``.onnx`` / ``.tflite`` file checked against ``predict``.

    ``format="tf_saved_model"`` takes :func:`export_saved_model`'s arguments;
    every format is checked against ``predict`` on a seeded batch before it is
    published (``verify=False`` skips the check);
    ``"onnx"`` takes ``opset_version``; ``"tflite"`` (or ``"litert"``) takes
    ``select_tf_ops`` and ``optimizations``; both take ``verify`` (default
    True) and ``overwrite`` (see ``tfkit.saving.export_formats``). In a
    multi-worker cluster every worker calls it and only the chief's file stays.
    """

    format = export_formats.check_format(format)
    # In a multi-worker cluster predict sees each worker's share of a batch, so the check is off there.
    kwargs.setdefault("verify", worker_files.cluster_task(_strategy(model))[0] is None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", export_check.UncheckedExportWarning)
        if format == "tf_saved_model":
            written = export_saved_model(model, filepath, input_signature=input_signature, **kwargs)
        else:
            with worker_files.writing(filepath, _strategy(model)) as path:
                export_formats.export_file(model, path, format, input_signature=input_signature, **kwargs)
            written = os.fspath(filepath)
    for record in caught:       # passed on as they came; an unchecked export is not reported as agreeing
        warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
    checked = kwargs["verify"] and not any(issubclass(r.category, export_check.UncheckedExportWarning) for r in caught)
    if verbose:
        print(f"Exported model '{model.name}' as {format} to {written}" + (" (agrees with predict)" if checked else ""))
    return written


def serialize(obj: Any) -> Any:
    """Plain data for a tfkit object or registered function."""
    return serialization.serialize(obj)


def deserialize(config: Any, custom_objects: Mapping[str, Any] | None = None, safe_mode: bool = True,
                kind: str | None = None) -> Any:
    """Rebuild an object from :func:`serialize`'s data (registered names only, never code)."""
    return serialization.deserialize(config, custom_objects=custom_objects, safe_mode=safe_mode, kind=kind)


file_functions.provide(file_functions.FileFunctions(
    save_model=save_model, load_model=load_model, save_weights=save_weights, load_weights=load_weights,
    export_model=export_model,
))
