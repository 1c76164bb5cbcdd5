"""Saving and loading: names, configs, files and exports.

    model.save("vae.keras"); model = tfkit.saving.load_model("vae.keras")   # Keras 3's archive (.h5: tfkit's HDF5)
    tfkit.saving.export_saved_model(model, "export/models/vae", version=1)
    tfkit.saving.register_serializable(package="my_pkg")(MyLayer)

Module map: ``keras_files`` (Keras 3's ``.keras`` archives and ``.weights.h5``, both ways; tf-keras files
in), ``h5_format`` / ``weights_io`` / ``h5`` (tfkit's HDF5 model and weights files),
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
from tfkit.saving import checkpoint, export, export_check, export_formats, h5, keras_files, one_device
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
    """Saves a model as one file: architecture, weights, compile arguments and optimizer state.

    `model.save(filepath)` calls it. The suffix picks the format:

    - `.keras`: a Keras 3 archive, as Keras writes it (a zip of
      `config.json`, `model.weights.h5`, `metadata.json` and, for adapted
      lookup layers, `assets/`), so `keras.saving.load_model` opens it, and
      so do the tools built on Keras; `tfkit.load_model` reads it back with
      everything `fit` needs to continue (optimizer state, and in an extra
      member Keras ignores, the data shuffling seed). What Keras's format
      cannot express (a layer or argument Keras does not have, a TensorFlow
      function called on symbolic tensors, a model without a config) is
      refused before anything is written, naming the layer.
    - `.h5` or `.hdf5`: tfkit's own HDF5 format, which keeps everything tfkit
      holds (Keras cannot read it).

    Either file holds data only: configs name classes (custom ones by their
    registered name), never code. The save is atomic: the file is written in
    a temporary folder beside the target, synced, and renamed over it, so an
    interrupted or refused save (a crash, a kill, a power loss) leaves the
    previous file intact. In a multi-worker cluster every worker calls it and
    only the chief's file stays.

    Args:
        model: The `tfkit.Model` to save.
        filepath: A path (string or `os.PathLike`) ending in `.keras`, `.h5`
            or `.hdf5`.
        overwrite: Whether to replace an existing file. If `False` and the
            file exists, an error is raised. Defaults to `True`.
        include_optimizer: Whether to save the optimizer's state. Defaults to
            `True`.
        zipped: Keras's choice between a `.keras` zip and an unzipped folder;
            tfkit writes one file, so only `None` and `True` apply.
            Defaults to `None`.

    Raises:
        ValueError: If `zipped=False`, the suffix is none of the above, or
            (for `.keras`) the model holds something Keras 3 could not
            rebuild.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> tfkit.saving.save_model(model, "model.keras")
        >>> import zipfile
        >>> sorted(zipfile.ZipFile("model.keras").namelist())[:3]
        ['config.json', 'metadata.json', 'model.weights.h5']
        >>> tfkit.saving.load_model("model.keras").output_shape
        (None, 2)
    """
    if zipped is False:
        raise ValueError("save_model: zipped=False asks for Keras's unzipped .keras folder; tfkit writes one file "
                         "(pass zipped=None or True)")
    archive = os.fspath(filepath).lower().endswith(".keras")
    if not archive and not h5.is_h5_path(filepath):
        raise ValueError(
            f"tfkit saves whole models to .keras (Keras 3's archive) or .h5 (tfkit's HDF5) files, got "
            f"{os.fspath(filepath)!r}. Use model.export(path) for a SavedModel (serving) or "
            f"model.save_weights('dir/ckpt') for a TensorFlow checkpoint."
        )
    with worker_files.writing(filepath, _strategy(model)) as path:
        if archive:
            keras_files.save_archive(model, path, overwrite=overwrite, include_optimizer=include_optimizer)
        else:
            h5.save_model(model, path, overwrite=overwrite, include_optimizer=include_optimizer)


@_loader
def load_model(
    filepath: str,
    custom_objects: Mapping[str, Any] | None = None,
    compile: bool = True,
    safe_mode: bool = True,
) -> Any:
    """Loads a model saved with `model.save` (or by Keras 3): built, weights loaded, compiled.

    Reads Keras 3 `.keras` archives (written by tfkit or by Keras: imported
    as data) and tfkit's HDF5 model files (`.h5`, `.hdf5`, and the `.keras`
    files tfkit wrote in that format before it wrote Keras's archive; the
    content tells them apart, not the name), and tf-keras `.h5` model
    files. The model is rebuilt from its config, every weight is created
    from the stored shapes, each stored array's shape and dtype is checked
    against its variable, and only then are the values assigned; with
    `compile=True` the model is compiled from the stored arguments and the
    optimizer state (and, for files tfkit wrote, the shuffling seed) is
    restored, so `fit` continues where the saved model stopped.

    Safety: a file is data, never code. Configs name classes by registered
    name only; no lambda, pickle or module import in a file is ever run,
    whatever `safe_mode` says (tfkit has no code deserializer). `safe_mode`
    is decided by the caller only; no file can change it. What
    `safe_mode=False` unlocks is a `TFSMLayer`, whose config names a
    SavedModel folder to load (refused in safe mode, as in Keras). The HDF5
    file is parsed in a separate, short-lived reader process under memory
    and CPU limits (a hostile file can crash or hang only that process), and
    rebuilding is held to a budget sized by what the file actually stores,
    so a config asking for huge layers fails before allocating anything.
    Anything a file can provoke is raised as a `ValueError`.

    Args:
        filepath: Path (string or `os.PathLike`) of the file.
        custom_objects: Optional dict mapping names to custom classes or
            functions the model uses (instead of registering them with
            `register_keras_serializable`). Defaults to `None`.
        compile: Whether to compile the model after loading, as it was
            when saved. Defaults to `True`.
        safe_mode: `True` or `False`: whether to refuse configs that load
            something from outside the file (a `TFSMLayer`'s SavedModel).
            Defaults to `True`.

    Returns:
        The loaded `tfkit.Model`.

    Raises:
        FileNotFoundError: If `filepath` does not exist.
        ValueError: If the file cannot be loaded (damaged, refused, an
            unknown class, a SavedModel folder, which
            `tf.saved_model.load` reads), or `safe_mode` is not a bool.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> model.compile(optimizer="adam", loss="mse")
        >>> model.save("model.keras")
        >>> restored = tfkit.load_model("model.keras")
        >>> restored.compiled, restored.output_shape
        (True, (None, 2))
        >>> np.allclose(restored.predict(np.ones((1, 3)), verbose=0), model.predict(np.ones((1, 3)), verbose=0))
        True
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
    """Saves all the weights of a model to a file, atomically.

    `model.save_weights(filepath)` calls it. A path ending in `.weights.h5`
    gets Keras 3's weights file (`layers/<key>/vars/<i>`, and the optimizer's
    variables when compiled), which Keras's `load_weights` reads too; another
    `.h5` or `.hdf5` path gets tfkit's HDF5 weights file (weights and other
    state by attribute path, such as `dense/kernel`); any other path is used
    as a TensorFlow checkpoint prefix. Both HDF5 files also store the input
    shapes, so `load_weights` can build an unbuilt model. The file is written
    beside the target and renamed over it, so an interrupted save leaves the
    previous file intact. In a multi-worker cluster every worker calls it
    and only the chief's files stay.

    Args:
        model: The model (or layer) whose weights to save.
        filepath: A path (string or `os.PathLike`).
        overwrite: Whether to replace an existing file. Defaults to `True`.
        max_shard_size: Keras's option to split the weights into shards; tfkit
            writes one file, so only `None` applies. Defaults to `None`.

    Raises:
        ValueError: If `max_shard_size` is not `None`, or the path ends in
            `.keras` (a whole-model file: use `save_model`).

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> tfkit.saving.save_weights(model, "model.weights.h5")
        >>> other = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> tfkit.saving.load_weights(other, "model.weights.h5")
        >>> np.array_equal(other.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())
        True
    """
    if max_shard_size is not None:
        raise ValueError(f"save_weights: max_shard_size={max_shard_size!r} asks for Keras's sharded weights files "
                         f"(.weights.json); tfkit writes one weights file, so only max_shard_size=None applies")
    name = os.fspath(filepath).lower()
    if name.endswith(".keras"):
        raise ValueError(f"save_weights: {os.fspath(filepath)!r} names a whole-model file; save the weights to a "
                         f"path ending in .weights.h5 (Keras's weights file), or use model.save() for .keras")
    with worker_files.writing(filepath, _strategy(model)) as path:
        if name.endswith(".weights.h5"):
            keras_files.save_keras_weights(model, path, overwrite=overwrite)
        elif h5.is_h5_path(filepath):
            h5.save_weights_h5(model, path, overwrite=overwrite)
        else:
            checkpoint.save_checkpoint(model, path, overwrite=overwrite)


def load_weights(model: Any, filepath: str, skip_mismatch: bool = False) -> None:
    """Loads weights into a model from a file: all or nothing.

    `model.load_weights(filepath)` calls it. Reads Keras 3's `.weights.h5`
    and `.keras` files (written by tfkit or Keras, as data), tfkit's `.h5`
    weights or model files, or a TensorFlow checkpoint prefix. Weights are matched by attribute path, not
    creation order; every shape and dtype is compared, and every array read,
    before any variable changes, so a failed load leaves the model as it
    was. An unbuilt model is built from the shapes stored in the file. HDF5
    files are parsed in a limited reader process, as in `load_model`.

    Args:
        model: The model (or layer) to load the weights into.
        filepath: A path (string or `os.PathLike`).
        skip_mismatch: Whether to load only the matching weights, with a
            warning listing the others, instead of raising. Defaults to
            `False`.

    Raises:
        FileNotFoundError: If `filepath` does not exist.
        ValueError: If the file's weights do not match the model's (unless
            `skip_mismatch`) or the file cannot be read.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> model.save_weights("model.weights.h5")
        >>> bigger = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(4)])
        >>> tfkit.saving.load_weights(bigger, "model.weights.h5")
        Traceback (most recent call last):
        ...
        ValueError: ...
    """
    _load_weights(filepath, model, skip_mismatch)


@_loader
def _load_weights(filepath: Any, model: Any, skip_mismatch: bool) -> None:

    filepath = os.fspath(filepath)
    if keras_files.is_keras_archive(filepath):
        keras_files.load_archive_weights(model, filepath)
    elif h5.is_h5_path(filepath) or filepath.lower().endswith(".keras") or \
            os.path.isfile(filepath) and not checkpoint.is_checkpoint_prefix(filepath):
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
    """Exports a model as a SavedModel folder for TensorFlow Serving, atomically.

    The SavedModel has a `serving_default` signature (the model called with
    `training=False`) and a `serve` function; it needs no tfkit to run
    (`tf.saved_model.load`). The new folder replaces the old one in one step,
    so TensorFlow Serving never sees a half-written version. In a
    multi-worker cluster every worker calls it and only the chief's export
    stays.

    Args:
        model: The `tfkit.Model` to export.
        filepath: The export folder; with `version`, the model's base
            folder (`version=1` writes `filepath/1`).
        signatures: Optional dict of extra signatures `{name: tf.function
            or ConcreteFunction}` saved beside `serving_default` (a
            `"serving_default"` entry replaces it). Defaults to `None`.
        input_signature: Optional `tf.TensorSpec` (or a list or dict of
            them) for the inputs. Defaults to `None`: the shapes the model
            was built on, with a free batch dimension.
        jit_compile: Whether to trace the serving function with XLA.
            Defaults to `False`.
        **kwargs: `version` (positive int: write a numbered version
            folder), `overwrite` (default `True`), `warmup_inputs` (a batch
            written as TF Serving warmup requests when
            `tensorflow-serving-api` is installed), `freeze_random_state`
            (default `False`: random layers reuse their saved state on every
            call, as converters need) and `verify` (default `False`: load the
            export and compare it with `predict` before publishing it).

    Returns:
        The path of the folder written.

    Raises:
        ValueError: If `version` is not a positive int, the model's inputs
            are unknown, or a verified export disagrees with `predict`.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> path = tfkit.saving.export_saved_model(model, "export/tiny", version=1)
        >>> path.endswith("1")
        True
        >>> reloaded = tf.saved_model.load(path)
        >>> reloaded.serve(tf.ones((1, 3))).shape
        TensorShape([1, 2])
    """

    strategy = _strategy(model)
    model = one_device.on_one_device(model)   # weights split by a variable_partitioner: a gathered copy
    with worker_files.writing(filepath, strategy) as path:
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
    """Exports a model for inference: a SavedModel folder, or one ONNX or TFLite file.

    `model.export(...)` calls it. Every format is checked against `predict`
    on a seeded batch before it is published (`verify=False` skips the
    check), and written atomically. In a multi-worker cluster every worker
    calls it and only the chief's file stays (the check is off there).

    Args:
        model: The `tfkit.Model` to export.
        filepath: The folder (SavedModel) or file path to write.
        format: `"tf_saved_model"` (takes `export_saved_model`'s
            arguments), `"onnx"` or `"tflite"` (alias `"litert"`).
            Defaults to `"tf_saved_model"`.
        verbose: Whether to print a line saying what was written and whether
            it agrees with `predict`. Defaults to `True`.
        input_signature: Optional `tf.TensorSpec` (or a list of them) for
            the inputs. Defaults to `None` (the model's input shapes).
        **kwargs: Format options: `verify` (default `True`) and `overwrite`
            for every format; `jit_compile`, `signatures`, `version`,
            `warmup_inputs` and `freeze_random_state` for
            `"tf_saved_model"`; `opset_version` for `"onnx"`;
            `select_tf_ops` and `optimizations` for `"tflite"`.

    Returns:
        The path written.

    Raises:
        ValueError: For an unknown format, unknown inputs, or an export that
            disagrees with `predict`.
        TypeError: For an option the format does not take.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)], name="tiny")
        >>> path = tfkit.saving.export_model(model, "exported")
        Exported model 'tiny' as tf_saved_model to exported (agrees with predict)
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
    """Serializes a tfkit object or registered function to plain, JSON-able data.

    Objects (layers, losses, metrics, initializers, optimizers, ...) become
    `{"module", "class_name", "config", "registered_name", "kind"}` dicts;
    functions become their (registered) name. `deserialize` reads it back.

    Args:
        obj: The object to serialize.

    Returns:
        A dict, or a string for functions.

    Raises:
        ValueError: If the object has no `get_config` and cannot be
            serialized.

    Example:
        >>> config = tfkit.saving.serialize(tfkit.initializers.Ones())
        >>> config["class_name"], config["kind"]
        ('Ones', 'initializers')
    """
    return serialization.serialize(obj)


def deserialize(config: Any, custom_objects: Mapping[str, Any] | None = None, safe_mode: bool = True,
                kind: str | None = None) -> Any:
    """Rebuilds an object from the data `serialize` returned: registered names only, never code.

    Names are resolved in `custom_objects`, then active
    `custom_object_scope` blocks, the registered custom objects, and tfkit's
    built-in objects. No module is imported and nothing in the data is run,
    whatever `safe_mode` says.

    Args:
        config: The serialized data: a dict, or a name.
        custom_objects: Optional dict mapping names to classes or functions.
            Defaults to `None`.
        safe_mode: `True` or `False`, as in `load_model`: whether configs
            that load something from outside (a `TFSMLayer`) are refused.
            Defaults to `True`.
        kind: Which table to look the name up in (`"layers"`, `"losses"`,
            `"activations"`, ...). Defaults to `None`: the dict's `"kind"`
            entry, else the one table that knows the name (an ambiguous name
            such as `"mse"` needs `kind`).

    Returns:
        The object.

    Raises:
        ValueError: For an unknown or ambiguous name, or malformed data.

    Example:
        >>> tfkit.saving.deserialize({"class_name": "Ones", "config": {}})
        Ones()
        >>> tfkit.saving.deserialize("relu", kind="activations").__name__
        'relu'
    """
    return serialization.deserialize(config, custom_objects=custom_objects, safe_mode=safe_mode, kind=kind)


file_functions.provide(file_functions.FileFunctions(
    save_model=save_model, load_model=load_model, save_weights=save_weights, load_weights=load_weights,
    export_model=export_model,
))
