"""InceptionResNetV2 (``keras.applications.inception_resnet_v2``).

    model = InceptionResNetV2(weights=None, include_top=False, input_shape=(75, 75, 3), pooling="avg")
    model = InceptionResNetV2(weights="/path/to/inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5")
    x = preprocess_input(images)          # tf mode: [-1, 1]

Inception branches whose sum, scaled, is added back to their input (``CustomScaleLayer``); the stem,
``mixed_5b`` and ``mixed_6a`` are InceptionV3's blocks with other widths (``inception_blocks``).
"""

from __future__ import annotations

from typing import Any

from tfkit.applications import builder
from tfkit.applications.application_layers import CustomScaleLayer
from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.applications.inception_blocks import (
    conv2d_bn,
    inception_a,
    inception_stem,
    reduction_a,
)
from tfkit.layers import (
    Activation,
    Concatenate,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
)
from tfkit.models import Functional

BASE_WEIGHT_URL = builder.KERAS_WEIGHTS_URL + "inception_resnet_v2/"
# Each block type's branches, in creation order: a branch is a list of (filters, kernel size) convolutions.
BRANCHES = {
    "block35": [[(32, 1)], [(32, 1), (32, 3)], [(32, 1), (48, 3), (64, 3)]],
    "block17": [[(192, 1)], [(128, 1), (160, [1, 7]), (192, [7, 1])]],
    "block8": [[(192, 1)], [(192, 1), (224, [1, 3]), (256, [3, 1])]],
}

preprocess_input = family_preprocess("tf", "Preprocess RGB images in [0, 255] for InceptionResNetV2: scaled to "
                                           "[-1, 1] (Keras's 'tf' mode).")


def inception_resnet_block(x: Any, scale: float, block_type: str, block_idx: int, activation: Any = "relu") -> Any:
    """``x + scale * conv(concat(branches(x)))``, then ``activation`` (Keras's ``inception_resnet_block``)."""
    if block_type not in BRANCHES:
        raise ValueError(f'Unknown Inception-ResNet block type. Expects "block35", "block17" or "block8", but got: '
                         f"{block_type}")
    branches = []
    for plan in BRANCHES[block_type]:
        branch = x
        for filters, kernel_size in plan:
            branch = conv2d_bn(branch, filters, kernel_size)
        branches.append(branch)
    block_name = f"{block_type}_{block_idx}"
    channel_axis = builder.channel_axis(3)
    mixed = Concatenate(axis=channel_axis, name=f"{block_name}_mixed")(branches)
    up = conv2d_bn(mixed, tuple(x.shape)[channel_axis], 1, activation=None, use_bias=True, name=f"{block_name}_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = Activation(activation, name=f"{block_name}_ac")(x)
    return x


def _reduction_b(x: Any) -> Any:
    """17x17 -> 8x8 (``mixed_7a``)."""
    branch_0 = conv2d_bn(x, 256, 1)
    branch_0 = conv2d_bn(branch_0, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(x, 256, 1)
    branch_1 = conv2d_bn(branch_1, 288, 3, strides=2, padding="valid")
    branch_2 = conv2d_bn(x, 256, 1)
    branch_2 = conv2d_bn(branch_2, 288, 3)
    branch_2 = conv2d_bn(branch_2, 320, 3, strides=2, padding="valid")
    branch_pool = MaxPooling2D(3, strides=2, padding="valid")(x)
    return Concatenate(axis=builder.channel_axis(3), name="mixed_7a")([branch_0, branch_1, branch_2, branch_pool])


def InceptionResNetV2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                      input_shape: Any = None, pooling: str | None = None, classes: int = 1000,
                      classifier_activation: Any = "softmax", name: str = "inception_resnet_v2") -> Functional:
    """InceptionResNetV2 (Keras's ``keras.applications.InceptionResNetV2``): 299x299 images by default, at least
    75x75."""
    suffix = "" if include_top else "_notop"
    builder.check_weights(weights, "InceptionResNetV2",
                          f"{BASE_WEIGHT_URL}inception_resnet_v2_weights_tf_dim_ordering_tf_kernels{suffix}.h5")
    input_shape = builder.obtain_input_shape(input_shape, 299, 75, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)

    x = inception_stem(img_input)
    x = inception_a(x, 96, 64, "mixed_5b")
    for block_idx in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=block_idx)
    x = reduction_a(x, 384, (256, 256, 384), "mixed_6a")
    for block_idx in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=block_idx)
    x = _reduction_b(x)
    for block_idx in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=block_idx)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8", block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        builder.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling)
    return builder.finish(inputs, x, name, weights)
