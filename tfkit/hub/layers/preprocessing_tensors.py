"""What KerasHub's preprocessing layers take and give: raw Python data in, TensorFlow ops inside, lists out.

    x = convert_preprocessing_inputs([[1, 2, 3], [4]])        # a tf.RaggedTensor (int32)
    x, unbatched, rectangular = convert_to_ragged_batch(x)   # always a rank-2 ragged batch inside
    outputs = convert_preprocessing_outputs(outputs)         # eager: string and ragged tensors as Python lists

The rules are KerasHub's (``keras_hub.src.utils.tensor_utils``): a tuple lists
separate inputs, a list is one array-like input (ragged when its rows differ),
Python ``int64`` becomes ``int32``; strings and ragged batches come back as
Python lists, dense numbers as tensors. Inside ``tf.data`` or a ``tf.function``
nothing is converted. ``tensorflow_text`` is imported by :func:`tensorflow_text`
only when a layer needs it (the ``hub`` extra).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf


def tensorflow_text(who: str) -> Any:
    """The ``tensorflow_text`` module, or an ``ImportError`` saying which layer needs it and how to install it."""
    try:
        import tensorflow_text as tf_text
    except ImportError as error:
        raise ImportError(
            f"{who} needs tensorflow-text, which is not installed: pip install tfkit[hub] "
            f"(or pip install tensorflow-text)"
        ) from error
    return tf_text


def convert_preprocessing_inputs(x: Any) -> Any:
    """Raw inputs (lists, strings, arrays, tensors; in tuples and dicts) as tensors, as KerasHub converts them.

    A tuple holds separate inputs and a dict named ones; a list is one
    array-like input, a ragged tensor when its rows differ in length. Integers
    NumPy would make ``int64`` become ``int32``. Tensors are returned unchanged.
    """
    if isinstance(x, dict):
        return {key: convert_preprocessing_inputs(value) for key, value in x.items()}
    if isinstance(x, tuple):
        return tuple(convert_preprocessing_inputs(value) for value in x)
    if isinstance(x, (str, bytes)):
        return tf.constant(x)
    if isinstance(x, list):
        try:
            array = np.array(x)
        except ValueError:
            return tf.ragged.constant(x)  # rows of different lengths
        if array.dtype.kind in ("U", "S"):
            return tf.convert_to_tensor(x)
        if array.dtype == np.int64:
            array = array.astype(np.int32)
        return tf.convert_to_tensor(array)
    if isinstance(x, np.ndarray):
        return tf.convert_to_tensor(x)
    return x


def _as_python(x: tf.Tensor | tf.RaggedTensor) -> Any:
    """A ragged or string tensor as nested Python lists, strings decoded as UTF-8 (invalid bytes dropped)."""
    values = x.to_list() if isinstance(x, tf.RaggedTensor) else x.numpy()
    if isinstance(values, np.ndarray):
        values = values.tolist()

    def decode(value: Any) -> Any:
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="ignore")
        if isinstance(value, list):
            return [decode(item) for item in value]
        return value

    return decode(values) if x.dtype == tf.string else values


def convert_preprocessing_outputs(x: Any) -> Any:
    """Outputs as KerasHub returns them eagerly: ragged and string tensors as Python lists, others unchanged."""

    def convert(value: Any) -> Any:
        if isinstance(value, tf.RaggedTensor) or (isinstance(value, tf.Tensor) and value.dtype == tf.string):
            return _as_python(value)
        return value

    return tf.nest.map_structure(convert, x)


def convert_to_ragged_batch(inputs: Any) -> tuple[tf.RaggedTensor, bool, bool]:
    """``(ragged batch, unbatched, rectangular)``: one sequence becomes a batch of one, a dense batch ragged.

    ``unbatched`` says the input was rank 1 (squeeze the batch axis off the
    outputs), ``rectangular`` that it was a dense tensor (not ragged).
    """
    if not isinstance(inputs, (tf.Tensor, tf.RaggedTensor)):
        inputs = tf.convert_to_tensor(inputs)
    unbatched = inputs.shape.rank == 1
    rectangular = isinstance(inputs, tf.Tensor)
    if unbatched:
        inputs = tf.expand_dims(inputs, 0)
    if rectangular:
        inputs = tf.RaggedTensor.from_tensor(inputs)
    return inputs, unbatched, rectangular


def pad(x: tf.RaggedTensor, shape: Any, padding_side: str, pad_value: Any) -> tf.Tensor:
    """A ragged batch padded (or cut) to ``shape`` with ``pad_value``, on the ``"left"`` or the ``"right"``."""
    if padding_side == "left":
        x = x[..., ::-1]
    outputs = x.to_tensor(default_value=pad_value, shape=shape)
    if padding_side == "left":
        outputs = outputs[..., ::-1]
    return outputs


def special_values(value: Any, name: str, who: str) -> list | None:
    """A packer's start/end/sep value as a list (``1`` -> ``[1]``, ``"[CLS]"`` -> ``["[CLS]"]``), or None."""
    if value is None:
        return None
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise ValueError(f"{who} expected `{name}` to be an int, a str, a list or a tuple, got {type(value).__name__}")


def check_padding_side(padding_side: Any, who: str) -> str:
    """``padding_side`` when it is ``"left"`` or ``"right"``; otherwise a ``ValueError`` naming the layer."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"{who} expected `padding_side` to be 'left' or 'right', got {padding_side!r}")
    return padding_side
