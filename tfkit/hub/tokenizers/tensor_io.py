"""What a tokenizer takes (strings, or token ids to detokenize) and how it shapes what it gives back.

    text, unbatched = string_input(["a b", "c"], "WordPieceTokenizer 'wp'"), False   # a tf.string tensor
    ids, rank = id_batch([3, 4], "WordPieceTokenizer 'wp'")          # a ragged [1, (2)] batch, rank 1
    tokens = shaped_output(ragged_ids, sequence_length=8, unbatched=False, pad_value=0)
    return returned(ids)          # tokenize() called directly and eagerly: Python lists, as KerasHub

Raw Python data becomes tensors by KerasHub's rules (``tfkit.hub.layers``'
``convert_preprocessing_inputs``); calling the layer goes through
``PreprocessingLayer.__call__``, which converts its outputs on the outermost
eager call. ``tokenize`` and ``detokenize`` called directly, eagerly and
outside any layer's call, convert theirs the same way (KerasHub's
``tokenizer.detokenize(ids)`` gives a ``str``).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine import call_context
from tfkit.hub.layers.preprocessing_tensors import convert_preprocessing_inputs, convert_preprocessing_outputs


def is_int_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` (a name or a ``tf.DType``) is an integer type."""
    try:
        return tf.as_dtype(dtype).is_integer
    except TypeError:
        return False


def is_string_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` (a name or a ``tf.DType``) is ``string``."""
    try:
        return tf.as_dtype(dtype) == tf.string
    except TypeError:
        return False


def check_output_dtype(dtype: Any, who: str) -> None:
    """A ``ValueError`` unless a tokenizer's output ``dtype`` is an integer type or ``"string"``."""
    name = getattr(dtype, "name", dtype)
    if not (is_int_dtype(name) or is_string_dtype(name)):
        raise ValueError(f"{who}: output dtype must be an integer type or 'string', got dtype={dtype!r}")


def _tensor(value: Any, what: str, who: str) -> Any:
    try:
        value = convert_preprocessing_inputs(value)
        return value if isinstance(value, (tf.Tensor, tf.RaggedTensor)) else tf.convert_to_tensor(value)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{who}: expected {what}, got {value!r}") from error


def string_input(inputs: Any, who: str) -> Any:
    """``inputs`` (a string, a list of strings, an array or a dense or ragged tensor) as a string tensor."""
    tensor = _tensor(inputs, "strings (a string, a list of strings or a string tensor)", who)
    if tensor.dtype != tf.string:
        raise ValueError(f"{who}: expected strings to tokenize, got a tensor of dtype {tensor.dtype.name}")
    return tensor


def id_batch(inputs: Any, who: str) -> tuple[tf.RaggedTensor, int]:
    """Token ids (an int, a list, a list of lists, an array, a dense or ragged tensor) as a ragged batch.

    Returns the ids as a ragged ``[batch, (tokens)]`` tensor and the rank the
    caller gave (0: one id, 1: one sequence, 2: a batch), which
    :func:`unbatched_strings` uses to shape the detokenized text.
    """
    tensor = _tensor(inputs, "token ids (ints, lists of ints or an int tensor)", who)
    if not tensor.dtype.is_integer:
        raise ValueError(f"{who}: expected integer token ids to detokenize, got a tensor of dtype {tensor.dtype.name}")
    rank = tensor.shape.rank
    if rank is None or rank > 2:
        raise ValueError(f"{who}: expected token ids of rank 0, 1 or 2, got shape {tensor.shape}")
    if rank < 2:
        tensor = tf.reshape(tensor, [1, -1])
    if isinstance(tensor, tf.Tensor):
        tensor = tf.RaggedTensor.from_tensor(tensor)
    return tensor, rank


def ids_in_range(ids: tf.RaggedTensor, size: int, who: str) -> tf.RaggedTensor:
    """``ids`` when every one is in ``[0, size)``; otherwise a ``ValueError`` (eagerly) or an
    ``InvalidArgumentError`` (in a graph) naming the tokenizer, never an id handed to a native kernel that would
    read outside its table (TensorFlow Text's WordPiece detokenizer crashes the process on one).

    Args:
        ids: A ragged batch of token ids.
        size: The vocabulary size.
        who: The tokenizer, for the message.

    Returns:
        `ids`, unchanged (in a graph, after the range assertion).

    Raises:
        ValueError: Eagerly, if an id is negative or not below `size`.

    Example:
        >>> from tfkit.hub.tokenizers.tensor_io import ids_in_range
        >>> ids_in_range(tf.ragged.constant([[0, 3]]), 4, "tokenizer").to_list()
        [[0, 3]]
    """
    values = ids.flat_values
    message = f"{who}: token ids must be in [0, {size - 1}] (the vocabulary's ids)"
    if tf.executing_eagerly():
        array = values.numpy()
        outside = array[(array < 0) | (array >= size)]
        if outside.size:
            raise ValueError(f"{message}, got {outside[:5].tolist()}")
        return ids
    checks = [
        tf.debugging.assert_non_negative(values, message=message),
        tf.debugging.assert_less(values, tf.cast(size, values.dtype), message=message),
    ]
    with tf.control_dependencies(checks):
        return tf.identity(ids)


def unbatched_strings(strings: tf.Tensor, rank: int) -> tf.Tensor:
    """One detokenized string per row of ids; a scalar when the caller gave one sequence (or one id)."""
    return strings[0] if rank < 2 else strings


def shaped_output(tokens: tf.RaggedTensor, sequence_length: int | None, unbatched: bool, pad_value: Any) -> Any:
    """Tokens per input string: ragged, or padded and truncated to ``sequence_length``; one row if unbatched."""
    if sequence_length:
        shape = tokens.shape.as_list()
        shape[-1] = sequence_length
        tokens = tokens.to_tensor(default_value=pad_value, shape=shape)
    return tokens[0] if unbatched else tokens  # a ragged batch's one row is a dense tensor


def returned(value: Any) -> Any:
    """``value``; as Python values when ``tokenize``/``detokenize`` was called eagerly and outside any layer call."""
    if tf.executing_eagerly() and call_context.current() is None:
        return convert_preprocessing_outputs(value)
    return value
