"""``GreedySampler``: the most probable token at every step.

causal_lm.compile(sampler="greedy")        # or sampler=keras_hub.samplers.GreedySampler()
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.samplers.sampler import Sampler
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GreedySampler(Sampler):
    """Greedy search: each step writes the token of highest probability.

    Deterministic, and the same whatever the `temperature` (dividing the
    logits by a positive number keeps their order). Ties go to the lowest id.
    Call arguments and return value are `tfkit.hub.samplers.Sampler`'s.

    Args:
        **kwargs: `temperature` (see `Sampler`).

    Example:
        >>> import tfkit.hub as keras_hub
        >>> def next(prompt, cache, index):
        ...     previous = tf.gather(prompt, index - 1, axis=1)
        ...     return tf.one_hot(previous + 1, 10) * 5.0, None, cache   # favours previous id + 1
        >>> prompt = tf.constant([[3, 0, 0, 0, 0], [6, 7, 0, 0, 0]])
        >>> mask = tf.constant([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0]]) > 0
        >>> keras_hub.samplers.GreedySampler()(next, prompt, index=1, mask=mask).numpy()
        array([[3, 4, 5, 6, 7],
               [6, 7, 8, 9, 0]], dtype=int32)
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def get_next_token(self, probabilities: tf.Tensor) -> tf.Tensor:
        """The id of highest probability in each row.

        Args:
            probabilities: Float32 tensor `(batch, vocab)`.

        Returns:
            An int32 tensor `(batch,)`.
        """
        return tf.argmax(probabilities, axis=-1, output_type=tf.int32)
