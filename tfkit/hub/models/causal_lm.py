"""``CausalLM``: a language model that predicts the next token and generates text, KerasHub's own.

    causal_lm = tfkit.hub.models.CausalLM.from_preset("./gpt2_tiny")
    causal_lm.compile(sampler="greedy")
    causal_lm.generate("a b", max_length=16)           # prompt and completion, as a string

``generate`` preprocesses the prompts (no end token), runs the family's
``generate_step`` (a key/value cache filled by one forward pass over the
prompt, then one step per new token inside the sampler's compiled loop) as a
``tf.function`` (XLA unless ``jit_compile=False``), and turns the ids back
into text.
"""

from __future__ import annotations

from typing import Any, ClassVar, Iterator

import numpy as np
import tensorflow as tf

from tfkit import losses, metrics, optimizers
from tfkit.hub import samplers
from tfkit.hub.models.generate_length import check_generate_length
from tfkit.hub.models.prefill import prefill_length
from tfkit.hub.models.speculative_options import make_proposer
from tfkit.hub.models.streaming import STREAM_INTERVAL, TextPieces, stream_token_ids
from tfkit.hub.models.task import Task
from tfkit.saving import register_keras_serializable


def stop_mask(token_ids: tf.Tensor, stop_token_ids: Any, prompt_mask: tf.Tensor) -> tf.Tensor:
    """The padding mask of generated sequences: ``True`` up to and including each row's first stop token
    (everywhere when ``stop_token_ids`` is ``None``)."""
    if stop_token_ids is None:
        return tf.ones_like(token_ids, dtype=tf.bool)
    generated = tf.logical_not(tf.cast(prompt_mask, tf.bool))
    is_stop = tf.zeros_like(token_ids, dtype=tf.bool)
    for token in stop_token_ids:
        is_stop |= token_ids == tf.cast(token, token_ids.dtype)
    ends = tf.cast(is_stop & generated, tf.int32)
    after = tf.cumsum(ends, axis=-1) - ends  # > 0 strictly after the first stop token
    return tf.logical_not(tf.cast(after, tf.bool))


