"""Losses: Keras 3 loss classes and functions on plain TensorFlow.

    loss_fn = tfkit.losses.get("SparseCategoricalCrossentropy")     # a Loss instance
    value = loss_fn(y_true, y_pred, sample_weight=w)                # scalar
    tfkit.losses.mean_squared_error(y_true, y_pred)                 # per-sample losses

Module map: ``reduction`` (weights, masks, reductions), ``loss`` (``Loss``,
``LossFunctionWrapper``), ``functions`` (per-sample loss functions),
``builtins`` (the loss classes), ``extra_functions`` / ``extra_builtins``
(Dice, Tversky, focal and generalized crossentropy, Circle, CTC). ``identifiers`` holds lookup and (de)serialization.
"""

from __future__ import annotations

from tfkit.losses import extra_functions, functions
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
from tfkit.losses.extra_functions import *  # noqa: F403  (the per-sample loss functions: each module's __all__)
from tfkit.losses.functions import *  # noqa: F403
from tfkit.losses.identifiers import deserialize, get, is_loss_of_kind, loss_object, serialize  # noqa: F401
from tfkit.losses.loss import BuiltinLoss, Loss, LossFunctionWrapper
from tfkit.losses.reduction import reduce_weighted_values, scale_loss_for_distribution, unscale_loss_for_distribution

# Short names Keras accepts for the functions.
mse = MSE = functions.mean_squared_error
mae = MAE = functions.mean_absolute_error
mape = MAPE = functions.mean_absolute_percentage_error
msle = MSLE = functions.mean_squared_logarithmic_error
kld = KLD = functions.kl_divergence
bce = functions.binary_crossentropy


__all__ = [
    "Loss",
    "LossFunctionWrapper",
    "BuiltinLoss",
    "MeanSquaredError",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "CosineSimilarity",
    "Huber",
    "LogCosh",
    "Hinge",
    "SquaredHinge",
    "CategoricalHinge",
    "KLDivergence",
    "Poisson",
    "BinaryCrossentropy",
    "BinaryFocalCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "CategoricalFocalCrossentropy",
    "CategoricalGeneralizedCrossEntropy",
    "Circle",
    "CTC",
    "Dice",
    "Tversky",
    "mse",
    "mae",
    "mape",
    "msle",
    "kld",
    "bce",
    "get",
    "serialize",
    "deserialize",
    "is_loss_of_kind",
    "reduce_weighted_values",
    "scale_loss_for_distribution",
    "unscale_loss_for_distribution",
    *functions.__all__,
    *extra_functions.__all__,
]
