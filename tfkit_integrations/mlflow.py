"""MLflow autologging for tfkit models, as `mlflow.keras.autolog` does it for Keras.

    import tfkit_integrations.mlflow
    tfkit_integrations.mlflow.autolog()
    model.fit(x, y, epochs=3)     # an MLflow run: fit's parameters, the optimizer's, per-epoch metrics, the model

`mlflow.keras.autolog()` replaces `keras.Model.fit`, which tfkit models do not
use. `autolog` here replaces `tfkit.Model.fit` instead, takes every argument of
`mlflow.keras.autolog` (same names, order and defaults), and logs what MLflow's
Keras autologging logs, with MLflow's own pieces: the arguments of `fit`
(`epochs`, `batch_size`, ...), the training and validation data as dataset
inputs (`mlflow.data`), MLflow's `MlflowCallback` in the callbacks (the
optimizer's config as `optimizer_*` parameters, the model summary, each epoch's
metrics and the `validation_*` ones), and the trained model through
`mlflow.keras.log_model`. As in MLflow, a run is started when none is active
and ended after `fit`, and a failure to log never fails the training: it is a
warning. This module imports MLflow (and so Keras); tfkit never imports it.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from typing import Any, Callable

import mlflow
import numpy as np
import tensorflow as tf
from mlflow.data.numpy_dataset import from_numpy
from mlflow.data.tensorflow_dataset import from_tensorflow
from mlflow.entities import LoggedModelInput
from mlflow.exceptions import MlflowException
from mlflow.keras.callback import MlflowCallback
from mlflow.models import ModelSignature
from mlflow.types.schema import Schema, TensorSpec
from mlflow.utils.autologging_utils import MlflowEventsAndWarningsBehaviorGlobally
from mlflow.utils.autologging_utils.versioning import is_flavor_supported_for_associated_package_versions

import tfkit

__all__ = ["autolog", "model_signature"]

# fit's arguments that are data or objects, not parameters: left out of the logged params, as MLflow does.
_NOT_PARAMS = ("self", "x", "y", "callbacks", "validation_data", "verbose")
_LONGEST_PARAM = 500  # a longer value (a big class_weight dict) is left out rather than cut


class _Settings:
    """What `autolog` was last called with, and the `fit` it replaced."""

    def __init__(self) -> None:
        self.original_fit: Callable[..., Any] | None = None
        self.model_had_own_fit = False
        self.options: dict[str, Any] | None = None
        self.warned: set[str] = set()  # the arguments whose one-time warning was given
        self.local = threading.local()  # .depth: fits running in this thread (a fit inside a fit logs once)


_SETTINGS = _Settings()


def autolog(
    log_every_epoch: bool = True,
    log_every_n_steps: int | None = None,
    log_models: bool = True,
    log_model_signatures: bool = True,
    save_exported_model: bool = False,
    log_datasets: bool = True,
    log_input_examples: bool = False,
    disable: bool = False,
    exclusive: bool = False,
    disable_for_unsupported_versions: bool = False,
    silent: bool = False,
    registered_model_name: str | None = None,
    save_model_kwargs: dict[str, Any] | None = None,
    extra_tags: dict[str, Any] | None = None,
    *,
    pip_requirements: list[str] | None = None,
) -> None:
    """Enables (or disables) MLflow autologging for `tfkit.Model.fit`.

    After it, every `fit` of a tfkit model logs to MLflow, as
    `mlflow.keras.autolog()` does for Keras models: `fit`'s arguments as
    parameters (`epochs`, `batch_size`, `validation_split`, ...; not the data,
    callbacks or `verbose`), `x`/`y` and `validation_data` as the run's
    `"train"` and `"eval"` dataset inputs, the optimizer's config as
    `optimizer_*` parameters and the model summary as `model_summary.txt` (from
    MLflow's `MlflowCallback`, which is added to the callbacks), each epoch's
    metrics (`loss`, `val_loss`, ...) and the validation results as
    `validation_*`, then the trained model with `mlflow.keras.log_model` under
    the name `"model"` (a logged model created before training, so the
    metrics and datasets are linked to it, as in MLflow 3). A `fit` called with
    no active run starts one and ends it after training; inside
    `with mlflow.start_run():` it logs to that run. Logging that fails is a
    warning and never stops the training. As in MLflow, a `fit` given an
    `MlflowCallback` of its own while autologging is on raises
    `mlflow.exceptions.MlflowException` (the metrics would be logged twice).

    The arguments are `mlflow.keras.autolog`'s, with its defaults, and mean
    what they mean there; `pip_requirements` is this function's own.

    Args:
        log_every_epoch: Whether to log the metrics at the end of each epoch.
            Defaults to `True`.
        log_every_n_steps: If set, log the training metrics every this many
            batches instead (then `log_every_epoch` must be `False`). Defaults to
            `None`.
        log_models: Whether to log the trained model at the end of `fit`.
            Defaults to `True`.
        log_model_signatures: Whether the logged model carries a signature
            (its inputs' and outputs' dtypes and shapes, `model_signature`).
            Defaults to `True`.
        save_exported_model: If `True`, the model is logged as a TensorFlow
            SavedModel with a `serve` endpoint (MLflow writes it with Keras's
            `ExportArchive`, which tracks a tfkit model as the `tf.Module` it
            is) instead of a `.keras` file; needs `log_model_signatures`.
            Defaults to `False`.
        log_datasets: Whether to log `x` (with `y`) and `validation_data` as
            dataset inputs of the run: NumPy arrays, dicts of them, tensors and
            `tf.data.Dataset`s; other data (generators, `PyDataset`s) are
            skipped with a warning, as MLflow does. Defaults to `True`.
        log_input_examples: Accepted, and ignored: MLflow's own Keras
            autologging takes it and logs no input example either. Passing
            `True` warns once. Defaults to `False`.
        disable: If `True`, turn autologging off and give `tfkit.Model` its own
            `fit` back. Defaults to `False`.
        exclusive: If `True`, a `fit` inside a run the user started (`with
            mlflow.start_run():`) logs nothing to it; only runs that autologging
            starts get its content. Defaults to `False`.
        disable_for_unsupported_versions: If `True`, autologging stays off when
            the installed Keras (whose `.keras` format and `MlflowCallback` the
            logging goes through) is outside the versions this MLflow was tested
            with for its Keras flavor. Defaults to `False`.
        silent: If `True`, MLflow's event logs and warnings during autologging
            are suppressed, and so are this function's warnings (failed logging,
            skipped datasets, ignored arguments). Warnings of the training itself
            still show. Defaults to `False`.
        registered_model_name: If set, the logged model is also registered
            under this name. Defaults to `None`.
        save_model_kwargs: Keyword arguments for the model's `save` when it is
            logged as a `.keras` file (tfkit's `Model.save` takes `overwrite`
            and `include_optimizer`). Defaults to `None`.
        extra_tags: A dict of tags to set on the runs autologging starts.
            Defaults to `None`.
        pip_requirements: Keyword only, not an argument of
            `mlflow.keras.autolog`: the pip requirements logged with the model,
            passed to `mlflow.keras.log_model`. Defaults to `None`: MLflow
            infers them, which loads the model in a new Python process (seconds).

    Raises:
        ValueError: If both `log_every_epoch` and `log_every_n_steps` ask for
            metrics, or neither does.

    Example:
        >>> import mlflow
        >>> autolog(log_models=False, log_datasets=False)  # runs go where mlflow.set_tracking_uri said
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
        >>> model.compile("sgd", "mse")
        >>> history = model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=2, verbose=0)
        >>> run = mlflow.last_active_run()
        >>> run.data.params["epochs"], run.data.metrics["loss"] == history.history["loss"][-1]
        ('2', True)
        >>> autolog(disable=True)
    """
    if disable or (
        disable_for_unsupported_versions and not is_flavor_supported_for_associated_package_versions("keras")
    ):
        _restore_fit()
        return
    if log_every_epoch == (log_every_n_steps is not None):
        raise ValueError(
            "autolog logs metrics either every epoch (log_every_epoch=True, log_every_n_steps=None) "
            "or every n steps (log_every_epoch=False, log_every_n_steps=n); got "
            f"log_every_epoch={log_every_epoch!r}, log_every_n_steps={log_every_n_steps!r}"
        )
    if log_input_examples:
        _warn_once(
            "log_input_examples",
            "tfkit_integrations.mlflow.autolog ignores log_input_examples=True, as mlflow.keras.autolog does: "
            "no input example is logged with the model. Log one with mlflow.keras.log_model(..., input_example=...).",
            silent,
        )
    _SETTINGS.options = {
        "log_every_epoch": log_every_epoch,
        "log_every_n_steps": log_every_n_steps,
        "log_models": log_models,
        "log_model_signatures": log_model_signatures,
        "save_exported_model": save_exported_model,
        "log_datasets": log_datasets,
        "exclusive": exclusive,
        "silent": silent,
        "registered_model_name": registered_model_name,
        "save_model_kwargs": dict(save_model_kwargs or {}),
        "extra_tags": dict(extra_tags or {}),
        "pip_requirements": pip_requirements,
    }
    if _SETTINGS.original_fit is None:
        original = tfkit.Model.fit
        _SETTINGS.original_fit = original
        _SETTINGS.model_had_own_fit = "fit" in vars(tfkit.Model)
        tfkit.Model.fit = _logging_fit(original)


def _restore_fit() -> None:
    if _SETTINGS.original_fit is not None:
        if _SETTINGS.model_had_own_fit:
            tfkit.Model.fit = _SETTINGS.original_fit
        else:
            del tfkit.Model.fit  # the fit tfkit.Model inherits shows again
        _SETTINGS.original_fit = None
    _SETTINGS.options = None


def _logging_fit(original: Callable[..., Any]) -> Callable[..., Any]:
    signature = inspect.signature(original)

    @functools.wraps(original)
    def fit(self: Any, *args: Any, **kwargs: Any) -> Any:
        options = _SETTINGS.options
        depth = getattr(_SETTINGS.local, "depth", 0)
        if options is None or depth or (options["exclusive"] and mlflow.active_run() is not None):
            return original(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        callbacks = _callback_list(bound.arguments.get("callbacks"))
        if any(isinstance(callback, MlflowCallback) for callback in callbacks):  # as mlflow.keras.autolog refuses it
            raise MlflowException(
                "tfkit_integrations.mlflow.autolog adds an MlflowCallback to fit's callbacks, and this fit was given "
                "one: turn autologging off (autolog(disable=True)) or remove the MlflowCallback from the callbacks."
            )
        silent = options["silent"]
        started = mlflow.active_run() is None
        status = "FAILED"
        with MlflowEventsAndWarningsBehaviorGlobally(
            disable_event_logs=silent, disable_warnings=silent, reroute_warnings=False
        ):
            if started:
                mlflow.start_run(tags=options["extra_tags"] or None)
            _SETTINGS.local.depth = depth + 1
            try:
                _safely("the parameters of fit", lambda: mlflow.log_params(_fit_params(bound.arguments)), silent)
                model_id = None
                if options["log_models"]:  # created before training, so that metrics and datasets link to it
                    model_id = _safely(
                        "the model", lambda: mlflow.initialize_logged_model(name="model").model_id, silent
                    )
                if options["log_datasets"]:
                    _log_datasets(bound.arguments, model_id, silent)
                callback = MlflowCallback(
                    log_every_epoch=options["log_every_epoch"],
                    log_every_n_steps=options["log_every_n_steps"],
                    model_id=model_id,
                )
                bound.arguments["callbacks"] = callbacks + [callback]
                history = original(*bound.args, **bound.kwargs)
                if options["log_models"]:
                    _safely("the model", lambda: _log_model(self, options, model_id), silent)
                status = "FINISHED"
                return history
            finally:
                _SETTINGS.local.depth = depth
                if started:
                    mlflow.end_run(status=status)

    return fit


def _callback_list(callbacks: Any) -> list[Any]:
    if callbacks is None:
        return []
    if isinstance(callbacks, tfkit.callbacks.CallbackList):
        return list(callbacks.callbacks)
    return list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]


def _fit_params(arguments: dict[str, Any]) -> dict[str, Any]:
    params = {}
    for name, value in arguments.items():
        if name in _NOT_PARAMS:
            continue
        if value is None or isinstance(value, (bool, int, float, str, np.generic)):
            params[name] = value
        elif isinstance(value, (dict, list, tuple)) and len(str(value)) <= _LONGEST_PARAM:
            params[name] = str(value)
    return params


def _log_datasets(arguments: dict[str, Any], model_id: str | None, silent: bool) -> None:
    """`x` (with `y`) as the run's "train" input and `validation_data` as its "eval" one, as MLflow logs them."""
    model = LoggedModelInput(model_id) if model_id else None
    for context, data, targets in (
        ("train", arguments.get("x"), arguments.get("y")),
        ("eval", arguments.get("validation_data"), None),
    ):
        if data is None:
            continue
        if isinstance(data, tuple) and len(data) in (2, 3) and targets is None:  # (x, y) or (x, y, sample_weight)
            data, targets = data[0], data[1]
        if _is_arrays(data) and (targets is None or _is_arrays(targets)):
            make = from_numpy
        elif isinstance(data, (tf.Tensor, tf.data.Dataset)):
            make = from_tensorflow
        else:
            _warn(f"tfkit_integrations.mlflow.autolog logs no {context} dataset of type {type(data).__name__}", silent)
            continue
        _safely(
            f"the {context} dataset",
            lambda: mlflow.log_input(make(features=data, targets=targets), context=context, model=model),
            silent,
        )


