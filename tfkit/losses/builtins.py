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
    """Compute the mean of squares of errors between labels and predictions.

    `loss = mean(square(y_true - y_pred))`: `tfkit.losses.mean_squared_error`
    per sample, then reduced.

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"mean_squared_error"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> tfkit.losses.MeanSquaredError()(y_true, y_pred).numpy()
        np.float32(0.5)
        >>> tfkit.losses.MeanSquaredError()(y_true, y_pred, sample_weight=[0.7, 0.3]).numpy()
        np.float32(0.25)
        >>> tfkit.losses.MeanSquaredError(reduction=None)(y_true, y_pred).numpy()
        array([0.5, 0.5], dtype=float32)
    """

    function = F.mean_squared_error

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "mean_absolute_error", "mae", "MAE")
class MeanAbsoluteError(BuiltinLoss):
    """Compute the mean of absolute difference between labels and predictions.

    `loss = mean(abs(y_true - y_pred))`: `tfkit.losses.mean_absolute_error`
    per sample, then reduced.

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"mean_absolute_error"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> tfkit.losses.MeanAbsoluteError()(y_true, y_pred).numpy()
        np.float32(0.5)
        >>> tfkit.losses.MeanAbsoluteError(reduction="sum")(y_true, y_pred).numpy()
        np.float32(1.0)
    """

    function = F.mean_absolute_error

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "mean_absolute_percentage_error", "mape", "MAPE")
class MeanAbsolutePercentageError(BuiltinLoss):
    """Compute the mean absolute percentage error between labels and predictions.

    `loss = 100 * mean(abs((y_true - y_pred) / y_true))`, the denominator kept
    at least `epsilon = 1e-7` (see `tfkit.losses.mean_absolute_percentage_error`).

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"mean_absolute_percentage_error"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[1.0, 2.0], [2.0, 4.0]]
        >>> y_pred = [[1.5, 2.0], [1.0, 4.0]]
        >>> tfkit.losses.MeanAbsolutePercentageError()(y_true, y_pred).numpy()
        np.float32(25.0)
    """

    function = F.mean_absolute_percentage_error

    def __init__(
        self, reduction: str | None = _DEFAULT, name: str = "mean_absolute_percentage_error", dtype: Any = None
    ) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "mean_squared_logarithmic_error", "msle", "MSLE")
class MeanSquaredLogarithmicError(BuiltinLoss):
    """Compute the mean squared logarithmic error between labels and predictions.

    `loss = mean(square(log(y_true + 1) - log(y_pred + 1)))`, values first
    clipped below at `epsilon = 1e-7` (see
    `tfkit.losses.mean_squared_logarithmic_error`).

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"mean_squared_logarithmic_error"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[1.0, 1.0], [1.0, 0.0]]
        >>> np.round(tfkit.losses.MeanSquaredLogarithmicError()(y_true, y_pred).numpy(), 4)
        np.float32(0.2402)
    """

    function = F.mean_squared_logarithmic_error

    def __init__(
        self, reduction: str | None = _DEFAULT, name: str = "mean_squared_logarithmic_error", dtype: Any = None
    ) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "cosine_similarity")
class CosineSimilarity(BuiltinLoss):
    """Compute the cosine similarity between labels and predictions, negated.

    `loss = -sum(l2_norm(y_true) * l2_norm(y_pred), axis=axis)`: a number
    between -1 and 1, where -1 means the same direction and 0 orthogonal
    vectors, so minimizing it aligns predictions with targets. A zero vector
    gives 0.

    Args:
        axis: The axis along which the cosine similarity is computed. Defaults
            to `-1`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"cosine_similarity"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [1.0, 1.0]]
        >>> y_pred = [[1.0, 0.0], [1.0, 1.0]]
        >>> np.round(tfkit.losses.CosineSimilarity(axis=1)(y_true, y_pred).numpy(), 4)
        np.float32(-0.5)
    """

    function = F.cosine_similarity

    def __init__(
        self, axis: int = -1, reduction: str | None = _DEFAULT, name: str = "cosine_similarity", dtype: Any = None
    ) -> None:
        super().__init__(reduction, name, dtype, axis=axis)


