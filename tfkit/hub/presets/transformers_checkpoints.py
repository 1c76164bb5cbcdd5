"""Hugging Face Transformers checkpoints as tfkit backbones and tokenizers: one converter a family.

    register("gpt2", GPT2Converter)                               # the GPT-2 family does this when imported
    backbone = load_backbone(directory, hf_config, GPT2Backbone)   # config.json's model_type picks the converter

A converter says how the checkpoint's ``config.json`` becomes the backbone's
constructor arguments, which tensor fills each variable (and how it is sliced,
transposed or reshaped), and how the folder's tokenizer files become the
family's tokenizer. Tensors are read and assigned one at a time
(``safetensors_files``); every shape is checked against its variable.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tfkit.hub.presets import streamed_weights
from tfkit.hub.presets.safetensors_files import SafetensorsCheckpoint

# model_type (config.json) -> the family's converter
_CONVERTERS: dict[str, Any] = {}


def register(model_type: str, converter: Any) -> None:
    """Makes `converter` the reader of checkpoints whose `config.json` says `model_type`."""
    _CONVERTERS[model_type] = converter


def converter_for(hf_config: Any, directory: str) -> Any:
    """The converter of the checkpoint's `model_type`; `ValueError` naming it when tfkit.hub has none."""
    model_type = hf_config.get("model_type") if isinstance(hf_config, dict) else None
    if model_type not in _CONVERTERS:
        raise ValueError(
            f"{directory}/config.json: model_type {model_type!r} has no converter in tfkit.hub "
            f"(it reads {sorted(_CONVERTERS)})"
        )
    return _CONVERTERS[model_type]


class WeightPlan:
    """Which checkpoint tensor fills each variable, and how: built by a converter, then applied."""

    def __init__(self) -> None:
        self.steps: list[tuple[Any, str, Callable[[np.ndarray], np.ndarray] | None]] = []
        self.fallbacks: dict[str, str] = {}

    def port(
        self,
        variable: Any,
        key: str,
        transform: Callable[[np.ndarray], np.ndarray] | None = None,
        fallback: str | None = None,
    ) -> None:
        """Fill `variable` with tensor `key`, through `transform` (a slice, transpose or reshape) when given;
        tensor `fallback` when the checkpoint has no `key` (an older name: BERT's `LayerNorm.gamma`)."""
        self.steps.append((variable, key, transform))
        if fallback is not None:
            self.fallbacks[key] = fallback

    def apply(self, checkpoint: SafetensorsCheckpoint) -> set[int]:
        """Reads each tensor, transforms it, checks its shape against its variable and assigns it, one at a time
        (the backbone is new: a failure discards it). Returns the ids of the variables assigned."""
        steps = [
            (variable, key if checkpoint.has(key) else self.fallbacks.get(key, key), transform)
            for variable, key, transform in self.steps
        ]
        missing = [key for _, key, _ in steps if not checkpoint.has(key)]
        if missing:
            raise ValueError(f"{checkpoint.directory}: the checkpoint lacks {len(missing)} tensors: {missing[:10]}")
        for variable, key, transform in steps:
            value = checkpoint.tensor(key)
            if transform is not None:
                value = transform(value)
            if tuple(value.shape) != tuple(variable.shape):
                raise ValueError(
                    f"{checkpoint.directory}: tensor {key} gives shape {tuple(value.shape)} for variable "
                    f"{variable.name} of shape {tuple(variable.shape)}"
                )
            streamed_weights.adopt_value(variable, value)
            del value
        return {id(variable) for variable, _, _ in steps}


def load_backbone(directory: str, hf_config: dict, cls: type, load_weights: bool, **arguments: Any) -> Any:
    """The backbone of a Hugging Face checkpoint folder, with its weights when `load_weights`."""
    converter = converter_for(hf_config, directory)
    if not issubclass(converter.backbone_cls, cls):
        raise ValueError(
            f"{directory} is a {hf_config.get('model_type')} checkpoint ({converter.backbone_cls.__name__}), "
            f"not a {cls.__name__}"
        )
    kwargs = {**converter.backbone_config(hf_config), **{k: v for k, v in arguments.items() if v is not None}}
    if not load_weights:
        return converter.backbone_cls(**kwargs)
    with streamed_weights.placeholder_values() as made:  # zeros until the checkpoint's values replace them
        backbone = converter.backbone_cls(**kwargs)
    plan = WeightPlan()
    converter.plan_weights(backbone, hf_config, plan)
    with SafetensorsCheckpoint(directory) as checkpoint:
        made.restore_unassigned(plan.apply(checkpoint))
    return backbone


def load_tokenizer(directory: str, hf_config: dict, cls: type, **arguments: Any) -> Any:
    """The family tokenizer of a Hugging Face checkpoint folder (its vocabulary files read as data)."""
    return converter_for(hf_config, directory).tokenizer(cls, directory, **arguments)
