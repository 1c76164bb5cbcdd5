"""``Seq2SeqLM``: an encoder-decoder language model, its one decoding loop, and the hooks a family declares.

    seq_2_seq_lm = tfkit.hub.models.Seq2SeqLM.from_preset("./bart_tiny")      # BartSeq2SeqLM
    seq_2_seq_lm.compile(sampler="greedy")
    seq_2_seq_lm.generate("the quick brown fox", max_length=16)               # the decoder's text
    seq_2_seq_lm.generate({"encoder_text": "a b", "decoder_text": "c"})       # a decoder prompt too

``generate`` runs the encoder ONCE per batch, then the decoder's prompt pass
(``_build_cache``): it fills the self-attention key/value cache with the
decoder prompt's keys and values and the cross-attention cache with the
encoder outputs' (computed once here, never again), and gives the first
token's logits. The sampler's compiled loop (``tfkit.hub.samplers``, one
``tf.while_loop`` of static shapes, XLA) then adds one token a step through
``call_decoder_with_cache``, which writes the step's self-attention keys and
values in place at its position (``tfkit.hub.layers.kv_cache``: a
``(keys, values)`` pair a layer) and reads the cross-attention cache as it is.
Rows of different lengths (padded encoder inputs, decoder prompts) decode
together, and a row stops at one of ``stop_token_ids``.

A family's task declares only what differs (BART, ``BartSeq2SeqLM``, needs the
first three and inherits the rest):

- ``backbone_cls``, ``preprocessor_cls``: its classes;
- ``call_encoder(token_ids, padding_mask)``: the encoder's output
  ``(batch, encoder_length, hidden_dim)``, KerasHub's method;
- ``embed_decoder(token_ids, start_index)``: the first decoder block's input
  for tokens at positions ``start_index ...``;
- ``decoder_blocks()``: the decoder blocks, each a ``TransformerDecoder``-like
  layer called (by ``call_decoder_block``) with KerasHub's arguments (``decoder_sequence``,
  ``encoder_sequence``, ``encoder_padding_mask``, ``self_attention_cache``,
  ``self_attention_cache_update_index``, ``cross_attention_cache``,
  ``cross_attention_cache_update_index``) and returning ``(x, self_cache,
  cross_cache)``. Defaults to ``backbone.decoder_transformer_layers``;
- ``decoder_final_norm()``: the layer normalizing the last block's output in
  the cached loop, one the backbone's ``"decoder_sequence_output"`` already went
  through (Whisper's, Moonshine's), or ``None`` (the default: no final norm);
- ``decoder_logits(hidden_states)``: the final hidden states (the backbone's
  ``"decoder_sequence_output"``, or the last block's output after
  ``decoder_final_norm``) to ``(logits, hidden_states)``: the model's call
  and the cached loop both project through it. Defaults to the tied
  ``token_embedding(hidden_states, reverse=True)``;
- ``key_value_heads()``: ``(heads, head_dim)`` of both caches. Defaults to
  ``backbone.num_heads`` and ``hidden_dim // num_heads``;
- ``encoder_inputs``: the input keys ``call_encoder`` takes, in order
  (``("encoder_token_ids", "encoder_padding_mask")``); a family whose encoder
  reads other inputs (audio) names its own, or overrides ``encode(inputs)``,
  which returns ``(encoder_hidden_states, cross_attention_padding_mask)``
  (a mask of the encoder's output length, or ``None``);
- ``call_decoder_block(block, x, ...)``: one block of the cached loop, called
  with KerasHub's ``TransformerDecoder`` arguments by default; a family whose
  blocks take other arguments (T5's position bias, handed from block to block
  in ``carried``; T5Gemma's ``(x, encoder_output)`` and cache pair) overrides
  it, returning ``(x, self_cache, cross_cache)``;
- ``call_decoder_with_cache(...)``: KerasHub's method; a family whose pass
  differs more (Moonshine's rotary angles) overrides it whole, keeping its
  contract: with ``cross_attention_cache_update_index=0`` it fills the
  cross-attention cache from ``encoder_hidden_states``, with ``None`` it reads
  the cache as given, and its logits are
  ``decoder_logits(final_decoder_states(x))``.

The model's inputs and ``generate_step``'s are KerasHub's:
``{"encoder_token_ids", "encoder_padding_mask", "decoder_token_ids",
"decoder_padding_mask"}`` in, ``{"decoder_token_ids",
"decoder_padding_mask"}`` out.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import tensorflow as tf

from tfkit.hub.layers.kv_cache import empty_layer_caches, join_layer_caches, layer_cache
from tfkit.hub.models.causal_lm import CausalLM, joined_outputs, stop_mask, without_prompt
from tfkit.hub.models.generate_length import check_generate_length
from tfkit.hub.models.prefill import prefill_length as bucketed_prefill_length
from tfkit.hub.models.prefill import prompt_part
from tfkit.saving import register_keras_serializable

DECODER_KEYS = ("decoder_token_ids", "decoder_padding_mask")


class DecoderBlockArguments(NamedTuple):
    """What `Seq2SeqLM.call_decoder_block` gives one decoder block besides its input: the encoder's output and
    padding mask, the block's self- and cross-attention caches (or `None`) with the indices
    `call_decoder_with_cache` was given (a cross-attention index of `0` fills that cache, `None` reads it), and
    `carried`, a dict the pass's blocks share, empty for the first (T5's position bias rides in it)."""

    encoder_hidden_states: Any
    encoder_padding_mask: Any
    self_attention_cache: Any
    self_attention_cache_update_index: Any
    cross_attention_cache: Any
    cross_attention_cache_update_index: Any
    carried: dict[str, Any]


@register_keras_serializable(package="keras_hub")
class Seq2SeqLM(CausalLM):
    """Base class for sequence to sequence language modeling tasks.

    A `Seq2SeqLM` wraps an encoder-decoder backbone and a
    `Seq2SeqLMPreprocessor`: the decoder predicts its sequence token by token
    with a causal mask while attending to the whole encoder sequence. `fit`
    takes `{"encoder_text", "decoder_text"}` pairs; `generate` takes encoder
    texts (or such pairs, the decoder's text a prompt to continue) and
    returns the decoder's text. `compile` has `CausalLM`'s defaults and its
    `sampler` argument. Called on this base class, `from_preset` returns the
    family's own (`BartSeq2SeqLM`). The module docstring lists the hooks a
    family declares; the decoding loop (encoder once, a self-attention cache
    written in place, a cross-attention cache computed once) is this class's.

    Args:
        backbone: The family's encoder-decoder backbone, whose outputs hold
            `"decoder_sequence_output"`.
        preprocessor: The family's `Seq2SeqLMPreprocessor`, or `None` (the
            model then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.Seq2SeqLM, keras_hub.models.CausalLM)
        True
    """

    encoder_inputs: ClassVar[tuple[str, ...]] = ("encoder_token_ids", "encoder_padding_mask")
    prefill_buckets: ClassVar[bool] = True
    first_logits_from_prompt_pass: ClassVar[bool] = True

    def __init__(self, backbone: Any = None, preprocessor: Any = None, **kwargs: Any) -> None:
        if backbone is None:  # the base class alone (KerasHub's Seq2SeqLM is a plain CausalLM)
            super().__init__(**kwargs)
            return
        self.backbone = backbone
        self.preprocessor = preprocessor
        inputs = backbone.input
        hidden_states = backbone(inputs)["decoder_sequence_output"]
        logits, _ = self.decoder_logits(hidden_states)
        super().__init__(inputs=inputs, outputs=logits, **kwargs)

    # ---- the hooks a family declares -------------------------------------------------------------------------

    def call_encoder(self, token_ids: Any, padding_mask: Any) -> Any:
        """The encoder's output for `token_ids` (a hook).

        Args:
            token_ids: int `(batch, encoder_length)`.
            padding_mask: `(batch, encoder_length)`.

        Returns:
            `(batch, encoder_length, hidden_dim)`.
        """
        raise NotImplementedError(f"{type(self).__name__} must define call_encoder")

    def encode(self, inputs: dict[str, Any]) -> tuple[Any, Any]:
        """The encoder's output and the padding mask cross-attention reads (a hook; see the module docstring).

        Args:
            inputs: The model's inputs.

        Returns:
            `(encoder_hidden_states, encoder_padding_mask)`, the mask `None`
            where every encoder position counts.
        """
        hidden_states = self.call_encoder(*[inputs[name] for name in self.encoder_inputs])
        return hidden_states, inputs.get("encoder_padding_mask")

    def embed_decoder(self, token_ids: Any, start_index: Any = 0) -> Any:
        """The first decoder block's input for `token_ids` at positions `start_index ...` (a hook).

        Args:
            token_ids: int `(batch, length)`.
            start_index: The position of `token_ids[:, 0]`. Defaults to `0`.

        Returns:
            `(batch, length, hidden_dim)`.
        """
        raise NotImplementedError(f"{type(self).__name__} must define embed_decoder")

    def decoder_blocks(self) -> list[Any]:
        """The decoder's blocks, in order (a hook): `backbone.decoder_transformer_layers` unless overridden."""
        return list(self.backbone.decoder_transformer_layers)

    def decoder_final_norm(self) -> Any:
        """The decoder's final norm (a hook): `None` unless overridden.

        The cached loop applies it to the last block's output before
        `decoder_logits`; the backbone's `"decoder_sequence_output"` already
        went through it, so the model's call does not.

        Returns:
            A layer, or `None` (no final norm).
        """
        return None

    def decoder_logits(self, hidden_states: Any) -> tuple[Any, Any]:
        """The final decoder states to `(logits, hidden_states)` (a hook): the tied reverse embedding.

        Args:
            hidden_states: `(batch, length, hidden_dim)`: the backbone's
                `"decoder_sequence_output"`, or the last block's output after
                `decoder_final_norm`.

        Returns:
            `(logits, hidden_states)`: logits over the vocabulary and the
            hidden states they come from.
        """
        return self.backbone.token_embedding(hidden_states, reverse=True), hidden_states

    def final_decoder_states(self, hidden_states: Any) -> Any:
        """The last decoder block's output through `decoder_final_norm` (as it is where that is `None`).

        Args:
            hidden_states: `(batch, length, hidden_dim)`.

        Returns:
            `(batch, length, hidden_dim)`, what `decoder_logits` takes.
        """
        norm = self.decoder_final_norm()
        return hidden_states if norm is None else norm(hidden_states)

    def key_value_heads(self) -> tuple[int, int]:
        """The caches' `(heads, head_dim)` (a hook).

        Returns:
            Two Python ints.
        """
        backbone = self.backbone
        return backbone.num_heads, backbone.hidden_dim // backbone.num_heads

    def call_decoder_block(self, block: Any, x: Any, arguments: DecoderBlockArguments) -> tuple[Any, Any, Any]:
        """One decoder block of `call_decoder_with_cache` (a hook): KerasHub's `TransformerDecoder` arguments.

        Args:
            block: One of `decoder_blocks()`.
            x: The block's input, `(batch, length, hidden_dim)`.
            arguments: The rest of what the block reads: the encoder's
                output and mask, its two caches and their indices, and what
                the pass's blocks hand on.

        Returns:
            `(x, self_attention_cache, cross_attention_cache)`: the block's
            output and caches, the caches in the form they came.
        """
        return block(
            decoder_sequence=x,
            encoder_sequence=arguments.encoder_hidden_states,
            encoder_padding_mask=arguments.encoder_padding_mask,
            self_attention_cache=arguments.self_attention_cache,
            self_attention_cache_update_index=arguments.self_attention_cache_update_index,
            cross_attention_cache=arguments.cross_attention_cache,
            cross_attention_cache_update_index=arguments.cross_attention_cache_update_index,
        )

    # ---- the loop ---------------------------------------------------------------------------------------------

    def call_decoder_with_cache(
        self,
        encoder_hidden_states: Any,
        encoder_padding_mask: Any,
        decoder_token_ids: Any,
        self_attention_cache: Any = None,
        self_attention_cache_update_index: Any = None,
        cross_attention_cache: Any = None,
        cross_attention_cache_update_index: Any = None,
    ) -> tuple[Any, Any, Any, Any]:
        """One decoder pass that writes the self-attention cache and reads (or first fills) the cross-attention one.

        Args:
            encoder_hidden_states: `(batch, encoder_length, hidden_dim)`.
            encoder_padding_mask: `(batch, encoder_length)`, or `None`.
            decoder_token_ids: int `(batch, length)`: the tokens at positions
                `self_attention_cache_update_index ...`.
            self_attention_cache: A tuple of `(keys, values)` pairs, one a
                block, each `(batch, max_length, heads, head_dim)`, or
                KerasHub's `(batch, num_layers, 2, max_length, heads,
                head_dim)` tensor.
            self_attention_cache_update_index: Where the new keys and values go.
            cross_attention_cache: The cross-attention cache, in the same
                form, `encoder_length` long.
            cross_attention_cache_update_index: `0` to fill it from
                `encoder_hidden_states`, `None` to read it as it is.

        Returns:
            `(logits, hidden_states, self_attention_cache,
            cross_attention_cache)`, the caches in the form they came.
        """
        start = 0 if self_attention_cache_update_index is None else self_attention_cache_update_index
        x = self.embed_decoder(decoder_token_ids, start)
        self_caches, cross_caches, carried = [], [], {}
        for i, block in enumerate(self.decoder_blocks()):
            arguments = DecoderBlockArguments(
                encoder_hidden_states,
                encoder_padding_mask,
                _block_cache(self_attention_cache, i),
                self_attention_cache_update_index,
                _block_cache(cross_attention_cache, i),
                cross_attention_cache_update_index,
                carried,
            )
            x, self_cache, cross_cache = self.call_decoder_block(block, x, arguments)
            self_caches.append(self_cache)
            cross_caches.append(cross_cache)
        logits, hidden_states = self.decoder_logits(self.final_decoder_states(x))
        if cross_attention_cache_update_index is not None:
            cross_attention_cache = join_layer_caches(cross_caches, like=cross_attention_cache)
        return logits, hidden_states, join_layer_caches(self_caches, like=self_attention_cache), cross_attention_cache

    def _build_cache(self, inputs: dict[str, Any], prefill_length: int | None = None) -> tuple[Any, ...]:
        """The encoder's one pass, then the decoder prompt's: `(logits, encoder_hidden_states,
        encoder_padding_mask, self_attention_cache, cross_attention_cache)`."""
        encoder_hidden_states, encoder_padding_mask = self.encode(inputs)
        decoder_token_ids = inputs["decoder_token_ids"]
        batch, length = tf.shape(decoder_token_ids)[0], tf.shape(decoder_token_ids)[1]
        layers = len(self.decoder_blocks())
        heads, head_dim = self.key_value_heads()
        dtype = self.compute_dtype
        self_cache = empty_layer_caches(batch, length, layers, heads, head_dim, dtype)
        cross_cache = empty_layer_caches(batch, tf.shape(encoder_hidden_states)[1], layers, heads, head_dim, dtype)
        logits, _, self_cache, cross_cache = self.call_decoder_with_cache(
            encoder_hidden_states,
            encoder_padding_mask,
            prompt_part(decoder_token_ids, prefill_length),
            self_cache,
            0,
            cross_cache,
            0,
        )
        return logits, encoder_hidden_states, encoder_padding_mask, self_cache, cross_cache

    def generate_step(
        self, inputs: dict[str, Any], stop_token_ids: Any = None, prefill_length: int | None = None
    ) -> dict[str, Any]:
        """Generates one batch: the encoder once, the decoder prompt's caches, the sampler's loop, the mask.

        Compiled by `make_generate_function`.

        Args:
            inputs: The model's inputs, the decoder's padded to the length to
                generate.
            stop_token_ids: Token ids that end a row, or `None`.
            prefill_length: How many decoder positions the prompt pass covers
                (`tfkit.hub.models.prefill`); `None`, all of them.

        Returns:
            `{"decoder_token_ids", "decoder_padding_mask"}`: the completed
            rows, and `True` up to each row's first stop token.
        """
        decoder_token_ids, decoder_padding_mask = inputs["decoder_token_ids"], inputs["decoder_padding_mask"]
        logits, encoder_hidden_states, encoder_padding_mask, self_cache, cross_cache = self._build_cache(
            inputs, prefill_length
        )
        index = tf.reduce_min(tf.reduce_sum(tf.cast(decoder_padding_mask, tf.int32), axis=-1))
        has_mask = encoder_padding_mask is not None
        # everything a step reads rides in the loop's cache (the beam sampler repeats each part per beam)
        cache = (self_cache, cross_cache, encoder_hidden_states, encoder_padding_mask if has_mask else ())

        def next_token(prompt: Any, cache: Any, index: Any) -> tuple[Any, Any, Any]:
            self_cache, cross_cache, encoder_hidden_states, encoder_padding_mask = cache
            column = tf.slice(prompt, [0, index - 1], [tf.shape(prompt)[0], 1])  # a static width of 1 (XLA)
            logits, hidden_states, self_cache, _ = self.call_decoder_with_cache(
                encoder_hidden_states,
                encoder_padding_mask if has_mask else None,
                column,
                self_cache,
                index - 1,
                cross_cache,
                None,
            )
            next_cache = (self_cache, cross_cache, encoder_hidden_states, encoder_padding_mask)
            return tf.squeeze(logits, axis=1), tf.squeeze(hidden_states, axis=1), next_cache

        first = {}
        if self.first_logits_from_prompt_pass and self.sampler.accepts_first_logits:
            first["first_logits"] = tf.gather(logits, index - 1, axis=1)
        decoder_token_ids = self.sampler(
            next=next_token,
            prompt=decoder_token_ids,
            cache=cache,
            index=index,
            mask=decoder_padding_mask,
            stop_token_ids=stop_token_ids,
            model=self,
            **first,
        )
        decoder_padding_mask = stop_mask(decoder_token_ids, stop_token_ids, decoder_padding_mask)
        return {"decoder_token_ids": decoder_token_ids, "decoder_padding_mask": decoder_padding_mask}

    def generate(
        self, inputs: Any, max_length: int | None = None, stop_token_ids: Any = "auto", strip_prompt: bool = False
    ) -> Any:
        """Generates the decoder's text (or token ids) for encoder inputs, with the sampler chosen in `compile`.

        Args:
            inputs: An encoder text, a list of them, a string tensor, a dict
                `{"encoder_text", "decoder_text"}` (the decoder's text a prompt
                to continue), or a `tf.data.Dataset` of such batches; without
                a preprocessor, the model's inputs (the decoder's padded to
                the length to generate).
            max_length: The decoder's length, prompt and completion, in
                tokens. Defaults to the preprocessor's
                `decoder_sequence_length`.
            stop_token_ids: `"auto"` (the tokenizer's end token), `None`
                (generate to `max_length`), or token ids that end a sequence.
                Defaults to `"auto"`.
            strip_prompt: Whether to return the completion only, without the
                decoder prompt. Defaults to `False`.

        Returns:
            A string (for one encoder text), a list of strings, or, without a
            preprocessor, `{"decoder_token_ids", "decoder_padding_mask"}` as
            NumPy arrays.

        Raises:
            ValueError: If `stop_token_ids="auto"` and there is no preprocessor,
                or the decoder's sequences are longer than its learned
                position embedding's positions (BART's `max_sequence_length`,
                Whisper's `max_decoder_sequence_length`).
        """
        stop_token_ids = self._stop_token_ids(stop_token_ids)
        generate_function = self.make_generate_function()
        scalar = self.preprocessor is not None and self._one_example(inputs)
        batches = list(inputs) if isinstance(inputs, tf.data.Dataset) else [inputs]
        outputs = []
        for batch in batches:
            prompt = self._as_batch(batch) if scalar else batch
            if self.preprocessor is not None:
                prompt = self.preprocessor.generate_preprocess(prompt, sequence_length=max_length)
            prompt = tf.nest.map_structure(tf.convert_to_tensor, dict(prompt))
            check_generate_length(self, prompt["decoder_token_ids"].shape[1])
            static = {}
            if self.prefill_buckets:  # one compiled program per bucket of the shortest decoder prompt
                mask = prompt["decoder_padding_mask"]
                static["prefill_length"] = bucketed_prefill_length(mask, prompt["decoder_token_ids"].shape[1])
            generated = generate_function(prompt, stop_token_ids=stop_token_ids, **static)
            if strip_prompt:
                generated = _strip_decoder_prompt(generated, prompt)
            if self.preprocessor is not None:
                generated = self.preprocessor.generate_postprocess(generated)
            outputs.append(generated)
        return joined_outputs(outputs, scalar)

    def _one_example(self, inputs: Any) -> bool:
        """Whether `generate`'s `inputs` are one example, whose output is one string (a hook: a speech model
        takes one clip as a rank-1 array)."""
        return _is_scalar(inputs)

    def _as_batch(self, inputs: Any) -> Any:
        """One example made a batch of one (a hook, with `_one_example`)."""
        return _batched(inputs)


