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

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.base import settings
from tfkit.engine import variable_options


class _VariableType(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, tf.Variable)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return issubclass(subclass, tf.Variable)


class Variable(metaclass=_VariableType):
    """``Variable(initializer, shape=None, dtype=None, trainable=True, autocast=True, aggregation="none",
    synchronization="auto", name=None)`` -> a ``tf.Variable``.

    ``initializer`` is a value (array, tensor, number) or an initializer (a name such as ``"zeros"``, an
    ``Initializer`` or a callable ``f(shape, dtype)``, which needs ``shape``). ``dtype`` defaults to
    ``tfkit.config.floatx()`` for both, as in Keras.
    """

    def __new__(cls, initializer: Any, shape: Any = None, dtype: Any = None, trainable: bool = True,
                autocast: bool = True, aggregation: str = "none", synchronization: str = "auto",
                name: str | None = None, **kwargs: Any) -> tf.Variable:  # type: ignore[misc]
        if kwargs:
            raise TypeError(f"Variable got unexpected keyword argument(s) {sorted(kwargs)}")
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError(f"Variable: name must be a string without '/', got {name!r}")
        dtype = tf.as_dtype(variable_options.dtype_name(dtype or settings.floatx()))
        with tf.init_scope():      # an eager variable, also when made inside a tf.function
            if isinstance(initializer, str) or (callable(initializer) and not isinstance(initializer, tf.Tensor)):
                if shape is None:
                    raise ValueError(f"Variable {name or ''}: an initializer ({initializer!r}) needs shape=, "
                                     f"e.g. Variable(initializer, shape=(3, 4))")
                value = initializers.get(initializer)(tuple(shape), dtype=dtype)
            else:
                value = tf.cast(tf.convert_to_tensor(initializer), dtype)
                if shape is not None and tuple(value.shape) != tuple(shape):
                    raise ValueError(f"Variable {name or ''}: initial value has shape {tuple(value.shape)}, "
                                     f"but shape={tuple(shape)} was passed")
            return tf.Variable(value, dtype=dtype, trainable=trainable, name=name,
                               aggregation=variable_options.aggregation(aggregation),
                               synchronization=variable_options.synchronization(synchronization))