@registry.builtin("losses", "huber", "huber_loss")
class Huber(BuiltinLoss):
    """Compute the Huber loss between labels and predictions.

    With `x = y_true - y_pred`, each element's loss is `0.5 * x^2` where
    `abs(x) <= delta` and `delta * abs(x) - 0.5 * delta^2` beyond: quadratic
    for small errors, linear (less sensitive to outliers) for large ones.

    Args:
        delta: A float, the point where the loss changes from quadratic to
            linear. Defaults to `1.0`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"huber_loss"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.Huber()(y_true, y_pred).numpy(), 4)
        np.float32(0.155)
    """

    function = F.huber

    def __init__(
        self, delta: float = 1.0, reduction: str | None = _DEFAULT, name: str = "huber_loss", dtype: Any = None
    ) -> None:
        super().__init__(reduction, name, dtype, delta=delta)


@registry.builtin("losses", "log_cosh", "logcosh")
class LogCosh(BuiltinLoss):
    """Compute the logarithm of the hyperbolic cosine of the prediction error.

    `loss = mean(log(cosh(y_pred - y_true)))`: about `x^2 / 2` for small
    errors `x` and `abs(x) - log(2)` for large ones, like the mean squared
    error but less affected by occasional wildly wrong predictions.

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"log_cosh"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.LogCosh()(y_true, y_pred).numpy(), 4)
        np.float32(0.1471)
    """

    function = F.log_cosh

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "log_cosh", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "hinge")
class Hinge(BuiltinLoss):
    """Compute the hinge loss between labels and predictions.

    `loss = mean(maximum(1 - y_true * y_pred, 0))`. Labels should be -1 or 1;
    if every label of the batch is 0 or 1, they are converted to -1 and 1.

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"hinge"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.Hinge()(y_true, y_pred).numpy(), 4)
        np.float32(1.3)
    """

    function = F.hinge

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "hinge", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "squared_hinge")
class SquaredHinge(BuiltinLoss):
    """Compute the squared hinge loss between labels and predictions.

    `loss = mean(square(maximum(1 - y_true * y_pred, 0)))`. Labels should be
    -1 or 1; if every label of the batch is 0 or 1, they are converted to -1
    and 1.

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"squared_hinge"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.SquaredHinge()(y_true, y_pred).numpy(), 4)
        np.float32(1.86)
    """

    function = F.squared_hinge

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "squared_hinge", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "categorical_hinge")
class CategoricalHinge(BuiltinLoss):
    """Compute the categorical hinge loss between labels and predictions.

    `loss = maximum(neg - pos + 1, 0)` where `pos = sum(y_true * y_pred)` and
    `neg = max((1 - y_true) * y_pred)`, for one-hot targets.

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"categorical_hinge"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.CategoricalHinge()(y_true, y_pred).numpy(), 4)
        np.float32(1.4)
    """

    function = F.categorical_hinge

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "categorical_hinge", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "kl_divergence", "kld", "KLD", "kullback_leibler_divergence")
class KLDivergence(BuiltinLoss):
    """Compute the Kullback-Leibler divergence between labels and predictions.

    `loss = sum(y_true * log(y_true / y_pred))` over the last axis, both
    clipped to `[epsilon, 1]` (`epsilon = 1e-7`). Both are expected to be
    probability distributions.

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"kl_divergence"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.5, 0.5], [0.9, 0.1]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.KLDivergence()(y_true, y_pred).numpy(), 4)
        np.float32(0.2855)
    """

    function = F.kl_divergence

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "kl_divergence", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "poisson")
class Poisson(BuiltinLoss):
    """Compute the Poisson loss between labels and predictions.

    `loss = mean(y_pred - y_true * log(y_pred + epsilon))` with
    `epsilon = 1e-7`, for count data (`y_pred` the predicted rates).

    Args:
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"poisson"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.Poisson()(y_true, y_pred).numpy(), 4)
        np.float32(0.7291)
    """

    function = F.poisson

    def __init__(self, reduction: str | None = _DEFAULT, name: str = "poisson", dtype: Any = None) -> None:
        super().__init__(reduction, name, dtype)


