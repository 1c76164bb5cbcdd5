"""NASNetMobile and NASNetLarge (``keras.applications.nasnet``).

    model = NASNetMobile(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
    model = NASNetLarge(weights="/path/to/NASNet-large-no-top.h5", include_top=False)
    x = preprocess_input(images)          # tf mode: [-1, 1]

Stacks of NASNet-A normal and reduction cells, each fed by the two cells before it (``_adjust_block``
matches their shapes). Layers are created in Keras's order, so the unnamed ones get Keras's automatic
names. Channels-last only (Keras refuses ``channels_first`` too).
"""

from __future__ import annotations

from typing import Any

from tfkit import backend
from tfkit.applications import builder
from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.layers import (
    Activation,
    AveragePooling2D,
    BatchNormalization,
    Conv2D,
    Cropping2D,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
    SeparableConv2D,
    ZeroPadding2D,
    add,
    concatenate,
)
from tfkit.models import Functional

BASE_WEIGHTS_PATH = builder.KERAS_WEIGHTS_URL + "nasnet/"
WEIGHT_FILES = {224: "NASNet-mobile", 331: "NASNet-large"}

preprocess_input = family_preprocess(
    "tf", "Preprocess RGB images in [0, 255] for NASNet: scaled to [-1, 1] (Keras's 'tf' mode)."
)


def _bn(name: str | None = None) -> BatchNormalization:
    return BatchNormalization(axis=-1, momentum=0.9997, epsilon=0.001, name=name)


def _conv_1x1(filters: int, name: str) -> Conv2D:
    return Conv2D(
        filters, (1, 1), strides=(1, 1), padding="same", use_bias=False, name=name, kernel_initializer="he_normal"
    )


def _separable_conv_block(
    ip: Any, filters: int, kernel_size: tuple[int, int] = (3, 3), strides: tuple[int, int] = (1, 1), block_id: str = ""
) -> Any:
    """ReLU, separable convolution (strided ones padded first), BatchNormalization, twice."""
    x = Activation("relu")(ip)
    if strides == (2, 2):
        x = ZeroPadding2D(padding=builder.correct_pad(x, kernel_size), name=f"separable_conv_1_pad_{block_id}")(x)
    x = SeparableConv2D(
        filters,
        kernel_size,
        strides=strides,
        name=f"separable_conv_1_{block_id}",
        padding="valid" if strides == (2, 2) else "same",
        use_bias=False,
    )(x)
    x = _bn(f"separable_conv_1_bn_{block_id}")(x)
    x = Activation("relu")(x)
    x = SeparableConv2D(filters, kernel_size, name=f"separable_conv_2_{block_id}", padding="same", use_bias=False)(x)
    return _bn(f"separable_conv_2_bn_{block_id}")(x)


def _adjust_block(p: Any, ip: Any, filters: int, block_id: str = "") -> Any:
    """The previous cell's output ``p`` brought to the size of ``ip`` and to ``filters`` channels."""
    if p is None:
        return ip
    if tuple(p.shape)[-2] != tuple(ip.shape)[-2]:
        p = Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = AveragePooling2D((1, 1), strides=(2, 2), padding="valid", name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = Conv2D(
            filters // 2,
            (1, 1),
            padding="same",
            use_bias=False,
            name=f"adjust_conv_1_{block_id}",
            kernel_initializer="he_normal",
        )(p1)
        p2 = ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = AveragePooling2D((1, 1), strides=(2, 2), padding="valid", name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = Conv2D(
            filters // 2,
            (1, 1),
            padding="same",
            use_bias=False,
            name=f"adjust_conv_2_{block_id}",
            kernel_initializer="he_normal",
        )(p2)
        p = concatenate([p1, p2], axis=-1)
        return _bn(f"adjust_bn_{block_id}")(p)
    if tuple(p.shape)[-1] != filters:
        p = Activation("relu")(p)
        p = _conv_1x1(filters, f"adjust_conv_projection_{block_id}")(p)
        return _bn(f"adjust_bn_{block_id}")(p)
    return p


def _cell_input(ip: Any, filters: int, kind: str, block_id: str) -> Any:
    h = Activation("relu")(ip)
    h = _conv_1x1(filters, f"{kind}_conv_1_{block_id}")(h)
    return _bn(f"{kind}_bn_1_{block_id}")(h)


def _normal_a_cell(ip: Any, p: Any, filters: int, block_id: str = "") -> tuple[Any, Any]:
    """A NASNet-A normal cell: five pairs of branches, summed, concatenated with ``p``; ``(output, ip)``."""
    p = _adjust_block(p, ip, filters, block_id)
    h = _cell_input(ip, filters, "normal", block_id)
    x1_1 = _separable_conv_block(h, filters, kernel_size=(5, 5), block_id=f"normal_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, block_id=f"normal_right1_{block_id}")
    x1 = add([x1_1, x1_2], name=f"normal_add_1_{block_id}")
    x2_1 = _separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{block_id}")
    x2_2 = _separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")
    x2 = add([x2_1, x2_2], name=f"normal_add_2_{block_id}")
    x3 = AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=f"normal_left3_{block_id}")(h)
    x3 = add([x3, p], name=f"normal_add_3_{block_id}")
    x4_1 = AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=f"normal_left4_{block_id}")(p)
    x4_2 = AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=f"normal_right4_{block_id}")(p)
    x4 = add([x4_1, x4_2], name=f"normal_add_4_{block_id}")
    x5 = _separable_conv_block(h, filters, block_id=f"normal_left5_{block_id}")
    x5 = add([x5, h], name=f"normal_add_5_{block_id}")
    return concatenate([p, x1, x2, x3, x4, x5], axis=-1, name=f"normal_concat_{block_id}"), ip


