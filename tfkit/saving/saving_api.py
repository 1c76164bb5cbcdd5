"""Whole models and their weights to files and back: ``save_model``, ``load_model``, ``save_weights``, ``load_weights``.

    tfkit.saving.save_model(model, "vae.keras")       # Keras 3's archive (.h5: tfkit's HDF5)
    model = tfkit.saving.load_model("vae.keras")
    tfkit.saving.save_weights(model, "vae.weights.h5"); tfkit.saving.load_weights(model, "vae.weights.h5")

The format is chosen from the file (``keras_files`` for Keras 3's archives,
``h5`` for tfkit's HDF5, ``checkpoint`` for TensorFlow checkpoints).
``Model.save``, ``save_weights`` and ``load_weights`` call these functions
directly (saving sits below ``tfkit.models``; it knows the model classes
through ``model_kinds``).
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from tfkit.base.safe_mode import scope as _safe_mode_scope
from tfkit.files import worker_files
from tfkit.saving import checkpoint, h5
from tfkit.saving.errors import loader as _loader
from tfkit.saving.keras_files import archive_weights, archive_writer, importer


def save_model(
    model: Any, filepath: str, overwrite: bool = True, include_optimizer: bool = True, zipped: bool | None = None
) -> None:
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
        raise ValueError(
            "save_model: zipped=False asks for Keras's unzipped .keras folder; tfkit writes one file "
            "(pass zipped=None or True)"
        )
    archive = os.fspath(filepath).lower().endswith(".keras")
    if not archive and not h5.is_h5_path(filepath):
        raise ValueError(
            f"tfkit saves whole models to .keras (Keras 3's archive) or .h5 (tfkit's HDF5) files, got "
            f"{os.fspath(filepath)!r}. Use model.export(path) for a SavedModel (serving) or "
            f"model.save_weights('dir/ckpt') for a TensorFlow checkpoint."
        )
    with worker_files.chief_or_scratch_path(filepath, worker_files.strategy_of(model)) as path:
        if archive:
            archive_writer.save_archive(model, path, overwrite=overwrite, include_optimizer=include_optimizer)
        else:
            h5.save_model(model, path, overwrite=overwrite, include_optimizer=include_optimizer)


@_loader
def load_model(
    filepath: str, custom_objects: Mapping[str, Any] | None = None, compile: bool = True, safe_mode: bool = True
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
    with _safe_mode_scope(safe_mode):  # what TFSMLayer.from_config reads: it opens a folder its config names
        if importer.is_keras_archive(filepath):  # a Keras 3 .keras zip: imported as data
            return importer.import_keras(filepath, custom_objects, compile)[0]
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
        raise ValueError(
            f"save_weights: max_shard_size={max_shard_size!r} asks for Keras's sharded weights files "
            f"(.weights.json); tfkit writes one weights file, so only max_shard_size=None applies"
        )
    name = os.fspath(filepath).lower()
    if name.endswith(".keras"):
        raise ValueError(
            f"save_weights: {os.fspath(filepath)!r} names a whole-model file; save the weights to a "
            f"path ending in .weights.h5 (Keras's weights file), or use model.save() for .keras"
        )
    with worker_files.chief_or_scratch_path(filepath, worker_files.strategy_of(model)) as path:
        if name.endswith(".weights.h5"):
            archive_writer.save_keras_weights(model, path, overwrite=overwrite)
        elif h5.is_h5_path(filepath):
            h5.save_weights_h5(model, path, overwrite=overwrite)
        else:
            checkpoint.save_checkpoint(model, path, overwrite=overwrite)


def load_weights(model: Any, filepath: str, skip_mismatch: bool = False) -> None:
    """Loads weights into a model from a file: all or nothing.

    `model.load_weights(filepath)` calls it. Reads Keras 3's `.weights.h5`
    and `.keras` files (written by tfkit or Keras, as data), tfkit's `.h5`
    weights or model files, or a TensorFlow checkpoint prefix. Weights are matched by attribute path, not
    creation order; every shape and dtype is compared (floats of another
    precision are cast, as Keras casts them), and every array read,
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
    if importer.is_keras_archive(filepath):
        archive_weights.load_archive_weights(model, filepath)
    elif (
        h5.is_h5_path(filepath)
        or filepath.lower().endswith(".keras")
        or os.path.isfile(filepath)
        and not checkpoint.is_checkpoint_prefix(filepath)
    ):
        h5.load_weights_h5(model, filepath, skip_mismatch=skip_mismatch)
    else:
        checkpoint.load_checkpoint(model, filepath, skip_mismatch=skip_mismatch)
