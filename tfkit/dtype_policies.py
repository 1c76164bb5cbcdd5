"""Keras's ``keras.dtype_policies`` names.

    policy = tfkit.dtype_policies.get("mixed_float16")
    tfkit.layers.Dense(4, dtype=policy)
    tfkit.dtype_policies.serialize(policy)   # {"class_name": "DTypePolicy", "config": {"name": "mixed_float16"}, ...}
"""

from tfkit.base.dtype_policy import DTypePolicy, deserialize, get, serialize  # noqa: F401

FloatDTypePolicy = DTypePolicy

__all__ = ["DTypePolicy", "FloatDTypePolicy", "get", "serialize", "deserialize"]