def _is_arrays(data: Any) -> bool:
    return isinstance(data, np.ndarray) or (
        isinstance(data, dict) and all(isinstance(value, np.ndarray) for value in data.values())
    )


def _log_model(model: Any, options: dict[str, Any], model_id: str | None) -> None:
    # MlflowCallback logs metrics in the background, and log_model reads the model's metrics back: on a file
    # store it can find a metric file not yet written ("Metric 'loss' is malformed. No data found.").
    mlflow.flush_async_logging()
    mlflow.keras.log_model(
        model,
        name="model",
        save_exported_model=options["save_exported_model"],
        signature=model_signature(model) if options["log_model_signatures"] else None,
        registered_model_name=options["registered_model_name"],
        pip_requirements=options["pip_requirements"],
        save_model_kwargs=options["save_model_kwargs"] or None,
        model_id=model_id,
    )


def model_signature(model: Any) -> ModelSignature | None:
    """The MLflow signature of a tfkit model: its inputs' and outputs' dtypes and shapes (`-1` for unknown sizes).

    Args:
        model: A built `tfkit.Model` (a functional or `Sequential` model with an `Input`).

    Returns:
        An `mlflow.models.ModelSignature`, or `None` for a model whose inputs are not known.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> print(model_signature(model).inputs)
        [Tensor('float32', (-1, 3))]
    """
    inputs = getattr(model, "inputs", None)
    if not inputs:
        return None

    def schema(shapes: Any, dtypes: list[Any]) -> Schema:
        shapes = shapes if isinstance(shapes, list) else [shapes]
        return Schema(
            [
                TensorSpec(np.dtype(dtype), [-1 if d is None else int(d) for d in shape])
                for shape, dtype in zip(shapes, dtypes)
            ]
        )

    input_dtypes = [tf.as_dtype(tensor.dtype).as_numpy_dtype for tensor in inputs]
    output_dtypes = [tf.as_dtype(model.compute_dtype).as_numpy_dtype] * len(model.outputs)
    return ModelSignature(
        inputs=schema(model.input_shape, input_dtypes), outputs=schema(model.output_shape, output_dtypes)
    )


def _safely(what: str, action: Callable[[], Any], silent: bool) -> Any:
    """What `action()` returns, or None (and a warning) if it raises."""
    try:
        return action()
    except Exception as error:  # noqa: BLE001 - autologging never fails the user's training, as in MLflow
        _warn(f"tfkit_integrations.mlflow.autolog could not log {what}: {type(error).__name__}: {error}", silent)
        return None


def _warn(message: str, silent: bool) -> None:
    if not silent:
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def _warn_once(argument: str, message: str, silent: bool) -> None:
    if argument not in _SETTINGS.warned and not silent:
        _SETTINGS.warned.add(argument)
        warnings.warn(message, UserWarning, stacklevel=3)
