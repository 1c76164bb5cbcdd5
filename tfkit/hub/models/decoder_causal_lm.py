"""``DecoderCausalLM``: the one decoding loop of tfkit.hub's decoder-only causal LMs, with the hooks a family sets.

    class MyCausalLM(DecoderCausalLM):             # a family: its classes, block argument names, hooks
        backbone_cls, preprocessor_cls = MyBackbone, MyCausalLMPreprocessor
        def embed(self, token_ids, start_index=0, intercept=unchanged): ...

A backbone with ``token_embedding`` (a ``ReversibleEmbedding``),
``transformer_layers`` and a final ``layer_norm`` decodes with a key/value cache:
KerasHub's tensor ``(batch, num_layers, 2, max_length, num_key_value_heads,
head_dim)`` or, in ``generate``, a ``(keys, values)`` pair a layer
(``tfkit.hub.layers.kv_cache``: no per-step copy of the whole cache).
``generate_step`` fills it with one pass over the prompts (``_build_cache``),
then the sampler's compiled loop adds one token a step through
``call_with_cache``, writing each step's keys and values in place at its
position: static shapes, so ``generate`` compiles with XLA.

A family changes the loop only through what it declares:

- ``embed(token_ids, start_index, intercept)``: the first block's input
  (GPT-2 adds position embeddings, Gemma scales by ``sqrt(hidden_dim)``);
- ``block_arguments``: the names its blocks give the cache, the cache's update
  index and the padding mask;
- ``key_value_heads()``: the cache's heads and head size;
- ``prompt_pass_reads_padding_mask`` and ``keeps_prompt_cache`` (Gemma 3:
  its prompt pass reads the padding mask, and decoding never rewrites a
  prompt position's cached keys and values);
- ``prompt_pass_inputs(inputs)``: more keyword arguments of the prompt
  pass, from ``generate_step``'s inputs (by default the padding mask where
  ``prompt_pass_reads_padding_mask``; Gemma 3 and PaliGemma add their encoded
  images); ``_build_cache`` passes them to ``call_with_cache``, which gives
  those named in ``embed_arguments`` to ``embed`` (Gemma 3's image tokens
  written over placeholders, PaliGemma's put before the text) and the rest
  to every block;
- ``prefix_length()``: how many positions ``embed`` puts before the token
  ids in the prompt pass (PaliGemma's image tokens): the cache is that much
  longer, the decoding steps' positions are offset by it, and the logits
  (the model's outputs) and the sampler's hidden states are the text's only;
- ``prefill_buckets`` (``tfkit.hub.models.prefill``) and
  ``first_logits_from_prompt_pass`` (the first token from the prompt pass's
  hidden states, without another pass). A subclass that defines its own
  ``call_with_cache`` and does not say otherwise gets
  ``first_logits_from_prompt_pass = False``: its logits may not be
  ``token_embedding(hidden_states, reverse=True)``.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

import tensorflow as tf

from tfkit import losses
from tfkit.hub.layers.joined_kernels import JoinedKernels
from tfkit.hub.layers.kv_cache import empty_layer_caches, join_layer_caches, layer_cache
from tfkit.hub.models.causal_lm import CausalLM, stop_mask
from tfkit.hub.models.prefill import full_length, prompt_part
from tfkit.hub.models.speculative import speculative_generate_step


def unchanged(x: Any, index: int) -> Any:
    """The identity ``layer_intercept_fn``: ``x`` as it came (``index`` is -1 for the embeddings, else the block)."""
    return x


class DecoderCausalLM(CausalLM):
    """Base class of tfkit.hub's decoder-only causal LMs: one cached forward pass, one decoding loop, `score`.

    The backbone's hidden states go through the token embedding's reverse
    projection to next-token logits (the output embedding is the input one
    unless the backbone has `tie_word_embeddings=False`). `generate` fills a
    key/value cache with one pass over the prompt, then computes one token
    per step with the sampler chosen in `compile`. A family's class sets
    `backbone_cls` and `preprocessor_cls`, and overrides only the hooks its
    architecture needs (`embed`, `block_arguments`, `key_value_heads`,
    `prompt_pass_inputs`, `prefix_length`, and the class attributes of the
    module's header, such as `embed_arguments`).

    Args:
        backbone: The family's backbone (`token_embedding`,
            `transformer_layers`, `layer_norm`).
        preprocessor: The family's causal LM preprocessor, or `None` (the
            model then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
        >>> all(issubclass(getattr(keras_hub.models, f"{name}CausalLM"), DecoderCausalLM)
        ...     for name in ("GPT2", "Gemma", "Gemma3", "Llama", "Llama3", "Mistral", "Qwen", "Qwen3"))
        True
    """

    block_arguments: ClassVar[dict[str, str]] = {
        "cache": "self_attention_cache",
        "cache_update_index": "self_attention_cache_update_index",
        "padding_mask": "decoder_padding_mask",
    }
    prefill_buckets: ClassVar[bool] = True
    first_logits_from_prompt_pass: ClassVar[bool] = True
    prompt_pass_reads_padding_mask: ClassVar[bool] = False
    keeps_prompt_cache: ClassVar[bool] = False
    embed_arguments: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "call_with_cache" in vars(cls) and "first_logits_from_prompt_pass" not in vars(cls):
            cls.first_logits_from_prompt_pass = False

    def __init__(self, backbone: Any, preprocessor: Any = None, **kwargs: Any) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        inputs = backbone.input
        hidden_states = backbone(inputs)
        if isinstance(hidden_states, dict):  # an embedding model: the language head reads the sequence
            hidden_states = hidden_states["sequence_output"]
        outputs = backbone.token_embedding(hidden_states, reverse=True)
        prefix = self.prefix_length()
        if prefix:  # the logits of the text positions only
            outputs = outputs[:, prefix:, :]
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)

    def embed(self, token_ids: Any, start_index: Any = 0, intercept: Callable[[Any, int], Any] = unchanged) -> Any:
        """The first block's input for `token_ids` at positions `start_index ...` (a hook).

        Args:
            token_ids: int `(batch, length)`.
            start_index: The position of `token_ids[:, 0]` in the sequence.
                Defaults to `0`.
            intercept: `score`'s `layer_intercept_fn`, called with index `-1`
                where the family's embeddings are intercepted. Defaults to the
                identity.

        Returns:
            `(batch, length, hidden_dim)` embeddings.
        """
        return intercept(self.backbone.token_embedding(token_ids), -1)

    def prefix_length(self) -> int:
        """How many positions `embed` puts before the token ids in the prompt pass (a hook).

        Returns:
            A Python int: `0` here; PaliGemma's image tokens.
        """
        return 0

    def prompt_pass_inputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """More keyword arguments of `call_with_cache` for the prompt pass (a hook).

        Args:
            inputs: `generate_step`'s inputs (`"token_ids"`, `"padding_mask"`,
                and the family's own, such as `"images"`).

        Returns:
            A dict: the padding mask where `prompt_pass_reads_padding_mask`,
            else empty.
        """
        return {"padding_mask": inputs["padding_mask"]} if self.prompt_pass_reads_padding_mask else {}

    def key_value_heads(self) -> tuple[int, int]:
        """The cache's `(num_key_value_heads, head_dim)` (a hook).

        Returns:
            Two Python ints.
        """
        backbone = self.backbone
        head_dim = getattr(backbone, "head_dim", None) or backbone.hidden_dim // backbone.num_query_heads
        return backbone.num_key_value_heads, head_dim

    def call_with_cache(
        self, token_ids: Any, cache: Any, cache_update_index: Any, **block_inputs: Any
    ) -> tuple[Any, Any, Any]:
        """One forward pass that reads and updates the key/value cache.

        Args:
            token_ids: int `(batch, length)`: the tokens at positions
                `cache_update_index ...` of the sequence.
            cache: float `(batch, num_layers, 2, max_length,
                num_key_value_heads, head_dim)` as KerasHub has it, or a
                tuple of `(keys, values)` pairs, one a layer
                (`tfkit.hub.layers.kv_cache`).
            cache_update_index: The position of `token_ids[:, 0]` in the
                sequence.
            **block_inputs: More inputs: those named in `embed_arguments`
                go to `embed`, the others to every block, by the blocks' own
                names (Gemma 3's `padding_mask`, `cache_update_mask`).

        Returns:
            `(logits, hidden_states, cache)`, the cache in the form it came.
        """
        embed_inputs = {name: block_inputs.pop(name) for name in self.embed_arguments if name in block_inputs}
        x = self.embed(token_ids, cache_update_index, **embed_inputs)
        cache_name, index_name = self.block_arguments["cache"], self.block_arguments["cache_update_index"]
        caches = []
        for i, block in enumerate(self.backbone.transformer_layers):
            x, next_cache = block(
                x, **{cache_name: layer_cache(cache, i), index_name: cache_update_index}, **block_inputs
            )
            caches.append(next_cache)
        hidden_states = self.backbone.layer_norm(x)
        logits = self.backbone.token_embedding(hidden_states, reverse=True)
        return logits, hidden_states, join_layer_caches(caches, like=cache)

    def _build_cache(self, token_ids: Any, prefill_length: int | None = None, **prompt_inputs: Any) -> tuple[Any, Any]:
        """Zero per-layer caches the length of `token_ids` (and `prefix_length()`), filled by one pass over its
        first `prefill_length` positions (all for `None`) with `prompt_inputs`: `(hidden_states, cache)`, the
        hidden states of the text positions."""
        shape = tf.shape(token_ids)
        prefix = self.prefix_length()
        heads, head_dim = self.key_value_heads()
        num_layers = self.backbone.num_layers
        cache = empty_layer_caches(shape[0], shape[1] + prefix, num_layers, heads, head_dim, self.compute_dtype)
        prompt = prompt_part(token_ids, prefill_length)
        _, hidden_states, cache = self.call_with_cache(prompt, cache, 0, **prompt_inputs)
        if prefix:
            hidden_states = hidden_states[:, prefix:]
        return full_length(hidden_states, shape[1]), cache

    def generate_step(
        self, inputs: dict[str, Any], stop_token_ids: Any = None, prefill_length: int | None = None
    ) -> dict[str, Any]:
        """Generates one batch: the prompts' cache, the sampler's loop, then the output mask.

        Compiled by `make_generate_function`. When the model and the sampler
        allow it (`first_logits_from_prompt_pass`, the sampler's
        `accepts_first_logits`), the first token comes from the prompt pass's
        hidden states: one decoding step less before it.

        Args:
            inputs: `{"token_ids", "padding_mask"}`, padded to the length to
                generate.
            stop_token_ids: Token ids that end a row, or `None`.
            prefill_length: How many positions the prompt pass covers
                (`tfkit.hub.models.prefill`); `None`, all of them.

        Returns:
            `{"token_ids", "padding_mask"}`: the completed rows, and `True`
            up to each row's first stop token.
        """
        token_ids, padding_mask = inputs["token_ids"], inputs["padding_mask"]
        hidden_states, cache, index, first = self._prompt_pass(inputs, prefill_length)
        token_ids = self.sampler(
            next=self._next_token_function(padding_mask),
            prompt=token_ids,
            cache=cache,
            index=index,
            mask=padding_mask,
            stop_token_ids=stop_token_ids,
            hidden_states=hidden_states,
            model=self,
            **first,
        )
        return {"token_ids": token_ids, "padding_mask": stop_mask(token_ids, stop_token_ids, padding_mask)}

    def _prompt_pass(self, inputs: dict[str, Any], prefill_length: int | None) -> tuple[Any, Any, Any, dict]:
        """The prompt pass: `(hidden_states, cache, index, first)`, `index` the shortest prompt's end and
        `first` the sampler's `first_logits` where the model and the sampler take them (else empty)."""
        token_ids, padding_mask = inputs["token_ids"], inputs["padding_mask"]
        hidden_states, cache = self._build_cache(token_ids, prefill_length, **self.prompt_pass_inputs(inputs))
        index = tf.reduce_min(tf.reduce_sum(tf.cast(padding_mask, tf.int32), axis=-1))
        first = {}
        if self.first_logits_from_prompt_pass and self.sampler.accepts_first_logits:
            last = tf.gather(hidden_states, index - 1, axis=1)[:, None, :]  # (batch, 1, hidden_dim)
            first["first_logits"] = self.backbone.token_embedding(last, reverse=True)[:, 0, :]
        return hidden_states, cache, index, first

    def _next_token_function(self, padding_mask: Any) -> Callable[..., Any]:
        """The sampler's `next`: one cached step over the token at `index - 1`, its logits for `index`."""
        offset = self.prefix_length()  # the positions of the tokens after the prompt pass's prefix
        prompt_mask = tf.cast(padding_mask, tf.bool)

        def next_token(prompt: Any, cache: Any, index: Any) -> tuple[Any, Any, Any]:
            update_index = index - 1
            position = update_index + offset if offset else update_index
            size = [tf.shape(prompt)[0], 1]  # a static width of 1 (XLA)
            step = {}
            if self.keeps_prompt_cache:  # a prompt position's keys and values stay as the prompt pass wrote them
                step["cache_update_mask"] = tf.logical_not(tf.slice(prompt_mask, [0, update_index], size))
            column = tf.slice(prompt, [0, update_index], size)
            logits, hidden_states, cache = self.call_with_cache(column, cache, position, **step)
            return tf.squeeze(logits, axis=1), tf.squeeze(hidden_states, axis=1), cache

        return next_token

    def stream_start(
        self, inputs: dict[str, Any], stop_token_ids: Any = None, prefill_length: int | None = None
    ) -> tuple[Any, Any, Any, Any]:
        """The prompt pass and the first new token: the state `stream_continue` goes on from.

        Args:
            inputs: `{"token_ids", "padding_mask"}`, as `generate_step` takes them.
            stop_token_ids: Token ids that end a row, or `None`.
            prefill_length: How many positions the prompt pass covers; `None`, all.

        Returns:
            `(token_ids, cache, index, joined)`: the rows with their first new
            token, the key/value cache, the next position to fill, and the
            attention projections' kernels this call joined
            (`tfkit.hub.layers.joined_kernels`; empty outside XLA), which
            `stream_continue` takes so as not to join them again.
        """
        with JoinedKernels() as joined:
            _, cache, index, first = self._prompt_pass(inputs, prefill_length)
            token_ids, cache, index = self.sampler.decode(
                self._next_token_function(inputs["padding_mask"]),
                inputs["token_ids"],
                cache,
                index,
                inputs["padding_mask"],
                stop_token_ids,
                first_logits=first.get("first_logits"),
                max_steps=1,
            )
        self._joined_kernel_keys = joined.keys  # a trace-time record: the order of the kernels returned
        return token_ids, cache, index, joined.tensors()

    def stream_continue(
        self,
        token_ids: Any,
        cache: Any,
        index: Any,
        padding_mask: Any,
        stop_token_ids: Any,
        max_steps: Any,
        joined: Any = (),
    ) -> tuple[Any, Any, Any]:
        """At most `max_steps` more tokens from the state `stream_start` (or the last call) left.

        Args:
            token_ids: int `(batch, length)`: the rows, filled before `index`.
            cache: The key/value cache.
            index: The next position to fill.
            padding_mask: The prompts' mask (the positions the prompts hold).
            stop_token_ids: Token ids that end a row, or `None`.
            max_steps: The most tokens to add (an int32 scalar tensor: one
                compiled program serves every count).
            joined: The joined kernels `stream_start` returned. Defaults to
                `()` (join them here).

        Returns:
            `(token_ids, cache, index)`.
        """
        given = dict(zip(getattr(self, "_joined_kernel_keys", []), joined))
        with JoinedKernels(given=given):
            return self.sampler.decode(
                self._next_token_function(padding_mask),
                token_ids,
                cache,
                index,
                padding_mask,
                stop_token_ids,
                max_steps=max_steps,
            )

    def make_speculative_function(self, proposer: Any) -> Any:
        """`generate_step` with a proposer's guesses checked several at a time, compiled as `generate_step` is.

        One compiled function per proposer kind and settings (and draft
        model), kept until `compile` is called again.

        Args:
            proposer: From `tfkit.hub.models.speculative_options.make_proposer`.

        Returns:
            A callable taking `generate_step`'s arguments.
        """
        key = (
            type(proposer).__name__,
            id(getattr(proposer, "draft", None)),
            proposer.num_tokens,
            getattr(proposer, "max_ngram_size", None),
        )
        functions = getattr(self, "speculative_functions", None)
        if functions is None:
            functions = self.speculative_functions = {}
        if key not in functions:

            def step(inputs: Any, stop_token_ids: Any = None, prefill_length: int | None = None) -> Any:
                return speculative_generate_step(self, inputs, proposer, stop_token_ids, prefill_length)

            functions[key] = self.compiled_generation(step)
        return functions[key]

    def score(
        self,
        token_ids: Any,
        padding_mask: Any = None,
        scoring_mode: str = "logits",
        layer_intercept_fn: Callable[[Any, int], Any] | None = None,
        target_ids: Any = None,
    ) -> tf.Tensor:
        """Scores token sequences: the logits at every position, or the loss of each target token.

        Args:
            token_ids: int `(batch, length)`, such as `generate`'s output
                preprocessed again.
            padding_mask: `(batch, length)` mask of the tokens. Defaults to
                `None` (all ones).
            scoring_mode: `"logits"` (the default) or `"loss"`.
            layer_intercept_fn: Optional `fn(x, i)` applied to the embeddings
                (`i = -1`, where the family's KerasHub class applies it) and
                to each block's output (`i = 0, 1, ...`), returning the
                tensor the next layer takes: a hook for interpretability.
                Defaults to `None`.
            target_ids: int `(batch, length)` of the tokens each position
                should predict; required for `"loss"`. Defaults to `None`.

        Returns:
            `(batch, length, vocabulary_size)` logits, or `(batch, length)`
            per-token losses.

        Raises:
            ValueError: If `scoring_mode` is neither `"logits"` nor `"loss"`,
                or it is `"loss"` without `target_ids`.

        Example:
            >>> import tfkit.hub as keras_hub
            >>> backbone = keras_hub.models.QwenBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
            ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16)
            >>> causal_lm = keras_hub.models.QwenCausalLM(backbone)
            >>> ids = np.array([[1, 2, 3]])
            >>> causal_lm.score(ids).shape, causal_lm.score(ids, scoring_mode="loss", target_ids=ids).shape
            (TensorShape([1, 3, 10]), TensorShape([1, 3]))
        """
        who = f"{type(self).__name__}.score"
        if scoring_mode not in ("logits", "loss"):
            raise ValueError(f"{who}: scoring_mode must be 'logits' or 'loss', got {scoring_mode!r}")
        if scoring_mode == "loss" and target_ids is None:
            raise ValueError(f"{who}: scoring_mode='loss' needs target_ids, the token ids each position predicts")
        token_ids = tf.convert_to_tensor(token_ids)
        if padding_mask is None:
            padding_mask = tf.ones_like(token_ids)
        intercept = layer_intercept_fn or unchanged
        x = self.embed(token_ids, 0, intercept)
        mask_name = self.block_arguments["padding_mask"]
        for i, block in enumerate(self.backbone.transformer_layers):
            x = intercept(block(x, **{mask_name: padding_mask}), i)
        logits = self.backbone.token_embedding(self.backbone.layer_norm(x), reverse=True)
        if scoring_mode == "logits":
            return logits
        return losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")(target_ids, logits)
