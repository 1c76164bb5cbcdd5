"""ViT from a Hugging Face Transformers checkpoint (``model_type: vit``): config, weights, head, image converter.

    backbone = ViTBackbone.from_preset("./vit-hf")                  # config.json, model.safetensors
    classifier = ImageClassifier.from_preset("./vit-hf")             # ViTForImageClassification: the head too
    converter = ImageConverter.from_preset("./vit-hf")               # from preprocessor_config.json

Transformers' ViT keeps PyTorch's layouts: linear weights are ``(out, in)``
(transposed here, and split into heads for the attention), the patch
convolution is ``(out, in, height, width)``, the position embeddings carry a
batch axis. Keys may have the ``vit.`` prefix of ``ViTForImageClassification``.
Unlike KerasHub's converter, this one reads ``layer_norm_eps`` (Transformers'
default is 1e-12; KerasHub builds 1e-6) and ``num_channels``, and makes an
image converter from ``preprocessor_config.json`` (KerasHub makes none).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.vit.vit_backbone import ViTBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register

PREPROCESSOR_CONFIG_FILE = "preprocessor_config.json"
# PIL's resampling filters, as Transformers' image processors number them
_RESAMPLE = {0: "nearest", 1: "lanczos3", 2: "bilinear", 3: "bicubic"}


def _pair(value: Any) -> tuple[int, int]:
    return (int(value), int(value)) if isinstance(value, (int, float)) else (int(value[0]), int(value[1]))


def _transposed(shape: tuple) -> Any:
    return lambda value: np.reshape(value.T, shape)


class ViTConverter:
    """How a Transformers ViT checkpoint becomes a `ViTBackbone`, a classifier head and a `ViTImageConverter`.

    DeiT's converter is this one with its names (`family`, `mlp_dim_key`), tokens (`plan_tokens`) and MLP
    layers (`mlp_denses`): the checkpoints' layouts are the same.
    """

    backbone_cls: Any = ViTBackbone
    family, mlp_dim_key = "ViT", "mlp_dim"  # the messages' and the layers' names; the backbone's MLP width argument

    @classmethod
    def backbone_config(cls, hf: dict) -> dict[str, Any]:
        backbone = cls.backbone_cls.__name__
        if hf.get("hidden_act", "gelu") != "gelu":
            raise ValueError(
                f"{cls.family} checkpoint: hidden_act {hf.get('hidden_act')!r}; {backbone}'s MLP uses 'gelu'"
            )
        if not hf.get("qkv_bias", True):
            raise ValueError(
                f"{cls.family} checkpoint: qkv_bias=False leaves the attention output's bias, which {backbone}'s "
                "attention (use_mha_bias=False) does not hold"
            )
        height, width = _pair(hf["image_size"])
        return {
            "image_shape": (height, width, int(hf.get("num_channels", 3))),
            "patch_size": _pair(hf["patch_size"]),
            "num_layers": hf["num_hidden_layers"],
            "num_heads": hf["num_attention_heads"],
            "hidden_dim": hf["hidden_size"],
            cls.mlp_dim_key: hf["intermediate_size"],
            "dropout_rate": hf.get("hidden_dropout_prob", 0.0),
            "attention_dropout": hf.get("attention_probs_dropout_prob", 0.0),
            "layer_norm_epsilon": hf.get("layer_norm_eps", 1e-12),
            "use_mha_bias": True,
        }

    @staticmethod
    def plan_tokens(embedding: Any, plan: WeightPlan) -> None:
        """The class token and the position embeddings (KerasHub's ViT keeps them without the batch axis)."""
        plan.port(embedding.class_token, "embeddings.cls_token")
        plan.port(embedding.position_embedding.embeddings, "embeddings.position_embeddings", lambda value: value[0])

    @staticmethod
    def mlp_denses(block: Any) -> tuple[Any, Any]:
        """A block's MLP layers: Transformers' `intermediate.dense` and `output.dense`."""
        return block.mlp.dense_1, block.mlp.dense_2

    @classmethod
    def plan_weights(cls, backbone: Any, hf: dict, plan: WeightPlan) -> None:
        embedding = backbone.get_layer(f"{cls.family.lower()}_patching_and_embedding")
        encoder = backbone.get_layer(f"{cls.family.lower()}_encoder")
        plan.port(
            embedding.patch_embedding.kernel,
            "embeddings.patch_embeddings.projection.weight",
            lambda value: np.transpose(value, (2, 3, 1, 0)),
        )
        plan.port(embedding.patch_embedding.bias, "embeddings.patch_embeddings.projection.bias")
        cls.plan_tokens(embedding, plan)
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
            for dense, name in zip(cls.mlp_denses(block), ("intermediate.dense", "output.dense")):
                plan.port(dense.kernel, f"{prefix}{name}.weight", lambda value: value.T)
                plan.port(dense.bias, f"{prefix}{name}.bias")
        plan.port(encoder.layer_norm.gamma, "layernorm.weight")
        plan.port(encoder.layer_norm.beta, "layernorm.bias")

    @staticmethod
    def plan_head_weights(task: Any, hf: dict, plan: WeightPlan) -> None:
        plan.port(task.output_dense.kernel, "classifier.weight", lambda value: value.T)
        plan.port(task.output_dense.bias, "classifier.bias")

    @staticmethod
    def image_converter_config(directory: str, hf: dict) -> dict[str, Any] | None:
        """`ViTImageConverter` arguments from the checkpoint's image processor config, or `None` without one."""
        if not files.has_file(directory, PREPROCESSOR_CONFIG_FILE):
            return None
        processor = files.read_json(directory, PREPROCESSOR_CONFIG_FILE)
        # Transformers' ViT resizes the whole image (no crop) with PIL, which antialiases when downsampling
        config: dict[str, Any] = {"crop_to_aspect_ratio": False, "antialias": True}
        if processor.get("do_resize", True) and "size" in processor:
            size = processor["size"]
            config["image_size"] = (size["height"], size["width"]) if isinstance(size, dict) else _pair(size)
            config["interpolation"] = _RESAMPLE.get(processor.get("resample", 2), "bilinear")
        rescale = processor.get("rescale_factor", 1 / 255) if processor.get("do_rescale", True) else 1.0
        if processor.get("do_normalize", True):
            mean = np.asarray(processor.get("image_mean", [0.5, 0.5, 0.5]), "float64")
            std = np.asarray(processor.get("image_std", [0.5, 0.5, 0.5]), "float64")
            config["scale"] = (rescale / std).tolist()
            config["offset"] = (-mean / std).tolist()
        elif rescale != 1.0:
            config["scale"] = rescale
        return config


register("vit", ViTConverter)
