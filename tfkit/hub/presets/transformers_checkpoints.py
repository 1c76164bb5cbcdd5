"""Hugging Face Transformers checkpoints as tfkit backbones and tokenizers: one converter a family.

    register("gpt2", GPT2Converter)                               # the GPT-2 family does this when imported
    backbone = load_backbone(directory, hf_config, GPT2Backbone)   # config.json's model_type picks the converter

A converter says how the checkpoint's ``config.json`` becomes the backbone's
constructor arguments, which tensor fills each variable (and how it is sliced,
transposed or reshaped), and how the folder's tokenizer files become the
family's tokenizer. Tensors are read and assigned one at a time
(``safetensors_files``); every shape is checked against its variable.

A checkpoint is held to the same rules as a KerasHub preset: its ``config.json``
fields are read through ``CheckpointConfig`` (a missing or malformed field is a
``ValueError`` naming it), the converted arguments are checked against the
sizes the safetensors headers give (``config_budget``) and the backbone is built
within them, and the weights must cover it exactly: a tensor left unread that
has the form of one read (``h.1.mlp.c_fc.weight`` beside ``h.0.mlp.c_fc.weight``)
means the checkpoint holds layers the config does not build, and is refused.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any, Callable

import numpy as np

from tfkit.hub.presets import config_budget, files, streamed_weights
from tfkit.hub.presets.config_budget import StoredSizes
from tfkit.hub.presets.safetensors_files import SAFETENSORS_FILE, SAFETENSORS_INDEX_FILE, SafetensorsCheckpoint
from tfkit.saving.errors import refusing

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


class CheckpointConfig(dict):
    r"""A checkpoint's ``config.json`` (or an object in it) whose missing fields are ``ValueError``\ s naming the
    file and the field, not ``KeyError``\ s; objects in it read the same way.

    Args:
        value: The parsed object.
        source: The file, for errors (``"preset p: config.json"``).
        where: The object's path in the file (``"rope_scaling"``), for errors.
    """

    def __init__(self, value: dict, source: str, where: str = "") -> None:
        super().__init__(value)
        self.source, self.where = source, where

    def _wrapped(self, key: str, value: Any) -> Any:
        path = f"{self.where}.{key}" if self.where else str(key)
        return CheckpointConfig(value, self.source, path) if isinstance(value, dict) else value

    def __getitem__(self, key: str) -> Any:
        if key not in self:
            path = f"{self.where}.{key}" if self.where else str(key)
            raise ValueError(f"{self.source} has no field {path!r}, which the converter needs")
        return self._wrapped(key, super().__getitem__(key))

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key`` (an object wrapped alike), or ``default``."""
        return self._wrapped(key, super().get(key, default))


def _form(key: str) -> str:
    """A tensor name with its numbers left out: the blocks and experts of one kind share it."""
    return re.sub(r"\d+", "#", key)


