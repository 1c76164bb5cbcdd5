"""``tfkit.models``: ``Model``, ``Sequential`` and model configs, as ``keras.models``.

model = tfkit.models.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
clone = tfkit.models.clone_model(model)
same = tfkit.models.model_from_json(model.to_json())
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.models.cloning import clone_model
from tfkit.models.file_functions import files
from tfkit.models.functional import Functional
from tfkit.models.model import Model
from tfkit.models.model_config import model_from_config, model_from_json, serialize_model
from tfkit.models.sequential import Sequential

__all__ = [
    "Model",
    "Sequential",
    "Functional",
    "clone_model",
    "model_from_config",
    "model_from_json",
    "serialize_model",
    "load_model",
    "save_model",
]


def load_model(
    filepath: Any, custom_objects: Mapping[str, Any] | None = None, compile: bool = True, safe_mode: bool = True
) -> Model:
    """Loads a model saved with `model.save`: `tfkit.saving.load_model` under its Keras name.

    See `tfkit.saving.load_model` for what is read and the safety
    guarantees: files are data, never code; `safe_mode` is the caller's
    alone; HDF5 files are parsed in a limited reader process.

    Args:
        filepath: Path (string or `os.PathLike`) of the file.
        custom_objects: Optional dict mapping names to custom classes or
            functions. Defaults to `None`.
        compile: Whether to compile the model as it was when saved.
            Defaults to `True`.
        safe_mode: Whether to refuse configs that load something from
            outside the file (a `TFSMLayer`). Defaults to `True`.

    Returns:
        The loaded `tfkit.Model`.

    Raises:
        FileNotFoundError: If `filepath` does not exist.
        ValueError: If the file cannot be loaded.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> tfkit.models.save_model(model, "model.keras")
        >>> tfkit.models.load_model("model.keras").output_shape
        (None, 2)
    """
    return files().load_model(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)


def save_model(
    model: Model, filepath: Any, overwrite: bool = True, include_optimizer: bool = True, zipped: bool | None = None
) -> None:
    """Saves a model as one file, atomically: `tfkit.saving.save_model` under its Keras name.

    See `tfkit.saving.save_model`.

    Args:
        model: The `tfkit.Model` to save.
        filepath: A path (string or `os.PathLike`), such as
            `"model.keras"`.
        overwrite: Whether to replace an existing file. Defaults to `True`.
        include_optimizer: Whether to save the optimizer's state. Defaults to
            `True`.
        zipped: Only `None` and `True` apply (tfkit writes one file: a
            `.keras` zip or an `.h5`). Defaults to `None`.

    Raises:
        ValueError: If `zipped=False`.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> tfkit.models.save_model(model, "model.h5")
        >>> tfkit.models.load_model("model.h5").count_params()
        8
    """
    files().save_model(model, filepath, overwrite=overwrite, include_optimizer=include_optimizer, zipped=zipped)
