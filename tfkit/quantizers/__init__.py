"""Keras's ``keras.quantizers``: quantizer objects, quantization configs and the quantization math.

q, scale = tfkit.quantizers.abs_max_quantize(kernel, axis=0)
packed, _, rows = tfkit.quantizers.pack_int4(q4)
model.quantize(config=tfkit.quantizers.Int4QuantizationConfig(block_size=64))
"""

from __future__ import annotations

from tfkit.quantizers.abs_max import (  # noqa: F401
    AbsMaxQuantizer,
    Quantizer,
    abs_max_quantize,
    abs_max_quantize_grouped_with_zero_point,
)
from tfkit.quantizers.configs import (  # noqa: F401
    QUANTIZATION_MODES,
    AWQConfig,
    Float8QuantizationConfig,
    GPTQConfig,
    Int4QuantizationConfig,
    Int8QuantizationConfig,
    QuantizationConfig,
    validate_and_resolve_config,
)
from tfkit.quantizers.fake_quant import (  # noqa: F401
    compute_float8_amax_history,
    compute_float8_scale,
    fake_quant_with_min_max_vars,
    quantize_and_dequantize,
)
from tfkit.quantizers.identifiers import deserialize, get, serialize  # noqa: F401
from tfkit.quantizers.int4_packing import pack_int4, unpack_int4  # noqa: F401

__all__ = [
    "AWQConfig",
    "AbsMaxQuantizer",
    "Float8QuantizationConfig",
    "GPTQConfig",
    "Int4QuantizationConfig",
    "Int8QuantizationConfig",
    "QuantizationConfig",
    "Quantizer",
    "abs_max_quantize",
    "abs_max_quantize_grouped_with_zero_point",
    "compute_float8_amax_history",
    "compute_float8_scale",
    "deserialize",
    "fake_quant_with_min_max_vars",
    "get",
    "pack_int4",
    "quantize_and_dequantize",
    "serialize",
    "unpack_int4",
]
