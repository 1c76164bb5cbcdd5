"""EfficientNetV2B0 ... B3, S, M and L (``keras.applications.efficientnet_v2``).

    model = EfficientNetV2B0(weights=None, include_top=False, input_shape=(64, 64, 3), pooling="avg")
    model = EfficientNetV2S(weights="/path/to/efficientnetv2-s_notop.h5", include_top=False)
    x = preprocess_input(images)          # nothing to do: the model rescales pixels in [0, 255] itself

``include_preprocessing=False`` drops the model's rescaling (inputs then in [-1, 1]). The stem, top,
classifier, squeeze-and-excitation and residual units are EfficientNet's (``efficientnet``, ``blocks``).
"""

from __future__ import annotations

import copy
import math
from typing import Any, Callable

from tfkit.applications import builder
from tfkit.applications.blocks import CONV_KERNEL_INITIALIZER, squeeze_excite
from tfkit.applications.efficientnet import conv_bn_activation, head, residual
from tfkit.applications.imagenet_utils import decode_predictions  # noqa: F401
from tfkit.layers import Activation, BatchNormalization, Conv2D, DepthwiseConv2D, Normalization, Rescaling
from tfkit.models import Functional

BASE_WEIGHTS_PATH = builder.KERAS_WEIGHTS_URL + "efficientnet_v2/"
_KEYS = (
    "kernel_size",
    "num_repeat",
    "input_filters",
    "output_filters",
    "expand_ratio",
    "se_ratio",
    "strides",
    "conv_type",
)


def _stages(*rows: tuple[int, ...]) -> list[dict[str, Any]]:
    """Keras's block arguments from rows of ``_KEYS`` (conv_type 1: fused MBConv, 0: MBConv)."""
    return [dict(zip(_KEYS, row)) for row in rows]


_B = _stages(
    (3, 1, 32, 16, 1, 0, 1, 1),
    (3, 2, 16, 32, 4, 0, 2, 1),
    (3, 2, 32, 48, 4, 0, 2, 1),
    (3, 3, 48, 96, 4, 0.25, 2, 0),
    (3, 5, 96, 112, 6, 0.25, 1, 0),
    (3, 8, 112, 192, 6, 0.25, 2, 0),
)
DEFAULT_BLOCKS_ARGS = {
    "efficientnetv2-s": _stages(
        (3, 2, 24, 24, 1, 0, 1, 1),
        (3, 4, 24, 48, 4, 0, 2, 1),
        (3, 4, 48, 64, 4, 0, 2, 1),
        (3, 6, 64, 128, 4, 0.25, 2, 0),
        (3, 9, 128, 160, 6, 0.25, 1, 0),
        (3, 15, 160, 256, 6, 0.25, 2, 0),
    ),
    "efficientnetv2-m": _stages(
        (3, 3, 24, 24, 1, 0, 1, 1),
        (3, 5, 24, 48, 4, 0, 2, 1),
        (3, 5, 48, 80, 4, 0, 2, 1),
        (3, 7, 80, 160, 4, 0.25, 2, 0),
        (3, 14, 160, 176, 6, 0.25, 1, 0),
        (3, 18, 176, 304, 6, 0.25, 2, 0),
        (3, 5, 304, 512, 6, 0.25, 1, 0),
    ),
    "efficientnetv2-l": _stages(
        (3, 4, 32, 32, 1, 0, 1, 1),
        (3, 7, 32, 64, 4, 0, 2, 1),
        (3, 7, 64, 96, 4, 0, 2, 1),
        (3, 10, 96, 192, 4, 0.25, 2, 0),
        (3, 19, 192, 224, 6, 0.25, 1, 0),
        (3, 25, 224, 384, 6, 0.25, 2, 0),
        (3, 7, 384, 640, 6, 0.25, 1, 0),
    ),
    **{f"efficientnetv2-b{i}": _B for i in range(4)},
}
IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_VARIANCE = [0.229**2, 0.224**2, 0.225**2]


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """A placeholder, as in Keras: EfficientNetV2 models take RGB pixels in [0, 255] and rescale them inside."""
    return x


def round_filters(filters: float, width_coefficient: float, min_depth: int | None, depth_divisor: int) -> int:
    """``filters * width_coefficient`` rounded to a multiple of ``depth_divisor`` (at least ``min_depth``)."""
    filters *= width_coefficient
    return int(max(min_depth or depth_divisor, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor))


def round_repeats(repeats: int, depth_coefficient: float) -> int:
    return int(math.ceil(depth_coefficient * repeats))


