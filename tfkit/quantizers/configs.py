"""Quantization configs: which mode ``quantize`` runs and with which quantizers.

    config = Int8QuantizationConfig(weight_quantizer=AbsMaxQuantizer(axis=0))
    model.quantize(config=config)              # same as model.quantize("int8") with a custom weight quantizer
    Int4QuantizationConfig(block_size=64)       # int4 weights in groups of 64 input rows

Keras 3's classes, arguments, checks and configs. ``GPTQConfig`` and ``AWQConfig`` hold the
settings of those calibration algorithms (their dataset and tokenizer are never saved).
"""

from __future__ import annotations

from typing import Any

from tfkit.base import registry
from tfkit.base.dtype_policy_quantized import QUANTIZATION_MODES
from tfkit.quantizers.abs_max import AbsMaxQuantizer

_KIND = "quantizers"


def _serialize(obj: Any) -> Any:
    return registry.to_config(_KIND, obj)


def _deserialize(config: Any) -> Any:
    return registry.resolve(_KIND, config)


@registry.builtin(_KIND, "quantization_config")
class QuantizationConfig:
    """Base class of quantization configs: a `mode` plus the quantizers `Model.quantize` uses.

    Pass a config to `Model.quantize(config=...)` (or a layer's `quantize`) to choose the mode
    and customize its quantizers. Subclasses define the `mode` property; the base class's
    raises `NotImplementedError`. `get_config` holds the serialized quantizers.

    Args:
        weight_quantizer: The quantizer of the weights (e.g. an `AbsMaxQuantizer`), or `None`
            for the mode's default. Defaults to `None`.
        activation_quantizer: The quantizer of the activations, or `None` for none. Defaults to
            `None`.

    Example:
        >>> config = tfkit.quantizers.QuantizationConfig(
        ...     weight_quantizer=tfkit.quantizers.AbsMaxQuantizer(axis=0))
        >>> config.get_config()["weight_quantizer"]["class_name"]
        'AbsMaxQuantizer'
    """

    def __init__(self, weight_quantizer: Any = None, activation_quantizer: Any = None) -> None:
        self.weight_quantizer = weight_quantizer
        self.activation_quantizer = activation_quantizer

    @property
    def mode(self) -> str:
        raise NotImplementedError(
            "Subclasses must implement this property. Do not instantiate QuantizationConfig directly."
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "weight_quantizer": _serialize(self.weight_quantizer),
            "activation_quantizer": _serialize(self.activation_quantizer),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "QuantizationConfig":
        return cls(
            weight_quantizer=_deserialize(config.get("weight_quantizer")),
            activation_quantizer=_deserialize(config.get("activation_quantizer")),
        )

    @staticmethod
    def weight_quantizer_or_default(config: Any, default: Any) -> Any:
        if config is not None and config.weight_quantizer is not None:
            return config.weight_quantizer
        return default

    @staticmethod
    def activation_quantizer_or_default(config: Any, default: Any) -> Any:
        return config.activation_quantizer if config is not None else default

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.get_config()})"


@registry.builtin(_KIND, "int8_quantization_config")
class Int8QuantizationConfig(QuantizationConfig):
    """Quantization config of the `"int8"` mode: int8 weights and activations.

    `model.quantize(config=Int8QuantizationConfig())` is `model.quantize("int8")`; pass
    quantizers to customize how the weights or activations are quantized.

    Args:
        weight_quantizer: The quantizer of the weights, whose `output_dtype` must be `"int8"`, or
            `None` for the layers' default (`AbsMaxQuantizer` per output channel). Defaults to
            `None`.
        activation_quantizer: The quantizer of the activations; `"default"` for an
            `AbsMaxQuantizer` along the last axis, `None` for weight-only quantization. Defaults
            to `"default"`.

    Raises:
        ValueError: If `weight_quantizer`'s `output_dtype` is not `"int8"`.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(2)])
        >>> model.quantize(config=tfkit.quantizers.Int8QuantizationConfig())
        >>> model.layers[0].dtype_policy.name
        'int8_from_float32'
    """

    def __init__(self, weight_quantizer: Any = None, activation_quantizer: Any = "default") -> None:
        if activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        if weight_quantizer is not None and weight_quantizer.output_dtype != "int8":
            raise ValueError(
                "Int8QuantizationConfig requires a weight_quantizer with output_dtype='int8'. "
                f"Received: output_dtype={weight_quantizer.output_dtype}"
            )

    @property
    def mode(self) -> str:
        return "int8"


