"""Tiny random ResNet (v1, v2, vd) image classifier presets made by KerasHub.

    folder = resnet_preset(tmp_path, "basic_block", use_pre_activation=False)
    reference = keras_hub.models.ImageClassifier.from_preset(folder)

KerasHub 0.32 has no Transformers converter for ResNet, so no Transformers checkpoint is written. The batch
norms' moving statistics are set to random values, so that presets carry them and inference must use them.
"""

from __future__ import annotations

import numpy as np
from hub_presets import keras, keras_hub

IMAGE_SIZE = 32
NUM_CLASSES = 3
MEAN = (0.485, 0.456, 0.406)  # ImageNet's, as ResNet presets normalize
STD = (0.229, 0.224, 0.225)

RESNET_VARIANTS = {  # name: (block_type, use_pre_activation, input_conv_filters, input_conv_kernel_sizes)
    "v1_basic": ("basic_block", False, [64], [3]),  # basic_block: the stem must give the first stack 64
    "v2_bottleneck": ("bottleneck_block", True, [8], [3]),
    "vd_bottleneck": ("bottleneck_block_vd", False, [4, 4, 8], [3, 3, 3]),
    "vd_basic": ("basic_block_vd", False, [4, 8], [3, 3]),  # KerasHub's _vd blocks with pre-activation fail to build
}


def resnet_converter() -> object:
    """KerasHub's ResNetImageConverter: resize to 32x32, ImageNet's per-channel normalization."""
    return keras_hub.layers.ResNetImageConverter(
        image_size=(IMAGE_SIZE, IMAGE_SIZE),
        scale=[1 / (255 * s) for s in STD],
        offset=[-m / s for m, s in zip(MEAN, STD)],
    )


def randomize_batch_norms(model: object, seed: int) -> None:
    """Random moving means, variances and betas in every BatchNormalization layer of ``model``."""
    random = np.random.RandomState(seed)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            shape = layer.moving_mean.shape
            layer.moving_mean.assign(random.uniform(-0.5, 0.5, shape).astype("float32"))
            layer.moving_variance.assign(random.uniform(0.5, 1.5, shape).astype("float32"))
            layer.beta.assign(random.uniform(-0.2, 0.2, shape).astype("float32"))
            layer.gamma.assign(random.uniform(0.8, 1.2, shape).astype("float32"))


def resnet_backbone_arguments(variant: str) -> dict:
    """The constructor arguments of a tiny ResNetBackbone of ``variant``: 2 stacks, 64 and 8 filters."""
    block_type, pre_activation, filters, sizes = RESNET_VARIANTS[variant]
    return {
        "input_conv_filters": filters,
        "input_conv_kernel_sizes": sizes,
        "stackwise_num_filters": [64, 8],  # KerasHub requires 64 first
        "stackwise_num_blocks": [2, 1],
        "stackwise_num_strides": [1, 2],
        "block_type": block_type,
        "use_pre_activation": pre_activation,
        "image_shape": (IMAGE_SIZE, IMAGE_SIZE, 3),
    }


def resnet_preset(folder: str, variant: str) -> str:
    """A random ResNetImageClassifier preset of ``variant`` (32x32 images), saved by KerasHub."""
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.ResNetBackbone(**resnet_backbone_arguments(variant))
    randomize_batch_norms(backbone, seed=1)
    preprocessor = keras_hub.models.ResNetImageClassifierPreprocessor(image_converter=resnet_converter())
    classifier = keras_hub.models.ResNetImageClassifier(
        backbone=backbone, num_classes=NUM_CLASSES, preprocessor=preprocessor
    )
    classifier.output_dense.bias.assign(np.array([0.3, -0.2, 0.1], "float32"))
    classifier.save_to_preset(folder)
    return folder


MOBILENET_ARGUMENTS = {  # two stacks: residual and strided blocks, squeeze and excite, relu and hard swish
    "stackwise_expansion": [[16, 24], [32]],
    "stackwise_num_blocks": [2, 1],
    "stackwise_num_filters": [[8, 8], [16]],
    "stackwise_kernel_size": [[3, 3], [5]],
    "stackwise_num_strides": [[2, 1], [2]],
    "stackwise_se_ratio": [[None, 0.25], [0.25]],
    "stackwise_activation": [["relu", "relu"], ["hard_swish"]],
    "stackwise_padding": [[1, 1], [2]],
    "output_num_filters": None,
    "depthwise_filters": 8,
    "depthwise_stride": 1,
    "depthwise_residual": True,
    "last_layer_filter": 16,
    "squeeze_and_excite": 0.5,
    "input_num_filters": 8,
    "image_shape": (IMAGE_SIZE, IMAGE_SIZE, 3),
}


def mobilenet_converter() -> object:
    """KerasHub's MobileNetImageConverter: resize to 32x32, ImageNet's per-channel normalization."""
    return keras_hub.layers.MobileNetImageConverter(
        image_size=(IMAGE_SIZE, IMAGE_SIZE),
        scale=[1 / (255 * s) for s in STD],
        offset=[-m / s for m, s in zip(MEAN, STD)],
    )


def randomize_nested_batch_norms(model: object, seed: int) -> None:
    """Random statistics and affine parameters in every batch norm of ``model``, nested ones too."""
    random = np.random.RandomState(seed)
    for variable in model.weights:
        kind = variable.path.rsplit("/", 1)[-1]
        low, high = {"moving_mean": (-0.5, 0.5), "moving_variance": (0.5, 1.5), "beta": (-0.2, 0.2)}.get(
            kind, (0.8, 1.2)
        )
        if kind in ("moving_mean", "moving_variance", "beta", "gamma"):
            variable.assign(random.uniform(low, high, variable.shape).astype("float32"))


def mobilenet_preset(folder: str) -> str:
    """A random MobileNetImageClassifier preset (32x32 images, 2 stacks, 16 features) saved by KerasHub."""
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.MobileNetBackbone(**MOBILENET_ARGUMENTS)
    randomize_nested_batch_norms(backbone, seed=1)
    preprocessor = keras_hub.models.MobileNetImageClassifierPreprocessor(image_converter=mobilenet_converter())
    classifier = keras_hub.models.MobileNetImageClassifier(
        backbone=backbone, num_classes=NUM_CLASSES, num_features=16, preprocessor=preprocessor
    )
    classifier.output_dense.bias.assign(np.array([0.3, -0.2, 0.1], "float32"))
    classifier.save_to_preset(folder)
    return folder
