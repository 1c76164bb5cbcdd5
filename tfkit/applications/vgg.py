"""The VGG16/VGG19 skeleton both ``vgg16`` and ``vgg19`` build on (Keras's two files, written once).

model = VGG((2, 2, 3, 3, 3), "vgg16", weights=None, include_top=False, input_shape=(64, 64, 3))
model = VGG((2, 2, 4, 4, 4), "vgg19", weights=None, include_top=True, classes=10, input_shape=(32, 32, 3))
x = preprocess_input(images)          # caffe mode, as both Keras modules use
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.applications import builder
from tfkit.applications.imagenet_utils import family_preprocess
from tfkit.layers import Conv2D, Dense, Flatten, MaxPooling2D
from tfkit.models import Functional

preprocess_input = family_preprocess(
    "caffe",
    "Preprocess RGB images in [0, 255] for VGG: RGB->BGR, minus the ImageNet mean, no scaling (Keras's 'caffe' mode).",
)


def VGG(
    convs_per_block: Sequence[int],
    weights_name: str,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str | None = None,
) -> Functional:
    """Five blocks of 3x3 convolutions (``convs_per_block``) and max pooling, then the fully connected top."""
    suffix = "" if include_top else "_notop"
    builder.check_weights(
        weights,
        weights_name.upper(),
        f"{builder.KERAS_WEIGHTS_URL}{weights_name}/{weights_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5",
    )
    input_shape = builder.obtain_input_shape(input_shape, 224, 32, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)
    x = img_input
    for block, (convs, filters) in enumerate(zip(convs_per_block, (64, 128, 256, 512, 512)), start=1):
        for conv in range(1, convs + 1):
            x = Conv2D(filters, (3, 3), activation="relu", padding="same", name=f"block{block}_conv{conv}")(x)
        x = MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = Flatten(name="flatten")(x)
        x = Dense(4096, activation="relu", name="fc1")(x)
        x = Dense(4096, activation="relu", name="fc2")(x)
        builder.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling)
    return builder.finish(inputs, x, name or weights_name, weights)
