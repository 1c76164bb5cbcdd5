"""``ContrastiveSampler``: contrastive search (Su et al., 2022), KerasHub's ``"contrastive"`` sampler.

    causal_lm.compile(sampler=keras_hub.samplers.ContrastiveSampler(k=4, alpha=0.6))
    causal_lm.generate("The quick brown fox", max_length=32)

At each step the `k` most probable tokens are each run through the model once
more; the one kept maximizes `(1 - alpha) * probability - alpha * (its hidden
state's highest cosine similarity to the hidden states so far)`, which keeps
greedy-like quality while penalizing repetition.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.base.argument_validation import positive_int
from tfkit.hub.samplers import prompt_ops
from tfkit.hub.samplers.sampler import Sampler
from tfkit.saving import register_keras_serializable


def cosine_similarity(previous: tf.Tensor, candidate: tf.Tensor) -> tf.Tensor:
    """`(batch, length)`: each candidate state's cosine similarity to every earlier state of its row."""
    dot = tf.einsum("bld,bd->bl", previous, candidate)
    return dot / (tf.norm(previous, axis=-1) * tf.norm(candidate, axis=-1)[:, None])


@register_keras_serializable(package="keras_hub")
class ContrastiveSampler(Sampler):
    """Contrastive search: the top-`k` candidates scored by probability against similarity to the past.

    Each step takes the `k` most probable next tokens of every row, runs
    each through the model (`next`) for its hidden state, and keeps the
    candidate with the best `(1 - alpha) * p - alpha * s`, where `s` is the
    highest cosine similarity of its hidden state to those of the positions
    before it. The model's hidden states and cache follow the candidate
    kept. `alpha=0` is greedy search. It needs `next` to return hidden
    states, and `hidden_states` (the prompt pass's) when called; a
    `CausalLM` gives both.

    Args:
        k: The number of candidates per step. Defaults to `5`.
        alpha: The weight of the similarity penalty, in `[0, 1]`. Defaults to
            `0.6`.
        **kwargs: `temperature` (see `Sampler`).

    Raises:
        ValueError: If `k` is not a positive integer; when called, without
            `hidden_states`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> def next(prompt, cache, index):
        ...     hidden = tf.one_hot(tf.gather(prompt, index - 1, axis=1), 4)   # the last token's state
        ...     logits = tf.math.log(tf.tile([[0.1, 0.5, 0.3, 0.1]], [tf.shape(prompt)[0], 1]))
        ...     return logits, hidden, cache
        >>> sampler = keras_hub.samplers.ContrastiveSampler(k=2, alpha=0.6)
        >>> prompt = tf.constant([[1, 0, 0, 0]])
        >>> sampler(next, prompt, index=1, hidden_states=tf.one_hot(prompt, 4)).numpy().tolist()  # 2, then ties
        [[1, 2, 1, 1]]
    """

    accepts_first_logits = False  # its own loop calls `next` from the first step

    def __init__(self, k: int = 5, alpha: float = 0.6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.k = positive_int(k, "k", type(self).__name__)
        self.alpha = alpha

    def __call__(
        self,
        next: Callable[..., Any],
        prompt: Any,
        cache: Any = None,
        index: Any = 0,
        mask: Any = None,
        stop_token_ids: Any = None,
        hidden_states: Any = None,
        model: Any = None,
        **kwargs: Any,
    ) -> tf.Tensor:
        who = type(self).__name__
        if hidden_states is None:
            raise ValueError(f"{who} requires passing a `hidden_states`, but received `None`")
        prompt, mask = prompt_ops.checked_prompt(prompt, mask, who)
        max_length = prompt_ops.static_or_dynamic(prompt, 1)
        index = prompt_ops.checked_index(index, max_length, who)
        stop_ids = prompt_ops.stop_ids_tensor(stop_token_ids, prompt.dtype, who)
        batch, k = tf.shape(prompt)[0], self.k
        hidden_states = tf.convert_to_tensor(hidden_states)

        def beams(x: tf.Tensor) -> tf.Tensor:  # each row k times: (batch * k, ...)
            return tf.repeat(x, k, axis=0)

        def best_of(x: tf.Tensor, best: tf.Tensor) -> tf.Tensor:  # (batch * k, ...) -> the best beam per row
            grouped = tf.reshape(x, tf.concat([[batch, k], tf.shape(x)[1:]], 0))
            return tf.gather(grouped, best, axis=1, batch_dims=1)

        logits, _, cache = next(prompt, cache, index)
        cache = () if cache is None else cache

        def cond(prompt: tf.Tensor, cache: Any, index: tf.Tensor, logits: tf.Tensor, hidden: tf.Tensor) -> tf.Tensor:
            if stop_ids is None:
                return tf.constant(True)
            return ~tf.reduce_all(prompt_ops.finished_rows(prompt, stop_ids, mask, index))

        def body(prompt: tf.Tensor, cache: Any, index: tf.Tensor, logits: tf.Tensor, hidden: tf.Tensor) -> tuple:
            top_probabilities, top_tokens = tf.math.top_k(self.compute_probabilities(logits), k=k, sorted=False)
            prompt_beams, mask_beams = beams(prompt), beams(mask)
            candidates = tf.cast(tf.reshape(top_tokens, [-1]), prompt.dtype)
            held = prompt_ops.read_column(mask_beams, index)
            candidates = tf.where(held, prompt_ops.read_column(prompt_beams, index), candidates)
            prompt_beams = prompt_ops.write_column(prompt_beams, index, candidates)
            cache_beams = tf.nest.map_structure(beams, cache)
            next_logits, next_hidden, cache_beams = next(prompt_beams, cache_beams, index + 1)
            similarity = cosine_similarity(beams(hidden), next_hidden)
            similarity = tf.where(tf.range(max_length)[None, :] < index, similarity, -1.0)
            penalty = tf.cast(tf.reduce_max(similarity, axis=1), tf.float32)
            scores = (1 - self.alpha) * tf.reshape(top_probabilities, [-1]) - self.alpha * penalty
            best = tf.argmax(tf.reshape(scores, [batch, k]), axis=1, output_type=tf.int32)
            kept_hidden = best_of(next_hidden, best)
            hidden = tf.where(
                (tf.range(max_length) == index)[None, :, None], tf.cast(kept_hidden, hidden.dtype)[:, None, :], hidden
            )
            cache = tf.nest.map_structure(lambda c: best_of(c, best), cache_beams)
            return best_of(prompt_beams, best), cache, index + 1, best_of(next_logits, best), hidden

        prompt, *_ = self.run_loop(
            cond,
            body,
            model=model,
            loop_vars=(prompt, cache, index, logits, hidden_states),
            maximum_iterations=max_length - index,
        )
        return prompt

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(k=self.k, alpha=self.alpha)
        return config
