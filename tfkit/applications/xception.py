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

preprocess_input = family_preprocess(
    "tf", "Preprocess RGB images in [0, 255] for Xception: scaled to [-1, 1] (Keras's 'tf' mode)."
)


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


def Xception(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "xception",
) -> Functional:
    """Instantiates the Xception architecture.

    Reference: Xception: Deep Learning with Depthwise Separable Convolutions (Chollet, CVPR 2017),
    https://arxiv.org/abs/1610.02357.

    An entry flow, eight middle blocks and an exit flow of depthwise separable convolutions. tfkit builds the same
    layers, with the same names and weight order, as Keras 3's `keras.applications.Xception`, so Keras's weight files
    load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.xception.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (tf mode:
    scaled to `[-1, 1]`). The default input size is 299x299.

    Args:
        include_top: Whether to include the classifier at the top of the network. Defaults to `True`.
        weights: `None` (random initialization), `"imagenet"`, or the path of a weights file. tfkit never downloads:
            `"imagenet"` (the default, as in Keras) raises a `ValueError` naming Keras's file for this model and how to
            pass a local copy by path. A path (a Keras `.h5` or `.weights.h5` file or a tfkit weights file of the same
            model, built with the same `include_top`) is loaded with `Model.load_weights` once the model is built.
            Defaults to `"imagenet"`.
        input_tensor: Optional symbolic tensor (`tfkit.Input(...)`, or a layer's output on one) to use as the image
            input; the model's inputs are then that tensor's source inputs. Defaults to `None`.
        input_shape: Optional shape tuple `(rows, cols, channels)` (`(channels, rows, cols)` under `"channels_first"`),
            rows and columns at least 71; `None` entries for any size are allowed only when `include_top` is `False`.
            Inputs with other than 1 or 3 channels get a warning. Defaults to `None`: `(299, 299, 3)` with
            `include_top=True`, `(None, None, 3)` otherwise.
        pooling: Optional pooling mode for feature extraction when `include_top` is `False`: `None` (the default) for
            the 4D output of the last convolutional block, `"avg"` for global average pooling or `"max"` for global max
            pooling, either giving a 2D output.
        classes: The number of classes to classify images into, used only when `include_top` is `True`; with a weights
            file it must match the file. Defaults to `1000`.
        classifier_activation: The activation of the classifier, a name or a callable; `None` returns the logits. Used
            only when `include_top` is `True`; with a weights file only `None` and `"softmax"` are allowed. Defaults to
            `"softmax"`.
        name: The name of the model. Defaults to `"xception"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 71x71, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        >>> tfkit.applications.Xception(weights=None, include_top=False, input_shape=(64, 64, 3))
        Traceback (most recent call last):
        ...
        ValueError: Input size must be at least 71x71; Received: input_shape=(64, 64, 3)
    """
    suffix = "" if include_top else "_notop"
    builder.check_weights(
        weights, "Xception", f"{BASE_WEIGHTS_PATH}xception_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    )
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
