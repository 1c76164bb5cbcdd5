"""Which arrays of a KerasHub preset's ``model.weights.h5`` fill each Hugging Face Transformers parameter.

    steps = transformers_weights.plan("GPT2Backbone", config, h5_dataset_names)
    steps[0].target, steps[0].sources    # 'transformer.wte.weight', ('layers/reversible_embedding/vars/0',)
    value = steps[0].combine(*[h5[name][()] for name in steps[0].sources])

Plain numpy (no torch, no h5py): ``bench.peer_transformers`` reads the sources and
copies each result into its parameter. The file keeps Keras's layout: one group a
layer under ``layers/``, named after the layer (``transformer_decoder``,
``transformer_decoder_1``, ...; a block's own layers by attribute), a layer's
variables as ``vars/0``, ``vars/1`` (kernel or embeddings, then bias). Keras
kernels are input by output and Transformers' ``nn.Linear`` weights output by
input, so those are transposed; attention kernels carry a heads axis (``(hidden,
heads, head_dim)`` in, ``(heads, head_dim, hidden)`` out), flattened here. GPT-2's
``Conv1D`` layers keep Keras's input-by-output order, and its ``c_attn`` holds
query, key and value side by side (columns in that order). Parameters no step
names are left to the model: GPT-2's ``lm_head`` (tied to ``wte``) and BERT's
classifier head (random in every peer: the preset is a backbone).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Iterable

import numpy as np


@dataclasses.dataclass(frozen=True)
class Step:
    """One Transformers parameter: the h5 datasets it is made of, and how."""

    target: str
    sources: tuple[str, ...]
    combine: Callable[..., np.ndarray]


def same(value: np.ndarray) -> np.ndarray:
    """The array as it is (embeddings, norms, biases, GPT-2's ``Conv1D`` kernels)."""
    return value


def transposed(kernel: np.ndarray) -> np.ndarray:
    """A Keras ``(in, out)`` kernel as an ``nn.Linear`` weight ``(out, in)``."""
    return np.ascontiguousarray(kernel.T)


def heads_in(kernel: np.ndarray) -> np.ndarray:
    """A query, key or value kernel ``(hidden, heads, head_dim)`` as an ``nn.Linear`` weight ``(heads * head_dim, hidden)``."""
    return transposed(kernel.reshape(kernel.shape[0], -1))


def joined_heads(kernel: np.ndarray) -> np.ndarray:
    """An attention output kernel ``(heads, head_dim, hidden)`` as ``(heads * head_dim, hidden)`` (GPT-2's ``Conv1D``)."""
    return kernel.reshape(-1, kernel.shape[-1])


def heads_out(kernel: np.ndarray) -> np.ndarray:
    """An attention output kernel ``(heads, head_dim, hidden)`` as an ``nn.Linear`` weight ``(hidden, heads * head_dim)``."""
    return transposed(joined_heads(kernel))


def flat(value: np.ndarray) -> np.ndarray:
    """A per-head bias ``(heads, head_dim)`` as one vector."""
    return value.reshape(-1)


def fused_columns(*kernels: np.ndarray) -> np.ndarray:
    """GPT-2's ``c_attn`` weight ``(hidden, 3 * hidden)``: the query, key and value kernels' heads flattened, side by side."""
    return np.concatenate([kernel.reshape(kernel.shape[0], -1) for kernel in kernels], axis=1)


def fused_bias(*biases: np.ndarray) -> np.ndarray:
    """GPT-2's ``c_attn`` bias: the query, key and value biases, flattened, one after the other."""
    return np.concatenate([bias.reshape(-1) for bias in biases])


def layer_groups(names: Iterable[str]) -> set[str]:
    """The top-level layer groups of the file (``layers/<group>/...``)."""
    return {name.split("/")[1] for name in names if name.startswith("layers/") and name.count("/") >= 2}


def _numbered(groups: set[str], base: str) -> list[tuple[int, str]]:
    pattern = re.compile(rf"^{re.escape(base)}(?:_(\d+))?$")
    found = [(match, group) for group in groups if (match := pattern.match(group))]
    return sorted((int(match.group(1) or 0), group) for match, group in found)


def one_group(groups: set[str], base: str) -> str:
    """The one group Keras named ``base`` (or ``base_<n>``); ``ValueError`` when there are none or several."""
    found = _numbered(groups, base)
    if len(found) != 1:
        raise ValueError(f"expected one layer group named {base!r} in the weights file, found {[g for _, g in found]}")
    return found[0][1]


def numbered_groups(groups: set[str], base: str, count: int) -> list[str]:
    """The ``count`` blocks named ``base``, ``base_1``, ... in the order Keras numbered them (built in order)."""
    found = [group for _, group in _numbered(groups, base)]
    if len(found) != count:
        raise ValueError(f"expected {count} layer groups named {base!r}(_<n>) in the weights file, found {len(found)}")
    return found


def var(group: str, *path: str, index: int = 0) -> str:
    """The dataset name of a layer's variable: ``layers/<group>/<path...>/vars/<index>``."""
    return "/".join(("layers", group, *path, "vars", str(index)))


def _layer_norm(target: str, group: str, *path: str) -> list[Step]:
    return [
        Step(f"{target}.weight", (var(group, *path, index=0),), same),
        Step(f"{target}.bias", (var(group, *path, index=1),), same),
    ]


def _dense(target: str, group: str, *path: str, kernel: Callable[..., np.ndarray], bias: bool = True) -> list[Step]:
    steps = [Step(f"{target}.weight", (var(group, *path, index=0),), kernel)]
    if bias:
        steps.append(Step(f"{target}.bias", (var(group, *path, index=1),), flat))
    return steps


def _gpt2(config: dict[str, Any], groups: set[str]) -> list[Step]:
    steps = [
        Step("transformer.wte.weight", (var(one_group(groups, "reversible_embedding")),), same),
        Step("transformer.wpe.weight", (var(one_group(groups, "position_embedding")),), same),
    ]
    for i, block in enumerate(numbered_groups(groups, "transformer_decoder", config["num_layers"])):
        prefix = f"transformer.h.{i}."
        qkv = [("_self_attention_layer", f"{name}_dense") for name in ("query", "key", "value")]
        steps += _layer_norm(prefix + "ln_1", block, "_self_attention_layer_norm")
        steps.append(Step(prefix + "attn.c_attn.weight", tuple(var(block, *p, index=0) for p in qkv), fused_columns))
        steps.append(Step(prefix + "attn.c_attn.bias", tuple(var(block, *p, index=1) for p in qkv), fused_bias))
        steps += _dense(prefix + "attn.c_proj", block, "_self_attention_layer", "output_dense", kernel=joined_heads)
        steps += _layer_norm(prefix + "ln_2", block, "_feedforward_layer_norm")
        steps += _dense(prefix + "mlp.c_fc", block, "_feedforward_intermediate_dense", kernel=same)
        steps += _dense(prefix + "mlp.c_proj", block, "_feedforward_output_dense", kernel=same)
    steps += _layer_norm("transformer.ln_f", one_group(groups, "layer_normalization"))
    return steps


def _llama(config: dict[str, Any], groups: set[str]) -> list[Step]:
    embedding = one_group(groups, "reversible_embedding")
    steps = [Step("model.embed_tokens.weight", (var(embedding, index=0),), same)]
    if not config.get("tie_word_embeddings", False):
        steps.append(Step("lm_head.weight", (var(embedding, index=1),), transposed))
    for i, block in enumerate(numbered_groups(groups, "llama_transformer_decoder", config["num_layers"])):
        prefix = f"model.layers.{i}."
        steps.append(Step(prefix + "input_layernorm.weight", (var(block, "_self_attention_layernorm"),), same))
        steps.append(Step(prefix + "post_attention_layernorm.weight", (var(block, "_feedforward_layernorm"),), same))
        for name, kernel in (("q_proj", "_query_dense"), ("k_proj", "_key_dense"), ("v_proj", "_value_dense")):
            steps += _dense(
                prefix + f"self_attn.{name}", block, "_self_attention_layer", kernel, kernel=heads_in, bias=False
            )
        steps += _dense(
            prefix + "self_attn.o_proj", block, "_self_attention_layer", "_output_dense", kernel=heads_out, bias=False
        )
        for name, layer in (
            ("gate_proj", "_feedforward_gate_dense"),
            ("up_proj", "_feedforward_intermediate_dense"),
            ("down_proj", "_feedforward_output_dense"),
        ):
            steps += _dense(prefix + f"mlp.{name}", block, layer, kernel=transposed, bias=False)
    steps.append(Step("model.norm.weight", (var(one_group(groups, "llama_layer_norm")),), same))
    return steps


def _bert(config: dict[str, Any], groups: set[str]) -> list[Step]:
    steps = [
        Step("bert.embeddings.word_embeddings.weight", (var(one_group(groups, "reversible_embedding")),), same),
        Step("bert.embeddings.position_embeddings.weight", (var(one_group(groups, "position_embedding")),), same),
        Step("bert.embeddings.token_type_embeddings.weight", (var(one_group(groups, "embedding")),), same),
    ]
    steps += _layer_norm("bert.embeddings.LayerNorm", one_group(groups, "layer_normalization"))
    for i, block in enumerate(numbered_groups(groups, "transformer_encoder", config["num_layers"])):
        prefix = f"bert.encoder.layer.{i}."
        for name in ("query", "key", "value"):
            steps += _dense(
                prefix + f"attention.self.{name}", block, "_self_attention_layer", f"{name}_dense", kernel=heads_in
            )
        steps += _dense(
            prefix + "attention.output.dense", block, "_self_attention_layer", "output_dense", kernel=heads_out
        )
        steps += _layer_norm(prefix + "attention.output.LayerNorm", block, "_self_attention_layer_norm")
        steps += _dense(prefix + "intermediate.dense", block, "_feedforward_intermediate_dense", kernel=transposed)
        steps += _dense(prefix + "output.dense", block, "_feedforward_output_dense", kernel=transposed)
        steps += _layer_norm(prefix + "output.LayerNorm", block, "_feedforward_layer_norm")
    steps += _dense("bert.pooler.dense", one_group(groups, "dense"), kernel=transposed)
    return steps


PLANS: dict[str, Callable[[dict[str, Any], set[str]], list[Step]]] = {
    "GPT2Backbone": _gpt2,
    "Llama3Backbone": _llama,
    "BertBackbone": _bert,
}


def plan(backbone: str, config: dict[str, Any], names: Iterable[str]) -> list[Step]:
    """The steps that fill a Transformers model from a preset's weights file.

    Args:
        backbone: The preset's ``class_name``.
        config: The backbone's config (``num_layers``, ``tie_word_embeddings``).
        names: Every dataset name in ``model.weights.h5`` (``layers/<group>/.../vars/<i>``).

    Returns:
        One step per Transformers parameter the preset holds.

    Raises:
        ValueError: An unknown backbone, or a file whose layer groups do not match it.
    """
    if backbone not in PLANS:
        raise ValueError(f"no weight mapping for {backbone}; the bench maps {', '.join(PLANS)}")
    names = list(names)
    steps = PLANS[backbone](config, layer_groups(names))
    known = set(names)
    absent = [source for step in steps for source in step.sources if source not in known]
    if absent:
        raise ValueError(f"the weights file lacks {len(absent)} datasets the {backbone} mapping reads: {absent[:5]}")
    return steps
