"""ConvNeXtTiny, Small, Base, Large and XLarge (``keras.applications.convnext``).

    model = ConvNeXtTiny(weights=None, include_top=False, input_shape=(64, 64, 3), pooling="avg")
    model = ConvNeXtTiny(weights="/path/to/convnext_tiny_notop.h5", include_top=False)
    x = preprocess_input(images)          # nothing to do: the model normalises pixels in [0, 255] itself

The stem and the three downsampling steps are nested ``Sequential`` models, as in Keras, so weight files
name their layers the same way. Channels-last only (Keras refuses ``channels_first`` too).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from tfkit import backend
from tfkit.applications import builder
from tfkit.applications.application_layers import LayerScale, StochasticDepth
from tfkit.applications.imagenet_utils import decode_predictions  # noqa: F401
from tfkit.layers import Activation, Conv2D, Dense, GlobalAveragePooling2D, LayerNormalization, Normalization
from tfkit.models import Functional, Sequential

BASE_WEIGHTS_PATH = builder.KERAS_WEIGHTS_URL + "convnext/"
MODEL_CONFIGS = {
    "tiny": {"depths": [3, 3, 9, 3], "projection_dims": [96, 192, 384, 768], "default_size": 224},
    "small": {"depths": [3, 3, 27, 3], "projection_dims": [96, 192, 384, 768], "default_size": 224},
    "base": {"depths": [3, 3, 27, 3], "projection_dims": [128, 256, 512, 1024], "default_size": 224},
    "large": {"depths": [3, 3, 27, 3], "projection_dims": [192, 384, 768, 1536], "default_size": 224},
    "xlarge": {"depths": [3, 3, 27, 3], "projection_dims": [256, 512, 1024, 2048], "default_size": 224},
}
IMAGENET_MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
IMAGENET_VARIANCE = [(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2]


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """A placeholder, as in Keras: ConvNeXt models take RGB pixels in [0, 255] and normalise them inside."""
    return x


def ConvNeXtBlock(
    projection_dim: int,
    drop_path_rate: float = 0.0,
    layer_scale_init_value: float | None = 1e-6,
    name: str = "convnext_block",
) -> Callable[[Any], Any]:
    """Depthwise 7x7 convolution, LayerNormalization, two pointwise Dense layers, scale, residual."""

    def apply(inputs: Any) -> Any:
        x = Conv2D(
            filters=projection_dim, kernel_size=7, padding="same", groups=projection_dim, name=f"{name}_depthwise_conv"
        )(inputs)
        x = LayerNormalization(epsilon=1e-6, name=f"{name}_layernorm")(x)
        x = Dense(4 * projection_dim, name=f"{name}_pointwise_conv_1")(x)
        x = Activation("gelu", name=f"{name}_gelu")(x)
        x = Dense(projection_dim, name=f"{name}_pointwise_conv_2")(x)
        if layer_scale_init_value is not None:
            x = LayerScale(layer_scale_init_value, projection_dim, name=f"{name}_layer_scale")(x)
        if drop_path_rate:
            layer = StochasticDepth(drop_path_rate, name=f"{name}_stochastic_depth")
        else:
            layer = Activation("linear", name=f"{name}_identity")
        return inputs + layer(x)

    return apply


def ConvNeXt(
    depths: Sequence[int],
    projection_dims: Sequence[int],
    drop_path_rate: float = 0.0,
    layer_scale_init_value: float | None = 1e-6,
    default_size: int = 224,
    name: str = "convnext",
    include_preprocessing: bool = True,
    include_top: bool = True,
    weights: Any = None,
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    weights_name: str | None = None,
) -> Functional:
    """The ConvNeXt family's builder (Keras's ``convnext.ConvNeXt``): four stages of ``depths`` blocks."""
    if backend.image_data_format() == "channels_first":
        raise ValueError(
            "ConvNeXt does not support the `channels_first` image data format: call "
            "tfkit.config.set_image_data_format('channels_last') first"
        )
    if weights == "imagenet" and weights_name:
        expected = MODEL_CONFIGS[weights_name.split("convnext_")[-1]]
        if list(depths) != expected["depths"] or list(projection_dims) != expected["projection_dims"]:
            raise ValueError(
                f"Architecture configuration does not match {weights_name} variant: ImageNet weights "
                f"need depths={expected['depths']} and projection_dims={expected['projection_dims']}, "
                f"got depths={list(depths)}, projection_dims={list(projection_dims)}"
            )
    builder.check_weights(
        weights, f"model {name!r}", f"{BASE_WEIGHTS_PATH}{weights_name or name}{'.h5' if include_top else '_notop.h5'}"
    )
    input_shape = builder.obtain_input_shape(input_shape, default_size, 32, include_top, weights)
    x, inputs = builder.image_input(input_tensor, input_shape)

    if include_preprocessing and input_shape[-1] == 3:
        x = Normalization(mean=IMAGENET_MEAN, variance=IMAGENET_VARIANCE, name=f"{name}_prestem_normalization")(x)
    downsampling = [
        Sequential(
            [
                Conv2D(projection_dims[0], kernel_size=4, strides=4, name=f"{name}_stem_conv"),
                LayerNormalization(epsilon=1e-6, name=f"{name}_stem_layernorm"),
            ],
            name=f"{name}_stem",
        )
    ]
    for i in range(3):
        downsampling.append(
            Sequential(
                [
                    LayerNormalization(epsilon=1e-6, name=f"{name}_downsampling_layernorm_{i}"),
                    Conv2D(projection_dims[i + 1], kernel_size=2, strides=2, name=f"{name}_downsampling_conv_{i}"),
                ],
                name=f"{name}_downsampling_block_{i}",
            )
        )
    drop_rates = [float(rate) for rate in np.linspace(0.0, drop_path_rate, sum(depths))]
    done = 0
    for i in range(4):
        x = downsampling[i](x)
        for j in range(depths[i]):
            x = ConvNeXtBlock(
                projection_dims[i], drop_rates[done + j], layer_scale_init_value, name=f"{name}_stage_{i}_block_{j}"
            )(x)
        done += depths[i]

    if include_top:
        builder.validate_activation(classifier_activation, weights)
        x = GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
        x = LayerNormalization(epsilon=1e-6, name=f"{name}_head_layernorm")(x)
        x = Dense(classes, activation=classifier_activation, name=f"{name}_head_dense")(x)
    else:
        x = builder.pool(x, pooling)
        x = LayerNormalization(epsilon=1e-6)(x)
    return builder.finish(inputs, x, name, weights)


_DOCSTRING = """Instantiates the {function} architecture.

    Reference: A ConvNet for the 2020s (Liu et al., CVPR 2022), https://arxiv.org/abs/2201.03545.

    Four stages of {depths} ConvNeXt blocks of widths {widths}. tfkit builds the same layers, with the same names
    and weight order, as Keras 3's `keras.applications.{function}`, so Keras's weight files load by path; tfkit never
    downloads them (see `weights`).

    The model takes RGB pixels in `[0, 255]` and normalizes them itself (`include_preprocessing`), so
    `tfkit.applications.convnext.preprocess_input` returns its input unchanged. The default input size is 224x224. Only
    the `"channels_last"` image data format is supported.

    Args:
        include_top: Whether to include the classifier at the top of the network. Defaults to `True`.
        include_preprocessing: Whether the model starts with a `Normalization` layer that normalizes RGB pixels in `[0,
            255]` by the ImageNet mean and variance (added for 3-channel inputs only). With `False`, feed inputs
            normalized that way. Defaults to `True`.
        weights: `None` (random initialization), `"imagenet"`, or the path of a weights file. tfkit never downloads:
            `"imagenet"` (the default, as in Keras) raises a `ValueError` naming Keras's file for this model and how to
            pass a local copy by path. A path (a Keras `.h5` or `.weights.h5` file or a tfkit weights file of the same
            model, built with the same `include_top`) is loaded with `Model.load_weights` once the model is built.
            Defaults to `"imagenet"`.
        input_tensor: Optional symbolic tensor (`tfkit.Input(...)`, or a layer's output on one) to use as the image
            input; the model's inputs are then that tensor's source inputs. Defaults to `None`.
        input_shape: Optional shape tuple `(rows, cols, channels)`, rows and columns at least 32; `None` entries for any
            size are allowed only when `include_top` is `False`. Inputs with other than 1 or 3 channels get a warning.
            Defaults to `None`: `(224, 224, 3)` with `include_top=True`, `(None, None, 3)` otherwise.
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
            neither `None` nor `"softmax"` with a weights file. Also if the image data format is `"channels_first"`.

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


def _variant(function: str, size: str) -> Any:
    weights_name = f"convnext_{size}"
    config = MODEL_CONFIGS[size]

    def build(
        include_top: bool = True,
        include_preprocessing: bool = True,
        weights: Any = "imagenet",
        input_tensor: Any = None,
        input_shape: Any = None,
        pooling: str | None = None,
        classes: int = 1000,
        classifier_activation: Any = "softmax",
        name: str = weights_name,
    ) -> Functional:
        return ConvNeXt(
            config["depths"],
            config["projection_dims"],
            0.0,
            1e-6,
            config["default_size"],
            name=name,
            include_preprocessing=include_preprocessing,
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
    example = _REFUSAL.format(function=function, name=weights_name)
    build.__doc__ = _DOCSTRING.format(
        function=function,
        depths=config["depths"],
        widths=config["projection_dims"],
        file=weights_name,
        example=_indent(example),
    )
    return build


ConvNeXtTiny = _variant("ConvNeXtTiny", "tiny")
ConvNeXtSmall = _variant("ConvNeXtSmall", "small")
ConvNeXtBase = _variant("ConvNeXtBase", "base")
ConvNeXtLarge = _variant("ConvNeXtLarge", "large")
ConvNeXtXLarge = _variant("ConvNeXtXLarge", "xlarge")