def MBConvBlock(
    input_filters: int,
    output_filters: int,
    expand_ratio: int = 1,
    kernel_size: int = 3,
    strides: int = 1,
    se_ratio: float = 0.0,
    bn_momentum: float = 0.9,
    activation: Any = "swish",
    survival_probability: float = 0.8,
    name: str = "",
) -> Callable[[Any], Any]:
    """Expansion, depthwise convolution, squeeze-and-excitation, projection (Keras's ``MBConvBlock``)."""

    def apply(inputs: Any) -> Any:
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = conv_bn_activation(x, filters, 1, activation, f"{name}expand_", momentum=bn_momentum)
        x = DepthwiseConv2D(
            kernel_size=kernel_size,
            strides=strides,
            depthwise_initializer=CONV_KERNEL_INITIALIZER,
            padding="same",
            use_bias=False,
            name=f"{name}dwconv2",
        )(x)
        x = BatchNormalization(axis=builder.channel_axis(3), momentum=bn_momentum, name=f"{name}bn")(x)
        x = Activation(activation, name=f"{name}activation")(x)
        if 0 < se_ratio <= 1:
            x = squeeze_excite(x, filters, max(1, int(input_filters * se_ratio)), activation, name)
        x = _project(x, output_filters, 1, 1, bn_momentum, name)
        if strides == 1 and input_filters == output_filters:
            x = residual(x, inputs, survival_probability, name)
        return x

    return apply


def FusedMBConvBlock(
    input_filters: int,
    output_filters: int,
    expand_ratio: int = 1,
    kernel_size: int = 3,
    strides: int = 1,
    se_ratio: float = 0.0,
    bn_momentum: float = 0.9,
    activation: Any = "swish",
    survival_probability: float = 0.8,
    name: str = "",
) -> Callable[[Any], Any]:
    """One full convolution in place of expansion and depthwise convolution (Keras's ``FusedMBConvBlock``)."""

    def apply(inputs: Any) -> Any:
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = conv_bn_activation(
                x, filters, kernel_size, activation, f"{name}expand_", strides=strides, momentum=bn_momentum
            )
        if 0 < se_ratio <= 1:
            x = squeeze_excite(x, filters, max(1, int(input_filters * se_ratio)), activation, name)
        fused = expand_ratio == 1
        x = _project(x, output_filters, kernel_size if fused else 1, strides if fused else 1, bn_momentum, name)
        if fused:
            x = Activation(activation=activation, name=f"{name}project_activation")(x)
        if strides == 1 and input_filters == output_filters:
            x = residual(x, inputs, survival_probability, name)
        return x

    return apply


def _project(x: Any, filters: int, kernel_size: int, strides: int, bn_momentum: float, name: str) -> Any:
    x = Conv2D(
        filters,
        kernel_size=kernel_size,
        strides=strides,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        padding="same",
        use_bias=False,
        name=f"{name}project_conv",
    )(x)
    return BatchNormalization(axis=builder.channel_axis(3), momentum=bn_momentum, name=f"{name}project_bn")(x)


def EfficientNetV2(
    width_coefficient: float,
    depth_coefficient: float,
    default_size: int,
    dropout_rate: float = 0.2,
    drop_connect_rate: float = 0.2,
    depth_divisor: int = 8,
    min_depth: int = 8,
    bn_momentum: float = 0.9,
    activation: Any = "swish",
    blocks_args: Any = "default",
    name: str = "efficientnetv2",
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    include_preprocessing: bool = True,
    weights_name: str | None = None,
) -> Functional:
    """The EfficientNetV2 family's builder (Keras's ``efficientnet_v2.EfficientNetV2``).

    ``weights_name`` is the variant (``"b0"`` ... ``"b3"``, ``"-s"``, ``"-m"``, ``"-l"``): it picks the default
    blocks and the preprocessing, so a model given another ``name`` builds too (Keras looks both up by name).
    """
    variant = (
        f"efficientnetv2{'-' if weights_name and weights_name[0] == 'b' else ''}{weights_name}"
        if weights_name
        else name
    )
    if blocks_args == "default":
        if variant not in DEFAULT_BLOCKS_ARGS:
            raise ValueError(
                f"EfficientNetV2: no default blocks for {variant!r}; pass blocks_args or one of "
                f"{sorted(DEFAULT_BLOCKS_ARGS)} as the name"
            )
        blocks_args = DEFAULT_BLOCKS_ARGS[variant]
    builder.check_weights(
        weights, f"model {name!r}", f"{BASE_WEIGHTS_PATH}{name}{'.h5' if include_top else '_notop.h5'}"
    )
    input_shape = builder.obtain_input_shape(input_shape, default_size, 32, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)
    bn_axis = builder.channel_axis(3)

    def filters_of(filters: float) -> int:
        return round_filters(filters, width_coefficient, min_depth, depth_divisor)

    x = img_input
    if include_preprocessing:
        if variant.split("-")[-1].startswith("b") and input_shape[bn_axis - 1] == 3:
            x = Rescaling(scale=1.0 / 255)(x)
            x = Normalization(mean=IMAGENET_MEAN, variance=IMAGENET_VARIANCE, axis=bn_axis)(x)
        else:
            x = Rescaling(scale=1.0 / 128.0, offset=-1)(x)
    x = conv_bn_activation(
        x, filters_of(blocks_args[0]["input_filters"]), 3, activation, "stem_", strides=2, momentum=bn_momentum
    )

    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(args["num_repeat"] for args in blocks_args))
    for i, args in enumerate(blocks_args):
        if args["num_repeat"] <= 0:
            raise ValueError(
                f"The number of repeats in `EfficientNetV2` must be > 0. Received: num_repeat={args['num_repeat']}"
            )
        args["input_filters"] = filters_of(args["input_filters"])
        args["output_filters"] = filters_of(args["output_filters"])
        block = (MBConvBlock, FusedMBConvBlock)[args.pop("conv_type")]
        for j in range(round_repeats(args.pop("num_repeat"), depth_coefficient)):
            if j > 0:
                args["strides"] = 1
                args["input_filters"] = args["output_filters"]
            x = block(
                activation=activation,
                bn_momentum=bn_momentum,
                survival_probability=drop_connect_rate * b / blocks,
                name=f"block{i + 1}{chr(j + 97)}_",
                **args,
            )(x)
            b += 1

    x = conv_bn_activation(x, filters_of(1280), 1, activation, "top_", momentum=bn_momentum)
    x = head(
        x,
        include_top,
        dropout_rate,
        classes,
        classifier_activation,
        pooling,
        weights,
        bias_initializer={"class_name": "Constant", "config": {"value": 0.0}},
    )
    return builder.finish(inputs, x, name, weights)