@registry.builtin(_KIND, "int4_quantization_config")
class Int4QuantizationConfig(QuantizationConfig):
    """Quantization config of the `"int4"` mode: int4 weights, packed two per byte.

    Weight-only by default. With a positive `block_size`, the kernel is quantized
    asymmetrically in groups of `block_size` input rows (`abs_max_quantize_grouped_with_zero_point`);
    with `None` or `-1`, symmetrically per output channel.

    Args:
        weight_quantizer: The quantizer of the weights, with `value_range=(-8, 7)` and
            `output_dtype="int8"`, or `None` for the default. Custom quantizers need per-channel
            quantization (`block_size` `None` or `-1`). Defaults to `None`.
        activation_quantizer: The quantizer of the activations; `"default"` means `None`, no
            activation quantization. Defaults to `"default"`.
        block_size: The number of input rows per group, or `None` / `-1` for per-channel
            quantization. Defaults to `128`.

    Raises:
        ValueError: If `block_size` is `0` or below `-1`, if custom quantizers are given with a
            positive `block_size`, or if `weight_quantizer` has another `value_range` or
            `output_dtype`.

    Example:
        >>> config = tfkit.quantizers.Int4QuantizationConfig(block_size=64)
        >>> config.mode, config.block_size
        ('int4', 64)
        >>> tfkit.quantizers.Int4QuantizationConfig(block_size=0)
        Traceback (most recent call last):
        ...
        ValueError: block_size must be None, -1, or a positive integer. Received: block_size=0
    """

    def __init__(
        self, weight_quantizer: Any = None, activation_quantizer: Any = "default", block_size: int | None = 128
    ) -> None:
        if activation_quantizer == "default":
            activation_quantizer = None
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and block_size != -1 and block_size <= 0:
            raise ValueError(f"block_size must be None, -1, or a positive integer. Received: block_size={block_size}")
        self.block_size = block_size
        if (
            block_size is not None
            and block_size > 0
            and (weight_quantizer is not None or activation_quantizer is not None)
        ):
            raise ValueError(
                "Int4 sub-channel quantization (block_size > 0) does not support custom quantizers. "
                "Either set block_size to None or -1 for per-channel quantization, or remove the "
                f"custom quantizer arguments. Received: block_size={block_size}"
            )
        if weight_quantizer is not None:
            if tuple(weight_quantizer.value_range) != (-8, 7):
                raise ValueError(
                    "Int4QuantizationConfig requires a weight_quantizer with value_range=(-8, 7). "
                    f"Received: value_range={weight_quantizer.value_range}"
                )
            if weight_quantizer.output_dtype != "int8":
                raise ValueError(
                    "Int4QuantizationConfig requires a weight_quantizer with output_dtype='int8'. "
                    f"Received: output_dtype={weight_quantizer.output_dtype}"
                )

    @property
    def mode(self) -> str:
        return "int4"

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "block_size": self.block_size}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Int4QuantizationConfig":
        return cls(
            weight_quantizer=_deserialize(config.get("weight_quantizer")),
            activation_quantizer=_deserialize(config.get("activation_quantizer")),
            block_size=config.get("block_size"),
        )


@registry.builtin(_KIND, "float8_quantization_config")
class Float8QuantizationConfig(QuantizationConfig):
    """Quantization config of the `"float8"` mode (float8 training with delayed scaling).

    Takes no arguments and no custom quantizers. tfkit keeps the config (it serializes and
    resolves as in Keras), but `Model.quantize` refuses the float8 mode with a
    `NotImplementedError` before any layer changes.

    Example:
        >>> config = tfkit.quantizers.Float8QuantizationConfig()
        >>> config.mode, config.get_config()
        ('float8', {})
    """

    def __init__(self) -> None:
        super().__init__(None, None)

    @property
    def mode(self) -> str:
        return "float8"

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Float8QuantizationConfig":
        return cls()


def _positive(value: Any, name: str) -> None:
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer.")


def _group_size(value: int, meaning: str) -> None:
    if value < -1 or value == 0:
        raise ValueError(
            f"Invalid group_size. Supported values are -1 ({meaning}) or a positive integer, but got {value}."
        )


