"""VGG19 (``keras.applications.vgg19``).

model = VGG19(weights=None, include_top=False, input_shape=(64, 64, 3))
model = VGG19(weights="/path/to/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5", include_top=False)
x = preprocess_input(images)          # caffe mode
"""

from __future__ import annotations

from typing import Any

from tfkit.applications.imagenet_utils import decode_predictions  # noqa: F401
from tfkit.applications.vgg import VGG, preprocess_input  # noqa: F401
from tfkit.models import Functional


def VGG19(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "vgg19",
) -> Functional:
    """Instantiates the VGG19 architecture.

    Reference: Very Deep Convolutional Networks for Large-Scale Image Recognition (Simonyan and Zisserman, ICLR 2015),
    https://arxiv.org/abs/1409.1556.

    Five blocks of 3x3 convolutions (16 in all) and max pooling, then two fully connected layers of 4096 units and the
    classifier. tfkit builds the same layers, with the same names and weight order, as Keras 3's
    `keras.applications.VGG19`, so Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.vgg19.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (caffe mode:
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
        name: The name of the model. Defaults to `"vgg19"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        >>> model = tfkit.applications.VGG19(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
        >>> model.output_shape
        (None, 512)
        >>> len(model.layers)
        23
    """
    return VGG(
        (2, 2, 4, 4, 4),
        "vgg19",
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name,
    )
