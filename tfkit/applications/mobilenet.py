"""MobileNet (v1; ``keras.applications.mobilenet``).

model = MobileNet(weights=None, include_top=False, input_shape=(64, 64, 3), alpha=0.5)
model = MobileNet(weights="/path/to/mobilenet_1_0_224_tf.h5")
x = preprocess_input(images)          # tf mode: [-1, 1]
"""

from __future__ import annotations

from typing import Any

from tfkit.applications import builder
from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.layers import (
    Activation,
    BatchNormalization,
    Conv2D,
    DepthwiseConv2D,
    Dropout,
    GlobalAveragePooling2D,
    ReLU,
    Reshape,
    ZeroPadding2D,
)
from tfkit.models import Functional

BASE_WEIGHT_PATH = builder.KERAS_WEIGHTS_URL + "mobilenet/"
SIZES = (128, 160, 192, 224)
ALPHA_TEXT = {1.0: "1_0", 0.75: "7_5", 0.5: "5_0", 0.25: "2_5"}

preprocess_input = family_preprocess(
    "tf", "Preprocess RGB images in [0, 255] for MobileNet: scaled to [-1, 1] (Keras's 'tf' mode)."
)


def _rows_cols(input_shape: Any) -> tuple[Any, Any]:
    first = builder.channel_axis() == 1
    return (input_shape[1], input_shape[2]) if first else (input_shape[0], input_shape[1])


def MobileNet(
    input_shape: Any = None,
    alpha: float = 1.0,
    depth_multiplier: int = 1,
    dropout: float = 1e-3,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str | None = None,
) -> Functional:
    """Instantiates the MobileNet architecture.

    Reference: MobileNets: Efficient Convolutional Neural Networks for Mobile Vision Applications (Howard et al., 2017),
    https://arxiv.org/abs/1704.04861.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.MobileNet`, so
    Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.mobilenet.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (tf mode:
    scaled to `[-1, 1]`). Keras's ImageNet files exist for square inputs of 128, 160, 192 or 224 pixels and `alpha`
    0.25, 0.5, 0.75 or 1.0.

    Args:
        input_shape: Optional shape tuple `(rows, cols, channels)` (`(channels, rows, cols)` under `"channels_first"`),
            rows and columns at least 32; `None` entries for any size are allowed only when `include_top` is `False`.
            Defaults to `None`: `(224, 224, 3)` with `include_top=True`, `(None, None, 3)` otherwise.
        alpha: The width multiplier: the number of filters of every layer is multiplied by it (below `1.0` thinner,
            above `1.0` wider). Defaults to `1.0`.
        depth_multiplier: The depth multiplier of the depthwise convolutions (the resolution multiplier of the paper).
            Defaults to `1`.
        dropout: The dropout rate before the classifier. Defaults to `1e-3`.
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
        name: The name of the model. Defaults to `None`, for `"mobilenet_{alpha:0.2f}_{rows}"` (e.g.
            `"mobilenet_1.00_224"`).

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        >>> model = tfkit.applications.MobileNet(weights=None, include_top=False, input_shape=(32, 32, 3), alpha=0.25)
        >>> model.name, model.output_shape
        ('mobilenet_0.25_32', (None, 1, 1, 256))
    """
    rows = _rows_cols(input_shape)[0] if input_shape is not None else 224
    rows = rows if input_shape is not None and len(set(_rows_cols(input_shape))) == 1 and rows in SIZES else 224
    file_name = f"mobilenet_{ALPHA_TEXT.get(alpha, '1_0')}_{rows}_tf{'' if include_top else '_no_top'}.h5"
    builder.check_weights(weights, "MobileNet", BASE_WEIGHT_PATH + file_name)
    input_shape = builder.obtain_input_shape(input_shape, rows, 32, include_top, weights)
    rows = _rows_cols(input_shape)[0]
    img_input, inputs = builder.image_input(input_tensor, input_shape)

    x = _conv_block(img_input, 32, alpha, strides=(2, 2))
    plan = [
        (64, 1),
        (128, 2),
        (128, 1),
        (256, 2),
        (256, 1),
        (512, 2),
        (512, 1),
        (512, 1),
        (512, 1),
        (512, 1),
        (512, 1),
        (1024, 2),
        (1024, 1),
    ]
    for block_id, (filters, stride) in enumerate(plan, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, strides=(stride, stride), block_id=block_id)
    if include_top:
        x = GlobalAveragePooling2D(keepdims=True)(x)
        x = Dropout(dropout, name="dropout")(x)
        x = Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = Reshape((classes,), name="reshape_2")(x)
        builder.validate_activation(classifier_activation, weights)
        x = Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling)
    return builder.finish(inputs, x, name or f"mobilenet_{alpha:0.2f}_{rows}", weights)


def _conv_block(
    inputs: Any, filters: int, alpha: float, kernel: tuple[int, int] = (3, 3), strides: tuple[int, int] = (1, 1)
) -> Any:
    channel_axis = builder.channel_axis(-1)
    x = Conv2D(int(filters * alpha), kernel, padding="same", use_bias=False, strides=strides, name="conv1")(inputs)
    x = BatchNormalization(axis=channel_axis, name="conv1_bn")(x)
    return ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(
    inputs: Any,
    pointwise_conv_filters: int,
    alpha: float,
    depth_multiplier: int = 1,
    strides: tuple[int, int] = (1, 1),
    block_id: int = 1,
) -> Any:
    channel_axis = builder.channel_axis(-1)
    x = inputs if strides == (1, 1) else ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(inputs)
    x = DepthwiseConv2D(
        (3, 3),
        padding="same" if strides == (1, 1) else "valid",
        depth_multiplier=depth_multiplier,
        strides=strides,
        use_bias=False,
        name=f"conv_dw_{block_id}",
    )(x)
    x = BatchNormalization(axis=channel_axis, name=f"conv_dw_{block_id}_bn")(x)
    x = ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = Conv2D(
        int(pointwise_conv_filters * alpha),
        (1, 1),
        padding="same",
        use_bias=False,
        strides=(1, 1),
        name=f"conv_pw_{block_id}",
    )(x)
    x = BatchNormalization(axis=channel_axis, name=f"conv_pw_{block_id}_bn")(x)
    return ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)
