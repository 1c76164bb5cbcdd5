"""Losses: Keras 3 loss classes and functions on plain TensorFlow.

    loss_fn = tfkit.losses.get("SparseCategoricalCrossentropy")     # a Loss instance
    value = loss_fn(y_true, y_pred, sample_weight=w)                # scalar
    tfkit.losses.mean_squared_error(y_true, y_pred)                 # per-sample losses

Module map: ``reduction`` (weights, masks, reductions), ``loss`` (``Loss``,
``LossFunctionWrapper``), ``functions`` (per-sample loss functions),
``builtins`` (the loss classes), ``extra_functions`` / ``extra_builtins``
(Dice, Tversky, focal and generalized crossentropy, Circle, CTC). This file adds lookup and (de)serialization.
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.base import registry
from tfkit.losses.builtins import (
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Hinge,
    Huber,
    KLDivergence,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from tfkit.losses.extra_builtins import (
    CTC,
    CategoricalFocalCrossentropy,
    CategoricalGeneralizedCrossEntropy,
    Circle,
    Dice,
    Tversky,
)
from tfkit.losses.extra_functions import (
    categorical_focal_crossentropy,
    categorical_generalized_cross_entropy,
    circle,
    ctc,
    dice,
    tversky,
)
from tfkit.losses.functions import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    cosine_similarity,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from tfkit.losses.loss import BuiltinLoss, Loss, LossFunctionWrapper
from tfkit.losses.reduction import (
    reduce_weighted_values,
    scale_loss_for_distribution,
    unscale_loss_for_distribution,
)

# Short names Keras accepts for the functions.
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kl_divergence
bce = binary_crossentropy

_LOSS_FUNCTIONS = {
    fn.__name__: fn
    for fn in (
        binary_crossentropy, binary_focal_crossentropy, categorical_crossentropy, categorical_hinge,
        cosine_similarity, hinge, huber, kl_divergence, log_cosh, mean_absolute_error,
        mean_absolute_percentage_error, mean_squared_error, mean_squared_logarithmic_error, poisson,
        sparse_categorical_crossentropy, squared_hinge, categorical_focal_crossentropy,
        categorical_generalized_cross_entropy, circle, ctc, dice, tversky,
    )
}


_FUNCTION_ALIASES = {"mse": mean_squared_error, "MSE": mean_squared_error, "mae": mean_absolute_error,
                     "MAE": mean_absolute_error, "mape": mean_absolute_percentage_error,
                     "MAPE": mean_absolute_percentage_error, "msle": mean_squared_logarithmic_error,
                     "MSLE": mean_squared_logarithmic_error, "kld": kl_divergence, "KLD": kl_divergence,
                     "bce": binary_crossentropy, "BCE": binary_crossentropy}


def get(identifier: Any) -> Any:
    """What Keras 3's ``keras.losses.get`` returns: a function for a function's name, else a ``Loss``.

        tfkit.losses.get("mean_squared_error")     # the function mean_squared_error (also "mse", "MSE")
        tfkit.losses.get("MeanSquaredError")       # MeanSquaredError()
        tfkit.losses.get(my_fn)                    # my_fn itself (compile wraps it in a LossFunctionWrapper)

    Classes give a default instance, config dicts are rebuilt, ``Loss``
    instances and other callables come back as they are.
    """
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str) and identifier in _LOSS_FUNCTIONS:
        return _LOSS_FUNCTIONS[identifier]
    if isinstance(identifier, str) and identifier in _FUNCTION_ALIASES:
        return _FUNCTION_ALIASES[identifier]
    if isinstance(identifier, type):
        if issubclass(identifier, Loss):
            return identifier()
        raise ValueError(f"Expected a Loss subclass, got class {identifier.__name__}")
    obj = deserialize(identifier) if isinstance(identifier, (str, dict)) else identifier
    if callable(obj):
        return obj
    raise ValueError(
        f"Could not interpret loss identifier {identifier!r}: expected a loss name such as 'mse', "
        "a {'class_name': ..., 'config': ...} dict, a Loss instance or a function fn(y_true, y_pred)"
    )


def loss_object(identifier: Any) -> Loss | None:
    """A ``Loss`` for ``compile``: names give the class instance (``"mse"`` -> ``MeanSquaredError()``).

        loss_object("binary_crossentropy")        # BinaryCrossentropy()
        loss_object(my_fn)                        # LossFunctionWrapper(my_fn, name="my_fn")
        loss_object(None)                         # None
    """
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, type):
        return get(identifier)
    obj = deserialize(identifier) if isinstance(identifier, (str, dict)) else get(identifier)
    if isinstance(obj, Loss):
        return obj
    return LossFunctionWrapper(obj, name=getattr(obj, "__name__", None))


def serialize(loss: Any) -> Any:
    """Plain data for a loss: a ``{"class_name", "config"}`` dict, or a name for a function."""
    if loss is None:
        return None
    if callable(loss) and not isinstance(loss, (Loss, type)):
        return registry.to_config("functions", loss)
    return registry.to_config("losses", loss)


def deserialize(name: Any, custom_objects: Mapping[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize` (a function's name gives the matching class instance)."""
    return registry.resolve("losses", name, custom_objects)


def is_loss_of_kind(loss: Any, kind: str) -> bool:
    """Whether ``loss`` (object, function or name) is a ``"binary"``, ``"categorical"`` or ``"sparse"`` crossentropy."""
    classes = {
        "binary": (BinaryCrossentropy, BinaryFocalCrossentropy),
        "categorical": (CategoricalCrossentropy, CategoricalFocalCrossentropy),
        "sparse": (SparseCategoricalCrossentropy,),
    }[kind]
    fns = tuple(getattr(c, "function") for c in classes)
    if isinstance(loss, str):
        try:
            loss = registry.lookup("losses", loss)
        except ValueError:
            return False
    if isinstance(loss, type):
        return issubclass(loss, classes)
    if isinstance(loss, classes):
        return True
    if isinstance(loss, LossFunctionWrapper):
        return loss.fn in fns
    return loss in fns


__all__ = [
    "Loss", "LossFunctionWrapper", "BuiltinLoss",
    "MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
    "CosineSimilarity", "Huber", "LogCosh", "Hinge", "SquaredHinge", "CategoricalHinge", "KLDivergence",
    "Poisson", "BinaryCrossentropy", "BinaryFocalCrossentropy", "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy", "CategoricalFocalCrossentropy", "CategoricalGeneralizedCrossEntropy",
    "Circle", "CTC", "Dice", "Tversky",
    *_LOSS_FUNCTIONS, "mse", "mae", "mape", "msle", "kld", "bce",
    "get", "serialize", "deserialize", "is_loss_of_kind",
    "reduce_weighted_values", "scale_loss_for_distribution", "unscale_loss_for_distribution",
]
