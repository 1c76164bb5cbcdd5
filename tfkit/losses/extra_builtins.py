"""Keras 3's newer loss classes: Dice, Tversky, CategoricalFocalCrossentropy, CategoricalGeneralizedCrossEntropy,
Circle and CTC, each a :class:`BuiltinLoss` around one function of :mod:`tfkit.losses.extra_functions`.

    model.compile(optimizer="adam", loss=Dice(axis=(1, 2, 3)))
    model.compile(optimizer="adam", loss="categorical_focal_crossentropy")
    CTC()(labels, logits)   # scalar
"""

from __future__ import annotations

from typing import Any

from tfkit.base import registry
from tfkit.losses import extra_functions as F
from tfkit.losses.loss import BuiltinLoss

_DEFAULT = "sum_over_batch_size"


def _plain_axis(axis: Any) -> Any:
    """``axis`` as config data: tuples become lists (as JSON keeps them)."""
    return list(axis) if isinstance(axis, tuple) else axis


def _check_number(cls: str, name: str, value: Any, low: float | None = None, high: float | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{cls}: {name} must be a number, got {name}={value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{cls}: {name} must be in [{low}, {high}], got {name}={value!r}")


@registry.builtin("losses", "dice")
class Dice(BuiltinLoss):
    """``1 - 2 |y_true * y_pred| / (|y_true| + |y_pred|)``; ``axis`` (None: all axes) says what one loss covers."""

    function = F.dice

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "dice", axis: Any = None, dtype: Any = None) -> None:
        F.check_axis("Dice", axis)
        super().__init__(reduction, name, dtype, axis=_plain_axis(axis))


@registry.builtin("losses", "tversky")
class Tversky(BuiltinLoss):
    """Dice with false positives weighted by ``alpha`` and false negatives by ``beta``."""

    function = F.tversky

    def __init__(
        self,
        alpha: float = 0.5,
        beta: float = 0.5,
        reduction: str | None = _DEFAULT,
        name: str = "tversky",
        axis: Any = None,
        dtype: Any = None,
    ) -> None:
        _check_number("Tversky", "alpha", alpha)
        _check_number("Tversky", "beta", beta)
        F.check_axis("Tversky", axis)
        super().__init__(reduction, name, dtype, alpha=alpha, beta=beta, axis=_plain_axis(axis))


@registry.builtin("losses", "categorical_focal_crossentropy")
class CategoricalFocalCrossentropy(BuiltinLoss):
    """Categorical crossentropy scaled by ``alpha * (1 - p) ** gamma`` (down-weights easy examples)."""

    function = F.categorical_focal_crossentropy

    def __init__(
        self,
        alpha: Any = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = _DEFAULT,
        name: str = "categorical_focal_crossentropy",
        dtype: Any = None,
    ) -> None:
        if isinstance(alpha, (list, tuple)):
            for value in alpha:
                _check_number("CategoricalFocalCrossentropy", "alpha", value)
            alpha = list(alpha)
        else:
            _check_number("CategoricalFocalCrossentropy", "alpha", alpha)
        _check_number("CategoricalFocalCrossentropy", "gamma", gamma, low=0.0)
        _check_number("CategoricalFocalCrossentropy", "label_smoothing", label_smoothing, 0.0, 1.0)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"CategoricalFocalCrossentropy: axis must be an int, got axis={axis!r}")
        super().__init__(
            reduction, name, dtype,
            alpha=alpha, gamma=gamma, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )


@registry.builtin("losses", "categorical_generalized_cross_entropy")
class CategoricalGeneralizedCrossEntropy(BuiltinLoss):
    """Noise-robust ``(1 - p ** q) / q`` for integer class ids: near crossentropy as q -> 0, near MAE as q -> 1."""

    function = F.categorical_generalized_cross_entropy

    def __init__(
        self,
        q: float = 0.5,
        reduction: str | None = _DEFAULT,
        name: str = "categorical_generalized_cross_entropy",
        dtype: Any = None,
    ) -> None:
        _check_number("CategoricalGeneralizedCrossEntropy", "q", q)
        if not 0 < q < 1:
            raise ValueError(f"CategoricalGeneralizedCrossEntropy: q must be in the interval (0, 1), got q={q!r}")
        super().__init__(reduction, name, dtype, q=q)


@registry.builtin("losses", "circle")
class Circle(BuiltinLoss):
    """Circle loss between integer labels and L2-normalized embeddings (metric learning)."""

    function = F.circle

    def __init__(
        self,
        gamma: float = 80.0,
        margin: float = 0.4,
        remove_diagonal: bool = True,
        reduction: str | None = _DEFAULT,
        name: str = "circle",
        dtype: Any = None,
    ) -> None:
        _check_number("Circle", "gamma", gamma)
        _check_number("Circle", "margin", margin)
        super().__init__(reduction, name, dtype, gamma=gamma, margin=margin, remove_diagonal=remove_diagonal)


@registry.builtin("losses", "ctc")
class CTC(BuiltinLoss):
    """CTC loss: ``y_true`` ``(batch, max_length)`` labels (0 = blank/padding), ``y_pred`` ``(batch, time, classes)`` logits."""

    function = F.ctc

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "ctc", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)