_DOCSTRING = """Instantiates the {function} architecture.

    Reference: EfficientNetV2: Smaller Models and Faster Training (Tan and Le, ICML 2021),
    https://arxiv.org/abs/2104.00298.

    {function} is built for {size}x{size} images by default. tfkit builds the same layers, with the same names and
    weight order, as Keras 3's `keras.applications.{function}`, so Keras's weight files load by path; tfkit never
    downloads them (see `weights`).

    The model takes RGB pixels in `[0, 255]` and rescales them itself (`include_preprocessing`), so
    `tfkit.applications.efficientnet_v2.preprocess_input` returns its input unchanged.

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
        include_preprocessing: Whether the model starts with layers that rescale RGB pixels in `[0, 255]`: for the B0 to
            B3 variants with 3-channel inputs, `Rescaling(1 / 255)` then `Normalization` by the ImageNet mean and
            variance; otherwise (S, M, L) a `Rescaling` to `[-1, 1]`. With `False`, feed inputs already scaled that way.
            Defaults to `True`.
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

# The example of each variant's docstring: building one takes seconds, so it shows the refusal of "imagenet".
_REFUSAL = """`weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives
random weights:

>>> tfkit.applications.{function}()
Traceback (most recent call last):
...
ValueError: model '{name}': weights='imagenet' needs Keras's pretrained file, and tfkit does not ..."""


def _indent(example: str) -> str:
    """``example``'s lines after the first indented to sit under ``Example:`` in ``_DOCSTRING``."""
    return "\n".join(("        " + line if line and i else line) for i, line in enumerate(example.splitlines()))


def _variant(function: str, width: float, depth: float, size: int, weights_name: str) -> Any:
    default_name = f"efficientnetv2{'-' if weights_name[0] == 'b' else ''}{weights_name}"

    def build(
        include_top: bool = True,
        weights: Any = "imagenet",
        input_tensor: Any = None,
        input_shape: Any = None,
        pooling: str | None = None,
        classes: int = 1000,
        classifier_activation: Any = "softmax",
        include_preprocessing: bool = True,
        name: str = default_name,
    ) -> Functional:
        return EfficientNetV2(
            width,
            depth,
            size,
            name=name,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
            include_preprocessing=include_preprocessing,
            weights_name=weights_name,
        )

    build.__name__ = build.__qualname__ = function
    example = _REFUSAL.format(function=function, name=default_name)
    build.__doc__ = _DOCSTRING.format(function=function, size=size, file=default_name, example=_indent(example))
    return build


EfficientNetV2B0 = _variant("EfficientNetV2B0", 1.0, 1.0, 224, "b0")
EfficientNetV2B1 = _variant("EfficientNetV2B1", 1.0, 1.1, 240, "b1")
EfficientNetV2B2 = _variant("EfficientNetV2B2", 1.1, 1.2, 260, "b2")
EfficientNetV2B3 = _variant("EfficientNetV2B3", 1.2, 1.4, 300, "b3")
EfficientNetV2S = _variant("EfficientNetV2S", 1.0, 1.0, 384, "-s")
EfficientNetV2M = _variant("EfficientNetV2M", 1.0, 1.0, 480, "-m")
EfficientNetV2L = _variant("EfficientNetV2L", 1.0, 1.0, 480, "-l")