@registry.builtin("losses", "binary_crossentropy", "bce", "BCE")
class BinaryCrossentropy(BuiltinLoss):
    """Compute the cross-entropy loss between true labels and predicted labels.

    Use this loss for binary (0 or 1) classification, or for several
    independent binary labels. `y_pred` holds probabilities, or logits with
    `from_logits=True` (recommended: more stable numerically). See
    `tfkit.losses.binary_crossentropy` for the formula.

    Args:
        from_logits: Whether `y_pred` holds logits (any real number) rather
            than probabilities in `[0, 1]`. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`. If above 0, targets are smoothed
            towards 0.5: `t * (1 - label_smoothing) + 0.5 * label_smoothing`.
            Defaults to `0.0`.
        axis: The axis along which the mean is computed. Defaults to `-1`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"binary_crossentropy"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.BinaryCrossentropy()(y_true, y_pred).numpy(), 4)
        np.float32(0.8149)
        >>> logits = [[-18.6, 0.51], [2.94, -12.8]]
        >>> np.round(tfkit.losses.BinaryCrossentropy(from_logits=True)(y_true, logits).numpy(), 4)
        np.float32(0.8655)
    """

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
    """Compute the focal cross-entropy loss between true labels and predictions.

    Binary crossentropy scaled by the focal factor `(1 - p_t) ** gamma`,
    `p_t` the probability given to the true class, which down-weights easy
    examples so that training focuses on hard ones (Lin et al., 2017). With
    `gamma=0` and no class balancing it is the binary crossentropy. See
    `tfkit.losses.binary_focal_crossentropy`.

    Args:
        apply_class_balancing: Whether to weight positives by `alpha` and
            negatives by `1 - alpha`. Defaults to `False`.
        alpha: The weight of the positive class when
            `apply_class_balancing=True`, in `[0, 1]`. Defaults to `0.25`.
        gamma: The focusing parameter (`>= 0`). Defaults to `2.0`.
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`; targets are smoothed towards
            0.5. Defaults to `0.0`.
        axis: The axis along which the mean is computed. Defaults to `-1`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"binary_focal_crossentropy"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0.0, 1.0], [0.0, 0.0]]
        >>> y_pred = [[0.6, 0.4], [0.4, 0.6]]
        >>> np.round(tfkit.losses.BinaryFocalCrossentropy(gamma=2.0)(y_true, y_pred).numpy(), 4)
        np.float32(0.2678)
    """

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
            reduction,
            name,
            dtype,
            apply_class_balancing=apply_class_balancing,
            alpha=alpha,
            gamma=gamma,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


@registry.builtin("losses", "categorical_crossentropy")
class CategoricalCrossentropy(BuiltinLoss):
    """Compute the crossentropy loss between the labels and predictions.

    Use this loss with two or more classes given as one-hot labels (use
    `SparseCategoricalCrossentropy` for integer class ids). `y_pred` holds
    one probability (or logit, with `from_logits=True`) per class. See
    `tfkit.losses.categorical_crossentropy`.

    Args:
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        label_smoothing: A float in `[0, 1]`. If above 0, targets are
            smoothed: `t * (1 - label_smoothing) + label_smoothing / num_classes`.
            Defaults to `0.0`.
        axis: The class axis. Defaults to `-1`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `"categorical_crossentropy"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [[0, 1, 0], [0, 0, 1]]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> np.round(tfkit.losses.CategoricalCrossentropy()(y_true, y_pred).numpy(), 4)
        np.float32(1.1769)
    """

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
    """Compute the crossentropy loss between the labels and predictions, labels as integers.

    Use this loss with two or more classes given as integer class ids (use
    `CategoricalCrossentropy` for one-hot labels). `y_true` holds one id per
    sample (`y_pred`'s shape without the class axis) and is not cast to the
    loss's dtype. Targets equal to `ignore_class` are left out of the loss,
    also out of the mean's denominator. See
    `tfkit.losses.sparse_categorical_crossentropy`.

    Args:
        from_logits: Whether `y_pred` holds logits rather than
            probabilities. Defaults to `False`.
        ignore_class: Optional integer, a class id to ignore (such as a
            "void" class in segmentation). Defaults to `None`.
        reduction: Type of reduction to apply to the loss: `"sum_over_batch_size"`,
            `"mean"`, `"sum"`, `"mean_with_sample_weight"` or `"none"`/`None` (the
            unreduced per-sample losses); see `Loss`. Defaults to
            `"sum_over_batch_size"`.
        axis: The class axis; only the last axis is supported. Defaults to
            `-1`.
        name: Optional name for the loss instance. Defaults to `"sparse_categorical_crossentropy"`.
        dtype: The dtype of the loss's computations; inputs are cast to it.
            Defaults to `None`, which means `"float32"`.

    Example:
        >>> y_true = [1, 2]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> np.round(tfkit.losses.SparseCategoricalCrossentropy()(y_true, y_pred).numpy(), 4)
        np.float32(1.1769)
        >>> loss = tfkit.losses.SparseCategoricalCrossentropy(ignore_class=-1)
        >>> np.round(loss([1, -1], y_pred).numpy(), 4)
        np.float32(0.0513)
    """

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
