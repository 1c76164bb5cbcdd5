"""InceptionResNetV2 (``keras.applications.inception_resnet_v2``).

    model = InceptionResNetV2(weights=None, include_top=False, input_shape=(75, 75, 3), pooling="avg")
    model = InceptionResNetV2(weights="/path/to/inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5")
    x = preprocess_input(images)          # tf mode: [-1, 1]

Inception branches whose sum, scaled, is added back to their input (``CustomScaleLayer``); the stem,
``mixed_5b`` and ``mixed_6a`` are InceptionV3's blocks with other widths (``inception_blocks``).
"""

from __future__ import annotations

from typing import Any

from tfkit.applications import builder
from tfkit.applications.application_layers import CustomScaleLayer
from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.applications.inception_blocks import conv2d_bn, inception_a, inception_stem, reduction_a
from tfkit.layers import Activation, Concatenate, Dense, GlobalAveragePooling2D, MaxPooling2D
from tfkit.models import Functional

BASE_WEIGHT_URL = builder.KERAS_WEIGHTS_URL + "inception_resnet_v2/"
# Each block type's branches, in creation order: a branch is a list of (filters, kernel size) convolutions.
BRANCHES = {
    "block35": [[(32, 1)], [(32, 1), (32, 3)], [(32, 1), (48, 3), (64, 3)]],
    "block17": [[(192, 1)], [(128, 1), (160, [1, 7]), (192, [7, 1])]],
    "block8": [[(192, 1)], [(192, 1), (224, [1, 3]), (256, [3, 1])]],
}

preprocess_input = family_preprocess(
    "tf", "Preprocess RGB images in [0, 255] for InceptionResNetV2: scaled to [-1, 1] (Keras's 'tf' mode)."
)


def inception_resnet_block(x: Any, scale: float, block_type: str, block_idx: int, activation: Any = "relu") -> Any:
    """``x + scale * conv(concat(branches(x)))``, then ``activation`` (Keras's ``inception_resnet_block``)."""
    if block_type not in BRANCHES:
        raise ValueError(
            f'Unknown Inception-ResNet block type. Expects "block35", "block17" or "block8", but got: {block_type}'
        )
    branches = []
    for plan in BRANCHES[block_type]:
        branch = x
        for filters, kernel_size in plan:
            branch = conv2d_bn(branch, filters, kernel_size)
        branches.append(branch)
    block_name = f"{block_type}_{block_idx}"
    channel_axis = builder.channel_axis(3)
    mixed = Concatenate(axis=channel_axis, name=f"{block_name}_mixed")(branches)
    up = conv2d_bn(mixed, tuple(x.shape)[channel_axis], 1, activation=None, use_bias=True, name=f"{block_name}_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = Activation(activation, name=f"{block_name}_ac")(x)
    return x


def _reduction_b(x: Any) -> Any:
    """17x17 -> 8x8 (``mixed_7a``)."""
    branch_0 = conv2d_bn(x, 256, 1)
    branch_0 = conv2d_bn(branch_0, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(x, 256, 1)
    branch_1 = conv2d_bn(branch_1, 288, 3, strides=2, padding="valid")
    branch_2 = conv2d_bn(x, 256, 1)
    branch_2 = conv2d_bn(branch_2, 288, 3)
    branch_2 = conv2d_bn(branch_2, 320, 3, strides=2, padding="valid")
    branch_pool = MaxPooling2D(3, strides=2, padding="valid")(x)
    return Concatenate(axis=builder.channel_axis(3), name="mixed_7a")([branch_0, branch_1, branch_2, branch_pool])


def InceptionResNetV2(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "inception_resnet_v2",
) -> Functional:
    """Instantiates the Inception-ResNet v2 architecture.

    Reference: Inception-v4, Inception-ResNet and the Impact of Residual Connections on Learning (Szegedy et al., AAAI
    2017), https://arxiv.org/abs/1602.07261.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's
    `keras.applications.InceptionResNetV2`, so Keras's weight files load by path; tfkit never downloads them (see
    `weights`).

    Call `tfkit.applications.inception_resnet_v2.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model
    (tf mode: scaled to `[-1, 1]`). The default input size is 299x299.

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
            rows and columns at least 75; `None` entries for any size are allowed only when `include_top` is `False`.
            Inputs with other than 1 or 3 channels get a warning. Defaults to `None`: `(299, 299, 3)` with
            `include_top=True`, `(None, None, 3)` otherwise.
        pooling: Optional pooling mode for feature extraction when `include_top` is `False`: `None` (the default) for
            the 4D output of the last convolutional block, `"avg"` for global average pooling or `"max"` for global max
            pooling, either giving a 2D output.
        classes: The number of classes to classify images into, used only when `include_top` is `True`; with a weights
            file it must match the file. Defaults to `1000`.
        classifier_activation: The activation of the classifier, a name or a callable; `None` returns the logits. Used
            only when `include_top` is `True`; with a weights file only `None` and `"softmax"` are allowed. Defaults to
            `"softmax"`.
        name: The name of the model. Defaults to `"inception_resnet_v2"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 75x75, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        `weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives random weights:

        >>> tfkit.applications.InceptionResNetV2()
        Traceback (most recent call last):
        ...
        ValueError: InceptionResNetV2: weights='imagenet' needs Keras's pretrained file, and tfkit does not ...
    """
    suffix = "" if include_top else "_notop"
    builder.check_weights(
        weights,
        "InceptionResNetV2",
        f"{BASE_WEIGHT_URL}inception_resnet_v2_weights_tf_dim_ordering_tf_kernels{suffix}.h5",
    )
    input_shape = builder.obtain_input_shape(input_shape, 299, 75, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)

    x = inception_stem(img_input)
    x = inception_a(x, 96, 64, "mixed_5b")
    for block_idx in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=block_idx)
    x = reduction_a(x, 384, (256, 256, 384), "mixed_6a")
    for block_idx in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=block_idx)
    x = _reduction_b(x)
    for block_idx in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=block_idx)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8", block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        builder.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling)
    return builder.finish(inputs, x, name, weights)
