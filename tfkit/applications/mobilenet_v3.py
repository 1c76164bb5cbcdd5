"""MobileNetV3Small and MobileNetV3Large (``keras.applications.mobilenet_v3``).

    model = MobileNetV3Small(weights=None, include_top=False, input_shape=(96, 96, 3), pooling="avg")
    model = MobileNetV3Large(weights="/path/to/weights_mobilenet_v3_large_224_1.0_float.h5")
    x = preprocess_input(images)          # nothing to do: the model rescales pixels in [0, 255] itself

``include_preprocessing=False`` drops the model's ``Rescaling`` (inputs then in [-1, 1]).
``minimalistic=True`` gives the variants without squeeze-and-excitation, hard-swish or 5x5 kernels.
"""

from __future__ import annotations

from typing import Any, Callable

from tfkit.applications import builder
from tfkit.applications.blocks import make_divisible
from tfkit.applications.imagenet_utils import decode_predictions  # noqa: F401
from tfkit.layers import (
    Activation,
    Add,
    BatchNormalization,
    Conv2D,
    DepthwiseConv2D,
    Dropout,
    Flatten,
    GlobalAveragePooling2D,
    Multiply,
    ReLU,
    Rescaling,
    ZeroPadding2D,
)
from tfkit.models import Functional

BASE_WEIGHT_PATH = builder.KERAS_WEIGHTS_URL + "mobilenet_v3/"
# Inverted residual blocks in order: (expansion, filters, kernel, stride, squeeze-excite, activation), where
# kernel "k" is 5 (3 when minimalistic), squeeze-excite "se" is 0.25 (none when minimalistic) and activation
# "act" is hard-swish (ReLU when minimalistic).
SMALL_BLOCKS = [
    (1, 16, 3, 2, "se", "relu"),
    (72 / 16, 24, 3, 2, None, "relu"),
    (88 / 24, 24, 3, 1, None, "relu"),
    (4, 40, "k", 2, "se", "act"),
    (6, 40, "k", 1, "se", "act"),
    (6, 40, "k", 1, "se", "act"),
    (3, 48, "k", 1, "se", "act"),
    (3, 48, "k", 1, "se", "act"),
    (6, 96, "k", 2, "se", "act"),
    (6, 96, "k", 1, "se", "act"),
    (6, 96, "k", 1, "se", "act"),
]
LARGE_BLOCKS = [
    (1, 16, 3, 1, None, "relu"),
    (4, 24, 3, 2, None, "relu"),
    (3, 24, 3, 1, None, "relu"),
    (3, 40, "k", 2, "se", "relu"),
    (3, 40, "k", 1, "se", "relu"),
    (3, 40, "k", 1, "se", "relu"),
    (6, 80, 3, 2, None, "act"),
    (2.5, 80, 3, 1, None, "act"),
    (2.3, 80, 3, 1, None, "act"),
    (2.3, 80, 3, 1, None, "act"),
    (6, 112, 3, 1, "se", "act"),
    (6, 112, 3, 1, "se", "act"),
    (6, 160, "k", 2, "se", "act"),
    (6, 160, "k", 1, "se", "act"),
    (6, 160, "k", 1, "se", "act"),
]


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """A placeholder, as in Keras: MobileNetV3 models take RGB pixels in [0, 255] and rescale them inside."""
    return x


def relu(x: Any) -> Any:
    return ReLU()(x)


def hard_sigmoid(x: Any) -> Any:
    return ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def hard_swish(x: Any) -> Any:
    return Activation("hard_swish")(x)


def _input_shape(input_shape: Any, input_tensor: Any) -> tuple[Any, ...]:
    """Keras's rule: ``input_shape``, else the tensor's image size (rows and columns swapped, as Keras does),
    else any size."""
    first = builder.channel_axis() == 1
    if input_shape is not None and input_tensor is not None:
        axis, position = (1, 1) if first else (2, 1)
        if tuple(input_tensor.shape)[axis] != input_shape[position]:
            raise ValueError(
                f"input_shape[1] must equal input_tensor.shape[{axis}].  Received "
                f"input_shape={input_shape}, input_tensor.shape={input_tensor.shape}"
            )
    if input_shape is None and input_tensor is not None:
        shape = tuple(input_tensor.shape)
        rows, cols = (shape[2], shape[3]) if first else (shape[1], shape[2])
        input_shape = (3, cols, rows) if first else (cols, rows, 3)
    if input_shape is None:
        input_shape = (3, None, None) if first else (None, None, 3)
    input_shape = tuple(input_shape)
    rows, cols = input_shape[1:3] if first else input_shape[0:2]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; Received `input_shape={input_shape}`")
    return input_shape


