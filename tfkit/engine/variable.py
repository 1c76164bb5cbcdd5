"""``tfkit.Variable``: Keras 3's variable constructor, making a plain ``tf.Variable``.

    v = tfkit.Variable(initializer="glorot_uniform", shape=(3, 4), name="kernel")
    w = tfkit.Variable(np.ones(3))           # float32 (floatx), as in Keras
    isinstance(v, tfkit.Variable)            # True for every tf.Variable

tfkit's decision: a variable is TensorFlow's own, so checkpoints, SavedModels,
``tf.GradientTape`` and ``tf.distribute`` see nothing new. Keras's arguments
map to TensorFlow's (``aggregation``, ``synchronization``); ``autocast`` is
accepted for Keras code, and a layer's variables are cast by the layer's dtype
policy in its call whatever the flag says.
"""

from __future__ import annotations

import contextlib
from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.base import settings
from tfkit.distribution import values as distribution_values
from tfkit.engine import layer_paths, variable_options


class _VariableType(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, tf.Variable)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return issubclass(subclass, tf.Variable)


class Variable(metaclass=_VariableType):
    """Creates a variable: Keras 3's constructor, returning a plain `tf.Variable`.

    tfkit's variables are TensorFlow's own, so checkpoints, SavedModels,
    `tf.GradientTape` and `tf.distribute` see nothing new:
    `isinstance(v, tfkit.Variable)` is true for every `tf.Variable`. The
    variable is created eagerly, also inside a `tf.function`. Inside layers,
    use `Layer.add_weight`, which also tracks the variable. As in Keras 3, its
    `path` is the name below the path of the layer being built or called
    (the bare name outside any), and TensorFlow's name is that path with
    `:0`.

    Args:
        initializer: The initial value (an array, tensor or number) or an
            initializer (a name such as `"zeros"`, a
            `tfkit.initializers.Initializer` or a callable `f(shape, dtype)`),
            which needs `shape`.
        shape: Shape tuple of the variable; required with an initializer,
            checked against a value. Defaults to `None`.
        dtype: Dtype of the variable. Defaults to `None`
            (`tfkit.config.floatx()`, also for a value of another dtype, as
            in Keras).
        trainable: Whether the variable is trainable. Defaults to `True`.
        autocast: Accepted for Keras code; a layer casts its variables by its
            dtype policy in `call` whatever the flag says. Defaults to `True`.
        aggregation: How the variable is aggregated across replicas:
            `"none"`, `"mean"`, `"sum"` or `"only_first_replica"`. Defaults to
            `"none"`.
        synchronization: When a distributed variable is synchronized:
            `"auto"`, `"on_write"`, `"on_read"` or `"none"`. Defaults to
            `"auto"`.
        name: Optional name, without `/`. Defaults to `None` (`"variable"`).
        **kwargs: No other keyword is accepted (a `TypeError` is raised).

    Returns:
        A `tf.Variable`.

    Raises:
        TypeError: For an unknown keyword argument.
        ValueError: If `name` holds a `/`, an initializer is given without
            `shape`, or a value's shape does not match `shape`.

    Example:
        >>> v = tfkit.Variable(initializer="ones", shape=(2,), name="v")
        >>> v
        <tf.Variable 'v:0' shape=(2,) dtype=float32, numpy=array([1., 1.], dtype=float32)>
        >>> v.path
        'v'
        >>> isinstance(v, tfkit.Variable)
        True
        >>> tfkit.Variable(np.ones(3)).dtype
        tf.float32
    """

    def __new__(
        cls,
        initializer: Any,
        shape: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        aggregation: str = "none",
        synchronization: str = "auto",
        name: str | None = None,
        **kwargs: Any,
    ) -> tf.Variable:  # type: ignore[misc]
        if kwargs:
            raise TypeError(f"Variable got unexpected keyword argument(s) {sorted(kwargs)}")
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError(f"Variable: name must be a string without '/', got {name!r}")
        dtype = tf.as_dtype(variable_options.dtype_name(dtype or settings.floatx()))
        parent = layer_paths.current()  # inside a layer's build or call: its path; else ""
        path = f"{parent}/{name or 'variable'}" if parent else name or "variable"
        # Named by its path inside a layer; elsewhere TensorFlow's name scopes apply as to any tf.Variable.
        scope = tf.name_scope(layer_paths.tf_scope(parent)) if parent else contextlib.nullcontext()
        with tf.init_scope(), scope, distribution_values.variable_scope():  # eager, also inside a tf.function
            if isinstance(initializer, str) or (callable(initializer) and not isinstance(initializer, tf.Tensor)):
                if shape is None:
                    raise ValueError(
                        f"Variable {name or ''}: an initializer ({initializer!r}) needs shape=, "
                        f"e.g. Variable(initializer, shape=(3, 4))"
                    )
                value = initializers.get(initializer)(tuple(shape), dtype=dtype)
            else:
                value = tf.cast(tf.convert_to_tensor(initializer), dtype)
                if shape is not None and tuple(value.shape) != tuple(shape):
                    raise ValueError(
                        f"Variable {name or ''}: initial value has shape {tuple(value.shape)}, "
                        f"but shape={tuple(shape)} was passed"
                    )
            variable = tf.Variable(
                value,
                dtype=dtype,
                trainable=trainable,
                name=name or "variable",
                aggregation=variable_options.aggregation(aggregation),
                synchronization=variable_options.synchronization(synchronization),
            )
        return layer_paths.set_path(variable, path)
