"""``BeamSampler``: beam search, keeping the `num_beams` most likely sequences at every step.

    causal_lm.compile(sampler=keras_hub.samplers.BeamSampler(num_beams=5))
    sequences, log_probs = keras_hub.samplers.BeamSampler(return_all_beams=True)(next, prompt)

The beams ride in the batch axis (`batch * num_beams` rows, each row's beams
side by side), so ``next`` and its cache see an ordinary, larger batch; after
each step the rows of the prompt and the cache are regathered from the beams
they extend. The loop is the base class's `run_loop`: one `tf.while_loop`
with static shapes.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import tensorflow as tf

from tfkit.base.argument_validation import positive_int
from tfkit.hub.samplers import prompt_ops
from tfkit.hub.samplers.sampler import Sampler
from tfkit.saving import register_keras_serializable

_UNLIKELY = -1e9  # the first step's log-likelihood of every beam but the first: they start as copies


@register_keras_serializable(package="keras_hub")
class BeamSampler(Sampler):
    """Beam search: at each step, the `num_beams` most likely sequences and their extensions.

    Every beam proposes each token of the vocabulary; the `num_beams`
    candidates of highest summed log-probability (over the tokens written,
    at `temperature`) become the next beams. On prompts of one length and
    without stop tokens the search is KerasHub's, step for step, for the
    same ids.

    With `stop_token_ids`, a beam that writes one is finished: it keeps its
    place and its score (extended by one placeholder token at no cost) and
    competes with the live beams, so the returned beams are distinct
    sequences; the loop ends once every beam has finished. KerasHub 0.32
    instead goes on extending and scoring a finished beam, whose extensions
    then crowd out other sequences (the sequences returned hold the
    padding after the first stop token either way).

    Rows of different lengths (`mask`): at a position a row's prompt still
    holds, every beam of that row is extended by the prompt's token alone
    and keeps its score, so each row is searched as it would be alone,
    from its own length. KerasHub 0.32 instead lets the beams pick their
    best candidates there, replaces those tokens by the prompt's and adds
    the candidates' log-probabilities, so a row longer than the shortest
    can end with beams that repeat one another (fewer distinct beams than
    `num_beams`). `match_keras_hub=True` searches as KerasHub does, for its
    ids. Without stop tokens, rows of one length are searched identically
    either way.

    Call arguments are `tfkit.hub.samplers.Sampler`'s. A cache is repeated
    `num_beams` times along its first (batch) axis, and `next` sees
    `batch * num_beams` rows.

    Args:
        num_beams: Positive integer: how many sequences to keep at each
            step. Defaults to `5`.
        return_all_beams: Bool. If `True`, the call returns every beam with
            its log-likelihood, most likely first. Defaults to `False`.
        match_keras_hub: Bool. If `True`, finished beams and the
            positions a longer row's prompt holds are searched as KerasHub
            0.32 searches them: its ids, its duplicate beams and its
            log-likelihoods (which then also count tokens the prompt or
            the padding overwrote). A tfkit-only argument: KerasHub cannot
            load a config that sets it. Defaults to `False`.
        **kwargs: `temperature` (see `Sampler`).

    Call returns:
        The most likely sequence of each row, an integer tensor of the
        prompt's shape; with `return_all_beams`, a tuple of the sequences
        `(batch, num_beams, length)` and their log-likelihoods
        `(batch, num_beams)`, sorted from the most likely. A
        log-likelihood is the sum of the log-probabilities (at
        `temperature`) of the tokens the search wrote.

    Raises:
        ValueError: If `num_beams` is not a positive integer, or
            `return_all_beams` or `match_keras_hub` is not a bool.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> table = tf.math.log([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.6, 0.4, 0.0]])
        >>> def next(prompt, cache, index):   # after 2: 0 or 1; after 0 or 1: 2
        ...     return tf.gather(table, tf.gather(prompt, index - 1, axis=1)), None, cache
        >>> sampler = keras_hub.samplers.BeamSampler(num_beams=2, return_all_beams=True)
        >>> sequences, log_probs = sampler(next, tf.constant([[2, 0, 0]]), index=1)
        >>> sequences.numpy()
        array([[[2, 0, 2],
                [2, 1, 2]]], dtype=int32)
        >>> np.round(log_probs.numpy(), 4)
        array([[-0.5108, -0.9163]], dtype=float32)
    """

    accepts_first_logits = False  # its own loop calls `next` from the first step

    def __init__(
        self, num_beams: int = 5, return_all_beams: bool = False, match_keras_hub: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.num_beams = positive_int(num_beams, "num_beams", type(self).__name__)
        for name, value in (("return_all_beams", return_all_beams), ("match_keras_hub", match_keras_hub)):
            if not isinstance(value, bool):
                raise ValueError(f"BeamSampler expected `{name}` to be True or False, got {value!r}")
        self.return_all_beams = return_all_beams
        self.match_keras_hub = match_keras_hub

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
    ) -> Any:
        who = type(self).__name__
        num_beams = self.num_beams
        prompt, mask = prompt_ops.checked_prompt(prompt, mask, who)
        batch_size = prompt_ops.static_or_dynamic(prompt, 0)
        max_length = prompt_ops.static_or_dynamic(prompt, 1)
        index = prompt_ops.checked_index(index, max_length, who)
        stop_ids = prompt_ops.stop_ids_tensor(stop_token_ids, prompt.dtype, who)

        def with_beams(x: tf.Tensor) -> tf.Tensor:
            return tf.repeat(x, num_beams, axis=0)

        def flatten_beams(x: tf.Tensor) -> tf.Tensor:  # (batch, beams, ...) -> (batch * beams, ...)
            return tf.reshape(x, [-1] + _dims(x)[2:])

        def unflatten_beams(x: tf.Tensor) -> tf.Tensor:  # (batch * beams, ...) -> (batch, beams, ...)
            return tf.reshape(x, [-1, num_beams] + _dims(x)[1:])

        has_cache = cache is not None
        cache = tf.nest.map_structure(with_beams, cache) if has_cache else ()
        prompt, mask = with_beams(prompt), with_beams(mask)
        first_prompt = prompt
        start = tf.constant([[0.0] + [_UNLIKELY] * (num_beams - 1)], dtype=tf.float32)
        log_probs = flatten_beams(tf.broadcast_to(start, [batch_size, num_beams]))

        def cond(prompt: tf.Tensor, cache: Any, index: tf.Tensor, mask: tf.Tensor, log_probs: tf.Tensor) -> tf.Tensor:
            if stop_ids is None:
                return tf.constant(True)
            return ~tf.reduce_all(prompt_ops.finished_rows(prompt, stop_ids, mask, index))

        def body(prompt: tf.Tensor, cache: Any, index: tf.Tensor, mask: tf.Tensor, log_probs: tf.Tensor) -> tuple:
            logits, _, cache = next(prompt, cache, index)
            vocab_size = prompt_ops.static_or_dynamic(logits, -1)
            token_log_probs = tf.math.log(self.compute_probabilities(logits))
            if stop_ids is not None and not self.match_keras_hub:  # a finished beam stays, unscored
                # one candidate, token 0 at no cost; what it writes goes back to the padding at the end
                placeholder = tf.one_hot([0], vocab_size, on_value=0.0, off_value=-np.inf)
                finished = prompt_ops.finished_rows(prompt, stop_ids, mask, index)
                token_log_probs = tf.where(finished[:, None], placeholder, token_log_probs)
            candidates = token_log_probs + log_probs[:, None]
            candidates = tf.reshape(candidates, [-1, num_beams * vocab_size])
            best, best_ids = tf.math.top_k(candidates, k=num_beams, sorted=False)
            source_beams = best_ids // vocab_size
            if not self.match_keras_hub:  # a row whose prompt holds `index`: each beam stays, unscored
                held = unflatten_beams(prompt_ops.read_column(mask, index))[:, :1]  # (batch, 1): same for its beams
                best = tf.where(held, unflatten_beams(log_probs), best)
                source_beams = tf.where(held, tf.range(num_beams, dtype=source_beams.dtype)[None, :], source_beams)

            def regather(x: tf.Tensor) -> tf.Tensor:
                return flatten_beams(tf.gather(unflatten_beams(x), source_beams, axis=1, batch_dims=1))

            prompt = regather(prompt)
            if has_cache:
                cache = tf.nest.map_structure(regather, cache)
            next_token = tf.cast(flatten_beams(best_ids % vocab_size), prompt.dtype)
            next_token = tf.where(
                prompt_ops.read_column(mask, index), prompt_ops.read_column(prompt, index), next_token
            )
            prompt = prompt_ops.write_column(prompt, index, next_token)
            return prompt, cache, index + 1, mask, tf.ensure_shape(flatten_beams(best), log_probs.shape)

        prompt, _, index, _, log_probs = self.run_loop(
            cond,
            body,
            model=model,
            loop_vars=(prompt, cache, index, mask, log_probs),
            maximum_iterations=max_length - index,
        )
        if stop_ids is not None:  # a stopped beam's later positions go back to the prompt's padding
            prompt = tf.where(prompt_ops.after_first_stop(prompt, stop_ids, mask, index), first_prompt, prompt)
        all_prompts, all_log_probs = unflatten_beams(prompt), unflatten_beams(log_probs)
        if self.return_all_beams:
            order = tf.argsort(-all_log_probs, axis=-1)
            return tf.gather(all_prompts, order, batch_dims=1), tf.gather(all_log_probs, order, batch_dims=1)
        best_beam = tf.argmax(all_log_probs, axis=-1, output_type=tf.int32)
        return tf.gather(all_prompts, best_beam, batch_dims=1)

    def get_config(self) -> dict[str, Any]:
        """`{"temperature", "num_beams", "return_all_beams"}`, as KerasHub writes them, and `match_keras_hub` when set.

        Returns:
            A dict of plain values.
        """
        config = {**super().get_config(), "num_beams": self.num_beams, "return_all_beams": self.return_all_beams}
        if self.match_keras_hub:  # only then: KerasHub refuses a key it does not know
            config["match_keras_hub"] = True
        return config


def _dims(x: tf.Tensor) -> list[Any]:
    """`x`'s shape as a list: Python ints where known, scalar tensors elsewhere (so reshapes keep static sizes)."""
    dynamic = tf.shape(x)
    return [size if size is not None else dynamic[axis] for axis, size in enumerate(x.shape.as_list())]
