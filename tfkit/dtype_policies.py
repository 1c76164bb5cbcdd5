"""Keras's ``keras.dtype_policies`` names.

policy = tfkit.dtype_policies.get("mixed_float16")
tfkit.layers.Dense(4, dtype=policy)
tfkit.dtype_policies.get("int8_from_float32")     # QuantizedDTypePolicy, as a quantized Keras layer's dtype
"""

from tfkit.base.dtype_policy import DTypePolicy, deserialize, get, serialize  # noqa: F401
from tfkit.base.dtype_policy_map import DTypePolicyMap  # noqa: F401
from tfkit.base.dtype_policy_quantized import (  # noqa: F401
    AWQDTypePolicy,
    GPTQDTypePolicy,
    Int4DTypePolicy,
    QuantizedDTypePolicy,
    QuantizedFloat8DTypePolicy,
)

FloatDTypePolicy = DTypePolicy

__all__ = [
    "AWQDTypePolicy",
    "DTypePolicy",
    "DTypePolicyMap",
    "FloatDTypePolicy",
    "GPTQDTypePolicy",
    "Int4DTypePolicy",
    "QuantizedDTypePolicy",
    "QuantizedFloat8DTypePolicy",
    "deserialize",
    "get",
    "serialize",
]
