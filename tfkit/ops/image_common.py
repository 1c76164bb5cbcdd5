"""Shared pieces of ``tfkit.ops.image``: data formats, rank checks, channels-last batches, dtypes.

data_format = standard_format(data_format, "resize")      # None -> tfkit.backend.image_data_format()
batch, unbatched = to_batch_last(images, data_format)     # a 4-D channels-last view of 3-D or 4-D images
out = from_batch_last(out, unbatched, data_format)         # back to the caller's layout
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base import settings as backend
from tfkit.ops._convert import tensor

DATA_FORMATS = ("channels_last", "channels_first")


def standard_format(data_format: Any, op: str) -> str:
    """``data_format``, or tfkit's ``image_data_format()`` when it is None; anything else is a ValueError."""
    if data_format is None:
        return backend.image_data_format()
    if data_format not in DATA_FORMATS:
        raise ValueError(
            f"tfkit.ops.image.{op}: data_format must be 'channels_last' or 'channels_first', got {data_format!r}"
        )
    return data_format


def as_tensor(value: Any, op: str, what: str = "images") -> tf.Tensor:
    """``value`` as a tensor: numpy arrays keep their dtype (float64 too, as Keras's image ops keep it),
    Python floats and nested lists of them become float32."""
    try:
        if isinstance(value, (np.ndarray, np.generic)):
            return tf.convert_to_tensor(value)
        return tensor(value)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"tfkit.ops.image.{op}: {what} must be a tensor or an array, got {type(value).__name__}: {error}"
        ) from error


def check_rank(images: tf.Tensor, op: str, what: str = "images", ranks: tuple[int, ...] = (3, 4)) -> int:
    """The rank of ``images`` if it is one of ``ranks``; else a ValueError naming the argument and its shape."""
    rank = images.shape.rank
    if rank not in ranks:
        names = {3: "3 (a single image)", 4: "4 (a batch of images)", 5: "5 (a batch of volumes)"}
        expected = " or ".join(names.get(r, str(r)) for r in ranks)
        shape = tuple(images.shape) if rank is not None else "of unknown rank"
        raise ValueError(f"tfkit.ops.image.{op}: expected {what} of rank {expected}, got shape {shape}")
    return rank


def check_numeric(images: tf.Tensor, op: str, what: str = "images") -> None:
    """Bool, string and complex images are a TypeError: the op computes with numbers."""
    dtype = images.dtype
    if dtype.is_bool or dtype == tf.string or dtype.is_complex:
        raise TypeError(f"tfkit.ops.image.{op}: {what} must have an integer or floating dtype, got {dtype.name}")


def check_float(images: tf.Tensor, op: str, what: str = "images") -> None:
    if not images.dtype.is_floating:
        raise ValueError(
            f"tfkit.ops.image.{op}: {what} must have a floating dtype (values in [0, 1]), "
            f"got {images.dtype.name}; cast it first, e.g. tfkit.ops.cast(images, 'float32') / 255"
        )


def to_batch_last(images: tf.Tensor, data_format: str) -> tuple[tf.Tensor, bool]:
    """A 4-D channels-last view of 3-D or 4-D ``images`` and whether a batch axis was added."""
    unbatched = images.shape.rank == 3
    if unbatched:
        images = images[tf.newaxis]
    if data_format == "channels_first":
        images = tf.transpose(images, (0, 2, 3, 1))
    return images, unbatched


def from_batch_last(images: tf.Tensor, unbatched: bool, data_format: str) -> tf.Tensor:
    """Undo :func:`to_batch_last`."""
    if data_format == "channels_first":
        images = tf.transpose(images, (0, 3, 1, 2))
    return images[0] if unbatched else images


def work_dtype(dtype: tf.DType) -> tf.DType:
    """The float dtype a computation on ``dtype`` runs in: floats keep theirs, others use float32."""
    return dtype if dtype.is_floating else tf.float32


def cast_back(values: tf.Tensor, dtype: tf.DType) -> tf.Tensor:
    """Float results in the input's ``dtype``: integers are rounded and saturated, as Keras does."""
    if values.dtype == dtype:
        return values
    if dtype.is_integer:
        return tf.saturate_cast(tf.round(values), dtype)
    return tf.cast(values, dtype)


def static_or_dynamic(images: tf.Tensor) -> list[Any]:
    """Each dimension of ``images``: an int where known, else a scalar int32 tensor."""
    dynamic = tf.shape(images)
    return [d if d is not None else dynamic[i] for i, d in enumerate(images.shape.as_list())]


def pair(value: Any, op: str, what: str, kind: type = int) -> tuple[Any, Any]:
    """``(a, b)`` from a number or a length-2 sequence; anything else is a ValueError naming ``what``."""
    if isinstance(value, (list, tuple)) or isinstance(value, np.ndarray):
        values = list(np.asarray(value).reshape(-1).tolist()) if isinstance(value, np.ndarray) else list(value)
        if len(values) == 2:
            return values[0], values[1]
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return value, value
    elif tf.is_tensor(value) and value.shape.rank in (0, 1):
        if value.shape.rank == 0:
            return value, value
        if value.shape[0] == 2:
            return value[0], value[1]
    name = "integers" if kind is int else "numbers"
    raise ValueError(f"tfkit.ops.image.{op}: {what} must be a number or a pair of {name}, got {value!r}")
