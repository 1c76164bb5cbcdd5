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
    """A dtype policy for a layer: the dtype of its variables and the dtype it computes in.

    A policy is named by a dtype (`"float32"`, `"float64"`, ...: both dtypes
    the same) or by `"mixed_float16"` / `"mixed_bfloat16"` (float32
    variables, 16-bit computation: faster on GPUs and TPUs, with the weights
    kept precise). Pass a policy or its name as a layer's `dtype=`; layers
    created without one take the global policy
    (`tfkit.config.set_dtype_policy`). A layer casts its floating inputs and
    its variables to the compute dtype in `call`. In configs a policy is its
    name; Keras 3's `{"class_name": "DTypePolicy", "config": {"name": ...}}`
    is read too. `FloatDTypePolicy` and `tfkit.mixed_precision.Policy` are
    the same class.

    Args:
        name: The policy's name: a TensorFlow dtype name, or
            `"mixed_float16"` or `"mixed_bfloat16"`. Defaults to `None` (the
            global policy's name).

    Raises:
        TypeError: If `name` is not a string.
        ValueError: If `name` is not a dtype or mixed policy name.

    Example:
        >>> policy = tfkit.DTypePolicy("mixed_bfloat16")
        >>> policy.variable_dtype, policy.compute_dtype
        ('float32', 'bfloat16')
        >>> layer = tfkit.layers.Dense(2, dtype=policy)
        >>> layer(np.ones((1, 3))).dtype
        tf.bfloat16
        >>> layer.kernel.dtype
        tf.float32
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
        """The policy's name, such as `"float32"` or `"mixed_float16"`."""
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype layers compute in (their outputs' dtype), such as `"float16"`."""
        return self._compute

    @property
    def variable_dtype(self) -> str:
        """The dtype of layers' variables, such as `"float32"`."""
        return self._variable

    @property
    def is_mixed(self) -> bool:
        """Whether the compute dtype differs from the variable dtype."""
        return self._compute != self._variable

    def get_config(self) -> dict[str, Any]:
        """The policy's config: `{"name": name}`."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "DTypePolicy":
        """Creates a policy from its config (the output of `get_config`)."""
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
    """Returns the global dtype policy, the one layers take when created without `dtype=`.

    Returns:
        A `tfkit.DTypePolicy`: `"float32"` until `set_global_policy` is
        called.

    Example:
        >>> tfkit.mixed_precision.global_policy()
        <DTypePolicy "float32">
    """
    policy = _process_default
    return policy if policy is not None else DTypePolicy("float32")


def store_global(policy: DTypePolicy | None) -> None:
    """Make ``policy`` the default (None: float32); callers have checked it."""
    global _process_default
    _process_default = policy