def MobileNetV3(
    blocks: list[tuple[Any, ...]],
    last_point_ch: int,
    input_shape: Any = None,
    alpha: float = 1.0,
    model_type: str = "large",
    minimalistic: bool = False,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    classes: int = 1000,
    pooling: str | None = None,
    dropout_rate: float = 0.2,
    classifier_activation: Any = "softmax",
    include_preprocessing: bool = True,
    name: str | None = None,
) -> Functional:
    """The MobileNetV3 skeleton around ``blocks`` (Keras's ``mobilenet_v3.MobileNetV3``)."""
    function = f"MobileNetV3{model_type.capitalize()}"
    if weights == "imagenet" and (alpha not in (0.75, 1.0) if not minimalistic else alpha != 1.0):
        raise ValueError(
            "If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for non "
            "minimalistic or `1.0` for minimalistic only."
        )
    model_name = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    file_name = f"weights_mobilenet_v3_{model_name}{'' if include_top else '_no_top_v2'}.h5"
    builder.check_weights(weights, function, BASE_WEIGHT_PATH + file_name)
    input_shape = _input_shape(input_shape, input_tensor)
    img_input, inputs = builder.image_input(input_tensor, input_shape)
    channel_axis = builder.channel_axis(-1)
    kernel, activation, se_ratio = (3, relu, None) if minimalistic else (5, hard_swish, 0.25)

    x = img_input
    if include_preprocessing:
        x = Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False, name="conv")(x)
    x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name="conv_bn")(x)
    x = activation(x)
    for block_id, (expansion, filters, size, stride, se, act) in enumerate(blocks):
        x = _inverted_res_block(
            x,
            expansion,
            make_divisible(filters * alpha),
            kernel if size == "k" else size,
            stride,
            se_ratio if se else None,
            activation if act == "act" else relu,
            block_id,
        )
    last_conv_ch = make_divisible(tuple(x.shape)[channel_axis] * 6)
    if alpha > 1.0:
        last_point_ch = make_divisible(last_point_ch * alpha)
    x = Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False, name="conv_1")(x)
    x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name="conv_1_bn")(x)
    x = activation(x)
    if include_top:
        x = GlobalAveragePooling2D(keepdims=True)(x)
        x = Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True, name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = Dropout(dropout_rate)(x)
        x = Conv2D(classes, kernel_size=1, padding="same", name="logits")(x)
        x = Flatten()(x)
        builder.validate_activation(classifier_activation, weights)
        x = Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling, "avg_pool", "max_pool")
    return builder.finish(inputs, x, name, weights)


def _se_block(inputs: Any, filters: int, se_ratio: float, prefix: str) -> Any:
    x = GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(inputs)
    x = Conv2D(make_divisible(filters * se_ratio), kernel_size=1, padding="same", name=f"{prefix}squeeze_excite_conv")(
        x
    )
    x = ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = Conv2D(filters, kernel_size=1, padding="same", name=f"{prefix}squeeze_excite_conv_1")(x)
    x = hard_sigmoid(x)
    return Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(
    x: Any,
    expansion: float,
    filters: int,
    kernel_size: int,
    stride: int,
    se_ratio: float | None,
    activation: Callable[[Any], Any],
    block_id: int,
) -> Any:
    channel_axis = builder.channel_axis(-1)
    shortcut = x
    prefix = "expanded_conv_"
    infilters = tuple(x.shape)[channel_axis]
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = Conv2D(
            make_divisible(infilters * expansion), kernel_size=1, padding="same", use_bias=False, name=f"{prefix}expand"
        )(x)
        x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name=f"{prefix}expand_bn")(x)
        x = activation(x)
    if stride == 2:
        x = ZeroPadding2D(padding=builder.correct_pad(x, kernel_size), name=f"{prefix}depthwise_pad")(x)
    x = DepthwiseConv2D(
        kernel_size,
        strides=stride,
        padding="same" if stride == 1 else "valid",
        use_bias=False,
        name=f"{prefix}depthwise",
    )(x)
    x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name=f"{prefix}depthwise_bn")(x)
    x = activation(x)
    if se_ratio:
        x = _se_block(x, make_divisible(infilters * expansion), se_ratio, prefix)
    x = Conv2D(filters, kernel_size=1, padding="same", use_bias=False, name=f"{prefix}project")(x)
    x = BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name=f"{prefix}project_bn")(x)
    if stride == 1 and infilters == filters:
        x = Add(name=f"{prefix}add")([shortcut, x])
    return x


