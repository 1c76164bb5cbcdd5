"""The one random draw the sampling samplers make: a token per row, from a seeded stateless op.

    self.seed_generator = seeded_generator(seed, "TopKSampler")
    token = draw_token(tf.math.log(probabilities), self.seed_generator)   # (batch,) int32

Each draw takes the generator's next `[seed, counter]` (the counter then moves
on), so a sampler draws new tokens at every step and every call, eagerly,
inside `tf.function` and under XLA, and a new sampler with the same seed
repeats the same tokens. The seed reaches `tf.random.stateless_categorical`
as Keras 3's TensorFlow backend passes it (int32, `floormod(seed, 2**31 - 2)`),
so eagerly a tfkit sampler and a KerasHub one built with the same seed draw
the same tokens.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import random


def seeded_generator(seed: Any, who: str) -> random.SeedGenerator:
    """A `tfkit.random.SeedGenerator` for `seed` (an int, or None for a random one), else a `ValueError`."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise ValueError(f"{who} expected `seed` to be an integer or None, got {seed!r}")
    return random.SeedGenerator(None if seed is None else int(seed))


def draw_token(log_probabilities: tf.Tensor, seed_generator: random.SeedGenerator) -> tf.Tensor:
    """One index per row of `log_probabilities` `(batch, n)`, drawn with those log-probabilities: int32 `(batch,)`."""
    seed = random.draw_seed(seed_generator)
    seed = tf.cast(tf.math.floormod(seed, tf.int32.max - 1), tf.int32)  # Keras's cast: XLA wants int32 seeds
    logits = tf.cast(log_probabilities, tf.float32)
    return tf.squeeze(random.categorical(logits, 1, dtype="int32", seed=seed), axis=-1)
