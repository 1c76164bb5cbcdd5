"""DenseNet121, DenseNet169 and DenseNet201 (``keras.applications.densenet``).

model = DenseNet121(weights=None, include_top=False, input_shape=(64, 64, 3), pooling="avg")
model = DenseNet121(weights="/path/to/densenet121_weights_tf_dim_ordering_tf_kernels.h5")
x = preprocess_input(images)          # torch mode: [0, 1], then the ImageNet mean and std
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.applications import builder
from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.layers import (
    Activation,
    AveragePooling2D,
    BatchNormalization,
    Concatenate,
    Conv2D,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
    ZeroPadding2D,
)
from tfkit.models import Functional

BASE_WEIGHTS_PATH = builder.KERAS_WEIGHTS_URL + "densenet/"
DEPTHS = {(6, 12, 24, 16): "densenet121", (6, 12, 32, 32): "densenet169", (6, 12, 48, 32): "densenet201"}

preprocess_input = family_preprocess(
    "torch",
    "Preprocess RGB images in [0, 255] for DenseNet: scaled to [0, 1], "
    "then normalised by the ImageNet mean and std (Keras's 'torch' mode).",
)


def dense_block(x: Any, blocks: int, name: str) -> Any:
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x: Any, reduction: float, name: str) -> Any:
    x = BatchNormalization(axis=3, epsilon=1.001e-5, name=f"{name}_bn")(x)
    x = Activation("relu", name=f"{name}_relu")(x)
    x = Conv2D(int(tuple(x.shape)[3] * reduction), 1, use_bias=False, name=f"{name}_conv")(x)
    return AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def conv_block(x: Any, growth_rate: int, name: str) -> Any:
    x1 = BatchNormalization(axis=3, epsilon=1.001e-5, name=f"{name}_0_bn")(x)
    x1 = Activation("relu", name=f"{name}_0_relu")(x1)
    x1 = Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(x1)
    x1 = BatchNormalization(axis=3, epsilon=1.001e-5, name=f"{name}_1_bn")(x1)
    x1 = Activation("relu", name=f"{name}_1_relu")(x1)
    x1 = Conv2D(growth_rate, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(x1)
    return Concatenate(axis=3, name=f"{name}_concat")([x, x1])


def DenseNet(
    blocks: Sequence[int],
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "densenet",
) -> Functional:
    """A DenseNet with ``blocks`` convolution blocks in each of its four dense blocks (channels_last only)."""
    if builder.channel_axis() == 1:
        raise ValueError(
            "DenseNet does not support the `channels_first` image data format: call "
            "tfkit.config.set_image_data_format('channels_last') first"
        )
    file_name = DEPTHS.get(tuple(blocks), name)
    suffix = "" if include_top else "_notop"
    builder.check_weights(
        weights, f"model {name!r}", f"{BASE_WEIGHTS_PATH}{file_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    )
    input_shape = builder.obtain_input_shape(input_shape, 224, 32, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)

    x = ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = BatchNormalization(axis=3, epsilon=1.001e-5, name="conv1_bn")(x)
    x = Activation("relu", name="conv1_relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks):
        x = dense_block(x, count, name=f"conv{stage + 2}")
        if stage < len(blocks) - 1:
            x = transition_block(x, 0.5, name=f"pool{stage + 2}")
    x = BatchNormalization(axis=3, epsilon=1.001e-5, name="bn")(x)
    x = Activation("relu", name="relu")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        builder.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling, "avg_pool", "max_pool")
    return builder.finish(inputs, x, name, weights)


def DenseNet121(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "densenet121",
) -> Functional:
    """Instantiates the DenseNet121 architecture.

    Reference: Densely Connected Convolutional Networks (Huang et al., CVPR 2017), https://arxiv.org/abs/1608.06993.

    Four dense blocks of 6, 12, 24, 16 convolution blocks. tfkit builds the same layers, with the same names and weight
    order, as Keras 3's `keras.applications.DenseNet121`, so Keras's weight files load by path; tfkit never downloads
    them (see `weights`).

    Call `tfkit.applications.densenet.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (torch
    mode: scaled to `[0, 1]`, then normalized by the ImageNet mean and standard deviation). The default input size is
    224x224. Only the `"channels_last"` image data format is supported.

    Args:
        include_top: Whether to include the classifier at the top of the network. Defaults to `True`.
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
        name: The name of the model. Defaults to `"densenet121"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file. Also if the image data format is `"channels_first"`.

    Example:
        `weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives random weights:

        >>> tfkit.applications.DenseNet121()
        Traceback (most recent call last):
        ...
        ValueError: model 'densenet121': weights='imagenet' needs Keras's pretrained file, and tfkit does not ...
    """
    return DenseNet(
        [6, 12, 24, 16],
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name=name,
    )


def DenseNet169(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "densenet169",
) -> Functional:
    """Instantiates the DenseNet169 architecture.

    Reference: Densely Connected Convolutional Networks (Huang et al., CVPR 2017), https://arxiv.org/abs/1608.06993.

    Four dense blocks of 6, 12, 32, 32 convolution blocks. tfkit builds the same layers, with the same names and weight
    order, as Keras 3's `keras.applications.DenseNet169`, so Keras's weight files load by path; tfkit never downloads
    them (see `weights`).

    Call `tfkit.applications.densenet.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (torch
    mode: scaled to `[0, 1]`, then normalized by the ImageNet mean and standard deviation). The default input size is
    224x224. Only the `"channels_last"` image data format is supported.

    Args:
        include_top: Whether to include the classifier at the top of the network. Defaults to `True`.
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
        name: The name of the model. Defaults to `"densenet169"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file. Also if the image data format is `"channels_first"`.

    Example:
        >>> tfkit.applications.DenseNet169(weights=None, input_shape=(32, 32, 3, 1))
        Traceback (most recent call last):
        ...
        ValueError: `input_shape` must be a tuple of three integers; received input_shape=(32, 32, 3, 1)
    """
    return DenseNet(
        [6, 12, 32, 32],
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name=name,
    )


def DenseNet201(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "densenet201",
) -> Functional:
    """Instantiates the DenseNet201 architecture.

    Reference: Densely Connected Convolutional Networks (Huang et al., CVPR 2017), https://arxiv.org/abs/1608.06993.

    Four dense blocks of 6, 12, 48, 32 convolution blocks. tfkit builds the same layers, with the same names and weight
    order, as Keras 3's `keras.applications.DenseNet201`, so Keras's weight files load by path; tfkit never downloads
    them (see `weights`).

    Call `tfkit.applications.densenet.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (torch
    mode: scaled to `[0, 1]`, then normalized by the ImageNet mean and standard deviation). The default input size is
    224x224. Only the `"channels_last"` image data format is supported.

    Args:
        include_top: Whether to include the classifier at the top of the network. Defaults to `True`.
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
        name: The name of the model. Defaults to `"densenet201"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file. Also if the image data format is `"channels_first"`.

    Example:
        `weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives random weights:

        >>> tfkit.applications.DenseNet201(include_top=False)
        Traceback (most recent call last):
        ...
        ValueError: model 'densenet201': weights='imagenet' needs Keras's pretrained file, and tfkit does not ...
    """
    return DenseNet(
        [6, 12, 48, 32],
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name=name,
    )
