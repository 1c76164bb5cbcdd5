"""What every application function shares: argument checks, the image input, the pooling head, the weights.

    check_weights(weights, "ResNet50", imagenet_url)               # 'imagenet' fails clearly; a path must exist
    img_input, inputs = image_input(input_tensor, obtain_input_shape(input_shape, 224, 32, include_top, weights))
    return finish(inputs, x, name, weights)                        # Functional model, then the weights file by path

tfkit never downloads: ``weights="imagenet"`` is refused with the address of
Keras's file and how to pass a local copy, which ``Model.load_weights``
reads (a tfkit ``.h5``, a Keras 3 ``.weights.h5`` or a tf-keras ``.h5``).
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Sequence

from tfkit import activations, backend
from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine.functional_graph import Input
from tfkit.layers import GlobalAveragePooling2D, GlobalMaxPooling2D
from tfkit.models import Functional
from tfkit.utils.graph_inputs import get_source_inputs

KERAS_WEIGHTS_URL = "https://storage.googleapis.com/tensorflow/keras-applications/"


def check_weights(weights: Any, function: str, imagenet_url: str) -> None:
    """``None`` or the path of an existing weights file; ``'imagenet'`` is refused with the file to fetch.

    ``function`` names the model in messages (``"ResNet50"``).
    """
    if weights is None:
        return
    if isinstance(weights, str) and weights == "imagenet":
        file_name = imagenet_url.rsplit("/", 1)[-1]
        raise ValueError(
            f"{function}: weights='imagenet' needs Keras's pretrained file, and tfkit does not download it "
            f"(it cannot be downloaded here). Fetch {imagenet_url} on a machine that can, then pass its local "
            f"path: weights='/path/to/{file_name}'. Any Keras weights file (.h5, .weights.h5) or tfkit "
            f"weights file of the same model loads by path; weights=None builds a randomly initialised model."
        )
    if not isinstance(weights, (str, os.PathLike)):
        raise ValueError(
            f"{function}: `weights` should be None (random initialization), 'imagenet' or the path "
            f"of a weights file; received {type(weights).__name__} {weights!r}"
        )
    path = os.fspath(weights)
    if not (os.path.exists(path) or os.path.exists(path + ".index")):  # a file, or a checkpoint prefix
        raise ValueError(
            f"{function}: `weights` should be None (random initialization), 'imagenet' or the path "
            f"of a weights file; there is no file at weights={path!r}"
        )


def obtain_input_shape(
    input_shape: Sequence[int | None] | None,
    default_size: int,
    min_size: int,
    require_flatten: bool,
    weights: Any = None,
) -> tuple[int | None, ...]:
    """The model's input shape (Keras's ``imagenet_utils.obtain_input_shape``, same checks and messages)."""
    data_format = backend.image_data_format()
    first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if first else input_shape[-1]
        if channels not in {1, 3}:
            warnings.warn(
                "This model usually expects 1 or 3 input channels. However, it was passed an "
                f"input_shape with {channels} input channels.",
                stacklevel=3,
            )
        default_shape = (channels, default_size, default_size) if first else (default_size, default_size, channels)
    else:
        default_shape = (3, default_size, default_size) if first else (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError(
                "When setting `include_top=True` and loading `imagenet` weights, `input_shape` "
                f"should be {default_shape}.  Received: input_shape={input_shape}"
            )
        return default_shape
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError(f"`input_shape` must be a tuple of three integers; received input_shape={input_shape}")
        channels = input_shape[0] if first else input_shape[-1]
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; Received `input_shape={input_shape}`")
        rows, cols = input_shape[1:3] if first else input_shape[0:2]
        if (rows is not None and rows < min_size) or (cols is not None and cols < min_size):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: input_shape={input_shape}")
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(
            f"If `include_top` is True, you should specify a static `input_shape`. Received: input_shape={input_shape}"
        )
    return input_shape


def image_input(input_tensor: Any, input_shape: Sequence[int | None]) -> tuple[Any, Any]:
    """``(tensor the layers start from, the model's inputs)``: a new ``Input`` or the caller's symbolic tensor."""
    if input_tensor is None:
        img_input = Input(shape=input_shape)
        return img_input, img_input
    if not isinstance(input_tensor, SymbolicTensor):
        raise ValueError(
            f"`input_tensor` should be a symbolic tensor (tfkit.Input(...) or a layer's output on one); "
            f"received {type(input_tensor).__name__}. To run the model on concrete data, build it "
            f"with input_shape=... and call it on the data."
        )
    return input_tensor, get_source_inputs(input_tensor)


def channel_axis(last: int = 3) -> int:
    """The channel axis of a 4-D image batch: ``last`` (3 or -1, as each Keras family writes it) or 1."""
    return 1 if backend.image_data_format() == "channels_first" else last


def validate_activation(classifier_activation: Any, weights: Any) -> None:
    """With pretrained weights the classifier's activation must be ``None`` or ``"softmax"`` (as in Keras)."""
    if weights is None:
        return
    if activations.get(classifier_activation) not in {activations.get("softmax"), activations.get(None)}:
        raise ValueError(
            "Only `None` and `softmax` activations are allowed for the `classifier_activation` "
            "argument when using pretrained weights, with `include_top=True`; Received: "
            f"classifier_activation={classifier_activation}"
        )


def pool(x: Any, pooling: str | None, avg_name: str | None = None, max_name: str | None = None) -> Any:
    """The feature-extractor head when ``include_top=False``: ``"avg"``, ``"max"`` or none."""
    if pooling == "avg":
        return GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return GlobalMaxPooling2D(name=max_name)(x)
    return x


def correct_pad(x: Any, kernel_size: int | tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Zero-padding before a strided 'valid' convolution, as Keras's ``imagenet_utils.correct_pad``."""
    start = 2 if backend.image_data_format() == "channels_first" else 1
    size = tuple(x.shape)[start : start + 2]
    kernel = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel[0] // 2, kernel[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def finish(inputs: Any, outputs: Any, name: str, weights: Any) -> Functional:
    """The functional model, with the weights file (if any) loaded by path."""
    model = Functional(inputs, outputs, name=name)
    if weights is not None:
        model.load_weights(os.fspath(weights))
    return model
