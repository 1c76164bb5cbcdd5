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

from tfkit.base import dtype_policy_map
from tfkit.base import dtype_policy_quantized as quantized
from tfkit.base.dtype_policy_float import MIXED, DTypePolicy, global_policy  # noqa: F401
from tfkit.base.dtype_policy_float import store_global as _store_global


def set_global_policy(policy: Any) -> None:
    """Sets the global dtype policy, the one layers created from now on take when given no `dtype=`.

    Layers created before keep their policy.

    Args:
        policy: A policy name (`"mixed_float16"`, `"mixed_bfloat16"`,
            `"float32"`, ...), a `tfkit.DTypePolicy`, or `None` to go back to
            the default (float32).

    Raises:
        ValueError: For an unknown name, or a policy whose variable dtype is
            not floating (such as a quantized one).

    Example:
        >>> tfkit.mixed_precision.set_global_policy("mixed_float16")
        >>> layer = tfkit.layers.Dense(2)
        >>> layer.compute_dtype, layer.variable_dtype
        ('float16', 'float32')
        >>> tfkit.mixed_precision.set_global_policy(None)
    """
    if policy is None:
        _store_global(None)
        return
    policy = get(policy)
    if not tf.as_dtype(policy.variable_dtype).is_floating:
        raise ValueError(f"The global dtype policy must have a floating variable dtype, got {policy.name!r}")
    _store_global(policy)


def get(identifier: Any) -> DTypePolicy:
    """Retrieves a dtype policy from an identifier.

    Args:
        identifier: A policy name (float, mixed or quantized, such as
            `"int8_from_float32"`), a policy (returned as it is), a
            `tf.DType`, `None` (the global policy), or Keras's serialized
            dict (a `DTypePolicyMap` too).

    Returns:
        A `tfkit.DTypePolicy` (or one of its quantized subclasses).

    Raises:
        ValueError: If the identifier is not a known policy.

    Example:
        >>> tfkit.dtype_policies.get("mixed_float16")
        <DTypePolicy "mixed_float16">
        >>> tfkit.dtype_policies.get("int8_from_float32")
        <QuantizedDTypePolicy "int8_from_float32">
    """
    if (
        isinstance(identifier, dict)
        and identifier.get("class_name") == "DTypePolicyMap"
        and isinstance(identifier.get("config"), dict)
    ):
        return dtype_policy_map.DTypePolicyMap.from_config(identifier["config"])
    return quantized.from_identifier(identifier)


def serialize(dtype_policy: DTypePolicy) -> dict[str, Any]:
    """Serializes a dtype policy to Keras 3's dict form.

    Args:
        dtype_policy: The policy (or `DTypePolicyMap`) to serialize.

    Returns:
        A dict `{"module", "class_name", "config", "registered_name"}`.

    Example:
        >>> tfkit.dtype_policies.serialize(tfkit.DTypePolicy("mixed_float16"))["config"]
        {'name': 'mixed_float16'}
    """
    if isinstance(dtype_policy, dtype_policy_map.DTypePolicyMap):
        config = dtype_policy.get_config(serialize)
    else:
        config = dtype_policy.get_config()
    return {
        "module": "keras.dtype_policies" if type(dtype_policy) is not DTypePolicy else "keras",
        "class_name": type(dtype_policy).__name__,
        "config": config,
        "registered_name": None,
    }


def deserialize(config: Any, custom_objects: Mapping[str, Any] | None = None) -> DTypePolicy:
    """Rebuilds a dtype policy from its serialized form (the inverse of `serialize`).

    Args:
        config: The dict `serialize` returned, or anything `get` accepts.
        custom_objects: Accepted for Keras's signature; every policy is
            built in, so it is unused. Defaults to `None`.

    Returns:
        A `tfkit.DTypePolicy`.

    Raises:
        ValueError: If `config` is not a known policy.

    Example:
        >>> config = tfkit.dtype_policies.serialize(tfkit.DTypePolicy("bfloat16"))
        >>> tfkit.dtype_policies.deserialize(config)
        <DTypePolicy "bfloat16">
    """
    return get(config)
