"""``TopPSampler``: each token drawn from the most probable tokens whose probabilities sum past `p` (nucleus).

causal_lm.compile(sampler=keras_hub.samplers.TopPSampler(p=0.9, k=1000))
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit.base.argument_validation import positive_int
from tfkit.hub.samplers.random_draws import draw_token, seeded_generator
from tfkit.hub.samplers.sampler import Sampler
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class TopPSampler(Sampler):
    """Top-p (nucleus) sampling: draws among the fewest most probable tokens whose probabilities sum past `p`.

    The tokens are ranked by probability; a token is kept while the sum of
    the probabilities ranked above it is at most `p` (so the most probable
    one always is), and the draw is in proportion to the kept
    probabilities. With `k`, only the `k` most probable tokens are ranked:
    faster on a large vocabulary. Draws are seeded as in `RandomSampler`.
    Call arguments and return value are `tfkit.hub.samplers.Sampler`'s.

    Args:
        p: Float between 0 and 1: the probability mass to draw from.
            Defaults to `0.1`.
        k: Optional positive integer: rank only the `k` most probable tokens.
            Defaults to `None` (the whole vocabulary).
        seed: Integer seed, or `None` for a random one. Defaults to `None`.
        **kwargs: `temperature` (see `Sampler`).

    Raises:
        ValueError: If `p` is not between 0 and 1, `k` is not a positive
            integer or `None`, or `seed` is not an integer or `None`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> def next(prompt, cache, index):
        ...     return tf.math.log([[0.1, 0.4, 0.3, 0.2]]), None, cache
        >>> ids = keras_hub.samplers.TopPSampler(p=0.6, seed=0)(next, tf.zeros((1, 10), "int32"))
        >>> sorted(set(ids.numpy()[0].tolist()))    # 0.4 alone is not past 0.6; 0.4 + 0.3 is
        [1, 2]
    """

    def __init__(self, p: float = 0.1, k: int | None = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 <= p <= 1:
            raise ValueError(f"TopPSampler expected `p` to be a number between 0 and 1, got {p!r}")
        self.p = p
        self.k = positive_int(k, "k", type(self).__name__, allow_none=True)
        self.seed = seed
        self.seed_generator = seeded_generator(seed, type(self).__name__)

    def get_next_token(self, probabilities: tf.Tensor) -> tf.Tensor:
        """A token drawn from each row's nucleus.

        Args:
            probabilities: Float32 tensor `(batch, vocab)`.

        Returns:
            An int32 tensor `(batch,)`.
        """
        vocab_size = probabilities.shape[-1]
        cutoff = (
            self.k if self.k is not None else (vocab_size if vocab_size is not None else tf.shape(probabilities)[-1])
        )
        if self.k is not None and vocab_size is not None:
            cutoff = min(self.k, vocab_size)
        ranked, ranked_ids = tf.math.top_k(probabilities, k=cutoff, sorted=True)
        within_p = tf.cumsum(ranked, axis=-1) <= self.p
        keep = tf.concat([tf.ones_like(within_p[:, :1]), within_p[:, :-1]], axis=-1)  # and the one that passes p
        kept = tf.where(keep, ranked, tf.zeros_like(ranked))
        choice = draw_token(tf.math.log(kept), self.seed_generator)
        return tf.gather(ranked_ids, choice, batch_dims=1)

    def get_config(self) -> dict[str, Any]:
        """`{"temperature", "p", "k", "seed"}`, as KerasHub writes them.

        Returns:
            A dict of plain values.
        """
        return {**super().get_config(), "p": self.p, "k": self.k, "seed": self.seed}
