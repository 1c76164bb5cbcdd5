"""``Gemma3CausalLM``: Gemma 3 with its tied-embedding head, ``generate`` (from text or images) with a key/value cache.

    causal_lm = Gemma3CausalLM.from_preset("./gemma3_tiny")
    causal_lm.generate("What is 2 + 2?", max_length=32)                 # stops at <eos> or <end_of_turn>
    causal_lm.generate({"prompts": "<start_of_image> What is this?", "images": image}, max_length=300)
    causal_lm.fit({"prompts": prompts, "responses": responses}, batch_size=2)

The decoding loop is ``DecoderCausalLM``'s, with a tuple of one ``(key,
value)`` pair per layer as the cache (as KerasHub's); Gemma 3 declares that
its prompt pass reads the padding mask, that the prompt's cached keys and
values are kept during generation (``cache_update_mask`` is False on prompt
positions), and that its prompt pass covers every position (no prefill
buckets, and the first token from a decoding step, as KerasHub). With images,
``prompt_pass_inputs`` encodes them and ``embed`` (``embed_arguments``) writes
their soft tokens over the prompt's placeholders; the prompt pass's cached
keys and values carry the images to the decoding steps, which see text
tokens only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM, unchanged
from tfkit.hub.models.gemma.gemma_backbone import scaled_embeddings
from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone
from tfkit.hub.models.gemma3.gemma3_causal_lm_preprocessor import Gemma3CausalLMPreprocessor
from tfkit.saving import register_keras_serializable

END_OF_TURN_TOKEN = "<end_of_turn>"


def _batched_text(value: Any) -> Any:
    """One string (Python or a scalar tensor) as a batch of one."""
    return [value] if isinstance(value, str) else tf.reshape(value, [1])


def _batched_images(value: Any) -> Any:
    """The images of one prompt (an image, or a list of them) as a batch of one prompt's."""
    if isinstance(value, np.ndarray) and value.ndim == 3:
        return [value]
    if isinstance(value, tf.Tensor) and value.shape.rank == 3:
        return value[tf.newaxis]
    return [value] if isinstance(value, list) else value


@register_keras_serializable(package="keras_hub")
class Gemma3CausalLM(DecoderCausalLM):
    """An end-to-end multimodal Gemma3 model for causal language modeling.

    The backbone's hidden states times the transposed token embedding give
    the logits of the next token. `generate` fills a cache with one pass over
    the prompt, then computes one new token per step, with the greedy sampler
    by default; `stop_token_ids="auto"` stops at `<eos>` and `<end_of_turn>`.
    Prompts may be strings or `{"prompts": ...}` dicts, as in KerasHub; a
    model with a vision encoder also takes `{"prompts", "images"}`, each
    `<start_of_image>` of a prompt standing for its next image.

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
    embed_arguments = ("img_embeddings", "vision_indices")

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
            img_embeddings: Optional soft tokens of the images
                `(batch * images, num_vision_tokens_per_image, hidden_dim)`,
                written over the placeholders at `vision_indices`.
            vision_mask: Optional `(batch, length)` mask of image tokens.
            padding_mask: Optional `(batch, length)` mask of real tokens.
            vision_indices: int `(batch, images * num_vision_tokens_per_image)`
                positions of the image tokens (with `img_embeddings`).
            cache_update_mask: Optional boolean `(batch, length)`: where
                `False` the caches keep what they hold.

        Returns:
            `(logits, hidden_states, cache)`, the cache in the same form.
        """
        return super().call_with_cache(
            token_ids,
            cache,
            cache_update_index,
            img_embeddings=img_embeddings,
            vision_indices=vision_indices,
            padding_mask=padding_mask,
            vision_mask=vision_mask,
            cache_update_mask=cache_update_mask,
        )

    def embed(
        self,
        token_ids: Any,
        start_index: Any = 0,
        intercept: Any = unchanged,
        img_embeddings: Any = None,
        vision_indices: Any = None,
    ) -> Any:
        """Token embeddings times `sqrt(hidden_dim)`, intercepted before the scaling (as Gemma); images interleaved.

        Args:
            token_ids: int `(batch, length)`.
            start_index: Unused (positions are rotary, in attention).
                Defaults to `0`.
            intercept: `score`'s `layer_intercept_fn` (index `-1`). Defaults
                to the identity.
            img_embeddings: Optional soft tokens of the images, written over
                the placeholders at `vision_indices`. Defaults to `None`.
            vision_indices: int positions of the image tokens (with
                `img_embeddings`). Defaults to `None`.

        Returns:
            `(batch, length, hidden_dim)` embeddings.
        """
        backbone = self.backbone
        x = scaled_embeddings(intercept(backbone.token_embedding(token_ids), -1), backbone.hidden_dim)
        if img_embeddings is None:
            return x
        return backbone.interleave_embeddings(
            image_embeddings=img_embeddings, text_embeddings=x, vision_indices=vision_indices
        )

    def prompt_pass_inputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The padding mask, and for a batch with images their soft tokens, mask and positions (a hook).

        Args:
            inputs: `generate_step`'s inputs.

        Returns:
            `{"padding_mask"}`, with `"img_embeddings"`, `"vision_mask"` and
            `"vision_indices"` for a model with a vision encoder given images.
        """
        prompt_inputs = super().prompt_pass_inputs(inputs)
        images = inputs.get("images")
        if not self.backbone.text_only_model and images is not None and len(images.shape) > 1 and images.shape[1]:
            vision_mask, vision_indices = inputs["vision_mask"], inputs["vision_indices"]
            if len(images.shape) == 4:  # one prompt, unbatched
                images, vision_mask, vision_indices = images[None], vision_mask[None], vision_indices[None]
            prompt_inputs.update(
                img_embeddings=self.backbone.vision_encoder(images),
                vision_mask=vision_mask,
                vision_indices=vision_indices,
            )
        return prompt_inputs

    def generate_step(
        self, inputs: dict[str, Any], stop_token_ids: Any = (106,), prefill_length: int | None = None
    ) -> dict[str, Any]:
        """Generates one batch (`DecoderCausalLM.generate_step`), from images too.

        Args:
            inputs: `{"token_ids", "padding_mask"}`, padded to the length to
                generate; for a model with a vision encoder also `"images"`
                `(batch, images, height, width, 3)`, `"vision_mask"` and
                `"vision_indices"` (a batch with no image: `images` of zero
                images, or none).
            stop_token_ids: Token ids that end a row, or `None`. Defaults to
                `(106,)` (`<end_of_turn>` in Gemma 3's vocabulary), as KerasHub.
            prefill_length: Must be `None`: the prompt pass covers every
                position.

        Returns:
            `{"token_ids", "padding_mask"}`.
        """
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
                `{"prompts": ...}` dict (with `"images"` for a model with a
                vision encoder: an image or a list of them for one prompt, a
                list of such lists for a batch), or a `tf.data.Dataset`;
                without a preprocessor, `generate_step`'s inputs.
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
                if "images" in inputs:
                    inputs["images"] = _batched_images(inputs["images"])
        generated = super().generate(
            inputs, max_length=max_length, stop_token_ids=stop_token_ids, strip_prompt=strip_prompt
        )
        return generated[0] if scalar else generated
