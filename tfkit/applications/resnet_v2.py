"""ResNet50V2, ResNet101V2 and ResNet152V2 (``keras.applications.resnet_v2``).

model = ResNet50V2(weights=None, include_top=False, input_shape=(64, 64, 3))
x = preprocess_input(images)          # tf mode: pixels scaled to [-1, 1]
decode_predictions(probabilities, class_index_path="imagenet_class_index.json")
"""

from __future__ import annotations

from typing import Any, Callable

from tfkit.applications.imagenet_utils import decode_predictions, family_preprocess  # noqa: F401
from tfkit.applications.resnet import ResNet, stack_residual_blocks_v2
from tfkit.models import Functional

preprocess_input = family_preprocess(
    "tf", "Preprocess RGB images in [0, 255] for ResNetV2: scaled to [-1, 1] (Keras's 'tf' mode)."
)


def _v2(depths: tuple[int, int, int, int]) -> Callable[[Any], Any]:
    def stack_fn(x: Any) -> Any:
        x = stack_residual_blocks_v2(x, 64, depths[0], name="conv2")
        x = stack_residual_blocks_v2(x, 128, depths[1], name="conv3")
        x = stack_residual_blocks_v2(x, 256, depths[2], name="conv4")
        return stack_residual_blocks_v2(x, 512, depths[3], stride1=1, name="conv5")

    return stack_fn


def ResNet50V2(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "resnet50v2",
) -> Functional:
    """Instantiates the ResNet50V2 architecture (pre-activation residual units).

    Reference: Identity Mappings in Deep Residual Networks (He et al., ECCV 2016), https://arxiv.org/abs/1603.05027.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.ResNet50V2`, so
    Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.resnet_v2.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (tf mode:
    pixels scaled to `[-1, 1]`). The default input size is 224x224.

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
        name: The name of the model. Defaults to `"resnet50v2"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        With the classifier on top, the image size must be fixed:

        >>> tfkit.applications.ResNet50V2(weights=None, input_shape=(None, None, 3))
        Traceback (most recent call last):
        ...
        ValueError: If `include_top` is True, you should specify a static `input_shape`. ...
    """
    return ResNet(
        _v2((3, 4, 6, 3)),
        True,
        True,
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name,
        "resnet50v2",
    )


def ResNet101V2(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "resnet101v2",
) -> Functional:
    """Instantiates the ResNet101V2 architecture (pre-activation residual units).

    Reference: Identity Mappings in Deep Residual Networks (He et al., ECCV 2016), https://arxiv.org/abs/1603.05027.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.ResNet101V2`,
    so Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.resnet_v2.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (tf mode:
    pixels scaled to `[-1, 1]`). The default input size is 224x224.

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
        name: The name of the model. Defaults to `"resnet101v2"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        `weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives random weights:

        >>> tfkit.applications.ResNet101V2(include_top=False)
        Traceback (most recent call last):
        ...
        ValueError: model 'resnet101v2': weights='imagenet' needs Keras's pretrained file, and tfkit does not ...
    """
    return ResNet(
        _v2((3, 4, 23, 3)),
        True,
        True,
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name,
        "resnet101v2",
    )


def ResNet152V2(
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    input_shape: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str = "resnet152v2",
) -> Functional:
    """Instantiates the ResNet152V2 architecture (pre-activation residual units).

    Reference: Identity Mappings in Deep Residual Networks (He et al., ECCV 2016), https://arxiv.org/abs/1603.05027.

    tfkit builds the same layers, with the same names and weight order, as Keras 3's `keras.applications.ResNet152V2`,
    so Keras's weight files load by path; tfkit never downloads them (see `weights`).

    Call `tfkit.applications.resnet_v2.preprocess_input` on RGB pixels in `[0, 255]` before feeding the model (tf mode:
    pixels scaled to `[-1, 1]`). The default input size is 224x224.

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
        name: The name of the model. Defaults to `"resnet152v2"`.

    Returns:
        A `tfkit.Model` instance (a functional model).

    Raises:
        ValueError: If `weights` is neither `None` nor the path of an existing file (`"imagenet"` included, see
            `weights`), if `input_shape` does not have three entries or is smaller than 32x32, if `include_top` is
            `True` and `input_shape` holds `None`, if `input_tensor` is not symbolic, or if `classifier_activation` is
            neither `None` nor `"softmax"` with a weights file.

    Example:
        `weights="imagenet"` (the default) needs a local copy of Keras's file; `weights=None` gives random weights:

        >>> tfkit.applications.ResNet152V2()
        Traceback (most recent call last):
        ...
        ValueError: model 'resnet152v2': weights='imagenet' needs Keras's pretrained file, and tfkit does not ...
    """
    return ResNet(
        _v2((3, 8, 36, 3)),
        True,
        True,
        include_top,
        weights,
        input_tensor,
        input_shape,
        pooling,
        classes,
        classifier_activation,
        name,
        "resnet152v2",
    )
