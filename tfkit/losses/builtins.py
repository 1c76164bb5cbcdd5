"""The built-in loss classes, each a :class:`BuiltinLoss` around one function.

    loss = BinaryCrossentropy(from_logits=True, label_smoothing=0.1)
    loss(y_true, logits)                          # scalar
    tfkit.losses.get("MeanSquaredError")          # MeanSquaredError()

Defaults, names and config keys follow Keras 3. Each class is registered
under its class name and the snake-case / short aliases Keras accepts.
"""

from __future__ import annotations

from typing import Any

from tfkit.base import registry
from tfkit.losses import functions as F
from tfkit.losses.loss import BuiltinLoss

_DEFAULT = "sum_over_batch_size"


@registry.builtin("losses", "mean_squared_error", "mse", "MSE")
class MeanSquaredError(BuiltinLoss):
    """``mean(square(y_true - y_pred))``."""

    function = F.mean_squared_error

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "mean_absolute_error", "mae", "MAE")
class MeanAbsoluteError(BuiltinLoss):
    """``mean(abs(y_true - y_pred))``."""

    function = F.mean_absolute_error

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "mean_absolute_percentage_error", "mape", "MAPE")
class MeanAbsolutePercentageError(BuiltinLoss):
    """``100 * mean(abs((y_true - y_pred) / y_true))``."""

    function = F.mean_absolute_percentage_error

    def __init__(
        self, reduction: str | None = _DEFAULT, name: str = "mean_absolute_percentage_error", dtype: Any = None
    ) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "mean_squared_logarithmic_error", "msle", "MSLE")
class MeanSquaredLogarithmicError(BuiltinLoss):
    """``mean(square(log(y_true + 1) - log(y_pred + 1)))``."""

    function = F.mean_squared_logarithmic_error

    def __init__(
        self, reduction: str | None = _DEFAULT, name: str = "mean_squared_logarithmic_error", dtype: Any = None
    ) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "cosine_similarity")
class CosineSimilarity(BuiltinLoss):
    """``-sum(l2_norm(y_true) * l2_norm(y_pred), axis)``."""

    function = F.cosine_similarity

    def __init__(
        self, axis: int = -1, reduction: str | None = _DEFAULT, name: str = "cosine_similarity", dtype: Any = None
    ) -> None:
        super().__init__(reduction, name, dtype, axis=axis)


@registry.builtin("losses", "huber", "huber_loss")
class Huber(BuiltinLoss):
    """Quadratic for errors up to ``delta``, linear beyond."""

    function = F.huber

    def __init__(
        self, delta: float = 1.0, reduction: str | None = _DEFAULT, name: str = "huber_loss", dtype: Any = None
    ) -> None:
        super().__init__(reduction, name, dtype, delta=delta)


@registry.builtin("losses", "log_cosh", "logcosh")
class LogCosh(BuiltinLoss):
    """``mean(log(cosh(y_pred - y_true)))``."""

    function = F.log_cosh

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "log_cosh", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "hinge")
class Hinge(BuiltinLoss):
    """``mean(maximum(1 - y_true * y_pred, 0))`` with labels in -1/1 (0/1 are converted)."""

    function = F.hinge

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "hinge", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "squared_hinge")
class SquaredHinge(BuiltinLoss):
    """``mean(square(maximum(1 - y_true * y_pred, 0)))``."""

    function = F.squared_hinge

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "squared_hinge", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "categorical_hinge")
class CategoricalHinge(BuiltinLoss):
    """``maximum(neg - pos + 1, 0)`` over one-hot targets."""

    function = F.categorical_hinge

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "categorical_hinge", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "kl_divergence", "kld", "KLD", "kullback_leibler_divergence")
class KLDivergence(BuiltinLoss):
    """``sum(y_true * log(y_true / y_pred))``."""

    function = F.kl_divergence

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "kl_divergence", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "poisson")
class Poisson(BuiltinLoss):
    """``mean(y_pred - y_true * log(y_pred))``."""

    function = F.poisson

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "poisson", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "binary_crossentropy", "bce", "BCE")
class BinaryCrossentropy(BuiltinLoss):
    """Crossentropy for 0/1 targets; ``from_logits=True`` for raw scores (recommended)."""

    function = F.binary_crossentropy

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = _DEFAULT,
        name: str = "binary_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(reduction, name, dtype, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


@registry.builtin("losses", "binary_focal_crossentropy")
class BinaryFocalCrossentropy(BuiltinLoss):
    """Binary crossentropy that down-weights easy examples by ``(1 - p_t) ** gamma``."""

    function = F.binary_focal_crossentropy

    def __init__(
        self,
        apply_class_balancing: bool = False,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = _DEFAULT,
        name: str = "binary_focal_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            reduction, name, dtype,
            apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
            from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )


@registry.builtin("losses", "categorical_crossentropy")
class CategoricalCrossentropy(BuiltinLoss):
    """Crossentropy for one-hot targets over ``axis``."""

    function = F.categorical_crossentropy

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = _DEFAULT,
        name: str = "categorical_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(reduction, name, dtype, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


@registry.builtin("losses", "sparse_categorical_crossentropy")
class SparseCategoricalCrossentropy(BuiltinLoss):
    """Crossentropy for integer class ids; ``ignore_class`` targets are left out of the mean."""

    function = F.sparse_categorical_crossentropy
    cast_y_true = False

    def __init__(
        self,
        from_logits: bool = False,
        ignore_class: int | None = None,
        reduction: str | None = _DEFAULT,
        axis: int = -1,
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(reduction, name, dtype, from_logits=from_logits, ignore_class=ignore_class, axis=axis)