def MobileNetV3Small(
    input_shape: Any = None,
    alpha: float = 1.0,
    minimalistic: bool = False,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    classes: int = 1000,
    pooling: str | None = None,
    dropout_rate: float = 0.2,
    classifier_activation: Any = "softmax",
    include_preprocessing: bool = True,
    name: str = "MobileNetV3Small",
) -> Functional:
    """Instantiates the MobileNetV3Small architecture.

    Reference: Searching for MobileNetV3 (Howard et al., ICCV 2019), https://arxiv.org/abs/1905.02244.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's
    `keras.applications.MobileNetV3Small`, so Keras's weight files load by path; tfkit never downloads them (see
    `weights`).

    The model takes RGB pixels in `[0, 255]` and rescales them itself (`include_preprocessing`), so
    `tfkit.applications.mobilenet_v3.preprocess_input` returns its input unchanged. Any image size of at least 32x32
    works, also with the classifier on top. Keras's ImageNet files exist for `alpha` 0.75 and 1.0 (1.0 only when
    `minimalistic`).

    Args:
        input_shape: Optional shape tuple `(rows, cols, channels)` (`(channels, rows, cols)` under `"channels_first"`),
            rows and columns at least 32 or `None`. With `input_tensor` and no `input_shape`, the tensor's image size is
            used. Defaults to `None`: `(None, None, 3)`, any image size, also with `include_top=True`.
        alpha: The width multiplier: the number of filters of every layer is multiplied by it, rounded to a multiple of
            8 (below `1.0` thinner, above `1.0` wider). Defaults to `1.0`.
        minimalistic: Whether to build the minimalistic variant, without squeeze-and-excitation, hard-swish or 5x5
            convolutions (for hardware where those are slow). Defaults to `False`.
        include_top: Whether to include the classifier at the top of the network. Defaults to `True`.
        weights: `None` (random initialization), `"imagenet"`, or the path of a weights file. tfkit never downloads:
            `"imagenet"` (the default, as in Keras) raises a `ValueError` naming Keras's file for this model and how to
            pass a local copy by path. A path (a Keras `.h5` or `.weights.h5` file or a tfkit weights file of the same
            model, built with the same `include_top`) is loaded with `Model.load_weights` once the model is built.
            Defaults to `"imagenet"`.
        input_tensor: Optional symbolic tensor (`tfkit.Input(...)`, or a layer's output on one) to use as the image
            input; the model's inputs are then that tensor's source inputs. Defaults to `None`.
        classes: The number of classes to classify images into, used only when `include_top` is `True`; with a weights
            file it must match the file. Defaults to `1000`.
        pooling: Optional pooling mode for feature extraction when `include_top` is `False`: `None` (the default) for
            the 4D output of the last convolutional block, `"avg"` for global average pooling or `"max"` for global max
            pooling, either giving a 2D output.
        dropout_rate: The dropout rate before the last layer when `include_top` is `True`; `0` for none. Defaults to
            `0.2`.
        classifier_activation: The activation of the classifier, a name or a callable; `None` returns the logits. Used
            only when `include_top` is `True`; with a weights file only `None` and `"softmax"` are allowed. Defaults to
            `"softmax"`.
        include_preprocessing: Whether the model starts with a `Rescaling` layer mapping pixels in `[0, 255]` to `[-1,
            1]`; with `False`, feed inputs already in `[-1, 1]`. Defaults to `True`.
        name: The name of the model. Defaults to `"MobileNetV3Small"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is `"imagenet"` (with an `alpha` Keras has no file for, that error comes first) or the
            path of a missing file, if the image size is below 32x32, if both `input_tensor` and `input_shape` are given
            and their widths differ, if `input_tensor` is not symbolic, or if `classifier_activation` is neither `None`
            nor `"softmax"` with a weights file.

    Example:
        >>> model = tfkit.applications.MobileNetV3Small(weights=None, input_shape=(32, 32, 3), include_top=False)
        >>> model.output_shape
        (None, 1, 1, 576)
        >>> model.count_params()
        939120
    """
    return MobileNetV3(
        SMALL_BLOCKS,
        1024,
        input_shape,
        alpha,
        "small",
        minimalistic,
        include_top,
        weights,
        input_tensor,
        classes,
        pooling,
        dropout_rate,
        classifier_activation,
        include_preprocessing,
        name=name,
    )


