"""ImageNet input preprocessing and prediction decoding, with Keras's numbers (``keras.applications.imagenet_utils``).

    x = preprocess_input(images, mode="caffe")        # RGB->BGR, minus the ImageNet mean ("tf": [-1, 1], "torch")
    decode_predictions(model.predict(x), top=3, class_index_path="imagenet_class_index.json")
    # [[("n02504458", "African_elephant", 0.91), ...], ...]

NumPy float arrays are changed in place, as in Keras; tensors are not.
``decode_predictions`` reads the class index from a local file (see
``class_index``): tfkit never downloads it.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import backend, ops
from tfkit.applications.class_index import load_class_index
from tfkit.base.symbolic import SymbolicTensor

CAFFE_MEAN = [103.939, 116.779, 123.68]  # BGR
TORCH_MEAN = [0.485, 0.456, 0.406]
TORCH_STD = [0.229, 0.224, 0.225]


def preprocess_input(x: Any, data_format: str | None = None, mode: str = "caffe") -> Any:
    """Preprocesses a batch (or one image) of RGB pixels in `[0, 255]` for an ImageNet model.

    Each family module's `preprocess_input` (e.g. `tfkit.applications.resnet50.preprocess_input`)
    calls this with its family's `mode`. NumPy float arrays are changed in place, as in Keras
    (integer arrays are first cast to `tfkit.backend.floatx()`); tensors are not.

    Args:
        x: A NumPy array or tensor of RGB images, `(..., height, width, 3)` (or channels first),
            3D or 4D, with values in `[0, 255]`.
        data_format: `"channels_last"` or `"channels_first"`. Defaults to `None`, for
            `tfkit.backend.image_data_format()`.
        mode: `"caffe"` (RGB to BGR, then minus the ImageNet mean per channel, no scaling),
            `"tf"` (scaled to `[-1, 1]`) or `"torch"` (scaled to `[0, 1]`, then normalized by
            the ImageNet mean and standard deviation). Defaults to `"caffe"`.

    Returns:
        The preprocessed images, a NumPy array for NumPy input, else a tensor.

    Raises:
        ValueError: If `mode` or `data_format` is not one of the values above.

    Example:
        >>> x = np.array([[[[255.0, 0.0, 0.0]]]])
        >>> tfkit.applications.imagenet_utils.preprocess_input(x.copy(), mode="caffe")
        array([[[[-103.939, -116.779,  131.32 ]]]])
        >>> tfkit.applications.imagenet_utils.preprocess_input(x.copy(), mode="tf")
        array([[[[ 1., -1., -1.]]]])
    """
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError(f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}")
    if data_format is None:
        data_format = backend.image_data_format()
    elif data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            "Expected data_format to be one of `channels_first` or `channels_last`. "
            f"Received: data_format={data_format}"
        )
    if isinstance(x, np.ndarray):
        return _preprocess_numpy(x, data_format, mode)
    if not isinstance(x, SymbolicTensor):  # a symbolic input (tfkit.Input) stays one: the ops below record nodes
        x = tf.convert_to_tensor(x)
    return _preprocess_tensor(x, data_format, mode)


def _preprocess_numpy(x: np.ndarray, data_format: str, mode: str) -> np.ndarray:
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = TORCH_MEAN, TORCH_STD
    else:
        if data_format == "channels_first":
            x = x[::-1, ...] if x.ndim == 3 else x[:, ::-1, ...]
        else:
            x = x[..., ::-1]
        mean, std = CAFFE_MEAN, None
    for channel in range(3):
        if data_format == "channels_first":
            index = (
                (channel, slice(None), slice(None)) if x.ndim == 3 else (slice(None), channel, slice(None), slice(None))
            )
        else:
            index = (Ellipsis, channel)
        x[index] -= mean[channel]
        if std is not None:
            x[index] /= std[channel]
    return x


def _preprocess_tensor(x: tf.Tensor, data_format: str, mode: str) -> tf.Tensor:
    ndim = len(x.shape)
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        x = x / 255.0
        mean, std = TORCH_MEAN, TORCH_STD
    else:
        # RGB -> BGR with tfkit.ops.stack, as Keras's uses keras.ops.stack: on symbolic tensors it records
        # Keras's Stack operation, so the model saves as .keras (tf.stack would record a TensorFlow call)
        if data_format == "channels_first":
            x = (
                ops.stack([x[i, ...] for i in (2, 1, 0)], axis=0)
                if ndim == 3
                else ops.stack([x[:, i, :] for i in (2, 1, 0)], axis=1)
            )
        else:
            x = ops.stack([x[..., i] for i in (2, 1, 0)], axis=-1)
        mean, std = CAFFE_MEAN, None
    mean_tensor = tf.convert_to_tensor(-np.array(mean), dtype=x.dtype)
    if data_format == "channels_first":
        mean_shape = (3, 1, 1) if ndim == 3 else (1, 3) + (1,) * (ndim - 2)
    else:
        mean_shape = (1,) * (ndim - 1) + (3,)
    x = x + tf.reshape(mean_tensor, mean_shape)
    if std is not None:
        std_tensor = tf.convert_to_tensor(np.array(std), dtype=x.dtype)
        if data_format == "channels_first":
            std_tensor = tf.reshape(std_tensor, (-1, 1, 1))
        x = x / std_tensor
    return x


def decode_predictions(
    preds: Any, top: int = 5, class_index_path: str | os.PathLike | None = None
) -> list[list[tuple[str, str, Any]]]:
    """Decodes the predictions of an ImageNet model into class names.

    The class index (Keras's `imagenet_class_index.json`) is read from `class_index_path`, else
    from `$TFKIT_IMAGENET_CLASS_INDEX`, else from Keras's cached
    `~/.keras/models/imagenet_class_index.json`; tfkit never downloads it.

    Args:
        preds: The predictions, a `(samples, 1000)` array or tensor.
        top: The number of classes returned per sample. Defaults to `5`.
        class_index_path: Optional path of the class index JSON file. Defaults to `None`.

    Returns:
        A list with, for each sample, a list of `top` tuples `(wordnet_id, class_name, score)`,
        best first.

    Raises:
        ValueError: If `preds` is not `(samples, 1000)`, or the class index cannot be found or
            is not a valid class index.

    Example:
        >>> import json
        >>> index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
        >>> with open("class_index.json", "w") as f:
        ...     json.dump(index, f)
        >>> preds = np.zeros((1, 1000), np.float32)
        >>> preds[0, 7], preds[0, 3] = 0.75, 0.25
        >>> decoded = tfkit.applications.imagenet_utils.decode_predictions(
        ...     preds, top=2, class_index_path="class_index.json")
        >>> [(wordnet_id, name, float(score)) for wordnet_id, name, score in decoded[0]]
        [('n00000007', 'class_7', 0.75), ('n00000003', 'class_3', 0.25)]
    """
    shape = tuple(preds.shape) if hasattr(preds, "shape") else np.shape(preds)
    if len(shape) != 2 or shape[1] != 1000:
        raise ValueError(
            "`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
            f"(samples, 1000)). Received array with shape: {shape}"
        )
    index = load_class_index(class_index_path)
    results = []
    for pred in np.asarray(preds):
        top_indices = pred.argsort()[-top:][::-1]
        result = [index[int(i)] + (pred[i],) for i in top_indices]
        result.sort(key=lambda item: item[2], reverse=True)
        results.append(result)
    return results


def family_preprocess(mode: str, doc: str) -> Any:
    """A family's ``preprocess_input(x, data_format=None)`` in ``mode``."""

    def preprocess(x: Any, data_format: str | None = None) -> Any:
        return preprocess_input(x, data_format=data_format, mode=mode)

    preprocess.__name__ = preprocess.__qualname__ = "preprocess_input"
    preprocess.__doc__ = doc
    return preprocess