@register_keras_serializable(package="keras_hub")
class CausalLM(Task):
    """Base class for generative language modeling tasks.

    A `CausalLM` maps token ids to next-token logits over the vocabulary and
    generates text with `generate`. Called on the `CausalLM` base class,
    `from_preset` returns the family's own (`GPT2CausalLM`, `Llama3CausalLM`,
    ...). `compile` has the defaults of language modeling and chooses the
    sampler `generate` uses.

    Args:
        *args: The functional model's arguments, passed by a family's class.
        compile: Whether to `compile()` with the task's defaults at once, as
            KerasHub's tasks do. Defaults to `True`.
        **kwargs: `Task` keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.CausalLM, keras_hub.models.Task)
        True
    """

    prefill_buckets: ClassVar[bool] = False  # whether generate_step takes prefill_length (tfkit.hub.models.prefill)

    def compile(
        self,
        optimizer: Any = "auto",
        loss: Any = "auto",
        *,
        weighted_metrics: Any = "auto",
        sampler: Any = "top_k",
        **kwargs: Any,
    ) -> None:
        """Configures training and generation, with language modeling's defaults.

        Args:
            optimizer: `"auto"` (Adam, learning rate 2e-5), or anything
                `tfkit.Model.compile` takes. Defaults to `"auto"`.
            loss: `"auto"` (sparse categorical crossentropy on logits), or
                anything `compile` takes. Defaults to `"auto"`.
            weighted_metrics: `"auto"` (sparse categorical accuracy, weighted
                by the padding mask), or a list of metrics. Defaults to `"auto"`.
            sampler: The sampler `generate` uses: a name (`"greedy"`,
                `"top_k"`, `"top_p"`, `"random"`, `"beam"`) or a
                `tfkit.hub.samplers.Sampler`. Defaults to `"top_k"`.
            **kwargs: Other arguments of `tfkit.Model.compile`.
        """
        if isinstance(optimizer, str) and optimizer == "auto":
            optimizer = optimizers.Adam(2e-5)
        if isinstance(loss, str) and loss == "auto":
            loss = losses.SparseCategoricalCrossentropy(from_logits=True)
        if isinstance(weighted_metrics, str) and weighted_metrics == "auto":
            weighted_metrics = [metrics.SparseCategoricalAccuracy()]
        super().compile(optimizer=optimizer, loss=loss, weighted_metrics=weighted_metrics, **kwargs)
        self.sampler = samplers.get(sampler)
        self.generate_function = None
        self.speculative_functions = {}
        self.stream_functions = None

    def generate_step(self, inputs: dict[str, Any], stop_token_ids: Any = None) -> dict[str, Any]:
        """Generates one batch: `{"token_ids", "padding_mask"}` in, the completed ids and their mask out."""
        raise NotImplementedError(f"{type(self).__name__} must define generate_step")

    def make_generate_function(self) -> Any:
        """The compiled `generate_step` (a `tf.function`, with XLA unless `jit_compile=False`)."""
        if getattr(self, "generate_function", None) is None:
            self.generate_function = self.compiled_generation(self.generate_step)
        return self.generate_function

    def compiled_generation(self, step: Any) -> Any:
        """`step` as generation runs it: eager under `run_eagerly`, else a `tf.function` (XLA unless `compile`
        said `jit_compile=False`; `"auto"`, tfkit's default, compiles generation)."""
        if self.run_eagerly:
            return step
        jit = self._compiled.config.get("jit_compile", "auto") if self._compiled is not None else "auto"
        return tf.function(step, jit_compile=jit is not False)

    def _stop_token_ids(self, stop_token_ids: Any) -> Any:
        if not (isinstance(stop_token_ids, str) and stop_token_ids == "auto"):
            return None if stop_token_ids is None else tuple(stop_token_ids)
        if self.preprocessor is None:
            raise ValueError(
                'generate: stop_token_ids="auto" uses the preprocessor\'s end token, and this model has no '
                "preprocessor; pass stop_token_ids=None (generate to max_length) or a tuple of token ids"
            )
        tokenizer = self.preprocessor.tokenizer
        ids = [tokenizer.end_token_id]
        if getattr(tokenizer, "end_token2_id", None) is not None:
            ids.append(tokenizer.end_token2_id)
        return tuple(ids)

    def generate_signature(self, max_length: int | None = None, stop_token_ids: Any = "auto") -> Any:
        """A `tf.function` that generates text from a batch of prompt strings, for serving.

        `export` adds it to the SavedModel as the signature `generate` (prompts
        in, `{"text": ...}` out), so TensorFlow Serving generates text with
        no tfkit installed: tokenization, the decoding loop with its key/value
        cache and detokenization are all TensorFlow ops (the serving process
        needs tensorflow-text's ops, which TensorFlow Serving includes; a
        Python process `import tensorflow_text`). It decodes with the sampler
        chosen in `compile`.

        Args:
            max_length: The length of prompt plus completion, in tokens.
                Defaults to the preprocessor's `sequence_length`.
            stop_token_ids: As in `generate`. Defaults to `"auto"`.

        Returns:
            The `tf.function`, with the input signature `prompts`: a 1-D
            string tensor.

        Raises:
            ValueError: If the model has no preprocessor.
        """
        if self.preprocessor is None:
            raise ValueError(f"{type(self).__name__} '{self.name}' has no preprocessor: it cannot take text to serve")
        return _generate_signature(self, max_length, self._stop_token_ids(stop_token_ids))

    def export(
        self,
        filepath: Any,
        format: str = "tf_saved_model",
        verbose: bool = True,
        input_signature: Any = None,
        **kwargs: Any,
    ) -> str:
        """Exports the model; a SavedModel of a model with a preprocessor also gets the `generate` signature.

        The `serve` signature takes token ids (as `tfkit.Model.export`), and
        `generate` takes prompt strings and returns the generated text (see
        `generate_signature`; it generates up to the preprocessor's
        `sequence_length`).

        Args:
            filepath: The folder (SavedModel) or file to write.
            format: As `tfkit.Model.export`. Defaults to `"tf_saved_model"`.
            verbose: Whether to say what was written. Defaults to `True`.
            input_signature: The model inputs' specs. Defaults to `None`.
            **kwargs: As `tfkit.Model.export` (`signatures` adds more).

        Returns:
            The path written.
        """
        if format == "tf_saved_model" and self.preprocessor is not None:
            kwargs["signatures"] = {"generate": self.generate_signature(), **(kwargs.get("signatures") or {})}
        return super().export(filepath, format=format, verbose=verbose, input_signature=input_signature, **kwargs)

    def generate(
        self,
        inputs: Any,
        max_length: int | None = None,
        stop_token_ids: Any = "auto",
        strip_prompt: bool = False,
        *,
        assistant_model: Any = None,
        num_assistant_tokens: int = 4,
        prompt_lookup_num_tokens: int | None = None,
        max_matching_ngram_size: int = 2,
    ) -> Any:
        """Generates text (or token ids) from prompts, with the sampler chosen in `compile`.

        Args:
            inputs: A prompt string, a list of them, a string tensor, or a
                `tf.data.Dataset` of batches; without a preprocessor, the
                backbone's inputs (`{"token_ids", "padding_mask"}`, padded to
                the length to generate).
            max_length: The length of prompt plus completion, in tokens.
                Defaults to the preprocessor's `sequence_length`.
            stop_token_ids: `"auto"` (the tokenizer's end token), `None`
                (generate to `max_length`), or token ids that end a sequence.
                Defaults to `"auto"`.
            strip_prompt: Whether to return the completion only. Defaults to
                `False`: prompt and completion.
            assistant_model: A smaller causal LM with the same tokenizer
                whose guesses the model checks several at a time
                (speculative decoding, `tfkit.hub.models.speculative`): the
                ids of greedy decoding, fewer passes of the model. Needs
                `compile(sampler="greedy")`. Not in KerasHub; the name is
                Hugging Face's. Defaults to `None`.
            num_assistant_tokens: How many tokens `assistant_model` guesses a
                round. Defaults to `4`.
            prompt_lookup_num_tokens: Guess this many tokens a round by
                copying what followed the last n-gram's latest earlier
                occurrence in the sequence (prompt lookup decoding; greedy
                ids, fast where the output quotes the prompt). Defaults to
                `None` (off).
            max_matching_ngram_size: The longest n-gram prompt lookup
                matches; it looks for n-grams down to 2 tokens (1 when this
                is 1). Defaults to `2`.

        Returns:
            A string (for a string prompt), a list of strings, or, without a
            preprocessor, `{"token_ids", "padding_mask"}` as NumPy arrays.

        Raises:
            ValueError: If `stop_token_ids="auto"` and there is no preprocessor,
                the sequences are longer than a learned position embedding's
                positions (GPT-2's `max_sequence_length`), or the speculative
                arguments cannot be honoured (`speculative_options`).

        Example:
            >>> import tfkit.hub as keras_hub
            >>> backbone = keras_hub.models.GPT2Backbone(vocabulary_size=10, num_layers=1, num_heads=2,
            ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
            >>> causal_lm = keras_hub.models.GPT2CausalLM(backbone)
            >>> causal_lm.compile(sampler="greedy")
            >>> prompt = {"token_ids": np.array([[1, 2, 1, 2, 0, 0, 0, 0]]), "padding_mask": np.arange(8)[None] < 4}
            >>> greedy = causal_lm.generate(prompt, stop_token_ids=None)["token_ids"]
            >>> lookup = causal_lm.generate(prompt, stop_token_ids=None, prompt_lookup_num_tokens=3)["token_ids"]
            >>> bool((greedy == lookup).all())
            True
        """
        stop_token_ids = self._stop_token_ids(stop_token_ids)
        proposer = make_proposer(
            self, assistant_model, num_assistant_tokens, prompt_lookup_num_tokens, max_matching_ngram_size
        )
        if proposer is None:
            generate_function = self.make_generate_function()
        else:
            generate_function = self.make_speculative_function(proposer)
        scalar = _is_scalar(inputs)
        outputs = []
        for prompt, static in self._prompt_batches(inputs, max_length):
            generated = generate_function(prompt, stop_token_ids=stop_token_ids, **static)
            if strip_prompt:
                generated = without_prompt(generated, prompt)
            if self.preprocessor is not None:
                generated = self.preprocessor.generate_postprocess(generated)
            outputs.append(generated)
        return joined_outputs(outputs, scalar)

    def _prompt_batches(self, inputs: Any, max_length: int | None) -> Any:
        """`generate`'s inputs as batches: `(prompt, static)`, the preprocessed prompt tensors and the
        compiled program's static arguments (the prefill bucket)."""
        if isinstance(inputs, tf.data.Dataset):
            batches = list(inputs)
        else:
            batches = [[inputs] if _is_scalar(inputs) else inputs]
        for batch in batches:
            prompt = batch
            if self.preprocessor is not None:
                prompt = self.preprocessor.generate_preprocess(batch, sequence_length=max_length)
            prompt = tf.nest.map_structure(tf.convert_to_tensor, prompt)
            check_generate_length(self, prompt["token_ids"].shape[1])
            static = {}
            if self.prefill_buckets:  # generate_step takes prefill_length: one compiled program per bucket
                static["prefill_length"] = prefill_length(prompt["padding_mask"], prompt["token_ids"].shape[1])
            yield prompt, static

    def stream_generate(
        self,
        inputs: Any,
        max_length: int | None = None,
        stop_token_ids: Any = "auto",
        interval: float = STREAM_INTERVAL,
    ) -> Iterator[Any]:
        """Generates as `generate` does, handing out each prompt's new text as it is made.

        The compiled decoding loop runs a few steps at a time
        (`tfkit.hub.models.streaming`): the first piece comes right after
        the prompt pass, then a piece about every `interval` seconds. The
        pieces of a prompt joined are `generate(..., strip_prompt=True)`'s
        text for it (the same ids, with any sampler that picks one token a
        step). KerasHub's `generate` cannot stream; this is a Python
        generator rather than Hugging Face's `streamer=` callback object, so
        a loop, a web server's response or a notebook reads it directly,
        with no thread in between.

        Args:
            inputs: As in `generate`.
            max_length: As in `generate`. Defaults to `None`.
            stop_token_ids: As in `generate`. Defaults to `"auto"`.
            interval: The seconds each part of the loop aims at: smaller
                gives smaller pieces more often, at some cost in tokens per
                second. Defaults to `0.25`.

        Yields:
            For a string prompt, its new text; for a list of prompts, a list
            with each one's new text (`""` for a row with none this time);
            without a preprocessor, a list with each row's new token ids
            (1-D NumPy arrays). A `tf.data.Dataset` streams one batch after
            another.

        Raises:
            ValueError: If the sampler does not pick one token a step (beam
                and contrastive search revise or compare whole sequences),
                or as `generate`.

        Example:
            >>> import tfkit.hub as keras_hub
            >>> backbone = keras_hub.models.GPT2Backbone(vocabulary_size=10, num_layers=1, num_heads=2,
            ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
            >>> causal_lm = keras_hub.models.GPT2CausalLM(backbone)
            >>> causal_lm.compile(sampler="greedy")
            >>> prompt = {"token_ids": np.array([[1, 2, 0, 0, 0, 0]]), "padding_mask": np.arange(6)[None] < 2}
            >>> pieces = list(causal_lm.stream_generate(prompt, stop_token_ids=None))
            >>> streamed = np.concatenate([piece[0] for piece in pieces])
            >>> full = causal_lm.generate(prompt, stop_token_ids=None)["token_ids"][0, 2:]
            >>> bool((streamed == full).all())
            True
        """
        if not self.sampler.streams:
            raise ValueError(
                f"{type(self).__name__}.stream_generate: {type(self.sampler).__name__} does not pick one token a "
                "step, so it cannot hand tokens out as it goes; compile with 'greedy', 'top_k', 'top_p' or "
                "'random', or call generate()"
            )
        stop_token_ids = self._stop_token_ids(stop_token_ids)
        scalar = _is_scalar(inputs)
        for prompt, static in self._prompt_batches(inputs, max_length):
            parts = stream_token_ids(self, prompt, stop_token_ids, static, interval)
            if self.preprocessor is None:
                yield from parts
                continue
            text = TextPieces(self.preprocessor, int(prompt["token_ids"].shape[0]))
            for pieces in parts:
                new = text.add(pieces)
                yield new[0] if scalar else new
            rest = text.add([np.zeros(0, "int32")] * len(text.ids), final=True)
            if any(rest):
                yield rest[0] if scalar else rest

    def make_stream_functions(self) -> tuple[Any, Any]:
        """The compiled `stream_start` and `stream_continue` (`stream_generate`'s parts), made once.

        Returns:
            The two callables, compiled as `generate_step` is.
        """
        if getattr(self, "stream_functions", None) is None:
            self.stream_functions = (
                self.compiled_generation(self.stream_start),
                self.compiled_generation(self.stream_continue),
            )
        return self.stream_functions


