"""Turning user-facing variable options into TensorFlow's: dtypes, aggregation, synchronization.

dtype_name("float32")            # 'float32'
aggregation("mean")              # tf.VariableAggregation.MEAN
synchronization("on_read")       # tf.VariableSynchronization.ON_READ
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

# tfkit creates every variable eagerly (under ``tf.init_scope``), also when a layer, an optimizer or a
# metric builds itself inside a ``tf.function``. A ``tf.function`` that sees variables created during
# its first trace traces everything a second time to check that no more appear; eager variables need
# no such check, so tfkit tells it not to lift (and count) them. The first epoch of a model that
# builds in its first compiled step then costs one trace, not two.
EAGER_CREATION: dict[str, Any] = {"experimental_enable_variable_lifting": False}


def dtype_name(dtype: Any) -> str:
    if dtype is None:
        return "float32"
    if isinstance(dtype, dict):
        dtype = dtype.get("config", {}).get("name", "float32")
    try:
        return tf.as_dtype(dtype).name
    except TypeError as error:
        raise ValueError(f"Unknown dtype {dtype!r}: expected a TensorFlow dtype name such as 'float32'") from error


def aggregation(value: Any) -> tf.VariableAggregation:
    if isinstance(value, tf.VariableAggregation):
        return value
    table = {
        "none": tf.VariableAggregation.NONE,
        "mean": tf.VariableAggregation.MEAN,
        "sum": tf.VariableAggregation.SUM,
        "only_first_replica": tf.VariableAggregation.ONLY_FIRST_REPLICA,
    }
    if value not in table:
        raise ValueError(f"aggregation must be one of {sorted(table)}, got {value!r}")
    return table[value]


def synchronization(value: Any) -> tf.VariableSynchronization:
    if isinstance(value, tf.VariableSynchronization):
        return value
    table = {
        "auto": tf.VariableSynchronization.AUTO,
        "on_read": tf.VariableSynchronization.ON_READ,
        "on_write": tf.VariableSynchronization.ON_WRITE,
        "none": tf.VariableSynchronization.NONE,
    }
    if value not in table:
        raise ValueError(f"synchronization must be one of {sorted(table)}, got {value!r}")
    return table[value]
