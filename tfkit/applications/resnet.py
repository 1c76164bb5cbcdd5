"""ResNet50, ResNet101 and ResNet152 (v1), and the residual stacks ResNetV2 shares (``keras.applications.resnet``).

    model = ResNet50(weights=None, include_top=False, input_shape=(64, 64, 3), pooling="avg")
    model = ResNet50(weights="/path/to/resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5", include_top=False)
    x = preprocess_input(images)          # caffe: RGB->BGR, minus the ImageNet mean

Layer names, weight shapes and order are Keras's, so Keras's weight files load by path.
"""

from __future__ import annotations

from typing import Any, Callable

from tfkit.applications import builder
from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.layers import (
    Activation,
    Add,
    BatchNormalization,
    Conv2D,
    Dense,
    GlobalAveragePooling2D,
    MaxPooling2D,
    ZeroPadding2D,
)
from tfkit.models import Functional

BASE_WEIGHTS_PATH = builder.KERAS_WEIGHTS_URL + "resnet/"

preprocess_input = family_preprocess(
    "caffe",
    "Preprocess RGB images in [0, 255] for ResNet: RGB->BGR, minus "
    "the ImageNet mean, no scaling (Keras's 'caffe' mode).",
)


def ResNet(
    stack_fn: Callable[[Any], Any],
    preact: bool,
    use_bias: bool,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "resnet",
    weights_name: str | None = None,
) -> Functional:
    """The ResNet / ResNetV2 skeleton around ``stack_fn`` (Keras's ``resnet.ResNet``)."""
    suffix = "" if include_top else "_notop"
    builder.check_weights(
        weights,
        f"model {name!r}",
        f"{BASE_WEIGHTS_PATH}{weights_name or name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5",
    )
    input_shape = builder.obtain_input_shape(input_shape, 224, 32, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)
    bn_axis = builder.channel_axis(3)

    x = ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="conv1_bn")(x)
        x = Activation("relu", name="conv1_relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="post_bn")(x)
        x = Activation("relu", name="post_relu")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        builder.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling, "avg_pool", "max_pool")
    return builder.finish(inputs, x, name, weights)


def residual_block_v1(
    x: Any, filters: int, kernel_size: int = 3, stride: int = 1, conv_shortcut: bool = True, name: str | None = None
) -> Any:
    """A ResNet v1 bottleneck block."""
    bn_axis = builder.channel_axis(3)
    if conv_shortcut:
        shortcut = Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_1_bn")(x)
    x = Activation("relu", name=f"{name}_1_relu")(x)
    x = Conv2D(filters, kernel_size, padding="SAME", name=f"{name}_2_conv")(x)
    x = BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_2_bn")(x)
    x = Activation("relu", name=f"{name}_2_relu")(x)
    x = Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_3_bn")(x)
    x = Add(name=f"{name}_add")([shortcut, x])
    return Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x: Any, filters: int, blocks: int, stride1: int = 2, name: str | None = None) -> Any:
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def residual_block_v2(
    x: Any, filters: int, kernel_size: int = 3, stride: int = 1, conv_shortcut: bool = False, name: str | None = None
) -> Any:
    """A ResNet v2 (pre-activation) bottleneck block."""
    bn_axis = builder.channel_axis(3)
    preact = BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_preact_bn")(x)
    preact = Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_1_bn")(x)
    x = Activation("relu", name=f"{name}_1_relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = Conv2D(filters, kernel_size, strides=stride, use_bias=False, name=f"{name}_2_conv")(x)
    x = BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=f"{name}_2_bn")(x)
    x = Activation("relu", name=f"{name}_2_relu")(x)
    x = Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x: Any, filters: int, blocks: int, stride1: int = 2, name: str | None = None) -> Any:
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def _v1(depths: tuple[int, int, int, int]) -> Callable[[Any], Any]:
    def stack_fn(x: Any) -> Any:
        x = stack_residual_blocks_v1(x, 64, depths[0], stride1=1, name="conv2")
        x = stack_residual_blocks_v1(x, 128, depths[1], name="conv3")
        x = stack_residual_blocks_v1(x, 256, depths[2], name="conv4")
        return stack_residual_blocks_v1(x, 512, depths[3], name="conv5")

    return stack_fn


