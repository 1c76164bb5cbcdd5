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

preprocess_input = family_preprocess("caffe", "Preprocess RGB images in [0, 255] for ResNet: RGB->BGR, minus "
                                              "the ImageNet mean, no scaling (Keras's 'caffe' mode).")


def ResNet(stack_fn: Callable[[Any], Any], preact: bool, use_bias: bool, include_top: bool = True,
           weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None, pooling: str | None = None,
           classes: int = 1000, classifier_activation: Any = "softmax", name: str = "resnet",
           weights_name: str | None = None) -> Functional:
    """The ResNet / ResNetV2 skeleton around ``stack_fn`` (Keras's ``resnet.ResNet``)."""
    suffix = "" if include_top else "_notop"
    builder.check_weights(weights, f"model {name!r}", f"{BASE_WEIGHTS_PATH}{weights_name or name}_weights_tf_dim_ordering_tf_kernels"
                                         f"{suffix}.h5")
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


def residual_block_v1(x: Any, filters: int, kernel_size: int = 3, stride: int = 1, conv_shortcut: bool = True,
                      name: str | None = None) -> Any:
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


def residual_block_v2(x: Any, filters: int, kernel_size: int = 3, stride: int = 1, conv_shortcut: bool = False,
                      name: str | None = None) -> Any:
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


def ResNet50(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
             pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
             name: str = "resnet50") -> Functional:
    """ResNet50 (Keras's ``keras.applications.ResNet50``; ``preprocess_input``: caffe mode)."""
    return ResNet(_v1((3, 4, 6, 3)), False, True, include_top, weights, input_tensor, input_shape, pooling, classes,
                  classifier_activation, name, "resnet50")


def ResNet101(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
              pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
              name: str = "resnet101") -> Functional:
    """ResNet101 (Keras's ``keras.applications.ResNet101``)."""
    return ResNet(_v1((3, 4, 23, 3)), False, True, include_top, weights, input_tensor, input_shape, pooling, classes,
                  classifier_activation, name, "resnet101")


def ResNet152(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
              pooling: str | None = None, classes: int = 1000, classifier_activation: Any = "softmax",
              name: str = "resnet152") -> Functional:
    """ResNet152 (Keras's ``keras.applications.ResNet152``)."""
    return ResNet(_v1((3, 8, 36, 3)), False, True, include_top, weights, input_tensor, input_shape, pooling, classes,
                  classifier_activation, name, "resnet152")
