"""Mixed precision inside ``call``: a layer's float32 variables are read in its compute dtype.

    with variables_cast_in_call(layer):     # Layer.__call__ does this
        outputs = layer.call(inputs)        # self.kernel reads as float16 under "mixed_float16"

Under a mixed policy (float32 variables, float16/bfloat16 computation) a
layer's ``call`` multiplies 16-bit inputs by its variables, so the variables
must read as 16-bit too, while they stay float32 for the optimizer. For the
duration of the call, each float32 variable held directly in an attribute of
the layer (``self.kernel``, ``self.w``: how layers and Keras guides keep
them) is replaced by an :class:`AutoCastVariable`, which reads as a cast of
the variable (gradients flow back to the float32 variable) and writes
through to it. Afterwards the attributes are the variables again, so
saving, checkpoints and the optimizer only ever see float32 variables.
Variables created with ``add_weight(autocast=False)`` and variables kept in
lists or dicts are left alone: cast those with ``tf.cast(v, self.compute_dtype)``.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np
import tensorflow as tf

from tfkit.base import variable_roles

_NOT_FORWARDED = frozenset({"_dense_var_to_tensor", "_as_graph_element", "_should_act_as_resource_variable"})


class AutoCastVariable:
    """A variable as ``call`` sees it under mixed precision: reads in ``dtype``, writes to the variable."""

    def __init__(self, variable: tf.Variable, dtype: Any) -> None:
        self._variable = variable
        self._dtype = tf.as_dtype(dtype)

    @property
    def dtype(self) -> tf.DType:
        return self._dtype

    @property
    def true_dtype(self) -> tf.DType:
        return self._variable.dtype

    def value(self) -> tf.Tensor:
        return tf.cast(self._variable, self._dtype)

    def read_value(self) -> tf.Tensor:
        return self.value()

    def numpy(self) -> np.ndarray:
        return self.value().numpy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:  # NumPy 2 passes copy=
        return np.asarray(self.numpy(), dtype=dtype)

    def _write(self, method: str, value: Any, **kwargs: Any) -> Any:
        return getattr(self._variable, method)(tf.cast(value, self._variable.dtype), **kwargs)

    def assign(self, value: Any, **kwargs: Any) -> Any:
        return self._write("assign", value, **kwargs)

    def assign_add(self, value: Any, **kwargs: Any) -> Any:
        return self._write("assign_add", value, **kwargs)

    def assign_sub(self, value: Any, **kwargs: Any) -> Any:
        return self._write("assign_sub", value, **kwargs)

    def __tf_tensor__(self, dtype: Any = None, name: Any = None) -> tf.Tensor:
        return _convert(self, dtype)

    def __getattr__(self, name: str) -> Any:  # shape, name, trainable, device, ...
        if name.startswith("__") or name in _NOT_FORWARDED:  # conversion hooks would read the float32 value
            raise AttributeError(name)
        return getattr(self._variable, name)

    def __repr__(self) -> str:
        return f"<AutoCastVariable {self._variable.name} dtype={self._dtype.name} true_dtype={self.true_dtype.name}>"


def _convert(value: AutoCastVariable, dtype: Any = None, name: Any = None, as_ref: bool = False) -> tf.Tensor:
    if dtype is not None and tf.as_dtype(dtype) != value.dtype:
        if tf.as_dtype(dtype).is_floating:
            return tf.cast(value._variable, dtype)  # an op asked for another float type: give it that
        raise ValueError(
            f"Variable {value._variable.name} reads as {value.dtype.name} in this layer's call, "
            f"but an operation asked for {tf.as_dtype(dtype).name}"
        )
    return value.value()


tf.register_tensor_conversion_function(AutoCastVariable, _convert)


def _operator(name: str) -> Any:
    def apply(self: AutoCastVariable, *args: Any) -> Any:
        return getattr(self.value(), name)(*args)

    apply.__name__ = name
    return apply


for _name in (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__floordiv__",
    "__rfloordiv__",
    "__mod__",
    "__rmod__",
    "__pow__",
    "__rpow__",
    "__matmul__",
    "__rmatmul__",
    "__neg__",
    "__abs__",
    "__getitem__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
):
    setattr(AutoCastVariable, _name, _operator(_name))


def _castable(value: Any, variable_dtype: tf.DType) -> bool:
    return isinstance(value, tf.Variable) and value.dtype == variable_dtype and variable_roles.casts_in_call(value)


@contextlib.contextmanager
def variables_cast_in_call(layer: Any) -> Iterator[None]:
    """Swap ``layer``'s variable attributes for :class:`AutoCastVariable` s while it computes in another dtype."""
    policy = layer._own_policy()
    if not policy.is_mixed:
        yield
        return
    variable_dtype = tf.as_dtype(policy.variable_dtype)
    attributes = vars(layer)
    swapped = {
        name: value
        for name, value in attributes.items()
        if not name.startswith("_tfkit_") and _castable(value, variable_dtype)
    }
    for name, variable in swapped.items():
        attributes[name] = AutoCastVariable(variable, policy.compute_dtype)
    try:
        yield
    finally:
        for name, variable in swapped.items():
            attributes[name] = variable
