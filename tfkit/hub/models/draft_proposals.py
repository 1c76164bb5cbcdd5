"""Where speculative decoding's guesses come from: a smaller draft model, or n-grams already in the sequence.

    proposer = DraftModelProposer(draft_causal_lm, num_tokens=4)   # any causal LM with the target's tokenizer
    proposer = PromptLookupProposer(num_tokens=10, max_ngram_size=2)
    state = proposer.start(inputs, prefill_length)                 # once, after the target's prompt pass
    guesses, found, state = proposer.propose(token_ids, index, state, held)  # guesses for index, index + 1, ...

A proposer only guesses: the target model checks every guess in one pass
(``tfkit.hub.models.speculative``) and keeps the longest run it would have
chosen itself, so what a proposer returns changes the speed, never the ids.
Both keep static shapes and run inside the compiled decoding loop.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf


class DraftModelProposer:
    """Guesses from a draft causal LM decoding greedily with its own key/value cache.

    Each round feeds the draft the two positions before `index` (the second
    to last is already in its cache unless the target kept every guess of the
    previous round; writing it again is harmless), then its own guesses one at
    a time. Guesses past the sequence's end are never kept, so the positions
    the draft writes there are clamped to the last one.

    Args:
        draft: A `DecoderCausalLM` sharing the target's tokenizer.
        num_tokens: How many tokens to guess a round.
    """

    always_guesses = True  # the target's loop checks guesses every round

    def __init__(self, draft: Any, num_tokens: int) -> None:
        self.draft = draft
        self.num_tokens = num_tokens

    def start(self, inputs: dict[str, Any], prefill_length: int | None) -> Any:
        """The draft's cache after its own pass over the prompts.

        Args:
            inputs: `{"token_ids", "padding_mask"}` as `generate_step` got them.
            prefill_length: The positions the prompt pass covers (`None`: all).

        Returns:
            The draft's per-layer key/value caches.
        """
        draft = self.draft
        _, cache = draft._build_cache(inputs["token_ids"], prefill_length, **draft.prompt_pass_inputs(inputs))
        return cache

    def propose(self, token_ids: tf.Tensor, index: tf.Tensor, cache: Any, held: tf.Tensor) -> tuple[tf.Tensor, Any]:
        """`num_tokens` greedy guesses for positions `index ...`, and the draft's updated cache.

        Args:
            token_ids: int `(batch, length)`: the sequence, filled before `index`.
            index: The first position to guess (at least 1).
            cache: The draft's caches, as `start` or the last round left them.
            held: bool `(batch, length)`: positions whose token the prompt
                holds (the draft feeds those tokens on, not its guesses).

        Returns:
            `(guesses, found, cache)`: int `(batch, num_tokens)` of
            `token_ids`' dtype, and bool `(batch,)`, all true (the draft
            always guesses).
        """
        draft = self.draft
        length = tf.shape(token_ids)[1]
        start = tf.maximum(index - 2, 0)
        pair = tf.slice(token_ids, [0, start], [tf.shape(token_ids)[0], 2])
        logits, _, cache = draft.call_with_cache(pair, cache, start)

        def held_or(token: tf.Tensor, position: tf.Tensor) -> tf.Tensor:
            position = tf.minimum(position, length - 1)
            return tf.where(tf.gather(held, position, axis=1), tf.gather(token_ids, position, axis=1), token)

        first = tf.argmax(tf.gather(logits, index - 1 - start, axis=1), axis=-1, output_type=token_ids.dtype)
        first = held_or(first, index)
        guesses = tf.TensorArray(token_ids.dtype, size=self.num_tokens).write(0, first)

        def step(j: tf.Tensor, previous: tf.Tensor, cache: Any, guesses: tf.TensorArray) -> tuple:
            position = tf.minimum(index + j - 1, length - 1)
            logits, _, cache = draft.call_with_cache(previous[:, None], cache, position)
            token = held_or(tf.argmax(logits[:, 0, :], axis=-1, output_type=token_ids.dtype), index + j)
            return j + 1, token, cache, guesses.write(j, token)

        _, _, cache, guesses = tf.while_loop(
            lambda j, *_: j < self.num_tokens, step, (tf.constant(1), first, cache, guesses)
        )
        return tf.transpose(guesses.stack()), tf.ones([tf.shape(token_ids)[0]], tf.bool), cache


class PromptLookupProposer:
    """Guesses copied from the sequence itself: what followed the latest earlier occurrence of its last n-gram.

    For `n` from `max_ngram_size` down to 2 (to 1 when `max_ngram_size` is
    1: a single token matches somewhere in most text, and checking guesses
    that fail costs more than a plain step), the last `n` tokens before
    `index` are looked for earlier in the row; the tokens that followed a
    match are the guesses (the longest n-gram that matches wins): the most
    recent match followed by `num_tokens` known tokens, else the earliest
    (in a repeating sequence the latest match runs into the positions not
    yet written, and would give one right guess a round).
    A row with no match guesses its last token repeated, and says it found
    none: while no row has a match, the target takes plain greedy steps
    instead of checking guesses (`has_guesses`), so text with nothing to copy
    costs about what greedy decoding does. Copying tasks (summaries quoting
    the source, code edits, extraction) keep most guesses.

    Args:
        num_tokens: How many tokens to guess a round.
        max_ngram_size: The longest n-gram looked for.

    Example:
        >>> from tfkit.hub.models.draft_proposals import PromptLookupProposer
        >>> ids = tf.constant([[5, 6, 8, 2, 9, 5, 6, 0, 0]])
        >>> guesses, found, _ = PromptLookupProposer(3, 2).propose(ids, tf.constant(7), (), None)
        >>> guesses.numpy().tolist(), found.numpy().tolist()   # (5, 6) was followed by 8, 2, 9
        ([[8, 2, 9]], [True])
    """

    always_guesses = False  # rows may find no match: the target's loop then takes plain steps

    def __init__(self, num_tokens: int, max_ngram_size: int) -> None:
        self.num_tokens = num_tokens
        self.max_ngram_size = max_ngram_size

    def start(self, inputs: dict[str, Any], prefill_length: int | None) -> Any:
        """No state: prompt lookup reads the sequence alone.

        Args:
            inputs: Unused.
            prefill_length: Unused.

        Returns:
            An empty tuple.
        """
        return ()

    def sources(self, token_ids: tf.Tensor, index: tf.Tensor) -> tf.Tensor:
        """Per row, the position the guesses are copied from, or -1 where no n-gram matches.

        Args:
            token_ids: int `(batch, length)`: the sequence, filled before `index`.
            index: The first position to guess.

        Returns:
            int32 `(batch,)`.
        """
        length = token_ids.shape[1]
        source = tf.fill([tf.shape(token_ids)[0]], -1)
        shortest = 2 if self.max_ngram_size > 1 else 1  # one token alone matches too often in open text
        for n in range(min(self.max_ngram_size, length - 1), shortest - 1, -1):
            starts = tf.range(length - n + 1)
            matches = tf.ones([tf.shape(token_ids)[0], length - n + 1], tf.bool)
            for t in range(n):  # window j matches when token_ids[j + t] == token_ids[index - n + t] for every t
                wanted = tf.gather(token_ids, tf.maximum(index - n + t, 0), axis=1)
                matches &= token_ids[:, t : length - n + 1 + t] == wanted[:, None]
            matches &= (starts + n < index)[None, :] & (index >= n)  # an earlier window, followed by a known token
            whole = matches & (starts + n + self.num_tokens <= index)[None, :]  # followed by num_tokens known ones
            latest = tf.reduce_max(tf.where(whole, starts[None, :], -1), axis=1)
            earliest = tf.reduce_min(tf.where(matches, starts[None, :], length), axis=1)
            best = tf.where(latest >= 0, latest, tf.where(earliest < length, earliest, -1))
            source = tf.where((source < 0) & (best >= 0), best + n, source)
        return source

    def has_guesses(self, token_ids: tf.Tensor, index: tf.Tensor) -> tf.Tensor:
        """Bool `(batch,)`: the rows whose last n-gram matches earlier (`sources` found one).

        Args:
            token_ids: int `(batch, length)`: the sequence, filled before `index`.
            index: The first position to guess.

        Returns:
            A bool tensor.
        """
        return self.sources(token_ids, index) >= 0

    def propose(self, token_ids: tf.Tensor, index: tf.Tensor, state: Any, held: tf.Tensor) -> tuple[tf.Tensor, Any]:
        """`num_tokens` guesses for positions `index ...` from n-gram matches before `index`.

        Args:
            token_ids: int `(batch, length)`: the sequence, filled before `index`.
            index: The first position to guess.
            state: Unused (an empty tuple).
            held: Unused: the target's loop puts the prompt's held tokens in.

        Returns:
            `(guesses, found, state)`: int `(batch, num_tokens)`, and bool
            `(batch,)`: whether the row's guesses come from a match.
        """
        length = token_ids.shape[1]
        last = tf.gather(token_ids, index - 1, axis=1)
        source = self.sources(token_ids, index)
        offsets = tf.range(self.num_tokens)[None, :]
        positions = tf.clip_by_value(source[:, None] + offsets, 0, length - 1)
        copied = tf.gather(token_ids, positions, batch_dims=1)
        found = source >= 0
        return tf.where(found[:, None], copied, last[:, None]), found, state
