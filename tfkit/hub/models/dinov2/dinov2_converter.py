"""DINOv2 from a Hugging Face Transformers checkpoint (``model_type: dinov2`` or ``dinov2_with_registers``).

    backbone = DINOV2Backbone.from_preset("./dinov2-hf")             # config.json, model.safetensors

Transformers' DINOv2 keeps PyTorch's layouts: linear weights are ``(out, in)`` (transposed here, and split
into heads for the attention), the patch convolution is ``(out, in, height, width)``. The backbone is built
for the checkpoint's ``image_size`` with position embeddings of that size, so the interpolated position
embeddings equal them (filled from the same tensor). As KerasHub's converter, resizing antialiases for
``dinov2_with_registers`` only. Unlike it, this one refuses a ``layer_norm_eps`` other than the 1e-6 that
``DINOV2Backbone`` builds, a ``hidden_act`` other than GELU and ``qkv_bias=False``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.hub.models.dinov2.dinov2_backbone import DINOV2Backbone
from tfkit.hub.models.dinov2.dinov2_embedding import interpolate_position_embeddings
from tfkit.hub.models.vit.vit_converter import _transposed
from tfkit.hub.presets.transformers_checkpoints import WeightPlan, register


class DINOV2Converter:
    """How a Transformers DINOv2 checkpoint becomes a `DINOV2Backbone`."""

    backbone_cls = DINOV2Backbone

    @staticmethod
    def backbone_config(hf: dict) -> dict[str, Any]:
        for field, value, expected in (
            ("layer_norm_eps", hf.get("layer_norm_eps", 1e-6), 1e-6),
            ("hidden_act", hf.get("hidden_act", "gelu"), "gelu"),
            ("qkv_bias", hf.get("qkv_bias", True), True),
        ):
            if value != expected:
                raise ValueError(f"DINOv2 checkpoint: {field}={value!r}; DINOV2Backbone builds {expected!r}")
        image_size = int(hf["image_size"])
        channels = int(hf.get("num_channels", 3))
        return {
            "patch_size": hf["patch_size"],
            "num_layers": hf["num_hidden_layers"],
            "hidden_dim": hf["hidden_size"],
            "num_heads": hf["num_attention_heads"],
            "intermediate_dim": int(hf["hidden_size"] * hf.get("mlp_ratio", 4)),
            "layer_scale_init_value": hf.get("layerscale_value", 1.0),
            "num_register_tokens": hf.get("num_register_tokens", 0),
            "use_mask_token": hf.get("use_mask_token", True),
            "use_swiglu_ffn": hf.get("use_swiglu_ffn", False),
            "dropout_rate": hf.get("hidden_dropout_prob", 0.0),
            "drop_path_rate": hf.get("drop_path_rate", 0.0),
            "image_shape": (image_size, image_size, channels),
            "position_embedding_shape": (image_size, image_size),
            "antialias_in_interpolation": hf.get("model_type") != "dinov2",
            "apply_layernorm": hf.get("apply_layernorm", False),
        }

    @staticmethod
    def plan_weights(backbone: DINOV2Backbone, hf: dict, plan: WeightPlan) -> None:
        embeddings = backbone.embeddings
        plan.port(embeddings.cls_token, "embeddings.cls_token")
        if backbone.use_mask_token:
            plan.port(embeddings.mask_token, "embeddings.mask_token")
        if backbone.num_register_tokens > 0:
            plan.port(embeddings.register_tokens, "embeddings.register_tokens")
        plan.port(embeddings.position_embeddings, "embeddings.position_embeddings")

        def interpolated(value: np.ndarray) -> np.ndarray:
            return np.asarray(
                interpolate_position_embeddings(
                    value,
                    embeddings.patch_size,
                    embeddings.position_embedding_shape,
                    embeddings.image_shape,
                    embeddings.antialias_in_interpolation,
                )
            )

        plan.port(embeddings.interpolated_position_embeddings, "embeddings.position_embeddings", interpolated)
        projection = embeddings.patch_embeddings.projection
        plan.port(
            projection.kernel,
            "embeddings.patch_embeddings.projection.weight",
            lambda value: np.transpose(value, (2, 3, 1, 0)),
        )
        plan.port(projection.bias, "embeddings.patch_embeddings.projection.bias")
        for i, layer in enumerate(backbone.encoder.layers):
            prefix = f"encoder.layer.{i}."
            attention = layer.attention.attention
            for dense, name in (
                (attention._query_dense, "attention.query"),
                (attention._key_dense, "attention.key"),
                (attention._value_dense, "attention.value"),
                (attention._output_dense, "output.dense"),
            ):
                key = f"{prefix}attention.{name}."
                plan.port(dense.kernel, key + "weight", _transposed(tuple(dense.kernel.shape)))
                plan.port(dense.bias, key + "bias", lambda value, shape=tuple(dense.bias.shape): value.reshape(shape))
            for norm, name in ((layer.norm1, "norm1"), (layer.norm2, "norm2")):
                plan.port(norm.gamma, f"{prefix}{name}.weight")
                plan.port(norm.beta, f"{prefix}{name}.bias")
            for scale in ("layer_scale1", "layer_scale2"):
                plan.port(getattr(layer, scale).lambda1, f"{prefix}{scale}.lambda1")
            names = ("weights_in", "weights_out") if backbone.use_swiglu_ffn else ("fc1", "fc2")
            for name in names:
                dense = getattr(layer.mlp, name)
                plan.port(dense.kernel, f"{prefix}mlp.{name}.weight", lambda value: value.T)
                plan.port(dense.bias, f"{prefix}mlp.{name}.bias")
        plan.port(backbone.layernorm.gamma, "layernorm.weight")
        plan.port(backbone.layernorm.beta, "layernorm.bias")


register("dinov2", DINOV2Converter)
register("dinov2_with_registers", DINOV2Converter)
