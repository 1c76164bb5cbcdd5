"""``RandomSampler``: each token drawn from the whole distribution.

causal_lm.compile(sampler=keras_hub.samplers.RandomSampler(temperature=0.7, seed=42))
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.samplers.random_draws import draw_token, seeded_generator
from tfkit.hub.samplers.sampler import Sampler
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RandomSampler(Sampler):
    """Random sampling: each step draws a token with the probability the model gives it.

    Draws use stateless TensorFlow ops seeded from a
    `tfkit.random.SeedGenerator` held in `seed_generator`: every step and
    every call draws anew, and a new sampler with the same `seed` repeats the
    same tokens (eagerly; XLA draws other, equally valid, numbers). Call
    arguments and return value are `tfkit.hub.samplers.Sampler`'s.

    Args:
        seed: Integer seed, or `None` for a random one. Defaults to `None`.
        **kwargs: `temperature` (see `Sampler`).

    Raises:
        ValueError: If `seed` is not an integer or `None`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> def next(prompt, cache, index):
        ...     return tf.math.log([[0.0, 0.5, 0.5]]), None, cache   # ids 1 and 2, never 0
        >>> ids = keras_hub.samplers.RandomSampler(seed=3)(next, tf.zeros((1, 8), "int32"))
        >>> sorted(set(ids.numpy()[0].tolist()))
        [1, 2]
    """

    def __init__(self, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seed = seed
        self.seed_generator = seeded_generator(seed, type(self).__name__)

    def get_next_token(self, probabilities: tf.Tensor) -> tf.Tensor:
        """A token drawn from each row's distribution.

        Args:
            probabilities: Float32 tensor `(batch, vocab)`.

        Returns:
            An int32 tensor `(batch,)`.
        """
        return draw_token(tf.math.log(probabilities), self.seed_generator)

    def get_config(self) -> dict[str, Any]:
        """`{"temperature", "seed"}`, as KerasHub writes them.

        Returns:
            A dict of plain values.
        """
        return {**super().get_config(), "seed": self.seed}