def _reduction_a_cell(ip: Any, p: Any, filters: int, block_id: str = "") -> tuple[Any, Any]:
    """A NASNet-A reduction cell: halves the image; ``(output, ip)``."""
    p = _adjust_block(p, ip, filters, block_id)
    h = _cell_input(ip, filters, "reduction", block_id)
    h3 = ZeroPadding2D(padding=builder.correct_pad(h, 3), name=f"reduction_pad_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, (5, 5), strides=(2, 2), block_id=f"reduction_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2), block_id=f"reduction_right1_{block_id}")
    x1 = add([x1_1, x1_2], name=f"reduction_add_1_{block_id}")
    x2_1 = MaxPooling2D((3, 3), strides=(2, 2), padding="valid", name=f"reduction_left2_{block_id}")(h3)
    x2_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2), block_id=f"reduction_right2_{block_id}")
    x2 = add([x2_1, x2_2], name=f"reduction_add_2_{block_id}")
    x3_1 = AveragePooling2D((3, 3), strides=(2, 2), padding="valid", name=f"reduction_left3_{block_id}")(h3)
    x3_2 = _separable_conv_block(p, filters, (5, 5), strides=(2, 2), block_id=f"reduction_right3_{block_id}")
    x3 = add([x3_1, x3_2], name=f"reduction_add3_{block_id}")
    x4 = AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=f"reduction_left4_{block_id}")(x1)
    x4 = add([x2, x4])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}")
    x5_2 = MaxPooling2D((3, 3), strides=(2, 2), padding="valid", name=f"reduction_right5_{block_id}")(h3)
    x5 = add([x5_1, x5_2], name=f"reduction_add4_{block_id}")
    return concatenate([x2, x3, x4, x5], axis=-1, name=f"reduction_concat_{block_id}"), ip


def NASNet(
    input_shape: Any = None,
    penultimate_filters: int = 4032,
    num_blocks: int = 6,
    stem_block_filters: int = 96,
    skip_reduction: bool = True,
    filter_multiplier: int = 2,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    default_size: int | None = None,
    classifier_activation: Any = "softmax",
    name: str = "NASNet",
) -> Functional:
    """The NASNet-A builder (Keras's ``nasnet.NASNet``): three stacks of ``num_blocks`` normal cells."""
    if backend.image_data_format() == "channels_first":
        raise ValueError(
            "NASNet does not support the `channels_first` image data format: call "
            "tfkit.config.set_image_data_format('channels_last') first"
        )
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError(
            "When specifying the input shape of a NASNet and loading `ImageNet` weights, the input_shape "
            f"argument must be static (no None entries). Got: `input_shape={input_shape}`."
        )
    default_size = 331 if default_size is None else default_size
    if weights == "imagenet" and default_size not in WEIGHT_FILES:
        raise ValueError("ImageNet weights can only be loaded with NASNetLarge or NASNetMobile")
    file_name = f"{WEIGHT_FILES.get(default_size, 'NASNet-large')}{'' if include_top else '-no-top'}.h5"
    builder.check_weights(weights, f"model {name!r}", BASE_WEIGHTS_PATH + file_name)
    input_shape = builder.obtain_input_shape(input_shape, default_size, 32, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)
    if penultimate_filters % (24 * filter_multiplier**2) != 0:
        raise ValueError(
            "For NASNet-A models, the `penultimate_filters` must be a multiple of 24 * "
            f"(`filter_multiplier` ** 2). Current value: {penultimate_filters}"
        )
    filters = penultimate_filters // 24

    x = Conv2D(
        stem_block_filters,
        (3, 3),
        strides=(2, 2),
        padding="valid",
        use_bias=False,
        name="stem_conv1",
        kernel_initializer="he_normal",
    )(img_input)
    x = _bn("stem_bn1")(x)
    p = None
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier**2, block_id="stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for stack in range(3):
        if stack:
            x, p0 = _reduction_a_cell(x, p, filters * filter_multiplier**stack, block_id=f"reduce_{stack * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            x, p = _normal_a_cell(
                x, p, filters * filter_multiplier**stack, block_id=f"{stack * num_blocks + i + (1 if stack else 0)}"
            )
    x = Activation("relu")(x)
    if include_top:
        x = GlobalAveragePooling2D()(x)
        builder.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling)
    return builder.finish(inputs, x, name, weights)


