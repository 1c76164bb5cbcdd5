"""EfficientNetB0 ... EfficientNetB7 (``keras.applications.efficientnet``).

    model = EfficientNetB0(weights=None, include_top=False, input_shape=(64, 64, 3), pooling="avg")
    model = EfficientNetB0(weights="/path/to/efficientnetb0_notop.h5", include_top=False)
    x = preprocess_input(images)          # nothing to do: the model rescales and normalises its input itself

Keras adds ``Rescaling(1 / sqrt(ImageNet std))`` after the ``Normalization``
layer only for its own ImageNet weights; tfkit adds it when ``weights`` is a
local copy of that file (named ``efficientnetb0.h5``, ``..._notop.h5``, as
Keras names them), so such a file gives Keras's ImageNet model.
"""

from __future__ import annotations

import copy
import math
import os
from typing import Any

from tfkit.applications import builder
from tfkit.applications.blocks import CONV_KERNEL_INITIALIZER, make_divisible, squeeze_excite
from tfkit.applications.imagenet_utils import decode_predictions  # noqa: F401
from tfkit.layers import (
    Activation,
    BatchNormalization,
    Conv2D,
    Dense,
    DepthwiseConv2D,
    Dropout,
    GlobalAveragePooling2D,
    Normalization,
    Rescaling,
    ZeroPadding2D,
    add,
)
from tfkit.models import Functional

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/keras-applications/"
DEFAULT_BLOCKS_ARGS = [
    {
        "kernel_size": 3,
        "repeats": 1,
        "filters_in": 32,
        "filters_out": 16,
        "expand_ratio": 1,
        "id_skip": True,
        "strides": 1,
        "se_ratio": 0.25,
    },
    {
        "kernel_size": 3,
        "repeats": 2,
        "filters_in": 16,
        "filters_out": 24,
        "expand_ratio": 6,
        "id_skip": True,
        "strides": 2,
        "se_ratio": 0.25,
    },
    {
        "kernel_size": 5,
        "repeats": 2,
        "filters_in": 24,
        "filters_out": 40,
        "expand_ratio": 6,
        "id_skip": True,
        "strides": 2,
        "se_ratio": 0.25,
    },
    {
        "kernel_size": 3,
        "repeats": 3,
        "filters_in": 40,
        "filters_out": 80,
        "expand_ratio": 6,
        "id_skip": True,
        "strides": 2,
        "se_ratio": 0.25,
    },
    {
        "kernel_size": 5,
        "repeats": 3,
        "filters_in": 80,
        "filters_out": 112,
        "expand_ratio": 6,
        "id_skip": True,
        "strides": 1,
        "se_ratio": 0.25,
    },
    {
        "kernel_size": 5,
        "repeats": 4,
        "filters_in": 112,
        "filters_out": 192,
        "expand_ratio": 6,
        "id_skip": True,
        "strides": 2,
        "se_ratio": 0.25,
    },
    {
        "kernel_size": 3,
        "repeats": 1,
        "filters_in": 192,
        "filters_out": 320,
        "expand_ratio": 6,
        "id_skip": True,
        "strides": 1,
        "se_ratio": 0.25,
    },
]
DENSE_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"},
}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """A placeholder, as in Keras: EfficientNet models take RGB pixels in [0, 255] and preprocess them inside."""
    return x


def EfficientNet(
    width_coefficient: float,
    depth_coefficient: float,
    default_size: int,
    dropout_rate: float = 0.2,
    drop_connect_rate: float = 0.2,
    depth_divisor: int = 8,
    activation: Any = "swish",
    blocks_args: Any = "default",
    name: str = "efficientnet",
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    weights_name: str | None = None,
) -> Functional:
    """The EfficientNet family's builder (Keras's ``efficientnet.EfficientNet``)."""
    blocks_args = DEFAULT_BLOCKS_ARGS if blocks_args == "default" else blocks_args
    imagenet_file = f"{name}{'' if include_top else '_notop'}.h5"
    builder.check_weights(weights, f"model {name!r}", BASE_WEIGHTS_PATH + imagenet_file)
    imagenet = weights is not None and os.path.basename(os.fspath(weights)) == imagenet_file
    input_shape = builder.obtain_input_shape(input_shape, default_size, 32, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)
    bn_axis = builder.channel_axis(3)

    def round_filters(filters: float) -> int:
        return make_divisible(filters * width_coefficient, depth_divisor)

    def round_repeats(repeats: int) -> int:
        return int(math.ceil(depth_coefficient * repeats))

    x = Rescaling(1.0 / 255.0)(img_input)
    x = Normalization(axis=bn_axis)(x)
    if imagenet:
        x = Rescaling([1.0 / math.sqrt(stddev) for stddev in IMAGENET_STDDEV_RGB])(x)
    x = ZeroPadding2D(padding=builder.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = conv_bn_activation(x, round_filters(32), 3, activation, "stem_", strides=2, padding="valid")

    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(round_repeats(args["repeats"]) for args in blocks_args))
    for i, args in enumerate(blocks_args):
        if args["repeats"] <= 0:
            raise ValueError(
                f"The number of repeats in `EfficientNet` must be > 0. Received: repeats={args['repeats']}"
            )
        args["filters_in"] = round_filters(args["filters_in"])
        args["filters_out"] = round_filters(args["filters_out"])
        for j in range(round_repeats(args.pop("repeats"))):
            if j > 0:
                args["strides"] = 1
                args["filters_in"] = args["filters_out"]
            x = block(x, activation, drop_connect_rate * b / blocks, name=f"block{i + 1}{chr(j + 97)}_", **args)
            b += 1

    x = conv_bn_activation(x, round_filters(1280), 1, activation, "top_")
    x = head(x, include_top, dropout_rate, classes, classifier_activation, pooling, weights)
    return builder.finish(inputs, x, name, weights)


