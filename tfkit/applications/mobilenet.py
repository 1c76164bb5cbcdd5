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

preprocess_input = family_preprocess("tf", "Preprocess RGB images in [0, 255] for MobileNet: scaled to [-1, 1] "
                                           "(Keras's 'tf' mode).")


def _rows_cols(input_shape: Any) -> tuple[Any, Any]:
    first = builder.channel_axis() == 1
    return (input_shape[1], input_shape[2]) if first else (input_shape[0], input_shape[1])


def MobileNet(input_shape: Any = None, alpha: float = 1.0, depth_multiplier: int = 1, dropout: float = 1e-3,
              include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
              name: str | None = None) -> Functional:
    """MobileNet (Keras's ``keras.applications.MobileNet``): ``alpha`` scales the width, ``depth_multiplier`` the
    depthwise convolutions."""
    rows = _rows_cols(input_shape)[0] if input_shape is not None else 224
    rows = rows if input_shape is not None and len(set(_rows_cols(input_shape))) == 1 and rows in SIZES else 224
    file_name = f"mobilenet_{ALPHA_TEXT.get(alpha, '1_0')}_{rows}_tf{'' if include_top else '_no_top'}.h5"
    builder.check_weights(weights, "MobileNet", BASE_WEIGHT_PATH + file_name)
    input_shape = builder.obtain_input_shape(input_shape, rows, 32, include_top, weights)
    rows = _rows_cols(input_shape)[0]
    img_input, inputs = builder.image_input(input_tensor, input_shape)

    x = _conv_block(img_input, 32, alpha, strides=(2, 2))
    plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1), (512, 1), (512, 1),
            (512, 1), (1024, 2), (1024, 1)]
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


def _conv_block(inputs: Any, filters: int, alpha: float, kernel: tuple[int, int] = (3, 3),
                strides: tuple[int, int] = (1, 1)) -> Any:
    channel_axis = builder.channel_axis(-1)
    x = Conv2D(int(filters * alpha), kernel, padding="same", use_bias=False, strides=strides, name="conv1")(inputs)
    x = BatchNormalization(axis=channel_axis, name="conv1_bn")(x)
    return ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(inputs: Any, pointwise_conv_filters: int, alpha: float, depth_multiplier: int = 1,
                          strides: tuple[int, int] = (1, 1), block_id: int = 1) -> Any:
    channel_axis = builder.channel_axis(-1)
    x = inputs if strides == (1, 1) else ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(inputs)
    x = DepthwiseConv2D((3, 3), padding="same" if strides == (1, 1) else "valid", depth_multiplier=depth_multiplier,
                        strides=strides, use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = BatchNormalization(axis=channel_axis, name=f"conv_dw_{block_id}_bn")(x)
    x = ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = Conv2D(int(pointwise_conv_filters * alpha), (1, 1), padding="same", use_bias=False, strides=(1, 1),
               name=f"conv_pw_{block_id}")(x)
    x = BatchNormalization(axis=channel_axis, name=f"conv_pw_{block_id}_bn")(x)
    return ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)

