"""DeiT from a Hugging Face Transformers checkpoint (``model_type: deit``): config, weights, head, image converter.

    backbone = DeiTBackbone.from_preset("./deit-hf")                # config.json, model.safetensors
    classifier = ImageClassifier.from_preset("./deit-hf")           # DeiTForImageClassification(WithTeacher)

The layout is ViT's (PyTorch's ``(out, in)`` linear weights, ``(out, in, h, w)`` patch convolution) with a
``distillation_token`` beside ``cls_token``, and position embeddings kept with their batch axis, as
KerasHub's weight is. The head is ``cls_classifier.*`` in ``DeiTForImageClassificationWithTeacher`` (whose
``distillation_classifier.*`` is left unread, as KerasHub does: the class token's logits alone, where
Transformers averages both heads) and ``classifier.*`` in ``DeiTForImageClassification``. Unlike KerasHub's
converter, this one reads ``num_channels``, a non-square ``image_size`` or ``patch_size``, and makes an image
converter from ``preprocessor_config.json`` (KerasHub makes none).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.deit.deit_backbone import DeiTBackbone
from tfkit.hub.models.vit.vit_converter import ViTConverter, _pair, _transposed
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class DeiTConverter:
    """How a Transformers DeiT checkpoint becomes a `DeiTBackbone`, a classifier head and a `DeiTImageConverter`."""

    backbone_cls = DeiTBackbone
    image_converter_config = staticmethod(ViTConverter.image_converter_config)

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        if hf.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"DeiT checkpoint: hidden_act {hf.get('hidden_act')!r}; DeiTBackbone's MLP uses 'gelu'")
        if not hf.get("qkv_bias", True):
            raise ValueError(
                "DeiT checkpoint: qkv_bias=False leaves the attention output's bias, which DeiTBackbone's attention "
                "(use_mha_bias=False) does not hold"
            )
        height, width = _pair(hf["image_size"])
        return {
            "image_shape": (height, width, int(hf.get("num_channels", 3))),
            "patch_size": _pair(hf["patch_size"]),
            "num_layers": hf["num_hidden_layers"],
            "num_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            "intermediate_dim": hf["intermediate_size"],
            "dropout_rate": hf.get("hidden_dropout_prob", 0.0),
            "attention_dropout": hf.get("attention_probs_dropout_prob", 0.0),
            "layer_norm_epsilon": hf.get("layer_norm_eps", 1e-12),
            "use_mha_bias": True,
        }

    @staticmethod
    def plan_weights(backbone: DeiTBackbone, hf: dict, plan: WeightPlan) -> None:
        embedding = backbone.get_layer("deit_patching_and_embedding")
        encoder = backbone.get_layer("deit_encoder")
        plan.port(
            embedding.patch_embedding.kernel,
            "embeddings.patch_embeddings.projection.weight",
            lambda value: np.transpose(value, (2, 3, 1, 0)),
        )
        plan.port(embedding.patch_embedding.bias, "embeddings.patch_embeddings.projection.bias")
        plan.port(embedding.class_token, "embeddings.cls_token")
        plan.port(embedding.distillation_token, "embeddings.distillation_token")
        plan.port(embedding.position_embedding, "embeddings.position_embeddings")
        for i, block in enumerate(encoder.encoder_layers):
            prefix = f"encoder.layer.{i}."
            attention = block.mha
            for dense, name in (
                (attention._query_dense, "query"),
                (attention._key_dense, "key"),
                (attention._value_dense, "value"),
            ):
                key = f"{prefix}attention.attention.{name}."
                plan.port(dense.kernel, key + "weight", _transposed(tuple(dense.kernel.shape)))
                plan.port(dense.bias, key + "bias", lambda value, shape=tuple(dense.bias.shape): value.reshape(shape))
            output = attention._output_dense
            plan.port(output.kernel, prefix + "attention.output.dense.weight", _transposed(tuple(output.kernel.shape)))
            plan.port(output.bias, prefix + "attention.output.dense.bias")
            for norm, name in ((block.layer_norm_1, "layernorm_before"), (block.layer_norm_2, "layernorm_after")):
                plan.port(norm.gamma, f"{prefix}{name}.weight")
                plan.port(norm.beta, f"{prefix}{name}.bias")
            for dense, name in ((block.mlp.dense, "intermediate.dense"), (block.output_layer.dense, "output.dense")):
                plan.port(dense.kernel, f"{prefix}{name}.weight", lambda value: value.T)
                plan.port(dense.bias, f"{prefix}{name}.bias")
        plan.port(encoder.layer_norm.gamma, "layernorm.weight")
        plan.port(encoder.layer_norm.beta, "layernorm.bias")

    @staticmethod
    def plan_head_weights(task: Any, hf: dict, plan: WeightPlan) -> None:
        architectures = hf.get("architectures") or [""]
        with_teacher = isinstance(architectures, list) and "WithTeacher" in str(architectures[0])
        head = "cls_classifier" if with_teacher else "classifier"
        plan.port(task.output_dense.kernel, f"{head}.weight", lambda value: value.T)
        plan.port(task.output_dense.bias, f"{head}.bias")


register("deit", DeiTConverter)