def conv_bn_activation(
    x: Any,
    filters: int,
    kernel_size: int,
    activation: Any,
    prefix: str,
    strides: int = 1,
    padding: str = "same",
    momentum: float = 0.99,
) -> Any:
    """``{prefix}conv``, ``{prefix}bn``, ``{prefix}activation``: the stem, top and expansion units of EfficientNets."""
    x = Conv2D(
        filters,
        kernel_size,
        strides=strides,
        padding=padding,
        use_bias=False,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{prefix}conv",
    )(x)
    x = BatchNormalization(axis=builder.channel_axis(3), momentum=momentum, name=f"{prefix}bn")(x)
    return Activation(activation, name=f"{prefix}activation")(x)


def head(
    x: Any,
    include_top: bool,
    dropout_rate: float,
    classes: int,
    classifier_activation: Any,
    pooling: str | None,
    weights: Any,
    bias_initializer: Any = "zeros",
) -> Any:
    """The classifier (``avg_pool``, ``top_dropout``, ``predictions``) or the feature extractor's pooling."""
    if not include_top:
        return builder.pool(x, pooling, "avg_pool", "max_pool")
    x = GlobalAveragePooling2D(name="avg_pool")(x)
    if dropout_rate > 0:
        x = Dropout(dropout_rate, name="top_dropout")(x)
    builder.validate_activation(classifier_activation, weights)
    return Dense(
        classes,
        activation=classifier_activation,
        kernel_initializer=DENSE_KERNEL_INITIALIZER,
        bias_initializer=bias_initializer,
        name="predictions",
    )(x)


def residual(x: Any, inputs: Any, drop_rate: float, name: str) -> Any:
    """``x + inputs``, ``x`` first dropped per sample at ``drop_rate`` while training (``{name}drop``, ``{name}add``)."""
    if drop_rate > 0:
        x = Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
    return add([x, inputs], name=f"{name}add")


