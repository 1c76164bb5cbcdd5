"""``TopKSampler``: each token drawn among the `k` most probable.

causal_lm.compile(sampler=keras_hub.samplers.TopKSampler(k=5, temperature=0.7))
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base.argument_validation import positive_int
from tfkit.hub.samplers.random_draws import draw_token, seeded_generator
from tfkit.hub.samplers.sampler import Sampler
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class TopKSampler(Sampler):
    """Top-k sampling: each step draws among the `k` most probable tokens, in proportion to their probabilities.

    The other tokens are never picked. Draws are seeded as in
    `RandomSampler`. Call arguments and return value are
    `tfkit.hub.samplers.Sampler`'s.

    Args:
        k: Positive integer, at most the vocabulary size: how many of the
            most probable tokens to draw from. Defaults to `5`.
        seed: Integer seed, or `None` for a random one. Defaults to `None`.
        **kwargs: `temperature` (see `Sampler`).

    Raises:
        ValueError: If `k` is not a positive integer (or, when called, larger
            than the vocabulary), or `seed` is not an integer or `None`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> def next(prompt, cache, index):
        ...     return tf.math.log([[0.1, 0.4, 0.3, 0.2]]), None, cache
        >>> ids = keras_hub.samplers.TopKSampler(k=2, seed=0)(next, tf.zeros((1, 10), "int32"))
        >>> sorted(set(ids.numpy()[0].tolist()))    # only the two most probable ids
        [1, 2]
    """

    def __init__(self, k: int = 5, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.k = positive_int(k, "k", type(self).__name__)
        self.seed = seed
        self.seed_generator = seeded_generator(seed, type(self).__name__)

    def get_next_token(self, probabilities: tf.Tensor) -> tf.Tensor:
        """A token drawn among each row's `k` most probable.

        Args:
            probabilities: Float32 tensor `(batch, vocab)`.

        Returns:
            An int32 tensor `(batch,)`.

        Raises:
            ValueError: If the vocabulary is smaller than `k`.
        """
        vocab_size = probabilities.shape[-1]
        if vocab_size is not None and vocab_size < self.k:
            raise ValueError(f"TopKSampler expected `k` to be at most the vocabulary size {vocab_size}, got {self.k}")
        top_probabilities, top_ids = tf.math.top_k(probabilities, k=self.k, sorted=False)
        choice = draw_token(tf.math.log(top_probabilities), self.seed_generator)
        return tf.gather(top_ids, choice, batch_dims=1)

    def get_config(self) -> dict[str, Any]:
        """`{"temperature", "k", "seed"}`, as KerasHub writes them.

        Returns:
            A dict of plain values.
        """
        return {**super().get_config(), "k": self.k, "seed": self.seed}
