"""Losses by name, config, class, instance or function: Keras's ``losses.get``, ``serialize`` and ``deserialize``.

loss = get("mse")                         # the mean_squared_error function
loss_object("mse")                        # a LossFunctionWrapper named "mean_squared_error", as compile makes
is_loss_of_kind("binary_crossentropy", "binary")   # True: which accuracy "accuracy" means
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.base import registry
from tfkit.losses import extra_functions, functions
from tfkit.losses.builtins import (
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
)
from tfkit.losses.extra_builtins import CategoricalFocalCrossentropy
from tfkit.losses.loss import Loss, LossFunctionWrapper

# Every per-sample loss function by its name, from the ``__all__`` of the modules that define them.
_LOSS_FUNCTIONS = {name: getattr(module, name) for module in (functions, extra_functions) for name in module.__all__}


_FUNCTION_ALIASES = {
    "mse": functions.mean_squared_error,
    "MSE": functions.mean_squared_error,
    "mae": functions.mean_absolute_error,
    "MAE": functions.mean_absolute_error,
    "mape": functions.mean_absolute_percentage_error,
    "MAPE": functions.mean_absolute_percentage_error,
    "msle": functions.mean_squared_logarithmic_error,
    "MSLE": functions.mean_squared_logarithmic_error,
    "kld": functions.kl_divergence,
    "KLD": functions.kl_divergence,
    "bce": functions.binary_crossentropy,
    "BCE": functions.binary_crossentropy,
}


def get(identifier: Any) -> Any:
    """Retrieve a Keras loss as a function or `Loss` instance, as Keras 3's `keras.losses.get` does.

    A built-in function's name (or a short alias: `"mse"`, `"MSE"`, `"mae"`,
    `"mape"`, `"msle"`, `"kld"`, `"bce"`, ...) gives the function; a class
    name (`"MeanSquaredError"`) or a `{"class_name": ..., "config": ...}`
    dict gives a `Loss` instance; a `Loss` subclass gives a default
    instance; `None`, `Loss` instances and other callables come back as
    they are (`compile` wraps a plain function in a `LossFunctionWrapper`,
    see `loss_object`).

    Args:
        identifier: A loss function or class name, a config dict, a `Loss`
            subclass or instance, a callable `fn(y_true, y_pred)`, or `None`.

    Returns:
        A loss function, a `Loss` instance, or `None`.

    Raises:
        ValueError: If `identifier` is an unknown name, a class that is not a
            `Loss` subclass, or cannot be interpreted as a loss.

    Example:
        >>> tfkit.losses.get("mse") is tfkit.losses.mean_squared_error
        True
        >>> tfkit.losses.get("MeanSquaredError")
        <MeanSquaredError name=mean_squared_error, reduction=sum_over_batch_size>
        >>> tfkit.losses.get({"class_name": "Huber", "config": {"delta": 2.0}}).get_config()["delta"]
        2.0
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
    """Turn a loss identifier into a `Loss` object, as `compile` does.

    Unlike `get`, names give the class instance (`"mse"` and
    `"mean_squared_error"` both give `MeanSquaredError()`), and plain
    functions are wrapped in a `LossFunctionWrapper` named after the
    function.

    Args:
        identifier: A loss name, a config dict, a `Loss` subclass or
            instance, a callable `fn(y_true, y_pred)`, or `None`.

    Returns:
        A `Loss` instance, or `None` for `None`.

    Raises:
        ValueError: If `identifier` cannot be interpreted as a loss.

    Example:
        >>> tfkit.losses.loss_object("binary_crossentropy")
        <BinaryCrossentropy name=binary_crossentropy, reduction=sum_over_batch_size>
        >>> def my_loss(y_true, y_pred):
        ...     return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)
        >>> tfkit.losses.loss_object(my_loss).name
        'my_loss'
        >>> tfkit.losses.loss_object(None) is None
        True
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
    """Serialize a loss to plain data, for saving in a config.

    Args:
        loss: A `Loss` instance (or class), a registered loss function, or
            `None`.

    Returns:
        A `{"class_name": ..., "config": ...}` dict for a `Loss`, the
        registered name for a function, or `None` for `None`.

    Raises:
        ValueError: If `loss` is a function or class that is not registered.

    Example:
        >>> tfkit.losses.serialize(tfkit.losses.MeanSquaredError())
        {'class_name': 'MeanSquaredError', 'config': {'name': 'mean_squared_error',
        'reduction': 'sum_over_batch_size', 'dtype': 'float32'}}
        >>> tfkit.losses.serialize(tfkit.losses.mean_squared_error)
        'mean_squared_error'
    """
    if loss is None:
        return None
    if callable(loss) and not isinstance(loss, (Loss, type)):
        return registry.to_config("functions", loss)
    return registry.to_config("losses", loss)


def deserialize(name: Any, custom_objects: Mapping[str, Any] | None = None) -> Any:
    """Deserialize a loss: the inverse of `serialize`.

    A config dict gives the `Loss` it describes. A name gives the matching
    class instance, also for a function's name (`"mean_squared_error"` and
    `"mse"` give `MeanSquaredError()`).

    Args:
        name: A `{"class_name": ..., "config": ...}` dict or a loss name.
        custom_objects: Optional dict mapping names to custom classes or
            functions, looked up first. Defaults to `None`.

    Returns:
        A `Loss` instance (or the custom object the name maps to).

    Raises:
        ValueError: If the name is unknown.

    Example:
        >>> tfkit.losses.deserialize("mse")
        <MeanSquaredError name=mean_squared_error, reduction=sum_over_batch_size>
        >>> config = tfkit.losses.serialize(tfkit.losses.Huber(delta=2.0))
        >>> tfkit.losses.deserialize(config).get_config()["delta"]
        2.0
    """
    return registry.resolve("losses", name, custom_objects)


def is_loss_of_kind(loss: Any, kind: str) -> bool:
    """Tell whether a loss is a binary, categorical or sparse categorical crossentropy.

    `compile(metrics=["accuracy"])` uses it to pick the matching accuracy.
    `"binary"` matches `BinaryCrossentropy` and `BinaryFocalCrossentropy`,
    `"categorical"` matches `CategoricalCrossentropy` and
    `CategoricalFocalCrossentropy`, `"sparse"` matches
    `SparseCategoricalCrossentropy`: their classes, instances (subclasses
    included), functions, registered names, and wrappers (`LossFunctionWrapper`)
    around their functions.

    Args:
        loss: A loss object, class, function or name. Unknown names give
            `False`.
        kind: `"binary"`, `"categorical"` or `"sparse"`.

    Returns:
        `True` if `loss` is of that kind, else `False`.

    Raises:
        KeyError: If `kind` is not one of the three kinds.

    Example:
        >>> tfkit.losses.is_loss_of_kind("binary_crossentropy", "binary")
        True
        >>> tfkit.losses.is_loss_of_kind(tfkit.losses.CategoricalCrossentropy(), "sparse")
        False
        >>> tfkit.losses.is_loss_of_kind(tfkit.losses.sparse_categorical_crossentropy, "sparse")
        True
    """
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
