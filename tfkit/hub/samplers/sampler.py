"""``Sampler``: the decoding loop every sampler shares, one `tf.while_loop` over the prompt's free positions.

    sampler = keras_hub.samplers.GreedySampler()
    ids = sampler(next, prompt, cache=cache, index=start, mask=padding_mask, stop_token_ids=[end_id])

``next(prompt, cache, index)`` returns the logits of the token at ``index``
(``(batch, vocab)``), hidden states (ignored here) and the updated cache; the
sampler turns the logits into probabilities (``compute_probabilities``), picks
a token (``get_next_token``, what subclasses define) and writes it at
``index`` unless the mask holds that position, until the prompt is full or
every row has written a stop token. The loop's shapes are static, so it is
traced once and compiles under XLA.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

import numpy as np
import tensorflow as tf

from tfkit.base.variable_roles import StateOwner
from tfkit.hub.samplers import prompt_ops
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Sampler(tf.Module, StateOwner):
    """Base class of KerasHub's samplers: the auto-regressive decoding loop of `generate`.

    A subclass defines `get_next_token(probabilities)`, which picks the next
    token of each row from the distribution over the vocabulary;
    `compute_probabilities` (a softmax at `temperature`) and the loop are
    shared. Calling a sampler fills the prompt from `index` on, one token per
    step, each step asking `next` for the logits of the position being
    filled. The loop is one `tf.while_loop` with static shapes: it runs
    eagerly, inside `tf.function`, and under `jit_compile=True`, traced once
    whatever the number of steps. A sampler's seed state (for the sampling
    subclasses) is a `tf.Variable` tracked by the sampler, so a model holding
    one exports and checkpoints it; it is state, never a weight.

    Generation stops per row: once a row has written one of `stop_token_ids`,
    its later positions keep what the prompt held there (the padding), and
    the loop ends when every row has. KerasHub's samplers instead keep
    writing tokens after a row's stop token until all rows stop (its
    `generate` masks them afterwards); the ids up to and including each
    row's first stop token are the same. Only tokens the loop wrote count
    as stop tokens (KerasHub also counts the padding not yet overwritten, so a
    padding id that is also a stop id ends its loop before the first step).

    Args:
        temperature: Float above zero. The logits are divided by it before
            the softmax: above 1 the distribution flattens, below 1 it
            sharpens. Defaults to `1.0`.

    Call arguments:
        next: A callable `next(prompt, cache, index)` returning
            `(logits, hidden_states, cache)`: the logits `(batch, vocab)` of
            the token at `index`, hidden states (unused here) and the
            updated cache, of the same structure and shapes as the cache
            passed in.
        prompt: Integer tensor `(batch, length)`: the prompt, padded to the
            full length; the sampler fills it from `index` on.
        cache: Optional tensor or nest of tensors threaded through `next`
            (a key/value cache). Defaults to `None`.
        index: Integer (or int32 scalar tensor): the first position to
            fill. Defaults to `0`.
        mask: Optional bool tensor of the prompt's shape: True where the
            prompt's own tokens are, which are never overwritten (rows of
            different lengths). Defaults to `None` (nothing held).
        stop_token_ids: Optional list or tuple of ids (or 1-D tensor):
            a row stops after writing one of them. Defaults to `None`
            (fill to the end).
        hidden_states: Hidden states of the prompt; unused by these
            samplers (KerasHub's contrastive sampler reads them). Defaults
            to `None`.
        model: The model generating; unused by the TensorFlow loop (KerasHub
            reads it on JAX). Defaults to `None`.
        first_logits: Optional logits `(batch, vocab)` of the token at
            `index`, already computed (tfkit's `generate` takes them from the
            prompt pass's last position, as Hugging Face's `generate` does):
            the first step picks from them without calling `next`, which
            saves one pass of the model. Not in KerasHub; defaults to `None`
            (every step calls `next`). The class attribute
            `accepts_first_logits` says whether a sampler takes them: `True`
            here, `False` for a subclass that defines its own `__call__`
            unless it sets the attribute itself.

    Call returns:
        The filled prompt, an integer tensor of the prompt's shape and dtype.

    Raises:
        ValueError: If `temperature` is not a number above zero.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> class LowestId(keras_hub.samplers.Sampler):
        ...     def get_next_token(self, probabilities):
        ...         return tf.argmin(probabilities, axis=-1)
        >>> def next(prompt, cache, index):
        ...     logits = tf.constant([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
        ...     return logits, None, cache
        >>> LowestId()(next, tf.zeros((2, 3), "int32")).numpy()
        array([[0, 0, 0],
               [2, 2, 2]], dtype=int32)
    """

    accepts_first_logits: ClassVar[bool] = True  # a subclass with its own __call__ is False unless it says so
    streams: ClassVar[bool] = True  # decodes in parts (`decode`); False for a subclass with its own __call__

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__call__" in vars(cls) and "accepts_first_logits" not in vars(cls):
            cls.accepts_first_logits = False
        if "__call__" in vars(cls) and "streams" not in vars(cls):
            cls.streams = False

    def __init__(self, temperature: float = 1.0) -> None:
        super().__init__()
        if (
            isinstance(temperature, bool)
            or not isinstance(temperature, (int, float, np.integer, np.floating))
            or not temperature > 0
        ):
            raise ValueError(
                f"{type(self).__name__} expected `temperature` to be a number above 0, got {temperature!r}"
            )
        self.temperature = temperature

    @property
    def variables(self) -> list[tf.Variable]:
        """The sampler's state variables (the seed generators' states), as KerasHub lists them."""
        return list(super().variables)

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
        first_logits: Any = None,
        **kwargs: Any,
    ) -> tf.Tensor:
        prompt, _, _ = self.decode(next, prompt, cache, index, mask, stop_token_ids, first_logits=first_logits)
        return prompt

    def decode(
        self,
        next: Callable[..., Any],
        prompt: Any,
        cache: Any = None,
        index: Any = 0,
        mask: Any = None,
        stop_token_ids: Any = None,
        first_logits: Any = None,
        max_steps: Any = None,
    ) -> tuple[tf.Tensor, Any, tf.Tensor]:
        """The decoding loop with its state kept: at most `max_steps` tokens, then the prompt, cache and index.

        Calling the sampler runs this to the end and returns the prompt;
        `CausalLM.stream_generate` calls it a few steps at a time, the
        cache and index carried from one call to the next. Subclasses that
        define their own `__call__` (beam and contrastive search) do not
        decode in parts (`streams` is `False` for them).

        Args:
            next: As in calling the sampler.
            prompt: As in calling the sampler.
            cache: As in calling the sampler. Defaults to `None`.
            index: As in calling the sampler. Defaults to `0`.
            mask: As in calling the sampler. Defaults to `None`.
            stop_token_ids: As in calling the sampler. Defaults to `None`.
            first_logits: As in calling the sampler; the step they make
                counts in `max_steps`. Defaults to `None`.
            max_steps: The most tokens to write (an int or int32 scalar
                tensor); `None` fills the prompt. Defaults to `None`.

        Returns:
            `(prompt, cache, index)`: the prompt filled so far, the cache,
            and the next position to fill (the prompt's length, or less when
            `max_steps` or every row's stop token ended the loop first).

        Example:
            >>> import tfkit.hub as keras_hub
            >>> def next(prompt, cache, index):
            ...     return tf.one_hot(tf.gather(prompt, index - 1, axis=1) + 1, 10), None, cache
            >>> prompt, _, index = keras_hub.samplers.GreedySampler().decode(
            ...     next, tf.constant([[3, 0, 0, 0, 0]]), index=1, max_steps=2)
            >>> prompt.numpy().tolist(), int(index)
            ([[3, 4, 5, 0, 0]], 3)
        """
        who = type(self).__name__
        prompt, mask = prompt_ops.checked_prompt(prompt, mask, who)
        max_length = prompt_ops.static_or_dynamic(prompt, 1)
        index = prompt_ops.checked_index(index, max_length, who)
        stop_ids = prompt_ops.stop_ids_tensor(stop_token_ids, prompt.dtype, who)
        cache = () if cache is None else cache  # tf.while_loop takes no None
        steps = (
            max_length - index if max_steps is None else tf.minimum(tf.cast(max_steps, tf.int32), max_length - index)
        )

        def cond(prompt: tf.Tensor, cache: Any, index: tf.Tensor, mask: tf.Tensor) -> tf.Tensor:
            if stop_ids is None:
                return tf.constant(True)
            return ~tf.reduce_all(prompt_ops.finished_rows(prompt, stop_ids, mask, index))

        def fill(prompt: tf.Tensor, index: tf.Tensor, logits: tf.Tensor) -> tf.Tensor:
            """`prompt` with the token picked from `logits` at `index`, unless the row keeps what it has there."""
            probabilities = self.compute_probabilities(logits)
            next_token = tf.cast(self.get_next_token(probabilities), prompt.dtype)
            keep = prompt_ops.read_column(mask, index)  # the prompt's own token
            if stop_ids is not None:
                keep |= prompt_ops.finished_rows(prompt, stop_ids, mask, index)  # a stopped row keeps its padding
            next_token = tf.where(keep, prompt_ops.read_column(prompt, index), next_token)
            return prompt_ops.write_column(prompt, index, next_token)

        def body(prompt: tf.Tensor, cache: Any, index: tf.Tensor, mask: tf.Tensor) -> tuple:
            logits, _, cache = next(prompt, cache, index)
            return fill(prompt, index, logits), cache, index + 1, mask

        if first_logits is not None:  # the loop's first step, with the logits given instead of `next`'s
            runs = (steps > 0) & cond(prompt, cache, index, mask)
            prompt = tf.cond(runs, lambda: fill(prompt, index, first_logits), lambda: prompt)
            index = tf.where(runs, index + 1, index)
            steps = tf.where(runs, steps - 1, steps)

        prompt, cache, index, _ = self.run_loop(
            cond, body, model=None, loop_vars=(prompt, cache, index, mask), maximum_iterations=steps
        )
        return prompt, cache, index

    def compute_probabilities(self, logits: Any) -> tf.Tensor:
        """The distribution over the vocabulary: `softmax(logits / temperature)`, in float32 whatever the logits' dtype.

        Args:
            logits: Float tensor `(batch, vocab)`.

        Returns:
            A float32 tensor of the logits' shape whose rows sum to 1.
        """
        return tf.nn.softmax(tf.cast(logits, tf.float32) / self.temperature, axis=-1)

    def run_loop(
        self,
        cond: Callable[..., Any],
        body: Callable[..., Any],
        model: Any = None,
        loop_vars: Any = None,
        maximum_iterations: Any = None,
    ) -> Any:
        """Runs the decoding loop: `tf.while_loop(cond, body, loop_vars, maximum_iterations)`.

        Args:
            cond: Callable taking the loop variables, returning a bool scalar:
                whether to run another step.
            body: Callable taking the loop variables, returning their next
                values (same structure, shapes and dtypes).
            model: The model generating; unused (KerasHub threads its
                variables through the loop on JAX). Defaults to `None`.
            loop_vars: The tuple of loop variables. Defaults to `None`.
            maximum_iterations: Optional int32 scalar: the most steps.
                Defaults to `None`.

        Returns:
            The loop variables after the last step, as a tuple.
        """
        return tuple(tf.while_loop(cond, body, loop_vars=loop_vars, maximum_iterations=maximum_iterations))

    def get_next_token(self, probabilities: tf.Tensor) -> tf.Tensor:
        """Picks the next token of each row; subclasses define it.

        Args:
            probabilities: Float32 tensor `(batch, vocab)`, the distribution
                `compute_probabilities` returned.

        Returns:
            An integer tensor `(batch,)` of token ids.

        Raises:
            NotImplementedError: On the base class.
        """
        raise NotImplementedError(f"{type(self).__name__} must define get_next_token(probabilities)")

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Sampler":
        """Creates a sampler from its config (`cls(**config)`).

        Args:
            config: The dict `get_config` returned.

        Returns:
            A new sampler.
        """
        return cls(**config)

    def get_config(self) -> dict[str, Any]:
        """The sampler's constructor arguments, KerasHub's keys: `{"temperature": ...}` and the subclass's.

        Returns:
            A dict of plain values.
        """
        return {"temperature": self.temperature}
