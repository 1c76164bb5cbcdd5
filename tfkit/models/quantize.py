"""``model.quantize(mode, config, filters)``: quantize every quantizable leaf layer, as Keras 3.

    model.quantize("int8")                                   # every Dense, EinsumDense and Embedding
    model.quantize("int8", filters=["dense_1", "head.*"])   # layers whose name matches a regex
    model.quantize(config=Int8QuantizationConfig(...), filters=lambda layer: layer.units > 16)

Layers without a ``quantize`` method are skipped; a layer that cannot quantize in the chosen
mode warns (``NotImplementedError``, as Keras). tfkit quantizes ``Dense``, ``EinsumDense`` and ``Embedding``
to int8 and int4; float8, GPTQ and AWQ are refused before a layer changes.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable

from tfkit import quantizers
from tfkit.engine import tracking
from tfkit.layers.quantized import SUPPORTED_MODES


def _matches(layer: Any, filters: Any) -> bool:
    if filters is None:
        return True
    if isinstance(filters, str):
        return re.search(filters, layer.name) is not None
    if isinstance(filters, (list, tuple)):
        return any(re.search(pattern, layer.name) for pattern in filters)
    return bool(filters(layer))


def quantize_layers(model: Any, mode: str | None, config: Any, filters: Any, type_check: bool = True) -> bool:
    """Quantize the model's matching leaf layers; True when any layer changed."""
    if filters is not None and not isinstance(filters, (str, list, tuple)) and not isinstance(filters, Callable):
        raise ValueError(
            "The `filters` argument must be a regex string, a list of regex strings, or a callable. "
            f"Received: {type(filters)}"
        )
    config = quantizers.validate_and_resolve_config(mode, config)
    if config.mode not in SUPPORTED_MODES:
        raise NotImplementedError(
            f"Model '{model.name}': tfkit quantizes to {list(SUPPORTED_MODES)} only; "
            f"mode {config.mode!r} (Keras's float8, GPTQ and AWQ paths) is not built yet"
        )
    changed = False
    for layer in tracking.flatten_layers(model):
        if not _matches(layer, filters) or len(list(tracking.flatten_layers(layer))) != 1:
            continue
        quantize = getattr(layer, "quantize", None)
        if quantize is None:
            continue
        try:
            quantize(config.mode, type_check=type_check, config=config)
            changed = True
        except NotImplementedError as error:
            warnings.warn(str(error), stacklevel=3)
    return changed