def _block_cache(cache: Any, index: int) -> Any:
    """Block `index`'s cache from the whole model's (`None` where there is none)."""
    return None if cache is None else layer_cache(cache, index)


def _is_scalar(inputs: Any) -> bool:
    """Whether `inputs` is one example: a string, a rank-0 tensor, or a dict of those."""
    if isinstance(inputs, dict):
        return any(_is_scalar(value) for value in inputs.values())
    return isinstance(inputs, (str, bytes)) or (tf.is_tensor(inputs) and inputs.shape.rank == 0)


def _batched(inputs: Any) -> Any:
    if isinstance(inputs, dict):
        return {key: _batched(value) for key, value in inputs.items()}
    return [inputs] if isinstance(inputs, (str, bytes)) else tf.reshape(inputs, [1])


def _strip_decoder_prompt(generated: dict[str, Any], prompt: dict[str, Any]) -> dict[str, Any]:
    """The decoder's completion alone: each row rolled left past its prompt, its mask the new tokens only."""
    rename = dict(zip(DECODER_KEYS, ("token_ids", "padding_mask")))
    stripped = without_prompt(
        {rename[key]: generated[key] for key in DECODER_KEYS}, {"padding_mask": prompt["decoder_padding_mask"]}
    )
    return {key: stripped[rename[key]] for key in DECODER_KEYS}
