"""Quantized dtype policies: a float policy plus the quantization mode of a layer's weights.

    policy = QuantizedDTypePolicy("int8", "float32")     # name "int8_from_float32"
    Int4DTypePolicy("int4/128", "bfloat16").block_size    # 128
    policy_from_name("gptq/4/128_from_float32")          # GPTQDTypePolicy

Names and configs are Keras 3's, so a quantized Keras layer's ``dtype`` reads back as the same
policy. The compute and variable dtypes are those of the source policy.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import dtype_policy_float as float_policies

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")


class QuantizedDTypePolicy(float_policies.DTypePolicy):
    """A quantized dtype policy: `mode` weights in a layer otherwise run by a float policy's dtypes.

    A layer quantized with `Model.quantize` (or made with such a `dtype`)
    takes one. Its name is `"<mode>_from_<source_name>"`, such as
    `"int8_from_float32"`, as Keras 3 names it, so a quantized Keras layer's
    `dtype` reads back as the same policy. The compute and variable dtypes
    are those of the source policy.

    Args:
        mode: The quantization mode: `"int8"`, `"float8"`, `"int4"`,
            `"gptq"` or `"awq"` (some subclasses take more fields, such as
            `"int4/128"`).
        source_name: The float policy's name. Defaults to `None` (the global
            policy's name).

    Raises:
        ValueError: For an unknown mode, or `"int8"` with a float16 compute
            dtype.

    Example:
        >>> policy = tfkit.dtype_policies.QuantizedDTypePolicy("int8", "float32")
        >>> policy.name, policy.quantization_mode, policy.compute_dtype
        ('int8_from_float32', 'int8', 'float32')
    """

    def __init__(self, mode: str, source_name: str | None = None) -> None:
        if source_name is None:
            source_name = float_policies.global_policy().name
        source = float_policies.DTypePolicy(source_name)
        self._compute, self._variable = source.compute_dtype, source.variable_dtype
        if mode.split("/", 1)[0] not in QUANTIZATION_MODES:
            raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. Received: mode={mode}")
        if self._compute == "float16" and mode == "int8":
            raise ValueError(f"Quantization mode='{mode}' doesn't work well with compute_dtype='float16'.")
        self._name = f"{mode}_from_{source_name}"
        self._source_name = source_name
        self._quantization_mode = mode.split("/", 1)[0]

    @property
    def quantization_mode(self) -> str:
        """The quantization mode, such as `"int8"`."""
        return self._quantization_mode

    def get_config(self) -> dict[str, Any]:
        return {"mode": self._quantization_mode, "source_name": self._source_name}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.get_config() == self.get_config()

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f'<{type(self).__name__} "{self._name}">'


class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """A quantized dtype policy for float8 training: also how many steps the scales look back over.

    Args:
        mode: The quantization mode, `"float8"`.
        source_name: The float policy's name. Defaults to `None` (the global
            policy's name).
        amax_history_length: How many steps of absolute maxima the float8
            scaling factors are computed from. Defaults to `1024`.

    Raises:
        TypeError: If `amax_history_length` is not an integer.
        ValueError: For an unknown mode.

    Example:
        >>> policy = tfkit.dtype_policies.QuantizedFloat8DTypePolicy("float8", "float32", amax_history_length=16)
        >>> policy.name, policy.amax_history_length
        ('float8_from_float32', 16)
    """

    default_amax_history_length = 1024

    def __init__(self, mode: str, source_name: str | None = None, amax_history_length: int = 1024) -> None:
        super().__init__(mode, source_name)
        if not isinstance(amax_history_length, int):
            raise TypeError(
                f"`amax_history_length` must be an integer. Received: amax_history_length={amax_history_length}"
            )
        self._amax_history_length = amax_history_length

    @property
    def amax_history_length(self) -> int:
        """How many steps of absolute maxima the scaling factors look back over."""
        return self._amax_history_length

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "amax_history_length": self._amax_history_length}


def _mode_fields(mode: str, base: str, fields: tuple[str, ...]) -> list[int]:
    parts = mode.split("/") if isinstance(mode, str) else []
    expected = "'" + "/".join([base] + [f"<{field}>" for field in fields]) + "'"
    if len(parts) != len(fields) + 1 or parts[0] != base:
        raise ValueError(
            f"Invalid mode for {base.upper() if base != 'int4' else 'Int4'}DTypePolicy. "
            f"Expected format {expected}, but got '{mode}'."
        )
    try:
        return [int(part) for part in parts[1:]]
    except ValueError:
        raise ValueError(
            f"Invalid mode: {' and '.join(f'<{f}>' for f in fields)} must be integers. "
            f"Expected format {expected}, but got '{mode}'."
        ) from None


def _check_group(value: int, name: str, meaning: str, mode: str) -> None:
    if value < -1 or value == 0:
        raise ValueError(
            f"Invalid {name} in mode. Supported values are -1 ({meaning}) or a positive integer, "
            f"but got {value} from '{mode}'."
        )


class Int4DTypePolicy(QuantizedDTypePolicy):
    """A quantized dtype policy for int4 weights in blocks of `block_size` input rows.

    Args:
        mode: `"int4/<block_size>"`, such as `"int4/128"`; a block size of
            `-1` quantizes per output channel.
        source_name: The float policy's name. Defaults to `None` (the global
            policy's name).

    Raises:
        ValueError: If `mode` is not of that form, or the block size is 0 or
            below -1.

    Example:
        >>> policy = tfkit.dtype_policies.Int4DTypePolicy("int4/128", "bfloat16")
        >>> policy.name, policy.block_size
        ('int4/128_from_bfloat16', 128)
    """

    def __init__(self, mode: str, source_name: str | None = None) -> None:
        (self.block_size,) = _mode_fields(mode, "int4", ("block_size",))
        _check_group(self.block_size, "block_size", "per-channel", mode)
        super().__init__("int4", source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = "int4"

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "mode": f"int4/{self.block_size}"}


class GPTQDTypePolicy(QuantizedDTypePolicy):
    """A quantized dtype policy for GPTQ-quantized weights (Keras's name; tfkit does not run GPTQ).

    It reads back the `dtype` of a GPTQ-quantized Keras layer; `Model.quantize`
    refuses the GPTQ mode.

    Args:
        mode: `"gptq/<weight_bits>/<group_size>"`, with 2, 3, 4 or 8 bits and
            a group size of `-1` (whole tensor) or a positive integer.
        source_name: The float policy's name. Defaults to `None` (the global
            policy's name).

    Raises:
        ValueError: If `mode` is not of that form.

    Example:
        >>> policy = tfkit.dtype_policies.GPTQDTypePolicy("gptq/4/128", "float32")
        >>> policy.weight_bits, policy.group_size
        (4, 128)
    """

    def __init__(self, mode: str, source_name: str | None = None) -> None:
        self.weight_bits, self.group_size = _mode_fields(mode, "gptq", ("weight_bits", "group_size"))
        if self.weight_bits not in (2, 3, 4, 8):
            raise ValueError(
                f"Invalid weight_bits in mode. Supported values are 2, 3, 4, and 8, but got "
                f"{self.weight_bits} from '{mode}'."
            )
        _check_group(self.group_size, "group_size", "whole-tensor", mode)
        super().__init__("gptq", source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = "gptq"

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "mode": f"gptq/{self.weight_bits}/{self.group_size}"}


class AWQDTypePolicy(QuantizedDTypePolicy):
    """A quantized dtype policy for AWQ-quantized weights (Keras's name; tfkit does not run AWQ).

    It reads back the `dtype` of an AWQ-quantized Keras layer; `Model.quantize`
    refuses the AWQ mode.

    Args:
        mode: `"awq/4/<group_size>"` (AWQ is 4-bit only), with a group size
            of `-1` (per channel) or a positive integer.
        source_name: The float policy's name. Defaults to `None` (the global
            policy's name).

    Raises:
        ValueError: If `mode` is not of that form.

    Example:
        >>> policy = tfkit.dtype_policies.AWQDTypePolicy("awq/4/128", "float32")
        >>> policy.name, policy.group_size
        ('awq/4/128_from_float32', 128)
    """

    def __init__(self, mode: str, source_name: str | None = None) -> None:
        self.weight_bits, self.group_size = _mode_fields(mode, "awq", ("weight_bits", "group_size"))
        if self.weight_bits != 4:
            raise ValueError(
                f"Invalid weight_bits in mode. AWQ only supports 4-bit quantization, but got "
                f"{self.weight_bits} from '{mode}'."
            )
        _check_group(self.group_size, "group_size", "per-channel", mode)
        super().__init__("awq", source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = "awq"

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "mode": f"awq/{self.weight_bits}/{self.group_size}"}


CLASSES = {
    cls.__name__: cls
    for cls in (QuantizedDTypePolicy, QuantizedFloat8DTypePolicy, Int4DTypePolicy, GPTQDTypePolicy, AWQDTypePolicy)
}


def is_quantized_name(name: Any) -> bool:
    return isinstance(name, str) and name.startswith(QUANTIZATION_MODES)


def policy_from_name(name: str) -> QuantizedDTypePolicy:
    """The policy a quantized name such as ``"int8_from_mixed_bfloat16"`` stands for."""
    parts = name.split("_from_")
    if len(parts) != 2:
        raise ValueError(
            "Cannot convert `policy` into a valid pair (`mode`, `source_name`) to instantiate "
            f"`QuantizedDTypePolicy`. Received: policy={name}; expected a quantized policy "
            "'<mode>_from_<source>' such as 'int8_from_float32', or a dtype policy such as 'float32', "
            "'mixed_float16' or 'mixed_bfloat16'"
        )
    mode, source = parts
    if mode.startswith("int4/"):
        return Int4DTypePolicy(mode, source)
    if mode.startswith("gptq"):
        return GPTQDTypePolicy(mode, source)
    if mode.startswith("awq"):
        return AWQDTypePolicy(mode, source)
    if mode.startswith("float8"):
        return QuantizedFloat8DTypePolicy(mode, source)
    return QuantizedDTypePolicy(mode, source)


def policy_from_config(class_name: str, config: dict[str, Any]) -> QuantizedDTypePolicy:
    """A quantized policy from Keras's ``{"class_name": ..., "config": {"mode", "source_name", ...}}``."""
    allowed = (
        {"mode", "source_name", "amax_history_length"}
        if class_name == "QuantizedFloat8DTypePolicy"
        else {"mode", "source_name"}
    )
    unknown = set(config) - allowed
    if unknown or not isinstance(config.get("mode"), str):
        raise ValueError(
            f"Expected {{'class_name': {class_name!r}, 'config': {{...}}}} with a string 'mode' and "
            f"config keys among {sorted(allowed)}; got config keys {sorted(config)}"
        )
    return CLASSES[class_name](**config)


_FLOAT_CLASSES = ("DTypePolicy", "FloatDTypePolicy", "Policy")


def from_identifier(identifier: Any) -> float_policies.DTypePolicy:
    """A float or quantized policy from a policy, None (the global one), a name, a dtype or Keras's dict."""
    if isinstance(identifier, float_policies.DTypePolicy):
        return identifier
    if identifier is None:
        return float_policies.global_policy()
    if isinstance(identifier, tf.DType):
        return float_policies.DTypePolicy(identifier.name)
    if isinstance(identifier, dict):
        class_name, config = identifier.get("class_name"), identifier.get("config")
        if isinstance(config, dict) and class_name in _FLOAT_CLASSES and isinstance(config.get("name"), str):
            return float_policies.DTypePolicy(config["name"])
        if isinstance(config, dict) and class_name in CLASSES:
            return policy_from_config(class_name, config)
        raise ValueError(
            f"Expected a serialized DTypePolicy {{'class_name': 'DTypePolicy', 'config': "
            f"{{'name': ...}}}} (or a quantized policy or DTypePolicyMap), got {str(identifier)[:200]}"
        )
    if isinstance(identifier, str):
        return policy_from_name(identifier) if is_quantized_name(identifier) else float_policies.DTypePolicy(identifier)
    if hasattr(identifier, "name") and isinstance(getattr(identifier, "name"), str):  # np.dtype and friends
        return float_policies.DTypePolicy(identifier.name)
    raise ValueError(f"Expected a dtype policy name such as 'mixed_float16', got {identifier!r}")
