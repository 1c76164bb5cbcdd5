"""MLflow autologging for tfkit models, as `mlflow.keras.autolog` does it for Keras.

    import tfkit_integrations.mlflow
    tfkit_integrations.mlflow.autolog()
    model.fit(x, y, epochs=3)     # an MLflow run: fit's parameters, the optimizer's, per-epoch metrics, the model

`mlflow.keras.autolog()` replaces `keras.Model.fit`, which tfkit models do not
use. `autolog` here replaces `tfkit.Model.fit` instead and logs what MLflow's
Keras autologging logs, with MLflow's own pieces: the arguments of `fit`
(`epochs`, `batch_size`, ...), MLflow's `MlflowCallback` in the callbacks (the
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
from mlflow.keras.callback import MlflowCallback
from mlflow.models import ModelSignature
from mlflow.types.schema import Schema, TensorSpec

import tfkit

__all__ = ["autolog"]

# fit's arguments that are data or objects, not parameters: left out of the logged params, as MLflow does.
_NOT_PARAMS = ("self", "x", "y", "callbacks", "validation_data", "verbose")
_LONGEST_PARAM = 500  # a longer value (a big class_weight dict) is left out rather than cut


class _Settings:
    """What `autolog` was last called with, and the `fit` it replaced."""

    def __init__(self) -> None:
        self.original_fit: Callable[..., Any] | None = None
        self.model_had_own_fit = False
        self.options: dict[str, Any] | None = None
        self.local = threading.local()  # .depth: fits running in this thread (a fit inside a fit logs once)


_SETTINGS = _Settings()


def autolog(
    log_every_epoch: bool = True,
    log_every_n_steps: int | None = None,
    log_models: bool = True,
    disable: bool = False,
    registered_model_name: str | None = None,
    extra_tags: dict[str, Any] | None = None,
    pip_requirements: list[str] | None = None,
) -> None:
    """Enables (or disables) MLflow autologging for `tfkit.Model.fit`.

    After it, every `fit` of a tfkit model logs to MLflow, as
    `mlflow.keras.autolog()` does for Keras models: `fit`'s arguments as
    parameters (`epochs`, `batch_size`, `validation_split`, ...; not the data,
    callbacks or `verbose`), the optimizer's config as `optimizer_*` parameters
    and the model summary as `model_summary.txt` (from MLflow's `MlflowCallback`,
    which is added to the callbacks), each epoch's metrics (`loss`, `val_loss`,
    ...) and the validation results as `validation_*`, then the trained model
    with `mlflow.keras.log_model` under the name `"model"`. A `fit` called with
    no active run starts one and ends it after training; inside
    `with mlflow.start_run():` it logs to that run. Logging that fails is a
    warning and never stops the training.

    Args:
        log_every_epoch: Whether to log the metrics at the end of each epoch.
            Defaults to `True`.
        log_every_n_steps: If set, log the training metrics every this many
            batches instead (then `log_every_epoch` must be `False`). Defaults to
            `None`.
        log_models: Whether to log the trained model at the end of `fit`.
            Defaults to `True`.
        disable: If `True`, turn autologging off and give `tfkit.Model` its own
            `fit` back. Defaults to `False`.
        registered_model_name: If set, the logged model is also registered
            under this name. Defaults to `None`.
        extra_tags: A dict of tags to set on the runs autologging starts.
            Defaults to `None`.
        pip_requirements: The pip requirements logged with the model, passed
            to `mlflow.keras.log_model`. Defaults to `None`: MLflow infers them,
            which loads the model in a new Python process (seconds).

    Raises:
        ValueError: If both `log_every_epoch` and `log_every_n_steps` ask for
            metrics, or neither does.

    Example:
        >>> import mlflow
        >>> autolog(log_models=False)         # runs go to MLflow's tracking URI, as mlflow.set_tracking_uri set it
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
        >>> model.compile("sgd", "mse")
        >>> history = model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=2, verbose=0)
        >>> run = mlflow.last_active_run()
        >>> run.data.params["epochs"], run.data.metrics["loss"] == history.history["loss"][-1]
        ('2', True)
        >>> autolog(disable=True)
    """
    if disable:
        _restore_fit()
        return
    if log_every_epoch == (log_every_n_steps is not None):
        raise ValueError(
            "autolog logs metrics either every epoch (log_every_epoch=True, log_every_n_steps=None) "
            "or every n steps (log_every_epoch=False, log_every_n_steps=n); got "
            f"log_every_epoch={log_every_epoch!r}, log_every_n_steps={log_every_n_steps!r}"
        )
    _SETTINGS.options = {
        "log_every_epoch": log_every_epoch,
        "log_every_n_steps": log_every_n_steps,
        "log_models": log_models,
        "registered_model_name": registered_model_name,
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
        if options is None or depth:
            return original(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        started = mlflow.active_run() is None
        if started:
            mlflow.start_run(tags=options["extra_tags"] or None)
        _SETTINGS.local.depth = depth + 1
        status = "FAILED"
        try:
            _safely("the parameters of fit", lambda: mlflow.log_params(_fit_params(bound.arguments)))
            callback = MlflowCallback(
                log_every_epoch=options["log_every_epoch"], log_every_n_steps=options["log_every_n_steps"]
            )
            bound.arguments["callbacks"] = _callback_list(bound.arguments.get("callbacks")) + [callback]
            history = original(*bound.args, **bound.kwargs)
            if options["log_models"]:
                _safely("the model", lambda: _log_model(self, options))
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


def _log_model(model: Any, options: dict[str, Any]) -> None:
    mlflow.keras.log_model(
        model,
        name="model",
        signature=model_signature(model),
        registered_model_name=options["registered_model_name"],
        pip_requirements=options["pip_requirements"],
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


def _safely(what: str, action: Callable[[], Any]) -> None:
    try:
        action()
    except Exception as error:  # noqa: BLE001 - autologging never fails the user's training, as in MLflow
        warnings.warn(
            f"tfkit_integrations.mlflow.autolog could not log {what}: {type(error).__name__}: {error}",
            RuntimeWarning,
            stacklevel=3,
        )