class _CalibratedConfig(QuantizationConfig):
    """Shared by GPTQ and AWQ: a calibration dataset and tokenizer that are never saved."""

    _FIELDS: tuple[str, ...] = ()

    def get_config(self) -> dict[str, Any]:
        return {"dataset": None, "tokenizer": None, **{name: getattr(self, name) for name in self._FIELDS}}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "_CalibratedConfig":
        return cls(**config)

    def dtype_policy_string(self) -> str:
        return f"{self.mode}/{self.weight_bits}/{self.group_size}"


@registry.builtin(_KIND, "gptq_config")
class GPTQConfig(_CalibratedConfig):
    """Settings of GPTQ post-training quantization (Hessian-corrected rounding from calibration data).

    Holds Keras 3's GPTQ arguments and checks. tfkit keeps the config (it serializes, without the
    dataset and tokenizer, and gives the `"gptq/<bits>/<group_size>"` dtype policy name), but
    `Model.quantize` refuses the GPTQ mode with a `NotImplementedError`.

    Args:
        dataset: The calibration data: texts or token arrays. Never saved in the config.
        tokenizer: The tokenizer applied to text calibration data. Never saved in the config.
        weight_bits: The number of bits of the quantized weights: 2, 3, 4 or 8; keyword-only, as
            the arguments below. Defaults to `4`.
        num_samples: The number of calibration samples, positive. Defaults to `128`.
        per_channel: Whether to quantize per output channel. Defaults to `True`.
        sequence_length: The length of each calibration sequence, positive. Defaults to `512`.
        hessian_damping: The fraction of the Hessian's mean diagonal added to it for stability,
            in `[0, 1]`. Defaults to `0.01`.
        group_size: The number of weights per quantization group, positive, or `-1` for the whole
            tensor. Defaults to `128`.
        symmetric: Whether to quantize symmetrically (no zero point). Defaults to `False`.
        activation_order: Whether to reorder the weight columns by activation magnitude
            (the Hessian's diagonal) before quantizing them. Defaults to `False`.
        quantization_layer_structure: Optional dict describing the model's layer structure for
            the algorithm. Defaults to `None`.

    Raises:
        ValueError: If `weight_bits` is not 2, 3, 4 or 8, `num_samples` or `sequence_length` is
            not positive, `hessian_damping` is outside `[0, 1]`, or `group_size` is `0` or below
            `-1`.

    Example:
        >>> config = tfkit.quantizers.GPTQConfig(dataset=["some text"], tokenizer=None, weight_bits=4)
        >>> config.mode, config.dtype_policy_string()
        ('gptq', 'gptq/4/128')
    """

    _FIELDS = (
        "weight_bits",
        "num_samples",
        "per_channel",
        "sequence_length",
        "hessian_damping",
        "group_size",
        "symmetric",
        "activation_order",
        "quantization_layer_structure",
    )

    def __init__(
        self,
        dataset: Any,
        tokenizer: Any,
        *,
        weight_bits: int = 4,
        num_samples: int = 128,
        per_channel: bool = True,
        sequence_length: int = 512,
        hessian_damping: float = 0.01,
        group_size: int = 128,
        symmetric: bool = False,
        activation_order: bool = False,
        quantization_layer_structure: dict | None = None,
    ) -> None:
        super().__init__()
        if weight_bits not in (2, 3, 4, 8):
            raise ValueError(f"Unsupported weight_bits {weight_bits}. Supported values are 2, 3, 4, and 8.")
        _positive(num_samples, "num_samples")
        _positive(sequence_length, "sequence_length")
        if hessian_damping < 0 or hessian_damping > 1:
            raise ValueError("hessian_damping must be between 0 and 1.")
        _group_size(group_size, "whole-tensor")
        self.dataset, self.tokenizer = dataset, tokenizer
        self.weight_bits, self.num_samples, self.per_channel = weight_bits, num_samples, per_channel
        self.sequence_length, self.hessian_damping, self.group_size = sequence_length, hessian_damping, group_size
        self.symmetric, self.activation_order = symmetric, activation_order
        self.quantization_layer_structure = quantization_layer_structure

    @property
    def mode(self) -> str:
        return "gptq"


