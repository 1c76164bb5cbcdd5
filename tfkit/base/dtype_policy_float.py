"""The float dtype policies and the process-wide default policy.

    policy = DTypePolicy("mixed_bfloat16")
    policy.variable_dtype, policy.compute_dtype     # ('float32', 'bfloat16')
    global_policy().name                            # 'float32' until set_global_policy(...)
"""

from __future__ import annotations

from typing import Any

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

    @property
    def quantization_mode(self) -> str | None:
        """None: a float policy (the quantized policies name their mode)."""
        return None

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'


_process_default: DTypePolicy | None = None


def global_policy() -> DTypePolicy:
    """The policy layers take when created without ``dtype=`` (``float32`` until set)."""
    policy = _process_default
    return policy if policy is not None else DTypePolicy("float32")


def store_global(policy: DTypePolicy | None) -> None:
    """Make ``policy`` the default (None: float32); callers have checked it."""
    global _process_default
    _process_default = policy
