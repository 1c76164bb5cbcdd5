"""A tiny random ViT image classifier preset made by KerasHub, and the Transformers checkpoint of its weights.

    folder = vit_preset(tmp_path)                                  # config, weights, converter, task, head
    reference = keras_hub.models.ImageClassifier.from_preset(folder)
    vit_transformers_checkpoint(reference, hf_folder)             # config.json, model.safetensors, ...

KerasHub has no Transformers exporter for ViT, so the checkpoint is written
here from Transformers' ViT layout (``ViTForImageClassification``: ``vit.``
keys, PyTorch's ``(out, in)`` linear weights, ``(out, in, h, w)`` patch
convolution, position embeddings with a batch axis, ``classifier.*`` head),
the inverse of what KerasHub's ``convert_vit`` reads.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hub_presets import keras, keras_hub

IMAGE_SIZE = 16
NUM_CLASSES = 3
MEAN = (0.485, 0.456, 0.406)  # ImageNet's, as ViT presets normalize
STD = (0.229, 0.224, 0.225)


def vit_converter() -> object:
    """KerasHub's ViTImageConverter: resize to 16x16, per-channel scale and offset (ImageNet's normalization)."""
    return keras_hub.layers.ViTImageConverter(
        image_size=(IMAGE_SIZE, IMAGE_SIZE),
        scale=[1 / (255 * s) for s in STD],
        offset=[-m / s for m, s in zip(MEAN, STD)],
    )


def vit_preset(folder: str) -> str:
    """A random ViTImageClassifier preset (16x16 images, patches of 4, 2 layers, hidden 16) saved by KerasHub."""
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.ViTBackbone(
        image_shape=(IMAGE_SIZE, IMAGE_SIZE, 3), patch_size=4, num_layers=2, num_heads=2, hidden_dim=16, mlp_dim=32
    )
    preprocessor = keras_hub.models.ViTImageClassifierPreprocessor(image_converter=vit_converter())
    classifier = keras_hub.models.ViTImageClassifier(
        backbone=backbone, num_classes=NUM_CLASSES, preprocessor=preprocessor
    )
    classifier.output_dense.bias.assign(np.array([0.3, -0.2, 0.1], "float32"))  # not the zeros a fresh head has
    classifier.save_to_preset(folder)
    return folder


def vit_transformers_checkpoint(classifier: object, folder: str) -> str:
    """``classifier`` (a KerasHub ViTImageClassifier) as a Transformers ``ViTForImageClassification`` folder."""
    from safetensors.numpy import save_file

    backbone = classifier.backbone
    embedding, encoder = backbone.layers[1], backbone.layers[2]
    hidden = backbone.hidden_dim
    tensors = {
        "vit.embeddings.cls_token": np.asarray(embedding.class_token),
        "vit.embeddings.position_embeddings": np.asarray(embedding.position_embedding.embeddings)[None],
        "vit.embeddings.patch_embeddings.projection.weight": np.transpose(
            np.asarray(embedding.patch_embedding.kernel), (3, 2, 0, 1)
        ),
        "vit.embeddings.patch_embeddings.projection.bias": np.asarray(embedding.patch_embedding.bias),
        "vit.layernorm.weight": np.asarray(encoder.layer_norm.gamma),
        "vit.layernorm.bias": np.asarray(encoder.layer_norm.beta),
        "classifier.weight": np.asarray(classifier.output_dense.kernel).T,
        "classifier.bias": np.asarray(classifier.output_dense.bias),
    }
    for i, block in enumerate(encoder.encoder_layers):
        prefix = f"vit.encoder.layer.{i}."
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
        for dense, name in ((block.mlp.dense_1, "intermediate.dense"), (block.mlp.dense_2, "output.dense")):
            tensors[f"{prefix}{name}.weight"] = np.asarray(dense.kernel).T
            tensors[f"{prefix}{name}.bias"] = np.asarray(dense.bias)
    os.makedirs(folder, exist_ok=True)
    save_file({key: np.ascontiguousarray(value) for key, value in tensors.items()}, f"{folder}/model.safetensors")
    config = {
        "model_type": "vit",
        "architectures": ["ViTForImageClassification"],
        "image_size": backbone.image_shape[0],
        "patch_size": backbone.patch_size[0],
        "num_channels": 3,
        "num_hidden_layers": backbone.num_layers,
        "num_attention_heads": backbone.num_heads,
        "hidden_size": hidden,
        "intermediate_size": backbone.mlp_dim,
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
