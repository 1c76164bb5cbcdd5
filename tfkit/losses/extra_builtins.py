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
    """Compute the Dice loss between labels and predictions.

    `loss = 1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred))`, the
    sums taken over `axis`: the overlap of two (soft) masks, used for
    segmentation. See `tfkit.losses.dice`.

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"dice"`.
        axis: The axis or tuple of axes one loss value covers (the sums run
            over them), for example `(1, 2, 3)` for one value per image. `None`
            sums over every axis, batch included. Defaults to `None`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Raises:
        ValueError: If `axis` is not `None`, an int or a tuple of ints.

    Example:
        >>> y_true = [[1.0, 0.0], [1.0, 1.0]]
        >>> y_pred = [[0.5, 0.5], [1.0, 1.0]]
        >>> np.round(tfkit.losses.Dice()(y_true, y_pred).numpy(), 4)
        np.float32(0.1667)
        >>> tfkit.losses.Dice(axis=1, reduction=None)(y_true, y_pred).numpy()
        array([0.5, 0. ], dtype=float32)
    """

    function = F.dice

    def __init__(
        self, reduction: str | None = _DEFAULT, name: str = "dice", axis: Any = None, dtype: Any = None
    ) -> None:
        F.check_axis("Dice", axis)
        super().__init__(reduction, name, dtype, axis=_plain_axis(axis))


@registry.builtin("losses", "tversky")
class Tversky(BuiltinLoss):
    """Compute the Tversky loss between labels and predictions.

    `loss = 1 - tp / (tp + alpha * fp + beta * fn)` with soft counts summed
    over `axis`; as in Keras 3, `fp = sum((1 - y_pred) * y_true)` and
    `fn = sum(y_pred * (1 - y_true))`. With `alpha = beta = 0.5` it is the
    Dice loss. See `tfkit.losses.tversky`.

    Args:
        alpha: The weight of the `fp` term above. Defaults to `0.5`.
        beta: The weight of the `fn` term above. Defaults to `0.5`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"tversky"`.
        axis: The axis or tuple of axes one loss value covers (the sums run
            over them), for example `(1, 2, 3)` for one value per image. `None`
            sums over every axis, batch included. Defaults to `None`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Raises:
        ValueError: If `alpha` or `beta` is not a number, or `axis` is not
            `None`, an int or a tuple of ints.

    Example:
        >>> y_true = [[1.0, 0.0], [1.0, 0.0]]
        >>> y_pred = [[0.5, 0.5], [1.0, 1.0]]
        >>> np.round(tfkit.losses.Tversky(alpha=0.7, beta=0.3, axis=1)(y_true, y_pred).numpy(), 4)
        np.float32(0.3654)
    """

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
    """Compute the alpha-balanced focal crossentropy loss between labels and predictions.

    Categorical crossentropy scaled by `alpha * (1 - p) ** gamma`, `p` the
    predicted probability: easy, well-classified examples are down-weighted
    so that training focuses on hard ones (Lin et al., 2017). Labels are
    one-hot. See `tfkit.losses.categorical_focal_crossentropy`.

    Args:
        alpha: A weight balancing the classes: a number, or a list of one
            weight per class. Defaults to `0.25`.
        gamma: The focusing parameter (`>= 0`). Defaults to `2.0`.
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`; targets are smoothed to
            `t * (1 - label_smoothing) + label_smoothing / num_classes`.
            Defaults to `0.0`.
        axis: The class axis. Defaults to `-1`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"categorical_focal_crossentropy"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Raises:
        ValueError: If `alpha` (or one of its entries) or `gamma` is not a
            number, `gamma` is negative, `label_smoothing` is outside
            `[0, 1]`, or `axis` is not an int.

    Example:
        >>> y_true = [[0, 1, 0], [0, 0, 1]]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> np.round(tfkit.losses.CategoricalFocalCrossentropy()(y_true, y_pred).numpy(), 4)
        np.float32(0.2332)
    """

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
            reduction,
            name,
            dtype,
            alpha=alpha,
            gamma=gamma,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


@registry.builtin("losses", "categorical_generalized_cross_entropy")
class CategoricalGeneralizedCrossEntropy(BuiltinLoss):
    """Compute the generalized cross entropy loss, robust to noisy labels.

    `loss = (1 - p ** q) / q`, `p` the predicted probability of the true
    class given as an integer id (Zhang & Sabuncu, 2018): close to the
    crossentropy as `q` goes to 0, the mean absolute error (more robust to
    wrong labels) at `q = 1`. See
    `tfkit.losses.categorical_generalized_cross_entropy`.

    Args:
        q: The parameter of the loss, in the open interval `(0, 1)`.
            Defaults to `0.5`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"categorical_generalized_cross_entropy"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Raises:
        ValueError: If `q` is not a number in `(0, 1)`.

    Example:
        >>> y_true = [1, 2]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> np.round(tfkit.losses.CategoricalGeneralizedCrossEntropy()(y_true, y_pred).numpy(), 4)
        np.float32(0.7091)
    """

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
    """Compute the Circle loss between integer labels and L2-normalized embeddings.

    A metric-learning loss (Sun et al., 2020) that pulls together embeddings
    of the same label and pushes apart those of different labels, each pair
    weighted by its distance from its optimum. Pairs are taken within the
    batch; samples with no positive or no negative pair are left out of the
    mean. See `tfkit.losses.circle`.

    Args:
        gamma: The scaling factor of the pair scores. Defaults to `80.0`.
        margin: The relaxation margin: the optimum is `1 - margin` for
            positive similarities and `margin` for negative ones. Defaults
            to `0.4`.
        remove_diagonal: Whether to leave the pairs of a sample with itself
            out of the positives. Defaults to `True`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"circle"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Raises:
        ValueError: If `gamma` or `margin` is not a number.

    Example:
        >>> embeddings = tf.math.l2_normalize(
        ...     tf.constant([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.6, 0.8]]), axis=-1)
        >>> np.round(tfkit.losses.Circle(gamma=1.0)([0, 0, 1, 1], embeddings).numpy(), 4)
        np.float32(1.2127)
    """

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
    """Compute the Connectionist Temporal Classification (CTC) loss.

    For unsegmented sequence labelling (speech, handwriting): `y_true` holds
    integer labels of shape `(batch_size, max_label_length)`, where 0 is the
    blank and pads the labels; `y_pred` holds logits of shape
    `(batch_size, time, num_classes)`, all `time` steps used. See
    `tfkit.losses.ctc`.

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"ctc"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[1, 2], [1, 0]]
        >>> y_pred = np.zeros((2, 3, 3), dtype="float32")
        >>> np.round(tfkit.losses.CTC()(y_true, y_pred).numpy(), 4)
        np.float32(1.5952)
    """

    function = F.ctc

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "ctc", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)
