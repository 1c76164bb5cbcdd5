"""``PaliGemmaCausalLM``: PaliGemma's text generation from images and prompts, with a key/value cache.

    causal_lm = PaliGemmaCausalLM.from_preset("./pali_gemma_tiny")
    causal_lm.generate({"images": image, "prompts": "caption en\\n"})           # greedy by default
    causal_lm.fit({"images": images, "prompts": prompts, "responses": responses})

The decoding loop is ``DecoderCausalLM``'s, through its hooks:
``prefix_length`` is ``image_sequence_length`` (the logits are those of the
text positions, the cache counts the image tokens, and decoding steps are
offset by them); ``prompt_pass_inputs`` encodes the images once and
``embed`` (``embed_arguments``) puts their tokens before the text in the
prompt pass, which reads the padding mask (the prefix-LM mask). As in
KerasHub, decoding starts at the shortest prompt's last token and recomputes
each later position causally, rewriting the cached keys and values the
prefix-LM pass wrote for the longer prompts' last tokens: the ids are
KerasHub's.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM, unchanged
from tfkit.hub.models.gemma.gemma_backbone import scaled_embeddings
from tfkit.hub.models.pali_gemma.pali_gemma_backbone import PaliGemmaBackbone
from tfkit.hub.models.pali_gemma.pali_gemma_causal_lm_preprocessor import PaliGemmaCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class PaliGemmaCausalLM(DecoderCausalLM):
    """An end-to-end multi modal PaliGemma model for causal language modeling.

    The backbone's hidden states of the text positions times the transposed
    token embedding give the logits of the next token. `generate` takes
    `{"images", "prompts"}` (a preprocessor) or `{"images", "token_ids",
    "padding_mask"}` (none); it encodes the images, fills a key/value cache
    with one pass over image tokens and prompts, then computes one token per
    step, with the greedy sampler by default. Training takes `{"images",
    "prompts", "responses"}` and learns the responses.

    Args:
        preprocessor: A `PaliGemmaCausalLMPreprocessor`, or `None` (the model
            then takes the backbone's inputs).
        backbone: A `PaliGemmaBackbone`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.PaliGemmaBackbone(vocabulary_size=10, image_size=8, num_layers=1,
        ...     num_query_heads=2, num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, head_dim=4,
        ...     vit_patch_size=4, vit_num_heads=2, vit_hidden_dim=4, vit_num_layers=1, vit_intermediate_dim=8)
        >>> causal_lm = keras_hub.models.PaliGemmaCausalLM(preprocessor=None, backbone=backbone)
        >>> causal_lm.compile(sampler="greedy", jit_compile=False)  # XLA (the default) pays off on long runs
        >>> inputs = {"images": np.ones((1, 8, 8, 3)), "token_ids": np.array([[2, 5, 0, 0]]),
        ...     "padding_mask": np.array([[1, 1, 0, 0]])}
        >>> causal_lm.generate(inputs, stop_token_ids=None)["token_ids"].shape
        (1, 4)
    """

    backbone_cls = PaliGemmaBackbone
    preprocessor_cls = PaliGemmaCausalLMPreprocessor
    block_arguments = {"cache": "cache", "cache_update_index": "cache_update_index", "padding_mask": "padding_mask"}
    prefill_buckets = False  # the prompt pass covers every position (its mask is not causal)
    first_logits_from_prompt_pass = False  # KerasHub recomputes the last prompt position causally
    prompt_pass_reads_padding_mask = True  # the prefix-LM mask; decoding steps are causal
    embed_arguments = ("img_embeddings",)

    def __init__(self, preprocessor: Any, backbone: Any, **kwargs: Any) -> None:
        super().__init__(backbone, preprocessor, **kwargs)

    def prefix_length(self) -> int:
        """The image tokens before the text: `image_sequence_length` (a hook).

        Returns:
            A Python int.
        """
        return self.backbone.image_sequence_length

    def prompt_pass_inputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The padding mask and the encoded images (a hook).

        Args:
            inputs: `generate_step`'s inputs, with `"images"` batched.

        Returns:
            `{"padding_mask", "img_embeddings"}`.
        """
        return {**super().prompt_pass_inputs(inputs), "img_embeddings": self.backbone.vit_encoder(inputs["images"])}

    def compile(
        self,
        optimizer: Any = "auto",
        loss: Any = "auto",
        *,
        weighted_metrics: Any = "auto",
        sampler: Any = "greedy",
        **kwargs: Any,
    ) -> None:
        """`CausalLM.compile`, with the greedy sampler by default (as KerasHub's PaliGemma).

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

    def embed(
        self, token_ids: Any, start_index: Any = 0, intercept: Any = unchanged, img_embeddings: Any = None
    ) -> Any:
        """Token embeddings times `sqrt(hidden_dim)` (as Gemma), intercepted before the scaling; images before them.

        Args:
            token_ids: int `(batch, length)`.
            start_index: Unused (positions are rotary, in attention).
                Defaults to `0`.
            intercept: `score`'s `layer_intercept_fn` (index `-1`). Defaults
                to the identity.
            img_embeddings: Optional `(batch, image_sequence_length,
                hidden_dim)` image tokens, put before the text. Defaults to
                `None`.

        Returns:
            `(batch, length, hidden_dim)` embeddings (image tokens included).
        """
        backbone = self.backbone
        x = scaled_embeddings(intercept(backbone.token_embedding(token_ids), -1), backbone.hidden_dim)
        return x if img_embeddings is None else tf.concat([img_embeddings, x], axis=1)

    def call_with_cache(
        self, token_ids: Any, cache: Any, cache_update_index: Any, img_embeddings: Any = None, padding_mask: Any = None
    ) -> tuple[Any, Any, Any]:
        """One forward pass that reads and updates the key/value cache (KerasHub's signature).

        Args:
            token_ids: int `(batch, length)`.
            cache: KerasHub's `(batch, num_layers, 2, max_length,
                num_key_value_heads, head_dim)` tensor, or a tuple of
                `(keys, values)` pairs, one a layer; `max_length` counts the
                image tokens.
            cache_update_index: The position of the first input (image tokens
                included in the count).
            img_embeddings: Optional `(batch, image_sequence_length,
                hidden_dim)` image tokens, put before the text.
            padding_mask: Optional `(batch, length)` mask of the prompt: with
                it the prompt attends to itself in both directions.

        Returns:
            `(logits, hidden_states, cache)`, the cache in the form it came.
        """
        return super().call_with_cache(
            token_ids, cache, cache_update_index, img_embeddings=img_embeddings, padding_mask=padding_mask
        )

    def generate_step(self, inputs: dict[str, Any], stop_token_ids: Any = None) -> dict[str, Any]:
        """Generates one batch: the images encoded, the cache filled by the prompt pass, then the sampler's loop.

        Args:
            inputs: `{"images", "token_ids", "padding_mask"}`, the text padded
                to the length to generate (one image `(h, w, 3)` is a batch of one).
            stop_token_ids: Token ids that end a row, or `None`.

        Returns:
            `{"token_ids", "padding_mask", "images"}`: the completed rows, and
            `True` up to each row's first stop token.
        """
        images = inputs["images"]
        if len(images.shape) == 3:
            images = images[tf.newaxis]
        generated = super().generate_step({**inputs, "images": images}, stop_token_ids)
        return {**generated, "images": images}

    def generate_signature(self, max_length: int | None = None, stop_token_ids: Any = "auto") -> Any:
        """A `tf.function` that generates text from a batch of images and prompt strings, for serving.

        `export` adds it to the SavedModel as the signature `generate`
        (`images` and `prompts` in, `{"text": ...}` out): the image
        converter, tokenization, the decoding loop and detokenization are all
        TensorFlow ops. It decodes with the sampler chosen in `compile`.

        Args:
            max_length: The length of prompt plus completion, in tokens.
                Defaults to the preprocessor's `sequence_length`.
            stop_token_ids: As in `generate`. Defaults to `"auto"`.

        Returns:
            The `tf.function`, with the input signature `images`: float
            `(batch, height, width, 3)`, and `prompts`: a 1-D string tensor.

        Raises:
            ValueError: If the model has no preprocessor.
        """
        if self.preprocessor is None:
            raise ValueError(f"PaliGemmaCausalLM '{self.name}' has no preprocessor: it cannot take text to serve")
        stop = self._stop_token_ids(stop_token_ids)

        @tf.function(
            input_signature=[
                tf.TensorSpec([None, None, None, 3], tf.float32, name="images"),
                tf.TensorSpec([None], tf.string, name="prompts"),
            ]
        )
        def generate(images: tf.Tensor, prompts: tf.Tensor) -> dict[str, tf.Tensor]:
            inputs = self.preprocessor.generate_preprocess({"images": images, "prompts": prompts}, max_length)
            generated = self.generate_step(inputs, stop_token_ids=stop)
            return {"text": self.preprocessor.generate_postprocess(generated)}

        return generate

    def score(self, *args: Any, **kwargs: Any) -> Any:
        """Not available: KerasHub's `PaliGemmaCausalLM` has no `score` (the text alone is not the model's input).

        Raises:
            NotImplementedError: Always; call the model on `{"images",
                "token_ids", "padding_mask", "response_mask"}` for the logits.
        """
        raise NotImplementedError(
            f"PaliGemmaCausalLM '{self.name}' has no score (nor has KerasHub's): its logits depend on the images; "
            'call the model on {"images", "token_ids", "padding_mask", "response_mask"} for them'
        )

    def generate(
        self, inputs: Any, max_length: int | None = None, stop_token_ids: Any = "auto", strip_prompt: bool = False
    ) -> Any:
        """Generates text from images and prompts (see `CausalLM.generate`).

        Args:
            inputs: `{"images", "prompts"}` (one image and one prompt string
                give one string), or a `tf.data.Dataset` of such batches;
                without a preprocessor, `{"images", "token_ids",
                "padding_mask"}`.
            max_length: The length of prompt plus completion, in tokens (the
                image tokens apart). Defaults to the preprocessor's
                `sequence_length`.
            stop_token_ids: `"auto"` (`<eos>`), `None`, or token ids that end
                a sequence. Defaults to `"auto"`.
            strip_prompt: Whether to return the completion only. Defaults to
                `False`.

        Returns:
            A string (for one prompt string), a list of strings, or, without
            a preprocessor, `{"token_ids", "padding_mask", "images"}` as NumPy
            arrays.
        """
        scalar = isinstance(inputs, dict) and self.preprocessor is not None and isinstance(inputs.get("prompts"), str)
        generated = super().generate(
            inputs, max_length=max_length, stop_token_ids=stop_token_ids, strip_prompt=strip_prompt
        )
        return generated[0] if scalar else generated
