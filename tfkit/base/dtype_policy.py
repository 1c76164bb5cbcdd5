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

MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}


class DTypePolicy:
    """A layer's variable dtype and compute dtype, named as Keras names them.

        policy = DTypePolicy("mixed_bfloat16")
        policy.variable_dtype, policy.compute_dtype     # ('float32', 'bfloat16')
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = global_policy().name
        if not isinstance(name, str):
            raise TypeError(f"DTypePolicy name must be a string such as 'mixed_float16', got {name!r}")
        if name in MIXED:
            self._compute, self._variable = MIXED[name], "float32"
        else:
            try:
                dtype = tf.as_dtype(name).name
            except TypeError:
                raise ValueError(
                    f"Unknown dtype policy {name!r}: expected 'float32', 'float16', 'bfloat16', 'float64', "
                    f"'mixed_float16', 'mixed_bfloat16' or another TensorFlow dtype name"
                ) from None
            self._compute = self._variable = dtype
            name = dtype
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def compute_dtype(self) -> str:
        return self._compute

    @property
    def variable_dtype(self) -> str:
        return self._variable

    @property
    def is_mixed(self) -> bool:
        return self._compute != self._variable

    def get_config(self) -> dict[str, Any]:
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "DTypePolicy":
        return cls(**config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'


_process_default: DTypePolicy | None = None


def global_policy() -> DTypePolicy:
    """The policy layers take when created without ``dtype=`` (``float32`` until set)."""
    policy = _process_default
    return policy if policy is not None else DTypePolicy("float32")


def set_global_policy(policy: Any) -> None:
    """Set the policy for layers created from now on: a name, a :class:`DTypePolicy`, or None (float32)."""
    global _process_default
    if policy is None:
        _process_default = None
        return
    policy = get(policy)
    if not tf.as_dtype(policy.variable_dtype).is_floating:
        raise ValueError(f"The global dtype policy must have a floating variable dtype, got {policy.name!r}")
    _process_default = policy


def get(identifier: Any) -> DTypePolicy:
    """A policy from a name, a policy, a ``tf.DType``, or Keras's serialized ``{"class_name": ..., "config": ...}``."""
    if isinstance(identifier, DTypePolicy):
        return identifier
    if identifier is None:
        return global_policy()
    if isinstance(identifier, tf.DType):
        return DTypePolicy(identifier.name)
    if isinstance(identifier, dict):
        config = identifier.get("config")
        name = config.get("name") if isinstance(config, dict) else None
        if identifier.get("class_name") not in ("DTypePolicy", "FloatDTypePolicy", "Policy") or not isinstance(name, str):
            raise ValueError(f"Expected a serialized DTypePolicy {{'class_name': 'DTypePolicy', 'config': "
                             f"{{'name': ...}}}}, got {str(identifier)[:200]}")
        return DTypePolicy(name)
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    if hasattr(identifier, "name") and isinstance(getattr(identifier, "name"), str):   # np.dtype and friends
        return DTypePolicy(identifier.name)
    raise ValueError(f"Expected a dtype policy name such as 'mixed_float16', got {identifier!r}")


def serialize(dtype_policy: DTypePolicy) -> dict[str, Any]:
    """Keras 3's serialized form of a policy."""
    return {"module": "keras", "class_name": "DTypePolicy", "config": dtype_policy.get_config(),
            "registered_name": None}


def deserialize(config: Any, custom_objects: Mapping[str, Any] | None = None) -> DTypePolicy:
    """Inverse of :func:`serialize`; ``custom_objects`` is accepted for Keras's signature (every policy is built in)."""
    return get(config)
