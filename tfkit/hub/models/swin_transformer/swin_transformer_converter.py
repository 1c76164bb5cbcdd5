"""Swin Transformer from a Hugging Face Transformers checkpoint (``model_type: swin``): config, weights, head.

    backbone = SwinTransformerBackbone.from_preset("./swin-hf")       # config.json, model.safetensors
    classifier = ImageClassifier.from_preset("./swin-hf")             # SwinForImageClassification: the head too

Transformers' Swin keeps PyTorch's layouts (linear weights ``(out, in)``, the patch convolution
``(out, in, height, width)``) and separate query, key and value projections, which KerasHub's attention holds as
one ``qkv`` dense layer: each fills its block of that layer's columns. Keys may have the ``swin.`` prefix of
``SwinForImageClassification``; its ``relative_position_index`` buffers are left unread (they are recomputed).
As KerasHub's converter reads it, with these differences: ``num_channels`` is read, a checkpoint the backbone
cannot hold (absolute position embeddings, another activation or layer norm epsilon) is refused, and the image
converter follows ``preprocessor_config.json``'s resampling filter (ViT's reading; KerasHub always uses bicubic).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.swin_transformer.swin_transformer_backbone import SwinTransformerBackbone
from tfkit.hub.models.vit.vit_converter import ViTConverter
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


def _port_split(plan: WeightPlan, variable: Any, keys: list[str], transform: Any = None) -> None:
    """Fill `variable` with the tensors `keys` side by side on its last axis (each through `transform`)."""

    def joined(*values: np.ndarray) -> np.ndarray:
        return np.concatenate([value if transform is None else transform(value) for value in values], axis=-1)

    plan.port_combined(variable, tuple(keys), joined)


def _port_norm(plan: WeightPlan, norm: Any, key: str) -> None:
    plan.port(norm.gamma, f"{key}.weight")
    plan.port(norm.beta, f"{key}.bias")


def _port_dense(plan: WeightPlan, dense: Any, key: str) -> None:
    plan.port(dense.kernel, f"{key}.weight", np.transpose)
    if dense.bias is not None:
        plan.port(dense.bias, f"{key}.bias")


class SwinTransformerConverter:
    """How a Transformers Swin checkpoint becomes a `SwinTransformerBackbone`, a classifier head and its converter."""

    backbone_cls = SwinTransformerBackbone
    image_converter_config = staticmethod(ViTConverter.image_converter_config)

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        if hf.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"Swin checkpoint: hidden_act {hf.get('hidden_act')!r}; the backbone's MLP uses 'gelu'")
        if hf.get("use_absolute_embeddings", False):
            raise ValueError("Swin checkpoint: use_absolute_embeddings=True; SwinTransformerBackbone has none")
        if not np.isclose(hf.get("layer_norm_eps", 1e-5), 1e-5):
            raise ValueError(f"Swin checkpoint: layer_norm_eps {hf.get('layer_norm_eps')}; the backbone's is 1e-5")
        size = hf["image_size"]
        height, width = (size, size) if isinstance(size, int) else tuple(size)
        return {
            "image_shape": (height, width, int(hf.get("num_channels", 3))),
            "patch_size": hf["patch_size"],
            "embed_dim": hf["embed_dim"],
            "depths": tuple(hf["depths"]),
            "num_heads": tuple(hf["num_heads"]),
            "window_size": hf["window_size"],
            "mlp_ratio": hf.get("mlp_ratio", 4.0),
            "qkv_bias": hf.get("qkv_bias", True),
            "dropout_rate": hf.get("hidden_dropout_prob", 0.0),
            "attention_dropout": hf.get("attention_probs_dropout_prob", 0.0),
            "drop_path": hf.get("drop_path_rate", 0.1),
            "patch_norm": True,
        }

    @staticmethod
    def plan_weights(backbone: SwinTransformerBackbone, hf: dict, plan: WeightPlan) -> None:
        embedding = backbone.patch_embedding
        plan.port(
            embedding.proj.kernel,
            "embeddings.patch_embeddings.projection.weight",
            lambda value: np.transpose(value, (2, 3, 1, 0)),
        )
        plan.port(embedding.proj.bias, "embeddings.patch_embeddings.projection.bias")
        _port_norm(plan, embedding.norm, "embeddings.norm")
        for i, stage in enumerate(backbone.stages):
            for j, block in enumerate(stage.blocks):
                prefix = f"encoder.layers.{i}.blocks.{j}."
                attention = prefix + "attention.self."
                _port_norm(plan, block.norm1, prefix + "layernorm_before")
                plan.port(block.attn.relative_position_bias_table, attention + "relative_position_bias_table")
                names = ("query", "key", "value")
                _port_split(plan, block.attn.qkv.kernel, [f"{attention}{n}.weight" for n in names], np.transpose)
                if block.attn.qkv.bias is not None:
                    _port_split(plan, block.attn.qkv.bias, [f"{attention}{n}.bias" for n in names])
                _port_dense(plan, block.attn.proj, prefix + "attention.output.dense")
                _port_norm(plan, block.norm2, prefix + "layernorm_after")
                _port_dense(plan, block.mlp.fc1, prefix + "intermediate.dense")
                _port_dense(plan, block.mlp.fc2, prefix + "output.dense")
            if stage.downsample is not None:
                prefix = f"encoder.layers.{i}.downsample."
                plan.port(stage.downsample.reduction.kernel, prefix + "reduction.weight", np.transpose)
                _port_norm(plan, stage.downsample.norm, prefix + "norm")
        _port_norm(plan, backbone.norm, "layernorm")

    @staticmethod
    def plan_head_weights(task: Any, hf: dict, plan: WeightPlan) -> None:
        _port_dense(plan, task.output_dense, "classifier")


register("swin", SwinTransformerConverter)