def _is_scalar(inputs: Any) -> bool:
    return isinstance(inputs, str) or (tf.is_tensor(inputs) and inputs.shape.rank == 0)


def _generate_signature(model: "CausalLM", max_length: int | None, stop_token_ids: Any) -> Any:
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="prompts")])
    def generate(prompts: tf.Tensor) -> dict[str, tf.Tensor]:
        inputs = model.preprocessor.generate_preprocess(prompts, sequence_length=max_length)
        generated = model.generate_step(inputs, stop_token_ids=stop_token_ids)
        return {"text": model.preprocessor.generate_postprocess(generated)}

    return generate


def without_prompt(generated: dict[str, Any], prompt: dict[str, Any]) -> dict[str, Any]:
    """The completion alone: each row rolled left past its prompt, its mask the new tokens only.

    `generate(..., strip_prompt=True)` returns this (`Seq2SeqLM`'s for its
    decoder's prompt too).

    Args:
        generated: `{"token_ids", "padding_mask"}`: the generated rows,
            prompt and completion, and the mask of their tokens.
        prompt: `{"padding_mask"}`: the mask of each row's prompt tokens.

    Returns:
        `{"token_ids", "padding_mask"}`: each row's completion first, the
        mask `True` on the completion's tokens only.
    """
    prompt_mask = tf.cast(prompt["padding_mask"], tf.bool)
    length = tf.shape(prompt_mask)[1]
    shifts = tf.math.floormod(-tf.reduce_sum(tf.cast(prompt_mask, tf.int32), axis=1), length)
    index = tf.range(length)[tf.newaxis, :] - shifts[:, tf.newaxis]
    index = tf.math.floormod(index, length)

    def roll(sequence: Any) -> Any:
        return tf.gather(sequence, index, batch_dims=1)

    return {
        "token_ids": roll(generated["token_ids"]),
        "padding_mask": tf.math.logical_xor(roll(prompt_mask), roll(tf.cast(generated["padding_mask"], tf.bool))),
    }


def _decoded(value: Any) -> Any:
    if tf.is_tensor(value) and value.dtype == tf.string:
        return [item.decode("utf-8") for item in value.numpy().tolist()]
    return value


def joined_outputs(outputs: list[Any], scalar: bool) -> Any:
    """`generate`'s result from its batches' outputs: one dict of NumPy arrays, or one list of strings.

    Args:
        outputs: Each batch's output: a dict of arrays (no preprocessor) or
            a string tensor of texts.
        scalar: Whether the input was one example, whose output is returned
            alone (the dict's first rows, the first text).

    Returns:
        A dict of NumPy arrays, a list of strings, or one row or string.
    """
    if isinstance(outputs[0], dict):
        joined = {key: np.concatenate([np.asarray(o[key]) for o in outputs]) for key in outputs[0]}
        return {key: value[0] for key, value in joined.items()} if scalar else joined
    texts = [text for output in outputs for text in _decoded(output)]
    return texts[0] if scalar else texts
