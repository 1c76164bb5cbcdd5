"""``Gemma3CausalLM``: Gemma 3 (text) with its tied-embedding head, ``generate`` with a per-layer key/value cache.

    causal_lm = Gemma3CausalLM.from_preset("./gemma3_tiny")
    causal_lm.generate("What is 2 + 2?", max_length=32)                 # stops at <eos> or <end_of_turn>
    causal_lm.fit({"prompts": prompts, "responses": responses}, batch_size=2)

The decoding loop is ``DecoderCausalLM``'s, with a tuple of one ``(key,
value)`` pair per layer as the cache (as KerasHub's); Gemma 3 declares that
its prompt pass reads the padding mask, that the prompt's cached keys and
values are kept during generation (``cache_update_mask`` is False on prompt
positions), and that its prompt pass covers every position (no prefill
buckets, and the first token from a decoding step, as KerasHub).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM, unchanged
from tfkit.hub.models.gemma.gemma_backbone import scaled_embeddings
from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone, refuse_vision
from tfkit.hub.models.gemma3.gemma3_causal_lm_preprocessor import Gemma3CausalLMPreprocessor
from tfkit.saving import register_keras_serializable

END_OF_TURN_TOKEN = "<end_of_turn>"


def _batched_text(value: Any) -> Any:
    """One string (Python or a scalar tensor) as a batch of one."""
    return [value] if isinstance(value, str) else tf.reshape(value, [1])


@register_keras_serializable(package="keras_hub")
class Gemma3CausalLM(DecoderCausalLM):
    """An end-to-end Gemma 3 model for causal language modeling (text only).

    The backbone's hidden states times the transposed token embedding give
    the logits of the next token. `generate` fills a cache with one pass over
    the prompt, then computes one new token per step, with the greedy sampler
    by default; `stop_token_ids="auto"` stops at `<eos>` and `<end_of_turn>`.
    Prompts may be strings or `{"prompts": ...}` dicts, as in KerasHub;
    images are refused (tfkit.hub builds the text model).

    Args:
        backbone: A `Gemma3Backbone`.
        preprocessor: A `Gemma3CausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Gemma3Backbone(vocabulary_size=10, image_size=None, num_layers=1,
        ...     num_query_heads=2, num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, head_dim=4)
        >>> causal_lm = keras_hub.models.Gemma3CausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy", jit_compile=False)  # XLA (the default) pays off on long runs
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 4)
    """

    backbone_cls = Gemma3Backbone
    preprocessor_cls = Gemma3CausalLMPreprocessor
    block_arguments = {"cache": "cache", "cache_update_index": "cache_update_index", "padding_mask": "padding_mask"}
    prefill_buckets = False
    first_logits_from_prompt_pass = False
    prompt_pass_reads_padding_mask = True
    keeps_prompt_cache = True

    def compile(
        self,
        optimizer: Any = "auto",
        loss: Any = "auto",
        *,
        weighted_metrics: Any = "auto",
        sampler: Any = "greedy",
        **kwargs: Any,
    ) -> None:
        """`CausalLM.compile`, with the greedy sampler by default (as KerasHub's Gemma 3).

        Args:
            optimizer: `"auto"` (Adam, learning rate 2e-5) or an optimizer.
                Defaults to `"auto"`.
            loss: `"auto"` (sparse categorical crossentropy on logits) or a
                loss. Defaults to `"auto"`.
            weighted_metrics: `"auto"` (sparse categorical accuracy) or a list
                of metrics. Defaults to `"auto"`.
            sampler: The sampler `generate` uses. Defaults to `"greedy"`.
            **kwargs: Other arguments of `tfkit.Model.compile`.
        """
        super().compile(optimizer=optimizer, loss=loss, weighted_metrics=weighted_metrics, sampler=sampler, **kwargs)

    def call_with_cache(
        self,
        token_ids: Any,
        cache: Any,
        cache_update_index: Any,
        img_embeddings: Any = None,
        vision_mask: Any = None,
        padding_mask: Any = None,
        vision_indices: Any = None,
        cache_update_mask: Any = None,
    ) -> tuple[Any, Any, Any]:
        """One forward pass that reads and updates the per-layer key/value caches.

        Args:
            token_ids: int `(batch, length)`: the tokens at positions
                `cache_update_index ...` of the sequence.
            cache: A tuple of `(key, value)` pairs, one per layer, each
                `(batch, max_length, num_key_value_heads, head_dim)`.
            cache_update_index: The position of `token_ids[:, 0]`.
            img_embeddings: Must be `None` (text only).
            vision_mask: Optional `(batch, length)` mask of image tokens.
            padding_mask: Optional `(batch, length)` mask of real tokens.
            vision_indices: Unused (text only).
            cache_update_mask: Optional boolean `(batch, length)`: where
                `False` the caches keep what they hold.

        Returns:
            `(logits, hidden_states, cache)`, the cache in the same form.

        Raises:
            ValueError: If `img_embeddings` is given.
        """
        refuse_vision(f"Gemma3CausalLM '{self.name}'", "img_embeddings", img_embeddings)
        return super().call_with_cache(
            token_ids,
            cache,
            cache_update_index,
            padding_mask=padding_mask,
            vision_mask=vision_mask,
            cache_update_mask=cache_update_mask,
        )

    def embed(self, token_ids: Any, start_index: Any = 0, intercept: Any = unchanged) -> Any:
        """Token embeddings times `sqrt(hidden_dim)`, intercepted before the scaling (as Gemma).

        Args:
            token_ids: int `(batch, length)`.
            start_index: Unused (positions are rotary, in attention).
                Defaults to `0`.
            intercept: `score`'s `layer_intercept_fn` (index `-1`). Defaults
                to the identity.

        Returns:
            `(batch, length, hidden_dim)` embeddings.
        """
        backbone = self.backbone
        return scaled_embeddings(intercept(backbone.token_embedding(token_ids), -1), backbone.hidden_dim)

    def generate_step(
        self, inputs: dict[str, Any], stop_token_ids: Any = (106,), prefill_length: int | None = None
    ) -> dict[str, Any]:
        """Generates one batch (`DecoderCausalLM.generate_step`), refusing images.

        Args:
            inputs: `{"token_ids", "padding_mask"}`, padded to the length to
                generate.
            stop_token_ids: Token ids that end a row, or `None`. Defaults to
                `(106,)` (`<end_of_turn>` in Gemma 3's vocabulary), as KerasHub.
            prefill_length: Must be `None`: the prompt pass covers every
                position.

        Returns:
            `{"token_ids", "padding_mask"}`.

        Raises:
            ValueError: If the inputs hold images.
        """
        images = inputs.get("images")
        if images is not None and len(images.shape) > 1 and images.shape[1]:
            refuse_vision(f"Gemma3CausalLM '{self.name}'", "images", images)
        return super().generate_step(inputs, stop_token_ids, prefill_length)

    def _stop_token_ids(self, stop_token_ids: Any) -> Any:
        """`"auto"` is `<eos>` and `<end_of_turn>` for Gemma 3 (for `generate` and the exported signature)."""
        if isinstance(stop_token_ids, str) and stop_token_ids == "auto" and self.preprocessor is not None:
            tokenizer = self.preprocessor.tokenizer
            return (tokenizer.end_token_id, tokenizer.token_to_id(END_OF_TURN_TOKEN))
        return super()._stop_token_ids(stop_token_ids)

    def generate(
        self, inputs: Any, max_length: int | None = None, stop_token_ids: Any = "auto", strip_prompt: bool = False
    ) -> Any:
        """Generates text from prompts (see `CausalLM.generate`); `"auto"` stops at `<eos>` and `<end_of_turn>`.

        Args:
            inputs: A prompt string, a list of them, a string tensor, a
                `{"prompts": ...}` dict, or a `tf.data.Dataset`; without a
                preprocessor, `{"token_ids", "padding_mask"}`.
            max_length: The length of prompt plus completion, in tokens.
                Defaults to the preprocessor's `sequence_length`.
            stop_token_ids: `"auto"` (`<eos>` and `<end_of_turn>`), `None`, or
                token ids that end a sequence. Defaults to `"auto"`.
            strip_prompt: Whether to return the completion only. Defaults to
                `False`.

        Returns:
            A string (for one prompt), a list of strings, or, without a
            preprocessor, `{"token_ids", "padding_mask"}` as NumPy arrays.

        Raises:
            ValueError: If `stop_token_ids="auto"` and there is no
                preprocessor.
        """
        scalar = False
        if isinstance(inputs, dict) and self.preprocessor is not None:
            prompts = inputs["prompts"]
            scalar = isinstance(prompts, str) or (tf.is_tensor(prompts) and prompts.shape.rank == 0)
            if scalar:
                inputs = {
                    key: _batched_text(value) if key in ("prompts", "responses") else value
                    for key, value in inputs.items()
                }
        generated = super().generate(
            inputs, max_length=max_length, stop_token_ids=stop_token_ids, strip_prompt=strip_prompt
        )
        return generated[0] if scalar else generated
