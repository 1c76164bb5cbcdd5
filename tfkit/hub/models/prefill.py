"""How much of the padded prompt batch ``generate``'s prompt pass computes.

    length = prefill_length(padding_mask, max_length)     # on the host: 32-token prompts, max_length 96 -> 32
    hidden_states, cache = causal_lm._build_cache(token_ids, prefill_length=length)

KerasHub's prompt pass runs the model over every position of the padded batch,
``max_length`` of them, although decoding starts at the shortest prompt's end
and rewrites every later position's keys and values. Generating 64 tokens after
32-token prompts, two thirds of that pass are thrown away (at batch 8 of GPT-2,
a sixth of the whole ``generate``). tfkit's pass covers the first
``prefill_length`` positions only: the shortest prompt's length rounded up to a
power of two, so prompts of 17 to 32 tokens share one compiled program. The
positions it leaves are zeros in the cache, and the decoding loop writes each
before any query can see it (the causal mask), so the generated ids are the same.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

SMALLEST_PREFILL = 8  # below this, one more compiled program would save next to nothing


def prefill_length(padding_mask: Any, max_length: int) -> int:
    """The prompt pass's length for a batch: its shortest prompt rounded up to a power of two.

    Args:
        padding_mask: `(batch, max_length)`, true on each prompt's tokens.
        max_length: The padded length, the most the pass may cover.

    Returns:
        A Python int between `min(8, max_length)` and `max_length`.

    Example:
        >>> from tfkit.hub.models.prefill import prefill_length
        >>> mask = np.arange(96)[None, :] < np.array([[32], [40]])
        >>> prefill_length(mask, 96), prefill_length(mask[:, :33], 33), prefill_length(mask[:1, :3], 3)
        (32, 32, 3)
    """
    shortest = int(tf.reduce_min(tf.reduce_sum(tf.cast(padding_mask, tf.int32), axis=-1)))
    bucket = 1 << max(shortest - 1, 0).bit_length()
    return min(int(max_length), max(SMALLEST_PREFILL, bucket))


def prompt_part(token_ids: tf.Tensor, length: int | None) -> tf.Tensor:
    """The first ``length`` positions of ``token_ids`` (all of them for ``None``), a static shape for XLA.

    Args:
        token_ids: int `(batch, max_length)`.
        length: How many positions the prompt pass covers, or `None`.

    Returns:
        int `(batch, length)`.

    Example:
        >>> from tfkit.hub.models.prefill import prompt_part
        >>> prompt_part(tf.constant([[1, 2, 3, 0]]), 2).numpy().tolist()
        [[1, 2]]
    """
    return token_ids if length is None else token_ids[:, :length]


def full_length(hidden_states: tf.Tensor, max_length: Any) -> tf.Tensor:
    """The prompt pass's hidden states padded with zeros to ``max_length`` positions, as KerasHub's has them.

    Args:
        hidden_states: `(batch, length, hidden_dim)`.
        max_length: The padded prompts' length.

    Returns:
        `(batch, max_length, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.prefill import full_length
        >>> full_length(tf.ones((1, 2, 3)), 4).shape
        TensorShape([1, 4, 3])
    """
    missing = max_length - tf.shape(hidden_states)[1]
    return tf.pad(hidden_states, [[0, 0], [0, missing], [0, 0]])
