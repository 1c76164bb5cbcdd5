"""Xception (``keras.applications.xception``).

    model = Xception(weights=None, include_top=False, input_shape=(71, 71, 3), pooling="avg")
    model = Xception(weights="/path/to/xception_weights_tf_dim_ordering_tf_kernels.h5")
    x = preprocess_input(images)          # tf mode: [-1, 1]

Entry flow, eight middle blocks and exit flow of separable convolutions, with Keras's layer names
(its unnamed residual convolutions get the same automatic names as in Keras).
"""

from __future__ import annotations

from typing import Any

from tfkit.applications import builder
from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.layers import (
    Activation,
    BatchNormalization,
    Conv2D,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
    SeparableConv2D,
    add,
)
from tfkit.models import Functional

BASE_WEIGHTS_PATH = builder.KERAS_WEIGHTS_URL + "xception/"

preprocess_input = family_preprocess("tf", "Preprocess RGB images in [0, 255] for Xception: scaled to [-1, 1] "
                                           "(Keras's 'tf' mode).")


def _sepconv_bn(x: Any, filters: int, name: str, relu_first: bool = True) -> Any:
    """``{name}_act`` (ReLU, unless ``relu_first`` is false), ``{name}`` (3x3 separable), ``{name}_bn``."""
    if relu_first:
        x = Activation("relu", name=f"{name}_act")(x)
    x = SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return BatchNormalization(axis=builder.channel_axis(-1), name=f"{name}_bn")(x)


def _downsampling_block(x: Any, filters: tuple[int, int], block: int, relu_first: bool = True) -> Any:
    """Two separable convolutions and a strided max pooling, beside a strided 1x1 convolution of the input."""
    residual = Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    residual = BatchNormalization(axis=builder.channel_axis(-1))(residual)
    x = _sepconv_bn(x, filters[0], f"block{block}_sepconv1", relu_first)
    x = _sepconv_bn(x, filters[1], f"block{block}_sepconv2")
    x = MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
    return add([x, residual])


def Xception(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
             pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
             name: str = "xception") -> Functional:
    """Xception (Keras's ``keras.applications.Xception``): 299x299 images by default, at least 71x71."""
    suffix = "" if include_top else "_notop"
    builder.check_weights(weights, "Xception",
                          f"{BASE_WEIGHTS_PATH}xception_weights_tf_dim_ordering_tf_kernels{suffix}.h5")
    input_shape = builder.obtain_input_shape(input_shape, 299, 71, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)
    channel_axis = builder.channel_axis(-1)

    x = Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = BatchNormalization(axis=channel_axis, name="block1_conv1_bn")(x)
    x = Activation("relu", name="block1_conv1_act")(x)
    x = Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = BatchNormalization(axis=channel_axis, name="block1_conv2_bn")(x)
    x = Activation("relu", name="block1_conv2_act")(x)
    x = _downsampling_block(x, (128, 128), 2, relu_first=False)
    x = _downsampling_block(x, (256, 256), 3)
    x = _downsampling_block(x, (728, 728), 4)
    for block in range(5, 13):
        residual = x
        for conv in (1, 2, 3):
            x = _sepconv_bn(x, 728, f"block{block}_sepconv{conv}")
        x = add([x, residual])
    x = _downsampling_block(x, (728, 1024), 13)
    for conv, filters in ((1, 1536), (2, 2048)):
        x = SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=f"block14_sepconv{conv}")(x)
        x = BatchNormalization(axis=channel_axis, name=f"block14_sepconv{conv}_bn")(x)
        x = Activation("relu", name=f"block14_sepconv{conv}_act")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        builder.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling)
    return builder.finish(inputs, x, name, weights)
