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

from tfkit import backend
from tfkit.applications.class_index import load_class_index

CAFFE_MEAN = [103.939, 116.779, 123.68]       # BGR
TORCH_MEAN = [0.485, 0.456, 0.406]
TORCH_STD = [0.229, 0.224, 0.225]


def preprocess_input(x: Any, data_format: str | None = None, mode: str = "caffe") -> Any:
    """Preprocess a batch (or one image) of RGB pixels in [0, 255] for an ImageNet model.

    ``mode``: ``"caffe"`` (RGB->BGR, minus the ImageNet mean, no scaling),
    ``"tf"`` (scaled to [-1, 1]) or ``"torch"`` (scaled to [0, 1], then
    normalised by the ImageNet mean and std). ``data_format`` defaults to
    ``tfkit.backend.image_data_format()``.
    """
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError(f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}")
    if data_format is None:
        data_format = backend.image_data_format()
    elif data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Expected data_format to be one of `channels_first` or `channels_last`. "
                         f"Received: data_format={data_format}")
    if isinstance(x, np.ndarray):
        return _preprocess_numpy(x, data_format, mode)
    return _preprocess_tensor(tf.convert_to_tensor(x), data_format, mode)


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
            index = (channel, slice(None), slice(None)) if x.ndim == 3 else (slice(None), channel, slice(None), slice(None))
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
        if data_format == "channels_first":
            x = tf.stack([x[i, ...] for i in (2, 1, 0)], axis=0) if ndim == 3 else \
                tf.stack([x[:, i, :] for i in (2, 1, 0)], axis=1)
        else:
            x = tf.stack([x[..., i] for i in (2, 1, 0)], axis=-1)
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


def decode_predictions(preds: Any, top: int = 5,
                       class_index_path: str | os.PathLike | None = None) -> list[list[tuple[str, str, Any]]]:
    """The ``top`` classes of each row of a ``(samples, 1000)`` prediction: ``(wordnet_id, name, score)``, best first.

    The class index comes from ``class_index_path``, else ``$TFKIT_IMAGENET_CLASS_INDEX``,
    else Keras's cached ``~/.keras/models/imagenet_class_index.json``.
    """
    shape = tuple(preds.shape) if hasattr(preds, "shape") else np.shape(preds)
    if len(shape) != 2 or shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
                         f"(samples, 1000)). Received array with shape: {shape}")
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
