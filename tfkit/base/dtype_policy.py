"""Dtype policies: the dtype a layer keeps its variables in and the dtype it computes in.

    tfkit.mixed_precision.set_global_policy("mixed_float16")   # layers made from now on
    layer = tfkit.layers.Dense(10)                              # float32 kernel, float16 outputs
    head = tfkit.layers.Activation("softmax", dtype="float32")  # this one computes in float32

A policy is named by a dtype (``"float32"``: both dtypes the same) or by
``"mixed_float16"`` / ``"mixed_bfloat16"`` (float32 variables, 16-bit
computation). Layers created without ``dtype=`` take the global policy. In
configs a policy is its name, a plain string; Keras 3's
``{"class_name": "DTypePolicy", "config": {"name": ...}}`` is read too.
"""

from __future__ import annotations

from typing import Any, Mapping

import tensorflow as tf

from tfkit.base import dtype_policy_map, dtype_policy_quantized as quantized
from tfkit.base.dtype_policy_float import MIXED, DTypePolicy, global_policy  # noqa: F401
from tfkit.base.dtype_policy_float import store_global as _store_global


def set_global_policy(policy: Any) -> None:
    """Set the policy for layers created from now on: a name, a :class:`DTypePolicy`, or None (float32)."""
    if policy is None:
        _store_global(None)
        return
    policy = get(policy)
    if not tf.as_dtype(policy.variable_dtype).is_floating:
        raise ValueError(f"The global dtype policy must have a floating variable dtype, got {policy.name!r}")
    _store_global(policy)


def get(identifier: Any) -> DTypePolicy:
    """A policy from a name (quantized ones too), a policy, a ``tf.DType``, or Keras's serialized dict."""
    if isinstance(identifier, dict) and identifier.get("class_name") == "DTypePolicyMap" \
            and isinstance(identifier.get("config"), dict):
        return dtype_policy_map.DTypePolicyMap.from_config(identifier["config"])
    return quantized.from_identifier(identifier)


def serialize(dtype_policy: DTypePolicy) -> dict[str, Any]:
    """Keras 3's serialized form of a policy."""
    if isinstance(dtype_policy, dtype_policy_map.DTypePolicyMap):
        config = dtype_policy.get_config(serialize)
    else:
        config = dtype_policy.get_config()
    return {"module": "keras.dtype_policies" if type(dtype_policy) is not DTypePolicy else "keras",
            "class_name": type(dtype_policy).__name__, "config": config, "registered_name": None}


def deserialize(config: Any, custom_objects: Mapping[str, Any] | None = None) -> DTypePolicy:
    """Inverse of :func:`serialize`; ``custom_objects`` is accepted for Keras's signature (every policy is built in)."""
    return get(config)