def block(
    inputs: Any,
    activation: Any = "swish",
    drop_rate: float = 0.0,
    name: str = "",
    filters_in: int = 32,
    filters_out: int = 16,
    kernel_size: int = 3,
    strides: int = 1,
    expand_ratio: int = 1,
    se_ratio: float = 0.0,
    id_skip: bool = True,
) -> Any:
    """An inverted residual block with squeeze-and-excitation (Keras's ``efficientnet.block``)."""
    bn_axis = builder.channel_axis(3)
    filters = filters_in * expand_ratio
    x = conv_bn_activation(inputs, filters, 1, activation, f"{name}expand_") if expand_ratio != 1 else inputs
    if strides == 2:
        x = ZeroPadding2D(padding=builder.correct_pad(x, kernel_size), name=f"{name}dwconv_pad")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = DepthwiseConv2D(
        kernel_size,
        strides=strides,
        padding=conv_pad,
        use_bias=False,
        depthwise_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}dwconv",
    )(x)
    x = BatchNormalization(axis=bn_axis, name=f"{name}bn")(x)
    x = Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        x = squeeze_excite(x, filters, max(1, int(filters_in * se_ratio)), activation, name)
    x = Conv2D(
        filters_out,
        1,
        padding="same",
        use_bias=False,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}project_conv",
    )(x)
    x = BatchNormalization(axis=bn_axis, name=f"{name}project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        x = residual(x, inputs, drop_rate, name)
    return x


_DOCSTRING = """Instantiates the {function} architecture.

    Reference: EfficientNet: Rethinking Model Scaling for Convolutional Neural Networks (Tan and Le, ICML 2019),
    https://arxiv.org/abs/1905.11946.

    {function} scales the EfficientNet-B0 network {width}x in width and {depth}x in depth, for {size}x{size}
    images by default; its classifier has a dropout rate of {dropout}. tfkit builds the same layers, with the same
    names and weight order, as Keras 3's `keras.applications.{function}`, so Keras's weight files load by path; tfkit
    never downloads them (see `weights`).

    The model takes RGB pixels in `[0, 255]` and rescales and normalizes them itself, so
    `tfkit.applications.efficientnet.preprocess_input` returns its input unchanged. Keras adds a `Rescaling(1 /
    sqrt(ImageNet std))` layer after the `Normalization` only for its own ImageNet weights; tfkit adds it when `weights`
    is a local copy of that file, named as Keras names it (`{file}.h5`, or `{file}_notop.h5` without the top), so
    such a file gives Keras's ImageNet model.

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
            rows and columns at least 32; `None` entries for any size are allowed only when `include_top` is `False`.
            Inputs with other than 1 or 3 channels get a warning. Defaults to `None`: `({size}, {size}, 3)` with
            `include_top=True`, `(None, None, 3)` otherwise.
        pooling: Optional pooling mode for feature extraction when `include_top` is `False`: `None` (the default) for
            the 4D output of the last convolutional block, `"avg"` for global average pooling or `"max"` for global max
            pooling, either giving a 2D output.
        classes: The number of classes to classify images into, used only when `include_top` is `True`; with a weights
            file it must match the file. Defaults to `1000`.
        classifier_activation: The activation of the classifier, a name or a callable; `None` returns the logits. Used
            only when `include_top` is `True`; with a weights file only `None` and `"softmax"` are allowed. Defaults to
            `"softmax"`.
        name: The name of the model. Defaults to `"{file}"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        {example}
"""

# The example of each variant's docstring: a cheap build where one is quick, else the refusal of "imagenet".
_REFUSAL = """`weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives
random weights:

>>> tfkit.applications.{function}()
Traceback (most recent call last):
...
ValueError: model '{name}': weights='imagenet' needs Keras's pretrained file, and tfkit does not ..."""
_EXAMPLES = {
    "EfficientNetB0": """>>> model = tfkit.applications.EfficientNetB0(weights=None, include_top=False,
...                                            input_shape=(32, 32, 3), pooling="avg")
>>> model.output_shape
(None, 1280)"""
}


def _indent(example: str) -> str:
    """``example``'s lines after the first indented to sit under ``Example:`` in ``_DOCSTRING``."""
    return "\n".join(("        " + line if line and i else line) for i, line in enumerate(example.splitlines()))


def _variant(function: str, width: float, depth: float, size: int, dropout: float, weights_name: str) -> Any:
    def build(
        include_top: bool = True,
        weights: Any = "imagenet",
        input_tensor: Any = None,
        input_shape: Any = None,
        pooling: str | None = None,
        classes: int = 1000,
        classifier_activation: Any = "softmax",
        name: str = function.lower(),
    ) -> Functional:
        return EfficientNet(
            width,
            depth,
            size,
            dropout,
            name=name,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
            weights_name=weights_name,
        )

    build.__name__ = build.__qualname__ = function
    example = _EXAMPLES.get(function, _REFUSAL).format(function=function, name=function.lower())
    build.__doc__ = _DOCSTRING.format(
        function=function,
        width=width,
        depth=depth,
        size=size,
        dropout=dropout,
        file=function.lower(),
        example=_indent(example),
    )
    return build


EfficientNetB0 = _variant("EfficientNetB0", 1.0, 1.0, 224, 0.2, "b0")
EfficientNetB1 = _variant("EfficientNetB1", 1.0, 1.1, 240, 0.2, "b1")
EfficientNetB2 = _variant("EfficientNetB2", 1.1, 1.2, 260, 0.3, "b2")
EfficientNetB3 = _variant("EfficientNetB3", 1.2, 1.4, 300, 0.3, "b3")
EfficientNetB4 = _variant("EfficientNetB4", 1.4, 1.8, 380, 0.4, "b4")
EfficientNetB5 = _variant("EfficientNetB5", 1.6, 2.2, 456, 0.4, "b5")
EfficientNetB6 = _variant("EfficientNetB6", 1.8, 2.6, 528, 0.5, "b6")
EfficientNetB7 = _variant("EfficientNetB7", 2.0, 3.1, 600, 0.5, "b7")
