"""The ``Loss`` base class and the wrapper that turns a loss function into one.

    class MyMSE(tfkit.losses.Loss):
        def call(self, y_true, y_pred): return tf.reduce_mean(tf.square(y_pred - y_true), -1)
    MyMSE()(y_true, y_pred, sample_weight=w)  # scalar, Keras 3's "sum_over_batch_size"

``call`` returns per-sample (per-element) losses; ``__call__`` casts inputs
to the loss's dtype, folds in masks and ``sample_weight`` and reduces.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine import masking
from tfkit.engine.naming import scope_name
from tfkit.losses.reduction import reduce_weighted_values, squeeze_or_expand_to_same_rank, standardize_reduction

_LOSS_METHODS = ("__call__", "call")


def to_snake_case(name: str) -> str:
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def dtype_name(dtype: Any) -> str:
    """A dtype as its plain string name (``None`` -> ``"float32"``)."""
    if dtype is None:
        return "float32"
    try:
        return tf.as_dtype(dtype).name
    except TypeError as error:
        raise ValueError(f"Expected a dtype such as 'float32', got {dtype!r}") from error


def skip_autograph(cls: type, method_names: tuple[str, ...]) -> None:
    """Let ``tf.function`` call tfkit's own methods as plain Python, without AutoGraph conversion.

    tfkit's built-in losses and metrics have no Python control flow on tensor
    values, and converting them costs seconds of tracing. Classes defined
    outside tfkit (users' subclasses) keep AutoGraph.
    """
    if not cls.__module__.startswith("tfkit."):
        return
    for method_name in method_names:
        method = cls.__dict__.get(method_name)
        if callable(method) and not hasattr(method, "__wrapped__"):
            setattr(cls, method_name, tf.autograph.experimental.do_not_convert(method))


@registry.builtin("losses")
@registry.base("losses")
class Loss:
    """Loss base class: subclass it and implement `call` to write a custom loss.

    `call(y_true, y_pred)` returns the unreduced losses (one per sample, or per
    element); calling the loss object (`__call__`) casts both inputs to the
    loss's `dtype` (`y_true` too, unless the class sets `cast_y_true = False`,
    as `SparseCategoricalCrossentropy` does for class ids), folds in
    `sample_weight` and any Keras mask carried by `y_pred` or by the losses,
    and reduces the weighted values as `reduction` says. Under a
    `tf.distribute` strategy with several replicas, mean reductions are
    divided by the replica count (see `scale_loss_for_distribution`).

    Args:
        name: Optional name for the loss instance, also used as its name
            scope. Must be a string. Defaults to `None`, which means the
            snake-case class name (`"my_loss"` for `MyLoss`).
        reduction: Type of reduction to apply to the loss:
            `"sum_over_batch_size"` (the weighted sum divided by the number
            of loss elements), `"mean"` (a synonym), `"sum"`,
            `"mean_with_sample_weight"` (the weighted sum divided by the sum
            of the weights), or `"none"`/`None` (no reduction: the weighted
            per-sample losses). Defaults to `"sum_over_batch_size"`.
        dtype: The dtype of the loss's computations; `y_pred` (and `y_true`)
            are cast to it. Defaults to `None`, which means `"float32"`.

    Raises:
        ValueError: If `name` is not a string, `reduction` is not one of the
            names above, or `dtype` is not a dtype.

    Example:
        >>> class MyMSE(tfkit.losses.Loss):
        ...     def call(self, y_true, y_pred):
        ...         return tf.reduce_mean(tf.square(y_pred - y_true), axis=-1)
        >>> loss = MyMSE()
        >>> loss.name
        'my_mse'
        >>> loss([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]).numpy()
        np.float32(0.5)
        >>> MyMSE(reduction=None)([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]]).numpy()
        array([0.5, 0. ], dtype=float32)
    """

    #: Whether ``y_true`` is cast to the loss dtype before ``call`` (class ids are not).
    cast_y_true = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        skip_autograph(cls, _LOSS_METHODS)

    def __init__(
        self, name: str | None = None, reduction: str | None = "sum_over_batch_size", dtype: Any = None
    ) -> None:
        if name is not None and not isinstance(name, str):
            raise ValueError(f"{type(self).__name__}: name must be a string, got {name!r}")
        self.name = name or to_snake_case(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self._dtype = dtype_name(dtype)

    @property
    def dtype(self) -> str:
        return self._dtype

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> tf.Tensor:
        """Compute the weighted, reduced loss of one batch.

        Args:
            y_true: Ground truth values, a tensor or array-like.
            y_pred: The predicted values, a tensor or array-like. A Keras mask
                attached to it (`y_pred._keras_mask`) leaves the masked entries
                out.
            sample_weight: Optional weights: a scalar, one weight per sample
                (`(batch_size,)`), or a tensor that broadcasts to the
                per-sample losses. Defaults to `None` (all ones).

        Returns:
            The loss: a scalar tensor, or the weighted unreduced losses when
            `reduction` is `"none"`/`None`.
        """
        in_mask = masking.get_mask(y_pred)
        with tf.name_scope(scope_name(self.name, "loss")):
            y_pred = tf.cast(tf.convert_to_tensor(y_pred), self.dtype)
            y_true = tf.convert_to_tensor(y_true)
            if self.cast_y_true:
                y_true = tf.cast(y_true, self.dtype)
            losses = self.call(y_true, y_pred)
            out_mask = masking.get_mask(losses)
            if in_mask is not None and out_mask is not None:
                mask = tf.logical_and(tf.cast(in_mask, tf.bool), tf.cast(out_mask, tf.bool))
            else:
                mask = in_mask if in_mask is not None else out_mask
            return reduce_weighted_values(
                losses, sample_weight=sample_weight, mask=mask, reduction=self.reduction, dtype=self.dtype
            )

    def call(self, y_true: tf.Tensor, y_pred: tf.Tensor) -> tf.Tensor:
        """Compute the unreduced losses; subclasses must implement it.

        Args:
            y_true: Ground truth values, already a tensor (cast to the loss's
                `dtype` unless `cast_y_true` is `False`).
            y_pred: The predicted values, a tensor of the loss's `dtype`.

        Returns:
            The per-sample (or per-element) losses, before weighting and
            reduction.

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred)")

    def get_config(self) -> dict[str, Any]:
        """Return the loss's config: `name`, `reduction` and `dtype`.

        Returns:
            A dict that `from_config` turns back into an equal loss.
        """
        return {"name": self.name, "reduction": self.reduction, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Loss":
        """Create a loss from its config (the output of `get_config`).

        Args:
            config: A dict of constructor arguments.

        Returns:
            A new loss instance.
        """
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, reduction={self.reduction}>"


@registry.builtin("losses")
class LossFunctionWrapper(Loss):
    """Wrap a loss function `fn(y_true, y_pred, **kwargs)` into a `Loss`.

    `compile(loss=my_fn)` wraps a plain function this way. Before calling
    `fn`, `y_true` and `y_pred` are brought to the same rank when they differ
    by one trailing axis of size 1 (`(batch,)` against `(batch, 1)`). The
    config stores `fn` by its registered name, so a custom function must be
    registered (`tfkit.saving.register_keras_serializable`) to be
    deserialized.

    Args:
        fn: The loss function, `fn(y_true, y_pred, **kwargs)`, returning
            per-sample losses.
        reduction: Type of reduction to apply to the loss:
            `"sum_over_batch_size"`, `"mean"`, `"sum"`,
            `"mean_with_sample_weight"` or `"none"`/`None` (see `Loss`).
            Defaults to `"sum_over_batch_size"`.
        name: Optional name for the loss instance. Defaults to `None`, which
            means `fn.__name__`.
        dtype: The dtype of the loss's computations. Defaults to `None`,
            which means `"float32"`.
        **kwargs: Keyword arguments passed to `fn` on every call (and saved
            in the config).

    Raises:
        ValueError: If `fn` is not callable.

    Example:
        >>> loss = tfkit.losses.LossFunctionWrapper(tfkit.losses.huber, delta=2.0)
        >>> loss.name
        'huber'
        >>> loss([[0.0], [0.0]], [[1.0], [3.0]]).numpy()
        np.float32(2.25)
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        reduction: str | None = "sum_over_batch_size",
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if not callable(fn):
            raise ValueError(f"LossFunctionWrapper expects a callable fn(y_true, y_pred), got {fn!r}")
        super().__init__(name=name or getattr(fn, "__name__", None), reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: tf.Tensor, y_pred: tf.Tensor) -> tf.Tensor:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["fn"] = registry.to_config("functions", self.fn)
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "LossFunctionWrapper":
        config = dict(config)
        fn = config.pop("fn", None)
        if isinstance(fn, str):
            fn = registry.lookup("functions", fn)
        if fn is None:
            raise ValueError(f"A LossFunctionWrapper config needs 'fn' (a registered function name), got {config}")
        return cls(fn, **config)

    def __repr__(self) -> str:
        return f"<LossFunctionWrapper({getattr(self.fn, '__name__', self.fn)}, kwargs={self._fn_kwargs})>"


class BuiltinLoss(LossFunctionWrapper):
    """Base class of the built-in losses: a `LossFunctionWrapper` bound to one function.

    A subclass sets the class attribute `function` (for example
    `tfkit.losses.mean_squared_error`) and passes its own keyword arguments
    through to it. Each keyword argument is also set as an attribute, and
    the config holds `name`, `reduction`, `dtype` plus those keyword
    arguments, so `from_config` calls the subclass's constructor.

    Args:
        reduction: Type of reduction to apply to the loss (see `Loss`); no
            default.
        name: Name of the loss instance, or `None` for `function.__name__`.
        dtype: The dtype of the loss's computations, or `None` for
            `"float32"`.
        **kwargs: Keyword arguments passed to `function` on every call.

    Example:
        >>> class AbsoluteError(tfkit.losses.BuiltinLoss):
        ...     function = tfkit.losses.mean_absolute_error
        ...     def __init__(self, reduction="sum_over_batch_size", name="absolute_error", dtype=None):
        ...         super().__init__(reduction, name, dtype)
        >>> loss = AbsoluteError()
        >>> loss([[0.0, 1.0]], [[1.0, 1.0]]).numpy()
        np.float32(0.5)
        >>> loss.get_config()
        {'name': 'absolute_error', 'reduction': 'sum_over_batch_size', 'dtype': 'float32'}
    """

    function: Callable[..., Any]

    def __init__(self, reduction: str | None, name: str | None, dtype: Any, **kwargs: Any) -> None:
        super().__init__(type(self).function, reduction=reduction, name=name, dtype=dtype, **kwargs)
        for key, value in kwargs.items():
            setattr(self, key, value)

    def get_config(self) -> dict[str, Any]:
        config = Loss.get_config(self)
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "BuiltinLoss":
        return cls(**config)

    def __repr__(self) -> str:
        return Loss.__repr__(self)


skip_autograph(Loss, _LOSS_METHODS)
