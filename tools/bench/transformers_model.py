"""A KerasHub preset as a Hugging Face Transformers model on PyTorch (the ``transformers_torch`` peer's loading).

    resolved = transformers_model.resolve(preset_dir, "causal_lm")   # GPT2LMHeadModel or LlamaForCausalLM
    model = transformers_model.from_keras_preset(preset_dir, resolved)
    transformers_model.resolve(preset_dir, "classifier")             # BertForSequenceClassification

Runs in the Transformers peer's interpreter, which has torch, transformers and
h5py but neither TensorFlow nor tfkit. The model is built from the preset's
``config.json`` (``bench.transformers_config``) without Transformers' random
initialisation (``no_init_weights``, as its own loading does), then every
parameter is filled from ``model.weights.h5`` one dataset at a time
(``bench.transformers_weights``), its shape checked; a parameter the file does not
fill is an error, except BERT's classifier head, which is drawn here (truncated
normal, standard deviation 0.02, zero bias: KerasHub's BERT initialiser) as
each peer draws its own. This is not ``from_pretrained``: no Transformers
checkpoint is read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import pathlib
from typing import Any

import numpy as np

from bench import pretrained, transformers_config, transformers_weights

CLASSIFIER_PREFIX = "classifier."  # BertForSequenceClassification's head: not in a backbone preset


def read_config(preset: pathlib.Path) -> tuple[str, dict[str, Any]]:
    """The preset's backbone class name and its config (``config.json``)."""
    saved = json.loads((preset / "config.json").read_text())
    return saved["class_name"], saved["config"]


def _no_init() -> Any:
    """Transformers' switch that skips random initialisation (its loaders' own), where this version has it."""
    try:
        from transformers.initialization import no_init_weights
    except ImportError:
        try:
            from transformers.modeling_utils import no_init_weights
        except ImportError:
            return contextlib.nullcontext()
    return no_init_weights()


def dataset_names(handle: Any) -> list[str]:
    """Every dataset's path in an open h5py file."""
    import h5py

    names: list[str] = []
    handle.visititems(lambda name, item: names.append(name) if isinstance(item, h5py.Dataset) else None)
    return names


def fill(model: Any, weights_file: pathlib.Path, backbone: str, config: dict[str, Any]) -> int:
    """Copy the preset's weights into ``model``'s parameters; returns how many parameters were filled.

    Raises:
        ValueError: A step naming no parameter, a shape that differs, or a parameter left unfilled.
    """
    import h5py
    import torch

    parameters = dict(model.named_parameters())
    with h5py.File(weights_file, "r") as handle, torch.no_grad():
        steps = transformers_weights.plan(backbone, config, dataset_names(handle))
        unknown = [step.target for step in steps if step.target not in parameters]
        if unknown:
            raise ValueError(f"{type(model).__name__} has no parameters {unknown[:5]}")
        for step in steps:
            value = np.ascontiguousarray(step.combine(*(handle[name][()] for name in step.sources)))
            parameter = parameters[step.target]
            if tuple(value.shape) != tuple(parameter.shape):
                raise ValueError(
                    f"{step.target}: the preset gives shape {tuple(value.shape)}, the model's is {tuple(parameter.shape)}"
                )
            parameter.copy_(torch.from_numpy(value))
            del value
    filled = {step.target for step in steps}
    left = [name for name in parameters if name not in filled and not name.startswith(CLASSIFIER_PREFIX)]
    if left:
        raise ValueError(f"the preset fills no value for {len(left)} parameters of {type(model).__name__}: {left[:5]}")
    return len(filled)


@dataclasses.dataclass(frozen=True)
class Resolved:
    """What building a preset's model needs, resolved before the loading clock starts (Transformers imports a
    model's module on first use)."""

    backbone: str
    config: dict[str, Any]
    task: str
    config_class: Any
    model_class: Any
    arguments: dict[str, Any]


def resolve(preset: pathlib.Path, task: str) -> Resolved:
    """Read the preset's config and import the Transformers classes of ``task`` (``"causal_lm"`` or ``"classifier"``)."""
    import transformers

    backbone, config = read_config(preset)
    spec = transformers_config.model_for(backbone, config, task)
    return Resolved(
        backbone,
        config,
        task,
        getattr(transformers, spec.config_class),
        getattr(transformers, spec.model_class),
        spec.arguments,
    )


def from_keras_preset(preset: pathlib.Path, resolved: Resolved) -> Any:
    """The Transformers model of a KerasHub preset folder, its weights filled from ``model.weights.h5``.

    Args:
        preset: The folder ``bench.pretrained_presets`` wrote (``config.json``, ``model.weights.h5``).
        resolved: ``resolve(preset, task)``.

    Returns:
        The model, in training mode as Transformers builds it.
    """
    import torch

    hf_config = resolved.config_class(**resolved.arguments)
    with _no_init():
        model = resolved.model_class(hf_config)
    output = model.get_output_embeddings()  # None for a classifier
    if output is not None and hf_config.tie_word_embeddings:
        model.tie_weights()  # left untied when initialisation is skipped
        if model.get_output_embeddings().weight is not model.get_input_embeddings().weight:
            raise ValueError(f"{type(model).__name__}: the output embedding is not tied to the input embedding")
    fill(model, preset / "model.weights.h5", resolved.backbone, resolved.config)
    if resolved.task == "classifier":
        generator = torch.Generator().manual_seed(pretrained.WEIGHTS_SEED)
        with torch.no_grad():
            head = model.classifier
            head.weight.copy_(
                torch.nn.init.trunc_normal_(
                    torch.empty_like(head.weight), std=0.02, a=-0.04, b=0.04, generator=generator
                )
            )
            head.bias.zero_()
    return model