def MobileNetV3Large(
    input_shape: Any = None,
    alpha: float = 1.0,
    minimalistic: bool = False,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    classes: int = 1000,
    pooling: str | None = None,
    dropout_rate: float = 0.2,
    classifier_activation: Any = "softmax",
    include_preprocessing: bool = True,
    name: str = "MobileNetV3Large",
) -> Functional:
    """Instantiates the MobileNetV3Large architecture.

    Reference: Searching for MobileNetV3 (Howard et al., ICCV 2019), https://arxiv.org/abs/1905.02244.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's
    `keras.applications.MobileNetV3Large`, so Keras's weight files load by path; tfkit never downloads them (see
    `weights`).

    The model takes RGB pixels in `[0, 255]` and rescales them itself (`include_preprocessing`), so
    `tfkit.applications.mobilenet_v3.preprocess_input` returns its input unchanged. Any image size of at least 32x32
    works, also with the classifier on top. Keras's ImageNet files exist for `alpha` 0.75 and 1.0 (1.0 only when
    `minimalistic`).

    Args:
        input_shape: Optional shape tuple `(rows, cols, channels)` (`(channels, rows, cols)` under `"channels_first"`),
            rows and columns at least 32 or `None`. With `input_tensor` and no `input_shape`, the tensor's image size is
            used. Defaults to `None`: `(None, None, 3)`, any image size, also with `include_top=True`.
        alpha: The width multiplier: the number of filters of every layer is multiplied by it, rounded to a multiple of
            8 (below `1.0` thinner, above `1.0` wider). Defaults to `1.0`.
        minimalistic: Whether to build the minimalistic variant, without squeeze-and-excitation, hard-swish or 5x5
            convolutions (for hardware where those are slow). Defaults to `False`.
        include_top: Whether to include the classifier at the top of the network. Defaults to `True`.
        weights: `None` (random initialization), `"imagenet"`, or the path of a weights file. tfkit never downloads:
            `"imagenet"` (the default, as in Keras) raises a `ValueError` naming Keras's file for this model and how to
            pass a local copy by path. A path (a Keras `.h5` or `.weights.h5` file or a tfkit weights file of the same
            model, built with the same `include_top`) is loaded with `Model.load_weights` once the model is built.
            Defaults to `"imagenet"`.
        input_tensor: Optional symbolic tensor (`tfkit.Input(...)`, or a layer's output on one) to use as the image
            input; the model's inputs are then that tensor's source inputs. Defaults to `None`.
        classes: The number of classes to classify images into, used only when `include_top` is `True`; with a weights
            file it must match the file. Defaults to `1000`.
        pooling: Optional pooling mode for feature extraction when `include_top` is `False`: `None` (the default) for
            the 4D output of the last convolutional block, `"avg"` for global average pooling or `"max"` for global max
            pooling, either giving a 2D output.
        dropout_rate: The dropout rate before the last layer when `include_top` is `True`; `0` for none. Defaults to
            `0.2`.
        classifier_activation: The activation of the classifier, a name or a callable; `None` returns the logits. Used
            only when `include_top` is `True`; with a weights file only `None` and `"softmax"` are allowed. Defaults to
            `"softmax"`.
        include_preprocessing: Whether the model starts with a `Rescaling` layer mapping pixels in `[0, 255]` to `[-1,
            1]`; with `False`, feed inputs already in `[-1, 1]`. Defaults to `True`.
        name: The name of the model. Defaults to `"MobileNetV3Large"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is `"imagenet"` (with an `alpha` Keras has no file for, that error comes first) or the
            path of a missing file, if the image size is below 32x32, if both `input_tensor` and `input_shape` are given
            and their widths differ, if `input_tensor` is not symbolic, or if `classifier_activation` is neither `None`
            nor `"softmax"` with a weights file.

    Example:
        >>> tfkit.applications.MobileNetV3Large(weights=None, input_shape=(16, 16, 3))
        Traceback (most recent call last):
        ...
        ValueError: Input size must be at least 32x32; Received `input_shape=(16, 16, 3)`
    """
    return MobileNetV3(
        LARGE_BLOCKS,
        1280,
        input_shape,
        alpha,
        "large",
        minimalistic,
        include_top,
        weights,
        input_tensor,
        classes,
        pooling,
        dropout_rate,
        classifier_activation,
        include_preprocessing,
        name=name,
    )