def ResNet50(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "resnet50",
) -> Functional:
    """Instantiates the ResNet50 architecture.

    Reference: Deep Residual Learning for Image Recognition (He et al., CVPR 2016), https://arxiv.org/abs/1512.03385.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.ResNet50`, so
    Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.resnet50.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (caffe
    mode: RGB to BGR, then minus the ImageNet mean, without scaling). The default input size is 224x224.

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
            Inputs with other than 1 or 3 channels get a warning. Defaults to `None`: `(224, 224, 3)` with
            `include_top=True`, `(None, None, 3)` otherwise.
        pooling: Optional pooling mode for feature extraction when `include_top` is `False`: `None` (the default) for
            the 4D output of the last convolutional block, `"avg"` for global average pooling or `"max"` for global max
            pooling, either giving a 2D output.
        classes: The number of classes to classify images into, used only when `include_top` is `True`; with a weights
            file it must match the file. Defaults to `1000`.
        classifier_activation: The activation of the classifier, a name or a callable; `None` returns the logits. Used
            only when `include_top` is `True`; with a weights file only `None` and `"softmax"` are allowed. Defaults to
            `"softmax"`.
        name: The name of the model. Defaults to `"resnet50"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        `weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives random weights:

        >>> tfkit.applications.ResNet50()
        Traceback (most recent call last):
        ...
        ValueError: model 'resnet50': weights='imagenet' needs Keras's pretrained file, and tfkit does not ...
    """
    return ResNet(
        _v1((3, 4, 6, 3)),
        False,
        True,
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name,
        "resnet50",
    )


def ResNet101(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "resnet101",
) -> Functional:
    """Instantiates the ResNet101 architecture.

    Reference: Deep Residual Learning for Image Recognition (He et al., CVPR 2016), https://arxiv.org/abs/1512.03385.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.ResNet101`, so
    Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.resnet.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (caffe mode:
    RGB to BGR, then minus the ImageNet mean, without scaling). The default input size is 224x224.

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
            Inputs with other than 1 or 3 channels get a warning. Defaults to `None`: `(224, 224, 3)` with
            `include_top=True`, `(None, None, 3)` otherwise.
        pooling: Optional pooling mode for feature extraction when `include_top` is `False`: `None` (the default) for
            the 4D output of the last convolutional block, `"avg"` for global average pooling or `"max"` for global max
            pooling, either giving a 2D output.
        classes: The number of classes to classify images into, used only when `include_top` is `True`; with a weights
            file it must match the file. Defaults to `1000`.
        classifier_activation: The activation of the classifier, a name or a callable; `None` returns the logits. Used
            only when `include_top` is `True`; with a weights file only `None` and `"softmax"` are allowed. Defaults to
            `"softmax"`.
        name: The name of the model. Defaults to `"resnet101"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        >>> tfkit.applications.ResNet101(weights=None, include_top=False, input_shape=(16, 16, 3))
        Traceback (most recent call last):
        ...
        ValueError: Input size must be at least 32x32; Received: input_shape=(16, 16, 3)
    """
    return ResNet(
        _v1((3, 4, 23, 3)),
        False,
        True,
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name,
        "resnet101",
    )


def ResNet152(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "resnet152",
) -> Functional:
    """Instantiates the ResNet152 architecture.

    Reference: Deep Residual Learning for Image Recognition (He et al., CVPR 2016), https://arxiv.org/abs/1512.03385.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.ResNet152`, so
    Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.resnet.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (caffe mode:
    RGB to BGR, then minus the ImageNet mean, without scaling). The default input size is 224x224.

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
            Inputs with other than 1 or 3 channels get a warning. Defaults to `None`: `(224, 224, 3)` with
            `include_top=True`, `(None, None, 3)` otherwise.
        pooling: Optional pooling mode for feature extraction when `include_top` is `False`: `None` (the default) for
            the 4D output of the last convolutional block, `"avg"` for global average pooling or `"max"` for global max
            pooling, either giving a 2D output.
        classes: The number of classes to classify images into, used only when `include_top` is `True`; with a weights
            file it must match the file. Defaults to `1000`.
        classifier_activation: The activation of the classifier, a name or a callable; `None` returns the logits. Used
            only when `include_top` is `True`; with a weights file only `None` and `"softmax"` are allowed. Defaults to
            `"softmax"`.
        name: The name of the model. Defaults to `"resnet152"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        A path given as `weights` must exist (nothing is downloaded):

        >>> tfkit.applications.ResNet152(weights="missing.weights.h5")
        Traceback (most recent call last):
        ...
        ValueError: model 'resnet152': `weights` should be None ...; there is no file at weights='missing.weights.h5'
    """
    return ResNet(
        _v1((3, 8, 36, 3)),
        False,
        True,
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name,
        "resnet152",
    )