def NASNetMobile(
    input_shape: Any = None,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "nasnet_mobile",
) -> Functional:
    """Instantiates the NASNet-A tMobile architecture.

    Reference: Learning Transferable Architectures for Scalable Image Recognition (Zoph et al., CVPR 2018),
    https://arxiv.org/abs/1707.07012.

    Three stacks of 4 NASNet-A normal cells separated by reduction cells, 1056 filters before the classifier. tfkit
    builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.NASNetMobile`, so
    Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.nasnet.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (tf mode:
    scaled to `[-1, 1]`). The default input size is 224x224. Only the `"channels_last"` image data format is supported.

    Args:
        input_shape: Optional shape tuple `(rows, cols, channels)`, rows and columns at least 32; `None` entries for any
            size are allowed only when `include_top` is `False`. Inputs with other than 1 or 3 channels get a warning.
            Defaults to `None`: `(224, 224, 3)` with `include_top=True`, `(224, 224, 3)` otherwise (as in Keras).
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
        name: The name of the model. Defaults to `"nasnet_mobile"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file. Also if the image data format is `"channels_first"`, or
            if `weights` is `"imagenet"` and `input_shape` holds `None`.

    Example:
        `weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives random weights:

        >>> tfkit.applications.NASNetMobile(include_top=False)
        Traceback (most recent call last):
        ...
        ValueError: model 'nasnet_mobile': weights='imagenet' needs Keras's pretrained file, and tfkit does not ...
    """
    if not include_top and input_shape is None:
        input_shape = (224, 224, 3)
    return NASNet(
        input_shape,
        penultimate_filters=1056,
        num_blocks=4,
        stem_block_filters=32,
        skip_reduction=False,
        filter_multiplier=2,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        pooling=pooling,
        classes=classes,
        default_size=224,
        classifier_activation=classifier_activation,
        name=name,
    )


def NASNetLarge(
    input_shape: Any = None,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "nasnet_large",
) -> Functional:
    """Instantiates the NASNet-A tLarge architecture.

    Reference: Learning Transferable Architectures for Scalable Image Recognition (Zoph et al., CVPR 2018),
    https://arxiv.org/abs/1707.07012.

    Three stacks of 6 NASNet-A normal cells separated by reduction cells, 4032 filters before the classifier. tfkit
    builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.NASNetLarge`, so
    Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.nasnet.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (tf mode:
    scaled to `[-1, 1]`). The default input size is 331x331. Only the `"channels_last"` image data format is supported.

    Args:
        input_shape: Optional shape tuple `(rows, cols, channels)`, rows and columns at least 32; `None` entries for any
            size are allowed only when `include_top` is `False`. Inputs with other than 1 or 3 channels get a warning.
            Defaults to `None`: `(331, 331, 3)` with `include_top=True`, `(None, None, 3)` otherwise.
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
        name: The name of the model. Defaults to `"nasnet_large"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file. Also if the image data format is `"channels_first"`, or
            if `weights` is `"imagenet"` and `input_shape` holds `None`.

    Example:
        `weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives random weights:

        >>> tfkit.applications.NASNetLarge()
        Traceback (most recent call last):
        ...
        ValueError: model 'nasnet_large': weights='imagenet' needs Keras's pretrained file, and tfkit does not ...
    """
    return NASNet(
        input_shape,
        penultimate_filters=4032,
        num_blocks=6,
        stem_block_filters=96,
        skip_reduction=True,
        filter_multiplier=2,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        pooling=pooling,
        classes=classes,
        default_size=331,
        classifier_activation=classifier_activation,
        name=name,
    )
