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

from tfkit.hub.models.deit.deit_backbone import DeiTBackbone
from tfkit.hub.models.vit.vit_converter import ViTConverter
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class DeiTConverter(ViTConverter):
    """How a Transformers DeiT checkpoint becomes a `DeiTBackbone`, a classifier head and a `DeiTImageConverter`."""

    backbone_cls = DeiTBackbone
    family, mlp_dim_key = "DeiT", "intermediate_dim"

    @staticmethod
    def plan_tokens(embedding: Any, plan: WeightPlan) -> None:
        plan.port(embedding.class_token, "embeddings.cls_token")
        plan.port(embedding.distillation_token, "embeddings.distillation_token")
        plan.port(embedding.position_embedding, "embeddings.position_embeddings")

    @staticmethod
    def mlp_denses(block: Any) -> tuple[Any, Any]:
        return block.mlp.dense, block.output_layer.dense

    @staticmethod
    def plan_head_weights(task: Any, hf: dict, plan: WeightPlan) -> None:
        architectures = hf.get("architectures") or [""]
        with_teacher = isinstance(architectures, list) and "WithTeacher" in str(architectures[0])
        head = "cls_classifier" if with_teacher else "classifier"
        plan.port(task.output_dense.kernel, f"{head}.weight", lambda value: value.T)
        plan.port(task.output_dense.bias, f"{head}.bias")


register("deit", DeiTConverter)
