"""``Metric``: state in non-trainable variables, ``update_state`` / ``result`` / ``reset_state``.

    class Count(tfkit.metrics.Metric):
        def __init__(self, name="count", dtype=None):
            super().__init__(name=name, dtype=dtype); self.n = self.add_variable((), name="n")
        def update_state(self, values, sample_weight=None): self.n.assign_add(tf.cast(tf.size(values), self.dtype))
        def result(self): return tf.identity(self.n)

A metric is a ``tf.Module`` (so checkpoints and SavedModels see its
variables) but not a layer. Its variables are created under
``tf.init_scope()`` (so a metric may be built inside a ``tf.function``) as
ON_READ / SUM variables: under ``tf.distribute.MirroredStrategy`` each
replica accumulates its own copy and reading in cross-replica context sums
them, which is exactly what counts and totals need.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.base.variable_roles import StateOwner
from tfkit.distribution import values as distribution_values
from tfkit.engine import variable_options
from tfkit.losses.loss import dtype_name, skip_autograph, to_snake_case

_METRIC_METHODS = ("__call__", "update_state", "result", "reset_state", "add_variable", "_build")


def _module_name(name: str) -> str:
    """A name ``tf.Module`` accepts (a Python identifier) for any metric name."""
    cleaned = re.sub(r"\W", "_", name)
    if not cleaned or not (cleaned[0].isalpha() or cleaned[0] == "_"):
        cleaned = "_" + cleaned
    return cleaned


def plain_data(value: Any) -> Any:
    """Lists, tuples and arrays (also ``tf.Module``-tracked ones) as plain nested lists."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)) or type(value).__name__ in ("ListWrapper", "_TupleWrapper"):
        return [plain_data(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _initial_value_fn(initializer: Any, shape: tuple[int, ...], dtype: tf.DType) -> Callable[[], tf.Tensor]:
    """A function producing a variable's initial (and reset) value."""
    if initializer is None or initializer == "zeros":
        return lambda: tf.zeros(shape, dtype)
    if initializer == "ones":
        return lambda: tf.ones(shape, dtype)
    if isinstance(initializer, str):
        raise ValueError(
            f"Metric variables accept initializer 'zeros', 'ones', a value or a callable; got {initializer!r}"
        )
    if callable(initializer):
        return lambda: tf.cast(initializer(shape, dtype=dtype), dtype)
    value = np.asarray(initializer)
    return lambda: tf.broadcast_to(tf.constant(value, dtype), shape)


@registry.builtin("metrics")
@registry.base("metrics")
class Metric(tf.Module, StateOwner):
    """Base class for stateful metrics: subclass it to write a custom metric.

    A metric accumulates state over batches: subclasses create their state
    with `add_variable` in `__init__`, and implement `update_state(...)`
    (add one batch to the state) and `result()` (compute the value from the
    state); `reset_state()` puts the variables back to their initial
    values, and calling the metric runs `update_state` then `result`.

    A metric is a `tf.Module` (checkpoints and SavedModels see its
    variables), not a layer. Its variables are non-trainable, created under
    `tf.init_scope()` (so a metric may be built inside a `tf.function`), and
    are ON_READ / SUM variables: under a `tf.distribute` strategy each
    replica accumulates its own copy, and reading in cross-replica context
    sums them. A metric held by a layer or model keeps state, not weights:
    its variables stay out of `weights` and `count_params()`.

    Args:
        name: Optional name for the metric instance, a non-empty string.
            Defaults to `None`, which means the snake-case class name.
        dtype: The dtype of the metric's computations and variables.
            Defaults to `None`, which means `"float32"`.

    Raises:
        ValueError: If `name` is not a non-empty string or `dtype` is not a
            dtype.

    Example:
        >>> class Count(tfkit.metrics.Metric):
        ...     def __init__(self, name="count", dtype=None):
        ...         super().__init__(name=name, dtype=dtype)
        ...         self.n = self.add_variable((), name="n")
        ...     def update_state(self, values, sample_weight=None):
        ...         self.n.assign_add(tf.cast(tf.size(values), self.dtype))
        ...     def result(self):
        ...         return tf.identity(self.n)
        >>> metric = Count()
        >>> metric.update_state([1, 2, 3])
        >>> metric.result().numpy()
        np.float32(3.0)
        >>> metric.reset_state()
        >>> metric.result().numpy()
        np.float32(0.0)
    """

    # A metric held by a layer or model (keras-io's loss trackers) keeps state, not weights: its
    # variables stay out of ``weights`` and ``count_params()`` as in Keras, and files keep them as state.

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        skip_autograph(cls, _METRIC_METHODS)

    def __init__(self, name: str | None = None, dtype: Any = None) -> None:
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"{type(self).__name__}: name must be a non-empty string, got {name!r}")
        metric_name = name or to_snake_case(type(self).__name__)
        super().__init__(name=_module_name(metric_name))
        self._metric_name = metric_name
        self._dtype = dtype_name(dtype)
        self._metric_variables: list[tf.Variable] = []
        self._initial_values: list[Callable[[], tf.Tensor]] = []
        self._sub_metrics: list[Metric] = []

    # -- identity ---------------------------------------------------------
    @property
    def name(self) -> str:
        return self._metric_name

    @name.setter
    def name(self, value: str) -> None:
        if not isinstance(value, str) or not value:
            raise ValueError(f"A metric name must be a non-empty string, got {value!r}")
        self._metric_name = value

    @property
    def dtype(self) -> str:
        return self._dtype

    def __setattr__(self, key: str, value: Any) -> None:
        if isinstance(value, Metric) and key != "_sub_metrics" and hasattr(self, "_sub_metrics"):
            if all(value is not m for m in self._sub_metrics):
                self._sub_metrics.append(value)
        super().__setattr__(key, value)

    # -- state ------------------------------------------------------------
    def add_variable(
        self, shape: Any = (), initializer: Any = "zeros", dtype: Any = None, name: str | None = None
    ) -> tf.Variable:
        """Create a state variable of the metric, restored by `reset_state`.

        The variable is non-trainable, synchronized ON_READ with SUM
        aggregation (see the class docstring), and created under
        `tf.init_scope()`.

        Args:
            shape: The variable's shape, a tuple of ints. Defaults to `()`.
            initializer: The initial (and reset) value: `"zeros"`, `"ones"`,
                a value that broadcasts to `shape`, or a callable
                `initializer(shape, dtype=dtype)`. Defaults to `"zeros"`.
            dtype: The variable's dtype. Defaults to `None`, which means the
                metric's `dtype`.
            name: The variable's name. Defaults to `None` (`"variable"`).

        Returns:
            The new `tf.Variable`.

        Raises:
            RuntimeError: If called before `Metric.__init__`.
            ValueError: If `initializer` is a string other than `"zeros"` or
                `"ones"`.
        """
        if not hasattr(self, "_metric_variables"):
            raise RuntimeError(f"{type(self).__name__}.__init__ must call super().__init__() before add_variable()")
        shape = tuple(int(d) for d in (shape if isinstance(shape, (list, tuple)) else tf.TensorShape(shape)))
        dtype = tf.as_dtype(dtype or self.dtype)
        initial = _initial_value_fn(initializer, shape, dtype)
        with tf.init_scope(), distribution_values.variable_scope():
            variable = tf.Variable(
                initial,
                dtype=dtype,
                trainable=False,
                name=_module_name(name or "variable"),
                synchronization=tf.VariableSynchronization.ON_READ,
                aggregation=tf.VariableAggregation.SUM,
                **variable_options.EAGER_CREATION,
            )
        self._metric_variables.append(variable)
        self._initial_values.append(initial)
        return variable

    def add_weight(
        self, shape: Any = (), initializer: Any = "zeros", dtype: Any = None, name: str | None = None
    ) -> tf.Variable:
        """Create a state variable: an alias of `add_variable` (the older Keras spelling).

        Args:
            shape: The variable's shape. Defaults to `()`.
            initializer: `"zeros"`, `"ones"`, a value or a callable. Defaults
                to `"zeros"`.
            dtype: The variable's dtype. Defaults to `None` (the metric's).
            name: The variable's name. Defaults to `None`.

        Returns:
            The new `tf.Variable`.
        """
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype, name=name)

    @property
    def variables(self) -> list[tf.Variable]:
        """This metric's variables in creation order, then those of metrics it holds."""
        own = list(self._metric_variables)
        for metric in self._sub_metrics:
            own.extend(metric.variables)
        return own

    @property
    def trainable_variables(self) -> list[tf.Variable]:
        return []

    @property
    def non_trainable_variables(self) -> list[tf.Variable]:
        return self.variables

    def reset_state(self) -> None:
        """Reset all of the metric's state variables to their initial values.

        Zeros unless `add_variable` was given another initializer; metrics
        held as attributes are reset too. Called between epochs.
        """
        for variable, initial in zip(self._metric_variables, self._initial_values):
            variable.assign(initial())
        for metric in self._sub_metrics:
            metric.reset_state()

    def reset_states(self) -> None:
        """Alias of :meth:`reset_state`."""
        self.reset_state()

    # -- to implement -----------------------------------------------------
    def update_state(self, *args: Any, **kwargs: Any) -> Any:
        """Accumulate statistics for the metric; subclasses must implement it.

        Args:
            *args: The batch's values, typically `y_true, y_pred`.
            **kwargs: Typically `sample_weight`.

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement update_state()")

    def result(self) -> Any:
        """Compute the current metric value from the state; subclasses must implement it.

        Returns:
            A scalar tensor, or a tensor or dict of tensors.

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement result()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Update the state with one batch, then return the running result.

        Args:
            *args: Passed to `update_state`.
            **kwargs: Passed to `update_state`.

        Returns:
            What `result()` returns after the update.
        """
        self.update_state(*args, **kwargs)
        return self.result()

    # -- config -----------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        """Return the metric's config: `name` and `dtype` (subclasses add their arguments).

        Returns:
            A dict that `from_config` turns back into an equal metric.
        """
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Metric":
        """Create a metric from its config (the output of `get_config`).

        Args:
            config: A dict of constructor arguments.

        Returns:
            A new metric instance.
        """
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"


skip_autograph(Metric, _METRIC_METHODS)
