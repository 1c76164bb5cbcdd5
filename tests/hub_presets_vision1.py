"""A tiny random DeiT image classifier preset made by KerasHub, and the Transformers checkpoint of its weights.

    folder = deit_preset(tmp_path)                                 # config, weights, converter, task, head
    reference = keras_hub.models.ImageClassifier.from_preset(folder)
    deit_transformers_checkpoint(reference, hf_folder)            # config.json, model.safetensors, ...

KerasHub has no Transformers exporter for DeiT, so the checkpoint is written here in Transformers' layout
(``DeiTForImageClassificationWithTeacher``: ``deit.`` keys, PyTorch's ``(out, in)`` linear weights,
``(out, in, h, w)`` patch convolution, ``cls_classifier.*`` and ``distillation_classifier.*`` heads), the
inverse of what KerasHub's ``convert_deit`` reads.
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


def deit_converter() -> object:
    """KerasHub's DeiTImageConverter: resize to 16x16, per-channel scale and offset (ImageNet's normalization)."""
    return keras_hub.layers.DeiTImageConverter(
        image_size=(IMAGE_SIZE, IMAGE_SIZE),
        scale=[1 / (255 * s) for s in STD],
        offset=[-m / s for m, s in zip(MEAN, STD)],
    )


def _randomize(model: object, seed: int) -> None:
    """Every weight random (KerasHub starts the tokens at zero, which would hide a swapped token)."""
    rng = np.random.RandomState(seed)
    for weight in model.weights:
        weight.assign(rng.normal(0, 0.2, size=weight.shape).astype("float32"))


def deit_preset(folder: str) -> str:
    """A random DeiTImageClassifier preset (16x16 images, patches of 4, 2 layers, hidden 16) saved by KerasHub."""
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.DeiTBackbone(
        image_shape=(IMAGE_SIZE, IMAGE_SIZE, 3),
        patch_size=4,
        num_layers=2,
        num_heads=2,
        hidden_dim=16,
        intermediate_dim=32,
    )
    preprocessor = keras_hub.models.DeiTImageClassifierPreprocessor(image_converter=deit_converter())
    classifier = keras_hub.models.DeiTImageClassifier(
        backbone=backbone, num_classes=NUM_CLASSES, preprocessor=preprocessor
    )
    _randomize(classifier, 0)
    classifier.save_to_preset(folder)
    return folder


def _linear(kernel: object) -> np.ndarray:
    return np.asarray(kernel).T


def deit_transformers_checkpoint(classifier: object, folder: str) -> str:
    """``classifier`` (a KerasHub DeiTImageClassifier) as a ``DeiTForImageClassificationWithTeacher`` folder."""
    from safetensors.numpy import save_file

    backbone = classifier.backbone
    embedding, encoder = backbone.layers[1], backbone.layers[2]
    hidden = backbone.hidden_dim
    rng = np.random.RandomState(5)
    tensors = {
        "deit.embeddings.cls_token": np.asarray(embedding.class_token),
        "deit.embeddings.distillation_token": np.asarray(embedding.distillation_token),
        "deit.embeddings.position_embeddings": np.asarray(embedding.position_embedding),
        "deit.embeddings.patch_embeddings.projection.weight": np.transpose(
            np.asarray(embedding.patch_embedding.kernel), (3, 2, 0, 1)
        ),
        "deit.embeddings.patch_embeddings.projection.bias": np.asarray(embedding.patch_embedding.bias),
        "deit.layernorm.weight": np.asarray(encoder.layer_norm.gamma),
        "deit.layernorm.bias": np.asarray(encoder.layer_norm.beta),
        "cls_classifier.weight": _linear(classifier.output_dense.kernel),
        "cls_classifier.bias": np.asarray(classifier.output_dense.bias),
        # the teacher's head: Transformers averages it in, KerasHub (and tfkit) leave it unread
        "distillation_classifier.weight": rng.normal(size=(classifier.num_classes, hidden)).astype("float32"),
        "distillation_classifier.bias": np.zeros(classifier.num_classes, "float32"),
    }
    for i, block in enumerate(encoder.encoder_layers):
        prefix = f"deit.encoder.layer.{i}."
        for name in ("query", "key", "value"):
            dense = getattr(block.mha, f"{name}_dense")
            tensors[f"{prefix}attention.attention.{name}.weight"] = np.asarray(dense.kernel).reshape(hidden, -1).T
            tensors[f"{prefix}attention.attention.{name}.bias"] = np.asarray(dense.bias).reshape(-1)
        output = block.mha.output_dense
        tensors[prefix + "attention.output.dense.weight"] = np.asarray(output.kernel).reshape(-1, hidden).T
        tensors[prefix + "attention.output.dense.bias"] = np.asarray(output.bias)
        for norm, name in ((block.layer_norm_1, "layernorm_before"), (block.layer_norm_2, "layernorm_after")):
            tensors[f"{prefix}{name}.weight"] = np.asarray(norm.gamma)
            tensors[f"{prefix}{name}.bias"] = np.asarray(norm.beta)
        for dense, name in ((block.mlp.dense, "intermediate.dense"), (block.output_layer.dense, "output.dense")):
            tensors[f"{prefix}{name}.weight"] = _linear(dense.kernel)
            tensors[f"{prefix}{name}.bias"] = np.asarray(dense.bias)
    os.makedirs(folder, exist_ok=True)
    save_file({key: np.ascontiguousarray(value) for key, value in tensors.items()}, f"{folder}/model.safetensors")
    config = {
        "model_type": "deit",
        "architectures": ["DeiTForImageClassificationWithTeacher"],
        "image_size": backbone.image_shape[0],
        "patch_size": backbone.patch_size[0],
        "num_channels": 3,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_heads,
        "hidden_size": hidden,
        "intermediate_size": backbone.intermediate_dim,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "layer_norm_eps": backbone.layer_norm_epsilon,
        "qkv_bias": True,
        "id2label": {str(i): f"class_{i}" for i in range(classifier.num_classes)},
    }
    processor = {
        "do_resize": True,
        "size": {"height": backbone.image_shape[0], "width": backbone.image_shape[1]},
        "resample": 2,
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


# DINOv2: KerasHub has no DINOv2 task, so the preset is a backbone's; tiny sizes as DeiT's
DINOV2_ARGUMENTS = {"patch_size": 4, "num_layers": 2, "hidden_dim": 16, "num_heads": 2, "intermediate_dim": 32}


def dinov2_backbone(position_size: int = 32, **arguments: object) -> object:
    """A random KerasHub DINOV2Backbone for 16x16 images; position embeddings learned for ``position_size``."""
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.DINOV2Backbone(
        **{
            **DINOV2_ARGUMENTS,
            "image_shape": (IMAGE_SIZE, IMAGE_SIZE, 3),
            "position_embedding_shape": (position_size, position_size, 3),
            "layer_scale_init_value": 0.5,
            **arguments,
        }
    )
    _randomize(backbone, 1)
    embeddings = backbone.embeddings
    embeddings.interpolated_position_embeddings.assign(  # consistent with the random position embeddings
        embeddings._interpolate_position_embeddings(
            embeddings.position_embeddings,
            patch_size=embeddings.patch_size,
            source_shape=embeddings.position_embedding_shape,
            target_shape=embeddings.image_shape,
            antialias=embeddings.antialias_in_interpolation,
        )
    )
    return backbone


def dinov2_preset(folder: str) -> str:
    """A random DINOV2Backbone preset (one register token, interpolated positions) saved by KerasHub."""
    dinov2_backbone(num_register_tokens=1).save_to_preset(folder)
    return folder


def dinov2_transformers_checkpoint(backbone: object, folder: str, model_type: str = "dinov2") -> str:
    """``backbone`` (a KerasHub DINOV2Backbone whose position embeddings are its image size's) as a Transformers
    ``Dinov2Model`` (or ``Dinov2WithRegistersModel``) folder."""
    from safetensors.numpy import save_file

    embeddings = backbone.embeddings
    hidden = backbone.hidden_dim
    tensors = {
        "embeddings.cls_token": np.asarray(embeddings.cls_token),
        "embeddings.mask_token": np.asarray(embeddings.mask_token),
        "embeddings.position_embeddings": np.asarray(embeddings.position_embeddings),
        "embeddings.patch_embeddings.projection.weight": np.transpose(
            np.asarray(embeddings.patch_embeddings.projection.kernel), (3, 2, 0, 1)
        ),
        "embeddings.patch_embeddings.projection.bias": np.asarray(embeddings.patch_embeddings.projection.bias),
        "layernorm.weight": np.asarray(backbone.layernorm.gamma),
        "layernorm.bias": np.asarray(backbone.layernorm.beta),
    }
    if backbone.num_register_tokens:
        tensors["embeddings.register_tokens"] = np.asarray(embeddings.register_tokens)
    for i, layer in enumerate(backbone.encoder.layers):
        prefix = f"encoder.layer.{i}."
        attention = layer.attention.attention
        for name in ("query", "key", "value"):
            dense = getattr(attention, f"{name}_dense")
            tensors[f"{prefix}attention.attention.{name}.weight"] = np.asarray(dense.kernel).reshape(hidden, -1).T
            tensors[f"{prefix}attention.attention.{name}.bias"] = np.asarray(dense.bias).reshape(-1)
        output = attention.output_dense
        tensors[prefix + "attention.output.dense.weight"] = np.asarray(output.kernel).reshape(-1, hidden).T
        tensors[prefix + "attention.output.dense.bias"] = np.asarray(output.bias)
        for name in ("norm1", "norm2"):
            tensors[f"{prefix}{name}.weight"] = np.asarray(getattr(layer, name).gamma)
            tensors[f"{prefix}{name}.bias"] = np.asarray(getattr(layer, name).beta)
        for name in ("layer_scale1", "layer_scale2"):
            tensors[f"{prefix}{name}.lambda1"] = np.asarray(getattr(layer, name).lambda1)
        for name in ("weights_in", "weights_out") if backbone.use_swiglu_ffn else ("fc1", "fc2"):
            dense = getattr(layer.mlp, name)
            tensors[f"{prefix}mlp.{name}.weight"] = _linear(dense.kernel)
            tensors[f"{prefix}mlp.{name}.bias"] = np.asarray(dense.bias)
    os.makedirs(folder, exist_ok=True)
    save_file({key: np.ascontiguousarray(value) for key, value in tensors.items()}, f"{folder}/model.safetensors")
    config = {
        "model_type": model_type,
        "architectures": ["Dinov2WithRegistersModel" if backbone.num_register_tokens else "Dinov2Model"],
        "image_size": backbone.image_shape[0],
        "patch_size": backbone.patch_size,
        "num_channels": 3,
        "hidden_size": hidden,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_heads,
        "mlp_ratio": backbone.intermediate_dim / hidden,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "layer_norm_eps": 1e-6,
        "layerscale_value": 0.5,
        "drop_path_rate": 0.0,
        "use_swiglu_ffn": backbone.use_swiglu_ffn,
        "qkv_bias": True,
        "apply_layernorm": True,
        "num_register_tokens": backbone.num_register_tokens,
    }
    with open(os.path.join(folder, "config.json"), "w") as handle:
        json.dump(config, handle)
    return folder
