"""MobileNetV2 (``keras.applications.mobilenet_v2``).

model = MobileNetV2(weights=None, include_top=False, input_shape=(96, 96, 3), alpha=0.35)
model = MobileNetV2(weights="/path/to/mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_224.h5")
x = preprocess_input(images)          # tf mode: [-1, 1]
"""

from __future__ import annotations

from typing import Any

from tfkit.applications import builder
from tfkit.applications.blocks import make_divisible
from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.layers import (
    Add,
    BatchNormalization,
    Conv2D,
    Dense,
    DepthwiseConv2D,
    GlobalAveragePooling2D,
    ReLU,
    ZeroPadding2D,
)
from tfkit.models import Functional

BASE_WEIGHT_PATH = builder.KERAS_WEIGHTS_URL + "mobilenet_v2/"
SIZES = (96, 128, 160, 192, 224)
# (filters, stride, expansion) of blocks 0..16
BLOCKS = [
    (16, 1, 1),
    (24, 2, 6),
    (24, 1, 6),
    (32, 2, 6),
    (32, 1, 6),
    (32, 1, 6),
    (64, 2, 6),
    (64, 1, 6),
    (64, 1, 6),
    (64, 1, 6),
    (96, 1, 6),
    (96, 1, 6),
    (96, 1, 6),
    (160, 2, 6),
    (160, 1, 6),
    (160, 1, 6),
    (320, 1, 6),
]

preprocess_input = family_preprocess(
    "tf", "Preprocess RGB images in [0, 255] for MobileNetV2: scaled to [-1, 1] (Keras's 'tf' mode)."
)


def _square_size(shape: Any, offset: int) -> int:
    """Keras's default size: the rows when the image is square and one of ``SIZES``, else 224."""
    first = builder.channel_axis() == 1
    rows, cols = (shape[offset + 1], shape[offset + 2]) if first else (shape[offset], shape[offset + 1])
    return rows if rows == cols and rows in SIZES else 224


def MobileNetV2(
    input_shape: Any = None,
    alpha: float = 1.0,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str | None = None,
) -> Functional:
    """Instantiates the MobileNetV2 architecture.

    Reference: MobileNetV2: Inverted Residuals and Linear Bottlenecks (Sandler et al., CVPR 2018),
    https://arxiv.org/abs/1801.04381.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.MobileNetV2`,
    so Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.mobilenet_v2.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (tf
    mode: scaled to `[-1, 1]`). Keras's ImageNet files exist for square inputs of 96, 128, 160, 192 or 224 pixels and
    `alpha` 0.35, 0.5, 0.75, 1.0, 1.3 or 1.4.

    Args:
        input_shape: Optional shape tuple `(rows, cols, channels)` (`(channels, rows, cols)` under `"channels_first"`),
            rows and columns at least 32; `None` entries for any size are allowed only when `include_top` is `False`.
            Defaults to `None`: `(224, 224, 3)` with `include_top=True`, `(None, None, 3)` otherwise.
        alpha: The width multiplier: the number of filters of every layer is multiplied by it (below `1.0` thinner,
            above `1.0` wider). Defaults to `1.0`.
        include_top: Whether to include the classifier at the top of the network. Defaults to `True`.
        weights: `None` (random initialization), `"imagenet"`, or the path of a weights file. tfkit never downloads:
            `"imagenet"` (the default, as in Keras) raises a `ValueError` naming Keras's file for this model and how to
            pass a local copy by path. A path (a Keras `.h5` or `.weights.h5` file or a tfkit weights file of the same
            model, built with the same `include_top`) is loaded with `Model.load_weights` once the model is built.
            Defaults to `"imagenet"`.
        input_tensor: Optional symbolic tensor (`tfkit.Input(...)`, or a layer's output on one) to use as the image
            input; the model's inputs are then that tensor's source inputs. Defaults to `None`.
        pooling: Optional pooling mode for feature extraction when `include_top` is `False`: `None` (the default) for
            the 4D output of the last convolutional block, `"avg"` for global average pooling or `"max"` for global max
            pooling, either giving a 2D output.
        classes: The number of classes to classify images into, used only when `include_top` is `True`; with a weights
            file it must match the file. Defaults to `1000`.
        classifier_activation: The activation of the classifier, a name or a callable; `None` returns the logits. Used
            only when `include_top` is `True`; with a weights file only `None` and `"softmax"` are allowed. Defaults to
            `"softmax"`.
        name: The name of the model. Defaults to `None`, for `"mobilenetv2_{alpha:0.2f}_{rows}"` (e.g.
            `"mobilenetv2_1.00_224"`).

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file. Also if both `input_tensor` and `input_shape` are given
            and their widths differ.

    Example:
        `weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives random weights:

        >>> tfkit.applications.MobileNetV2(alpha=0.35)
        Traceback (most recent call last):
        ...
        ValueError: MobileNetV2: weights='imagenet' needs Keras's pretrained file, and tfkit does not ...
    """
    if input_shape is not None and input_tensor is not None and tuple(input_tensor.shape)[2] != input_shape[1]:
        raise ValueError(
            f"input_tensor.shape[2] must equal input_shape[1]; Received "
            f"`input_tensor.shape={input_tensor.shape}`, `input_shape={input_shape}`"
        )
    if input_shape is not None:
        default_size = _square_size(input_shape, 0)
    elif input_tensor is not None and hasattr(input_tensor, "shape"):
        default_size = _square_size(tuple(input_tensor.shape), 1)
    else:
        default_size = 224
    suffix = "" if include_top else "_no_top"
    builder.check_weights(
        weights,
        "MobileNetV2",
        f"{BASE_WEIGHT_PATH}mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{default_size}{suffix}.h5",
    )
    input_shape = builder.obtain_input_shape(input_shape, default_size, 32, include_top, weights)
    rows = input_shape[1] if builder.channel_axis() == 1 else input_shape[0]
    img_input, inputs = builder.image_input(input_tensor, input_shape)
    channel_axis = builder.channel_axis(-1)

    x = Conv2D(
        make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2), padding="same", use_bias=False, name="Conv1"
    )(img_input)
    x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride, expansion=expansion, block_id=block_id)
    last_block_filters = make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = Conv2D(last_block_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = GlobalAveragePooling2D()(x)
        builder.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling)
    return builder.finish(inputs, x, name or f"mobilenetv2_{alpha:0.2f}_{rows}", weights)


def _inverted_res_block(inputs: Any, expansion: int, stride: int, alpha: float, filters: int, block_id: int) -> Any:
    channel_axis = builder.channel_axis(-1)
    in_channels = tuple(inputs.shape)[channel_axis]
    pointwise_filters = make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = Conv2D(
            expansion * in_channels,
            kernel_size=1,
            padding="same",
            use_bias=False,
            activation=None,
            name=f"{prefix}expand",
        )(x)
        x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name=f"{prefix}expand_BN")(x)
        x = ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = ZeroPadding2D(padding=builder.correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = DepthwiseConv2D(
        kernel_size=3,
        strides=stride,
        activation=None,
        use_bias=False,
        padding="same" if stride == 1 else "valid",
        name=f"{prefix}depthwise",
    )(x)
    x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name=f"{prefix}depthwise_BN")(x)
    x = ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = Conv2D(
        pointwise_filters, kernel_size=1, padding="same", use_bias=False, activation=None, name=f"{prefix}project"
    )(x)
    x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name=f"{prefix}project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return Add(name=f"{prefix}add")([inputs, x])
    return x
