"""Tiny random Swin Transformer and EfficientNet image classifier presets made by KerasHub, and Swin's checkpoint.

    folder = swin_preset(tmp_path)                                 # config, weights, converter, task, head
    reference = keras_hub.models.ImageClassifier.from_preset(folder)
    swin_transformers_checkpoint(reference, hf_folder)            # config.json, model.safetensors, ...

KerasHub has no Transformers exporter for Swin, so the checkpoint is written here in Transformers' layout
(``SwinForImageClassification``: ``swin.`` keys, PyTorch's ``(out, in)`` linear weights, separate query, key and
value, the ``(out, in, h, w)`` patch convolution, a ``classifier.*`` head), the inverse of what KerasHub's
``convert_swin_transformer`` reads. KerasHub 0.32 has no Transformers converter for EfficientNet.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import keras, keras_hub

IMAGE_SIZE = 16
NUM_CLASSES = 3
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
# 16x16 images in patches of 2: an 8x8 grid, then 4x4 after the merge; windows of 2, so both stages shift
SWIN_ARGUMENTS = {
    "image_shape": (IMAGE_SIZE, IMAGE_SIZE, 3),
    "embed_dim": 8,
    "depths": (2, 2),
    "num_heads": (2, 2),
    "window_size": 2,
    "patch_size": 2,
}


def swin_converter() -> object:
    """KerasHub's SwinTransformerImageConverter: resize to 16x16, ImageNet's per-channel normalization."""
    return keras_hub.layers.SwinTransformerImageConverter(
        image_size=(IMAGE_SIZE, IMAGE_SIZE),
        scale=[1 / (255 * s) for s in STD],
        offset=[-m / s for m, s in zip(MEAN, STD)],
    )


def _randomize(model: object, seed: int) -> None:
    """Every weight random (the bias tables start near zero, which would hide a misplaced relative position)."""
    rng = np.random.RandomState(seed)
    for weight in model.weights:
        weight.assign(rng.normal(0, 0.3, size=weight.shape).astype("float32"))


def swin_preset(folder: str) -> str:
    """A random SwinTransformerImageClassifier preset (16x16 images, 2 stages of 2 blocks, 8 channels)."""
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.SwinTransformerBackbone(**SWIN_ARGUMENTS)
    preprocessor = keras_hub.models.SwinTransformerImageClassifierPreprocessor(image_converter=swin_converter())
    classifier = keras_hub.models.SwinTransformerImageClassifier(
        backbone=backbone, num_classes=NUM_CLASSES, preprocessor=preprocessor
    )
    _randomize(classifier, 0)
    classifier.save_to_preset(folder)
    return folder


def _linear(kernel: object) -> np.ndarray:
    return np.asarray(kernel).T


def _norm(tensors: dict, key: str, norm: object) -> None:
    tensors[f"{key}.weight"], tensors[f"{key}.bias"] = np.asarray(norm.gamma), np.asarray(norm.beta)


def swin_transformers_checkpoint(classifier: object, folder: str) -> str:
    """``classifier`` (a KerasHub SwinTransformerImageClassifier) as a ``SwinForImageClassification`` folder."""
    from safetensors.numpy import save_file

    backbone = classifier.backbone
    embedding = backbone.patch_embedding
    tensors = {
        "swin.embeddings.patch_embeddings.projection.weight": np.transpose(
            np.asarray(embedding.proj.kernel), (3, 2, 0, 1)
        ),
        "swin.embeddings.patch_embeddings.projection.bias": np.asarray(embedding.proj.bias),
        "classifier.weight": _linear(classifier.output_dense.kernel),
        "classifier.bias": np.asarray(classifier.output_dense.bias),
    }
    _norm(tensors, "swin.embeddings.norm", embedding.norm)
    _norm(tensors, "swin.layernorm", backbone.norm)
    for i, stage in enumerate(backbone.stages):
        for j, block in enumerate(stage.blocks):
            prefix = f"swin.encoder.layers.{i}.blocks.{j}."
            _norm(tensors, prefix + "layernorm_before", block.norm1)
            _norm(tensors, prefix + "layernorm_after", block.norm2)
            attention = prefix + "attention.self."
            kernel, bias = _linear(block.attn.qkv.kernel), np.asarray(block.attn.qkv.bias)
            for k, name in enumerate(("query", "key", "value")):
                rows = slice(k * stage.dim, (k + 1) * stage.dim)
                tensors[f"{attention}{name}.weight"], tensors[f"{attention}{name}.bias"] = kernel[rows], bias[rows]
            tensors[attention + "relative_position_bias_table"] = np.asarray(block.attn.relative_position_bias_table)
            # a buffer Transformers keeps in its files: read by neither KerasHub nor tfkit
            tensors[attention + "relative_position_index"] = np.asarray(block.attn.relative_position_index, "int64")
            for dense, name in (
                (block.attn.proj, "attention.output.dense"),
                (block.mlp.fc1, "intermediate.dense"),
                (block.mlp.fc2, "output.dense"),
            ):
                tensors[f"{prefix}{name}.weight"], tensors[f"{prefix}{name}.bias"] = (
                    _linear(dense.kernel),
                    np.asarray(dense.bias),
                )
        if stage.downsample is not None:
            prefix = f"swin.encoder.layers.{i}.downsample."
            tensors[prefix + "reduction.weight"] = _linear(stage.downsample.reduction.kernel)
            _norm(tensors, prefix + "norm", stage.downsample.norm)
    os.makedirs(folder, exist_ok=True)
    save_file({key: np.ascontiguousarray(value) for key, value in tensors.items()}, f"{folder}/model.safetensors")
    config = {
        "model_type": "swin",
        "architectures": ["SwinForImageClassification"],
        "image_size": backbone.image_shape[0],
        "patch_size": backbone.patch_size,
        "num_channels": 3,
        "embed_dim": backbone.embed_dim,
        "depths": list(backbone.depths),
        "num_heads": list(backbone.num_heads),
        "window_size": backbone.window_size,
        "mlp_ratio": backbone.mlp_ratio,
        "qkv_bias": True,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "drop_path_rate": 0.1,
        "layer_norm_eps": 1e-5,
        "use_absolute_embeddings": False,
        "id2label": {str(i): f"class_{i}" for i in range(classifier.num_classes)},
    }
    processor = {
        "do_resize": True,
        "size": {"height": backbone.image_shape[0], "width": backbone.image_shape[1]},
        "resample": 3,
        "do_rescale": True,
        "rescale_factor": 1 / 255,
        "do_normalize": True,
        "image_mean": list(MEAN),
        "image_std": list(STD),
    }
    for name, value in (("config.json", config), ("preprocessor_config.json", processor)):
        with open(os.path.join(folder, name), "w") as handle:
            json.dump(value, handle)
    return folder


# four stacks, one of each block type (cba, fused, unfused, v1), squeeze and excite, strided and residual blocks;
# num_features stays KerasHub's default: KerasHub's config leaves it out, so another would not load back
EFFICIENTNET_ARGUMENTS = {
    "stackwise_width_coefficients": [0.25] * 4,
    "stackwise_depth_coefficients": [1.0, 1.0, 1.0, 1.5],
    "stackwise_kernel_sizes": [3, 3, 5, 3],
    "stackwise_num_repeats": [1, 2, 2, 1],
    "stackwise_input_filters": [32, 16, 24, 32],
    "stackwise_output_filters": [16, 24, 32, 32],
    "stackwise_expansion_ratios": [1, 4, 4, 6],
    "stackwise_squeeze_and_excite_ratios": [0.0, 0.25, 0.25, 0.25],
    "stackwise_strides": [1, 2, 2, 1],
    "stackwise_block_types": ["cba", "fused", "unfused", "v1"],
    "input_shape": (32, 32, 3),
}


def efficientnet_preset(folder: str) -> str:
    """A random EfficientNetImageClassifier preset (32x32 images, 4 stacks of the 4 block types) saved by KerasHub."""
    from hub_presets_vision2 import randomize_nested_batch_norms

    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.EfficientNetBackbone(**EFFICIENTNET_ARGUMENTS)
    randomize_nested_batch_norms(backbone, seed=1)
    converter = keras_hub.layers.EfficientNetImageConverter(
        image_size=(32, 32), scale=[1 / (255 * s) for s in STD], offset=[-m / s for m, s in zip(MEAN, STD)]
    )
    preprocessor = keras_hub.models.EfficientNetImageClassifierPreprocessor(image_converter=converter)
    classifier = keras_hub.models.EfficientNetImageClassifier(
        backbone=backbone, num_classes=NUM_CLASSES, preprocessor=preprocessor
    )
    classifier.output_dense.bias.assign(np.array([0.3, -0.2, 0.1], "float32"))
    classifier.save_to_preset(folder)
    return folder