class WeightPlan:
    """Which checkpoint tensor fills each variable, and how: built by a converter, then applied."""

    def __init__(self) -> None:
        self.steps: list[tuple[Any, str, Callable[[np.ndarray], np.ndarray] | None]] = []
        self.fallbacks: dict[str, str] = {}
        self.stacks: dict[int, list[tuple[str, ...]]] = {}  # a step's index -> the keys stacked into its variable
        self.combined: dict[int, tuple[str, ...]] = {}  # a step's index -> the keys its `combine` takes

    def port_stacked(
        self,
        variable: Any,
        keys: list[str | tuple[str, ...]],
        transform: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        """Fill `variable` with tensors `keys` stacked on a new first axis, each through `transform` first (a
        mixture of experts' kernels: Transformers keeps one tensor an expert, KerasHub one weight for all);
        a tuple of keys is one slot, its tensors joined on their last axis after `transform` (Qwen 3 MoE's gate
        and up kernels side by side)."""
        slots = [key if isinstance(key, tuple) else (key,) for key in keys]
        self.stacks[len(self.steps)] = slots
        self.steps.append((variable, slots[0][0], transform))

    def port_combined(self, variable: Any, keys: tuple[str, ...], combine: Callable[..., np.ndarray]) -> None:
        """Fill `variable` with `combine(*tensors)` of tensors `keys` (GPT-OSS's MXFP4 experts: packed 4-bit
        blocks and their scales make one float kernel)."""
        self.combined[len(self.steps)] = tuple(keys)
        self.steps.append((variable, keys[0], combine))

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

    def apply(self, checkpoint: SafetensorsCheckpoint, config_note: str = "") -> set[int]:
        """Reads each tensor, transforms it, checks its shape against its variable and assigns it, one at a time
        (the backbone is new: a failure discards it). ``ValueError`` if a tensor is missing or of another shape,
        or if a tensor left unread has the form of one read (layers the config does not build; ``config_note``,
        such as ``"num_layers=1, from its n_layer"``, says what the config asked for). Returns the ids of the
        variables assigned."""
        steps = [
            (variable, key if checkpoint.has(key) else self.fallbacks.get(key, key), transform)
            for variable, key, transform in self.steps
        ]
        stacked = {key for slots in self.stacks.values() for slot in slots for key in slot}
        stacked |= {key for keys in self.combined.values() for key in keys}
        keys = [key for _, key, _ in steps] + sorted(stacked - {key for _, key, _ in steps})
        missing = [key for key in keys if not checkpoint.has(key)]
        if missing:
            raise ValueError(f"{checkpoint.directory}: the checkpoint lacks {len(missing)} tensors: {missing[:10]}")
        used = {checkpoint.full_key(key) for key in keys}
        forms = {_form(key) for key in used}
        unread = sorted(key for key in checkpoint.keys() if key not in used and _form(key) in forms)
        if unread:
            raise ValueError(
                f"{checkpoint.directory}: the checkpoint holds {len(unread)} tensors of the model's kinds that the "
                f"model built from config.json{f' ({config_note})' if config_note else ''} has no place for: "
                f"{unread[:6]}; the config describes a smaller model than its weights"
            )
        for index, (variable, key, transform) in enumerate(steps):
            if index in self.stacks:
                value = np.stack(
                    [
                        np.concatenate([_transformed(checkpoint.tensor(key), transform) for key in slot], axis=-1)
                        for slot in self.stacks[index]
                    ]
                )
            elif index in self.combined:
                value = transform(*(checkpoint.tensor(part) for part in self.combined[index]))
            else:
                value = _transformed(checkpoint.tensor(key), transform)
            if tuple(value.shape) != tuple(variable.shape):
                raise ValueError(
                    f"{checkpoint.directory}: tensor {key} gives shape {tuple(value.shape)} for variable "
                    f"{variable.name} of shape {tuple(variable.shape)}"
                )
            streamed_weights.adopt_value(variable, value)
            del value
        return {id(variable) for variable, _, _ in steps}


def _transformed(value: np.ndarray, transform: Callable[[np.ndarray], np.ndarray] | None) -> np.ndarray:
    return value if transform is None else transform(value)


def checkpoint_sizes(directory: str, stacked: "re.Pattern[str] | None" = None) -> StoredSizes | None:
    """What a checkpoint folder's safetensors files store (their headers read and checked), or ``None`` when it
    has none (a config alone, loaded without weights); ``stacked`` as `SafetensorsCheckpoint.sizes` takes it."""
    if not (files.has_file(directory, SAFETENSORS_FILE) or files.has_file(directory, SAFETENSORS_INDEX_FILE)):
        return None
    return SafetensorsCheckpoint(directory).sizes(stacked)


# Fields of a checkpoint's config.json that hold counts and sizes: integers wherever present (a converter's
# arithmetic on a string or a float fails far from the field), and the ones converters divide by or build from
# positive. Checked before any converter reads them.
_INTEGER_FIELD = re.compile(r"^(n_|num_)|(_size|_dim|_layers|_heads|_positions)$|^max_position_embeddings$")
_POSITIVE_FIELDS = frozenset(
    {
        "num_attention_heads",
        "num_key_value_heads",
        "num_hidden_layers",
        "hidden_size",
        "intermediate_size",
        "vocab_size",
        "head_dim",
        "n_head",
        "n_layer",
        "n_embd",
        "n_positions",
        "max_position_embeddings",
        "patch_size",
        "image_size",
        "num_channels",
    }
)


def check_fields(hf_config: dict, source: str) -> None:
    """``ValueError`` naming the field where a checkpoint's ``config.json`` holds a count or size that is not an
    integer (or one a converter divides by that is not positive)."""
    for key, value in hf_config.items():
        if value is None or not isinstance(key, str) or not _INTEGER_FIELD.search(key):
            continue
        for item in value if isinstance(value, list) else [value]:  # an image size [h, w]; mlp_only_layers, maybe []
            if isinstance(item, bool) or not isinstance(item, int):
                raise ValueError(f"{source}: {key}={repr(value)[:80]} ({type(item).__name__}); expected an integer")
            if key in _POSITIVE_FIELDS and item < 1:
                raise ValueError(f"{source}: {key}={value}; expected a positive integer")


def backbone_arguments(directory: str, hf_config: dict, arguments: dict[str, Any]) -> dict[str, Any]:
    """The backbone's constructor arguments from a checkpoint's ``config.json`` (its fields read through
    ``CheckpointConfig``), ``arguments`` (the caller's) replacing them; checked as a preset's config is."""
    source = f"preset {directory}: {files.CONFIG_FILE}"
    check_fields(hf_config, source)
    with refusing(source):  # a field of the wrong kind (a string for a count) found by the converter's arithmetic
        try:
            converted = converter_for(hf_config, directory).backbone_config(CheckpointConfig(hf_config, source))
        except ValueError as error:
            if source in str(error):
                raise
            named = f"preset {directory}" if str(error).startswith(files.CONFIG_FILE) else source
            raise ValueError(f"{named}: {error}") from error
    kwargs = {**converted, **{key: value for key, value in arguments.items() if value is not None}}
    config_budget.check_values(kwargs, source, origin=hf_config)
    return kwargs


def load_backbone(directory: str, hf_config: dict, cls: type, load_weights: bool, **arguments: Any) -> Any:
    """The backbone of a Hugging Face checkpoint folder, with its weights when `load_weights`."""
    converter = converter_for(hf_config, directory)
    if not issubclass(converter.backbone_cls, cls):
        raise ValueError(
            f"{directory} is a {hf_config.get('model_type')} checkpoint ({converter.backbone_cls.__name__}), "
            f"not a {cls.__name__}"
        )
    source = f"preset {directory}: {files.CONFIG_FILE}"
    kwargs = backbone_arguments(directory, hf_config, arguments)
    checkpoint = SafetensorsCheckpoint(directory) if load_weights else None  # every header read and checked
    stacked = getattr(converter, "stacked_tensors", None)  # keys whose tensors fill one variable together
    sizes = checkpoint.sizes(stacked) if checkpoint is not None else checkpoint_sizes(directory, stacked)
    unstored = getattr(converter.backbone_cls, "unstored_widths", ())
    config_budget.check_arguments(kwargs, sizes, source, origin=hf_config, unstored=unstored)
    budget = config_budget.building_within(sizes, source) if sizes is not None else contextlib.nullcontext()
    if checkpoint is None:
        with budget:
            return converter.backbone_cls(**kwargs)
    with budget, streamed_weights.placeholder_values() as made:  # zeros until the checkpoint's values replace them
        backbone = converter.backbone_cls(**kwargs)
    plan = WeightPlan()
    converter.plan_weights(backbone, CheckpointConfig(hf_config, source), plan)
    note = config_budget.described("num_layers", kwargs.get("num_layers"), hf_config) if "num_layers" in kwargs else ""
    made.restore_unassigned(plan.apply(checkpoint, note))
    return backbone


def load_tokenizer(directory: str, hf_config: dict, cls: type, **arguments: Any) -> Any:
    """The family tokenizer of a Hugging Face checkpoint folder (its vocabulary files read as data)."""
    return converter_for(hf_config, directory).tokenizer(cls, directory, **arguments)
