"""A dtype policy per layer path: exact paths first, then full-match regular expressions.

    policies = DTypePolicyMap(default_policy="float32")
    policies["encoder/.*"] = "bfloat16"                  # every layer under encoder/
    policies["encoder/dense"].name                       # 'bfloat16'

As Keras 3's ``DTypePolicyMap``: a mutable mapping that acts as its default policy for the
dtypes, and fails when a path matches more than one pattern.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any, Callable, Iterator

from tfkit.base import dtype_policy_float as float_policies
from tfkit.base.dtype_policy_quantized import from_identifier


class DTypePolicyMap(float_policies.DTypePolicy, MutableMapping):
    """A dict-like map of dtype policies keyed by layer path, with a default for every other path.

    As Keras 3's `DTypePolicyMap`: a mutable mapping whose keys are exact
    layer paths or full-match regular expressions (`"encoder/.*"`); looking
    up a path returns its exact entry, else the one pattern that matches it,
    else `default_policy`. As a policy itself it has the default policy's
    dtypes. A path matching more than one pattern is an error.

    Args:
        default_policy: The policy (or its name) for paths no key matches.
            Defaults to `None` (the global policy, read at lookup time).
        policy_map: Optional dict of paths or patterns to policies (or
            names). Defaults to `None`.

    Raises:
        ValueError: If `default_policy` is a `DTypePolicyMap`, or a value is
            not a policy.
        TypeError: If `policy_map` is not a dict.

    Example:
        >>> policies = tfkit.dtype_policies.DTypePolicyMap(default_policy="float32")
        >>> policies["encoder/.*"] = "bfloat16"
        >>> policies["encoder/dense"].name
        'bfloat16'
        >>> policies["decoder/dense"].name
        'float32'
    """

    def __init__(self, default_policy: Any = None, policy_map: dict[str, Any] | None = None) -> None:
        if isinstance(default_policy, DTypePolicyMap):
            raise ValueError("`default_policy` cannot be a `DTypePolicyMap`.")
        if policy_map is not None and not isinstance(policy_map, dict):
            raise TypeError(
                f"If specified, `policy_map` must be a dict. Received: policy_map={policy_map} "
                f"of type {type(policy_map)}"
            )
        self._default_policy_arg = default_policy
        self._default_policy = self._policy(default_policy)
        self._policy_map: dict[str, Any] = {}
        for key, policy in (policy_map or {}).items():
            self[key] = policy

    def _policy(self, identifier: Any) -> Any:
        if isinstance(identifier, DTypePolicyMap):
            raise ValueError("A DTypePolicyMap cannot hold another DTypePolicyMap.")
        return from_identifier(identifier)

    @property
    def name(self) -> str:
        return f"map_{self.default_policy.name}"

    @property
    def default_policy(self) -> Any:
        """The policy for paths no key matches (the global policy when none was given)."""
        return self._default_policy if self._default_policy_arg is not None else float_policies.global_policy()

    @property
    def variable_dtype(self) -> str:
        return self.default_policy.variable_dtype

    @property
    def compute_dtype(self) -> str:
        return self.default_policy.compute_dtype

    @property
    def quantization_mode(self) -> str | None:
        return self.default_policy.quantization_mode

    @property
    def is_mixed(self) -> bool:
        return self.default_policy.is_mixed

    def __getitem__(self, key: str) -> Any:
        if key in self._policy_map:
            return self._policy_map[key]
        matches = [pattern for pattern in self._policy_map if re.fullmatch(pattern, key)]
        if len(matches) > 1:
            raise ValueError(
                f"Path '{key}' matches multiple dtype policy specification keys: {matches}. Please "
                "make sure each path only matches at most one dtype policy specification key in "
                "the DTypePolicyMap."
            )
        return self._policy_map[matches[0]] if matches else self.default_policy

    def __setitem__(self, key: str, policy: Any) -> None:
        if key in self._policy_map:
            raise ValueError(
                f"{key} already exist in the DTypePolicyMap with value {self._policy_map[key]}. "
                "Please make sure to not use duplicated keys."
            )
        try:
            policy = self._policy(policy)
        except (TypeError, ValueError) as error:
            raise ValueError(
                "Cannot interpret the assigned value by `dtype_policies.get`. "
                f"Received: {policy} of type {type(policy)}"
            ) from error
        self._policy_map[key] = policy

    def __delitem__(self, key: str) -> None:
        self._policy_map.pop(key)

    def __contains__(self, key: object) -> bool:
        return key in self._policy_map

    def __len__(self) -> int:
        return len(self._policy_map)

    def __iter__(self) -> Iterator[str]:
        return iter(self._policy_map)

    def get_config(self, serialize: Callable[[Any], Any] | None = None) -> dict[str, Any]:
        """Returns Keras's config of the map: `{"default_policy", "policy_map"}`.

        Args:
            serialize: Optional function writing each policy (such as
                `tfkit.dtype_policies.serialize`). Defaults to `None`
                (`{"class_name", "config"}` dicts).

        Returns:
            A dict.
        """
        write = serialize or (lambda policy: {"class_name": type(policy).__name__, "config": policy.get_config()})
        return {
            "default_policy": self._default_policy_arg,
            "policy_map": {key: write(policy) for key, policy in self._policy_map.items()},
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> "DTypePolicyMap":
        """Creates a map from its config (the output of `get_config`); `custom_objects` is unused."""
        unknown = set(config) - {"default_policy", "policy_map"}
        if unknown or not isinstance(config.get("policy_map", {}), dict):
            raise ValueError(f"A DTypePolicyMap config has 'default_policy' and a dict 'policy_map'; got {config}")
        return cls(config.get("default_policy"), dict(config.get("policy_map") or {}))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DTypePolicyMap)
            and other.default_policy == self.default_policy
            and other._policy_map == self._policy_map
        )

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        mapping = [(key, policy.name) for key, policy in self._policy_map.items()]
        return f"<DTypePolicyMap at 0x{id(self):x} default_policy={self._default_policy.name} mapping={mapping}>"