@registry.builtin(_KIND, "awq_config")
class AWQConfig(_CalibratedConfig):
    """Settings of AWQ post-training quantization (activation-aware 4-bit weight scaling).

    Holds Keras 3's AWQ arguments and checks. tfkit keeps the config (it serializes, without the
    dataset and tokenizer, and gives the `"awq/<bits>/<group_size>"` dtype policy name), but
    `Model.quantize` refuses the AWQ mode with a `NotImplementedError`.

    Args:
        dataset: The calibration data: texts or token arrays. Never saved in the config.
        tokenizer: The tokenizer applied to text calibration data. Never saved in the config.
        weight_bits: The number of bits of the quantized weights; only `4` is supported;
            keyword-only, as the arguments below. Defaults to `4`.
        num_samples: The number of calibration samples, positive. Defaults to `128`.
        sequence_length: The length of each calibration sequence, positive. Defaults to `512`.
        group_size: The number of weights per quantization group, positive, or `-1` for
            per-channel quantization. Defaults to `128`.
        num_grid_points: The number of grid points searched for the optimal scaling factor,
            positive. Defaults to `20`.
        quantization_layer_structure: Optional dict describing the model's layer structure for
            the algorithm. Defaults to `None`.

    Raises:
        ValueError: If `weight_bits` is not `4`, `num_samples`, `sequence_length` or
            `num_grid_points` is not positive, or `group_size` is `0` or below `-1`.

    Example:
        >>> config = tfkit.quantizers.AWQConfig(dataset=["some text"], tokenizer=None)
        >>> config.mode, config.dtype_policy_string()
        ('awq', 'awq/4/128')
        >>> tfkit.quantizers.AWQConfig(None, None, weight_bits=8)
        Traceback (most recent call last):
        ...
        ValueError: AWQ only supports 4-bit quantization. Received weight_bits=8.
    """

    _FIELDS = (
        "weight_bits",
        "num_samples",
        "sequence_length",
        "group_size",
        "num_grid_points",
        "quantization_layer_structure",
    )

    def __init__(
        self,
        dataset: Any,
        tokenizer: Any,
        *,
        weight_bits: int = 4,
        num_samples: int = 128,
        sequence_length: int = 512,
        group_size: int = 128,
        num_grid_points: int = 20,
        quantization_layer_structure: dict | None = None,
    ) -> None:
        super().__init__()
        if weight_bits != 4:
            raise ValueError(f"AWQ only supports 4-bit quantization. Received weight_bits={weight_bits}.")
        _positive(num_samples, "num_samples")
        _positive(sequence_length, "sequence_length")
        _group_size(group_size, "per-channel")
        _positive(num_grid_points, "num_grid_points")
        self.dataset, self.tokenizer = dataset, tokenizer
        self.weight_bits, self.num_samples, self.sequence_length = weight_bits, num_samples, sequence_length
        self.group_size, self.num_grid_points = group_size, num_grid_points
        self.quantization_layer_structure = quantization_layer_structure

    @property
    def mode(self) -> str:
        return "awq"


def validate_and_resolve_config(mode: str | None, config: Any) -> QuantizationConfig:
    """The config ``quantize(mode, config)`` runs with: a default for ``mode``, or ``config`` checked."""
    if isinstance(config, str):
        mode, config = config, None
    _check_mode(mode)
    if config is None:
        defaults = {"int8": Int8QuantizationConfig, "int4": Int4QuantizationConfig, "float8": Float8QuantizationConfig}
        if mode in ("gptq", "awq"):
            name = {"gptq": "GPTQConfig", "awq": "AWQConfig"}[mode]
            raise ValueError(f"For {mode.upper()}, you must pass a `{name}` object in the `config` argument.")
        if mode is None:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
        return defaults[mode]()
    if not isinstance(config, QuantizationConfig):
        raise ValueError(
            "Argument `config` must be an instance of `QuantizationConfig`. "
            f"Received: config={config} (of type {type(config)})"
        )
    if mode is not None and config.mode != mode:
        raise ValueError(f"Contradictory arguments: mode='{mode}' but config.mode='{config.mode}'")
    _check_mode(config.mode)
    return config


def _check_mode(mode: Any) -> None:
    if mode is not None and mode not in QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. Received: mode={mode}")
