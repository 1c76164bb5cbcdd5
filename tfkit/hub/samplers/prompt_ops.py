"""The bookkeeping a decoding loop does on its prompt: checks, one column read and written, stop tokens found.

    prompt, mask = checked_prompt(prompt, mask, "GreedySampler")
    token = read_column(prompt, index)                   # (batch,): the ids at position `index`
    prompt = write_column(prompt, index, token)          # the same prompt with that column replaced
    done = finished_rows(prompt, stop_ids, mask, index)  # (batch,): a new stop token before `index`

Every function keeps static shapes and uses no Python control flow on
tensors, so it runs eagerly, inside `tf.function` and under XLA alike. A
"new" token is one the sampler wrote: at a position the mask leaves free
(`mask` False) and before the loop's current `index`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf


def checked_prompt(prompt: Any, mask: Any, who: str) -> tuple[tf.Tensor, tf.Tensor]:
    """`prompt` as an integer `(batch, length)` tensor and `mask` as a bool tensor of its shape.

    `mask` None means no position is held (all are generated). A
    `ValueError` names `who`, the argument, what was expected and what came.
    """
    prompt = tf.convert_to_tensor(prompt)
    if prompt.shape.rank is not None and prompt.shape.rank != 2:
        raise ValueError(
            f"{who} expected `prompt` to be a 2-D (batch_size, length) tensor of token ids, "
            f"got shape {tuple(prompt.shape)}"
        )
    if not prompt.dtype.is_integer:
        raise ValueError(f"{who} expected `prompt` to hold integer token ids, got dtype {prompt.dtype.name}")
    if mask is None:
        return prompt, tf.zeros_like(prompt, dtype=tf.bool)
    mask = tf.cast(mask, tf.bool)
    if not mask.shape.is_compatible_with(prompt.shape):
        raise ValueError(
            f"{who} expected `mask` to have the prompt's shape {tuple(prompt.shape)}, got {tuple(mask.shape)}"
        )
    return prompt, mask


def checked_index(index: Any, length: Any, who: str) -> tf.Tensor:
    """`index` as an int32 scalar; a Python int outside `[0, length]` is a `ValueError` naming `who`."""
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool) and isinstance(length, int):
        if not 0 <= int(index) <= length:
            raise ValueError(f"{who} expected `index` to be between 0 and the prompt's length {length}, got {index}")
    return tf.cast(index, tf.int32)


def static_or_dynamic(x: tf.Tensor, axis: int) -> Any:
    """The size of `x` along `axis`: a Python int where known when tracing, else a scalar tensor."""
    size = x.shape[axis]
    return size if size is not None else tf.shape(x)[axis]


def read_column(x: tf.Tensor, index: tf.Tensor) -> tf.Tensor:
    """`x[:, index]` for a scalar tensor `index`."""
    return tf.gather(x, index, axis=1)


def write_column(x: tf.Tensor, index: tf.Tensor, values: tf.Tensor) -> tf.Tensor:
    """`x` with column `index` replaced by `values` (shape `(batch,)`); the shape stays static."""
    at_index = tf.equal(tf.range(static_or_dynamic(x, 1)), index)
    return tf.where(at_index[None, :], values[:, None], x)


def stop_ids_tensor(stop_token_ids: Any, dtype: tf.DType, who: str) -> tf.Tensor | None:
    """The stop token ids as a 1-D tensor of the prompt's dtype (None stays None)."""
    if stop_token_ids is None:
        return None
    ids = tf.reshape(tf.cast(stop_token_ids, dtype), [-1]) if tf.is_tensor(stop_token_ids) else None
    if ids is None:
        values = list(stop_token_ids) if isinstance(stop_token_ids, (list, tuple)) else [stop_token_ids]
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
            raise ValueError(
                f"{who} expected `stop_token_ids` to be None, a list or tuple of integer ids, or a 1-D tensor; "
                f"got {stop_token_ids!r}"
            )
        ids = tf.constant([int(v) for v in values], dtype=dtype, shape=[len(values)])
    return ids


def new_stop_tokens(prompt: tf.Tensor, stop_ids: tf.Tensor, mask: tf.Tensor, index: tf.Tensor) -> tf.Tensor:
    """Bool `(batch, length)`: a stop id the sampler wrote (mask free, position before `index`)."""
    is_stop = tf.reduce_any(tf.equal(prompt[..., None], stop_ids), axis=-1)
    written = tf.range(static_or_dynamic(prompt, 1)) < index
    return is_stop & ~mask & written[None, :]


def finished_rows(prompt: tf.Tensor, stop_ids: tf.Tensor, mask: tf.Tensor, index: tf.Tensor) -> tf.Tensor:
    """Bool `(batch,)`: rows that hold a new stop token."""
    return tf.reduce_any(new_stop_tokens(prompt, stop_ids, mask, index), axis=-1)


def after_first_stop(prompt: tf.Tensor, stop_ids: tf.Tensor, mask: tf.Tensor, index: tf.Tensor) -> tf.Tensor:
    """Bool `(batch, length)`: the positions after each row's first new stop token."""
    stops = tf.cast(new_stop_tokens(prompt, stop_ids, mask, index), tf.int32)
    return tf.cumsum(stops, axis=-1) - stops > 0
