"""InceptionV3 (``keras.applications.inception_v3``).

    model = InceptionV3(weights=None, include_top=False, input_shape=(75, 75, 3), pooling="avg")
    model = InceptionV3(weights="/path/to/inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5", include_top=False)
    x = preprocess_input(images)          # tf mode: [-1, 1]

Its stem, 35x35 blocks (``mixed0``-``mixed2``) and first reduction (``mixed3``) are shared with
InceptionResNetV2 (``inception_blocks``); the layers inside the blocks are unnamed, as in Keras.
"""

from __future__ import annotations

from typing import Any

from tfkit.applications import builder
from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.applications.inception_blocks import conv2d_bn, inception_a, inception_stem, reduction_a
from tfkit.layers import AveragePooling2D, Dense, GlobalAveragePooling2D, MaxPooling2D, concatenate
from tfkit.models import Functional

BASE_WEIGHTS_PATH = builder.KERAS_WEIGHTS_URL + "inception_v3/"

preprocess_input = family_preprocess(
    "tf", "Preprocess RGB images in [0, 255] for InceptionV3: scaled to [-1, 1] (Keras's 'tf' mode)."
)


def _average_pool_branch(x: Any, filters: int) -> Any:
    return conv2d_bn(AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x), filters, 1)


def _inception_c(x: Any, filters_7x7: int, name: str) -> Any:
    """17x17 block: factorised 7x7 convolutions (1x7 and 7x1) in two branches."""
    branch_1x1 = conv2d_bn(x, 192, 1)
    branch_7x7 = conv2d_bn(x, filters_7x7, 1)
    branch_7x7 = conv2d_bn(branch_7x7, filters_7x7, (1, 7))
    branch_7x7 = conv2d_bn(branch_7x7, 192, (7, 1))
    branch_7x7dbl = conv2d_bn(x, filters_7x7, 1)
    for filters, kernel in ((filters_7x7, (7, 1)), (filters_7x7, (1, 7)), (filters_7x7, (7, 1)), (192, (1, 7))):
        branch_7x7dbl = conv2d_bn(branch_7x7dbl, filters, kernel)
    branch_pool = _average_pool_branch(x, 192)
    return concatenate([branch_1x1, branch_7x7, branch_7x7dbl, branch_pool], axis=builder.channel_axis(3), name=name)


def _reduction_b(x: Any) -> Any:
    """17x17 -> 8x8 (``mixed8``)."""
    branch_3x3 = conv2d_bn(x, 192, 1)
    branch_3x3 = conv2d_bn(branch_3x3, 320, 3, strides=2, padding="valid")
    branch_7x7x3 = conv2d_bn(x, 192, 1)
    branch_7x7x3 = conv2d_bn(branch_7x7x3, 192, (1, 7))
    branch_7x7x3 = conv2d_bn(branch_7x7x3, 192, (7, 1))
    branch_7x7x3 = conv2d_bn(branch_7x7x3, 192, 3, strides=2, padding="valid")
    branch_pool = MaxPooling2D((3, 3), strides=(2, 2))(x)
    return concatenate([branch_3x3, branch_7x7x3, branch_pool], axis=builder.channel_axis(3), name="mixed8")


def _inception_e(x: Any, index: int) -> Any:
    """8x8 block (``mixed9``, ``mixed10``): 3x3 convolutions split into parallel 1x3 and 3x1."""
    axis = builder.channel_axis(3)
    branch_1x1 = conv2d_bn(x, 320, 1)
    branch_3x3 = conv2d_bn(x, 384, 1)
    branch_3x3 = concatenate(
        [conv2d_bn(branch_3x3, 384, (1, 3)), conv2d_bn(branch_3x3, 384, (3, 1))], axis=axis, name=f"mixed9_{index}"
    )
    branch_3x3dbl = conv2d_bn(x, 448, 1)
    branch_3x3dbl = conv2d_bn(branch_3x3dbl, 384, 3)
    branch_3x3dbl = concatenate(
        [conv2d_bn(branch_3x3dbl, 384, (1, 3)), conv2d_bn(branch_3x3dbl, 384, (3, 1))], axis=axis
    )
    branch_pool = _average_pool_branch(x, 192)
    return concatenate([branch_1x1, branch_3x3, branch_3x3dbl, branch_pool], axis=axis, name=f"mixed{9 + index}")


def InceptionV3(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "inception_v3",
) -> Functional:
    """Instantiates the Inception v3 architecture.

    Reference: Rethinking the Inception Architecture for Computer Vision (Szegedy et al., CVPR 2016),
    https://arxiv.org/abs/1512.00567.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.InceptionV3`,
    so Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.inception_v3.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (tf
    mode: scaled to `[-1, 1]`). The default input size is 299x299.

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
        name: The name of the model. Defaults to `"inception_v3"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 75x75, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        >>> tfkit.applications.InceptionV3(weights=None, include_top=False, input_shape=(64, 64, 3))
        Traceback (most recent call last):
        ...
        ValueError: Input size must be at least 75x75; Received: input_shape=(64, 64, 3)
    """
    suffix = "" if include_top else "_notop"
    builder.check_weights(
        weights, "InceptionV3", f"{BASE_WEIGHTS_PATH}inception_v3_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    )
    input_shape = builder.obtain_input_shape(input_shape, 299, 75, include_top, weights)
    img_input, inputs = builder.image_input(input_tensor, input_shape)

    x = inception_stem(img_input)
    for index, pool_filters in enumerate((32, 64, 64)):
        x = inception_a(x, 64, pool_filters, f"mixed{index}")
    x = reduction_a(x, 384, (64, 96, 96), "mixed3")
    for index, filters_7x7 in enumerate((128, 160, 160, 192)):
        x = _inception_c(x, filters_7x7, f"mixed{4 + index}")
    x = _reduction_b(x)
    for index in range(2):
        x = _inception_e(x, index)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        builder.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pool(x, pooling)
    return builder.finish(inputs, x, name, weights)
