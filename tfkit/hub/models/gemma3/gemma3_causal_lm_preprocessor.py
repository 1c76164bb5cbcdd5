"""``Gemma3CausalLMPreprocessor``: prompts, responses and images to the model's inputs, the loss on the responses.

    preprocessor = Gemma3CausalLMPreprocessor(tokenizer, image_converter, sequence_length=512)
    x, y, sample_weight = preprocessor({"prompts": ["<start_of_image> What is this?"], "responses": ["A cat."],
                                        "images": [[cat_image]]})
    prompt = preprocessor.generate_preprocess({"prompts": [...], "images": [...]})

Prompt and response are packed as ``<bos> prompt response <eos>`` (a
``MultiSegmentPacker`` with no separator); ``sample_weight`` is 1 on the
response's positions only. tfkit also takes plain strings for training, as a
response with an empty prompt (KerasHub's needs the dict). With an image
converter (a multimodal model), each ``<start_of_image>`` of a prompt becomes
``num_vision_tokens_per_image`` ``<img>`` placeholders between image tokens
(``gemma3_image_prompts``), and the outputs gain ``images``, ``vision_mask``
and ``vision_indices``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers import MultiSegmentPacker
from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor, strip_to_ragged
from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone
from tfkit.hub.models.gemma3.gemma3_image_converter import Gemma3ImageConverter
from tfkit.hub.models.gemma3.gemma3_image_prompts import expand_image_tokens, images_tensor, vision_indices
from tfkit.hub.models.gemma3.gemma3_tokenizer import Gemma3Tokenizer
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


def _batched(x: Any) -> tuple[Any, bool]:
    """``x`` with a batch axis, and whether it had one (a Python string or a scalar tensor has not)."""
    if isinstance(x, str):
        return [x], False
    if isinstance(x, tf.Tensor) and x.shape.rank == 0:
        return x[tf.newaxis], False
    return x, True


def x_images(x: Any) -> Any:
    """The ``"images"`` of a call's input (``None`` for plain prompts)."""
    return x.get("images") if isinstance(x, dict) else None


@register_keras_serializable(package="keras_hub")
class Gemma3CausalLMPreprocessor(CausalLMPreprocessor):
    """Gemma 3's preprocessor for causal language modeling (text only), as KerasHub's.

    Called for training on `{"prompts": ..., "responses": ...}` (strings, or
    batches of them), it packs `<bos> prompt response <eos>` to
    `sequence_length + 1` tokens and returns `(x, y, sample_weight)`: `x`
    the token ids and padding mask of all tokens but the last, `y` the ids of
    all but the first, and `sample_weight` 1 where `y` is a response token, so
    only responses are learned. Plain strings (not a dict) are taken as
    responses with empty prompts (KerasHub's preprocessor needs the dict).
    `generate_preprocess` takes prompts (or the dict) and adds no end token.
    With an `image_converter`, `"images"` (up to `max_images_per_prompt` a
    prompt, one for each `<start_of_image>` of it) are converted and padded
    with zero images, each `<start_of_image>` is expanded to the image's
    placeholder tokens, and `x` also holds `"images"`, `"vision_mask"` (the
    placeholders) and `"vision_indices"` (their positions); a multimodal
    model's text-only batch gets zero images.

    Args:
        tokenizer: A `Gemma3Tokenizer`.
        image_converter: A `Gemma3ImageConverter`, or `None` (the default)
            for a text model.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `<bos>`. Defaults to `True`.
        add_end_token: Whether to end with `<eos>`. Defaults to `True`.
        max_images_per_prompt: The most images a prompt may hold. Defaults
            to `2`.
        num_vision_tokens_per_image: The placeholder tokens of each image
            (the vision encoder's `num_vision_tokens_per_image`). Defaults to
            `256`.
        **kwargs: Layer keyword arguments.

    Call arguments:
        x: `{"prompts", "responses"}` (strings or batches of them, and
            optionally `"images"`: one list of images a prompt), or strings
            (responses alone).
        y: Must be `None`: the labels come from `x`.
        sample_weight: Must be `None`: the weights are the response mask.
        sequence_length: Overrides `sequence_length` for this call.

    Raises:
        ValueError: If `sequence_length` cannot hold the images' tokens, or
            images are passed to a text model's preprocessor.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", pad_id=0, eos_id=1, bos_id=2, unk_id=3, pad_piece="<pad>",
        ...     eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>", minloglevel=2)
        >>> tokenizer = keras_hub.models.Gemma3Tokenizer(proto=model.getvalue(), has_vision_tokens=False)
        >>> preprocessor = keras_hub.models.Gemma3CausalLMPreprocessor(tokenizer, sequence_length=6)
        >>> x, y, sample_weight = preprocessor({"prompts": ["the fox"], "responses": ["the dog"]})
        >>> x["token_ids"].numpy().tolist(), sample_weight.numpy().tolist()
        ([[2, 4, 7, 4, 6, 1]], [[False, False, True, True, True, False]])
    """

    backbone_cls = Gemma3Backbone
    tokenizer_cls = Gemma3Tokenizer
    image_converter_cls = Gemma3ImageConverter

    def __init__(
        self,
        tokenizer: Any,
        image_converter: Any = None,
        sequence_length: int = 1024,
        add_start_token: bool = True,
        add_end_token: bool = True,
        max_images_per_prompt: int = 2,
        num_vision_tokens_per_image: int = 256,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            tokenizer=tokenizer,
            sequence_length=sequence_length,
            add_start_token=add_start_token,
            add_end_token=add_end_token,
            **kwargs,
        )
        if image_converter is not None and sequence_length <= max_images_per_prompt * num_vision_tokens_per_image:
            raise ValueError(
                f"Gemma3CausalLMPreprocessor '{self.name}': sequence_length must be greater than "
                f"max_images_per_prompt * num_vision_tokens_per_image, got sequence_length={sequence_length}, "
                f"max_images_per_prompt={max_images_per_prompt}, "
                f"num_vision_tokens_per_image={num_vision_tokens_per_image}"
            )
        self.image_converter = image_converter
        self.max_images_per_prompt = max_images_per_prompt
        self.num_vision_tokens_per_image = num_vision_tokens_per_image
        self.text_only_model = image_converter is None

    def _make_packer(self) -> None:
        self.packer = MultiSegmentPacker(
            start_value=self.tokenizer.start_token_id,
            end_value=self.tokenizer.end_token_id,
            pad_value=self.tokenizer.pad_token_id,
            sep_value=[],
            sequence_length=self.sequence_length,
        )

    def _pack(self, segments: tuple, sequence_length: int, add_end_value: bool) -> tuple[Any, Any]:
        if self.packer is None:
            self._make_packer()
        token_ids, segment_ids = self.packer(
            tuple(self.tokenizer(segment) for segment in segments),
            sequence_length=sequence_length,
            add_start_value=self.add_start_token,
            add_end_value=add_end_value,
        )
        return token_ids, segment_ids

    def _text(self, x: Any) -> tuple[Any, Any]:
        """``(prompts, responses)`` of a call's input; images refused by a text model's preprocessor."""
        if not isinstance(x, dict):
            return None, x
        if self.text_only_model and x.get("images") is not None:
            raise ValueError(
                f"Gemma3CausalLMPreprocessor '{self.name}' is a text model's (no image_converter), but `images` "
                "were passed"
            )
        return x["prompts"], x.get("responses")

    def _prompts(self, prompts: Any) -> Any:
        """A multimodal model's prompts with each ``<start_of_image>`` expanded to the image's tokens."""
        if self.text_only_model:
            return prompts
        return expand_image_tokens(prompts, self.tokenizer, self.num_vision_tokens_per_image)

    def _with_images(self, x: dict[str, Any], images: Any, token_ids: Any, batched: bool) -> dict[str, Any]:
        """``x`` with a multimodal model's ``images``, ``vision_mask`` and ``vision_indices`` (``token_ids``: the
        ids ``x`` holds)."""
        if self.text_only_model:
            return x
        vision_mask = tf.equal(token_ids, self.tokenizer.image_placeholder_id)
        if images is None:  # no image: zero of them, and no placeholder
            height, width = self.image_converter.image_size
            images = tf.ones([tf.shape(token_ids)[0], 0, height, width, 3], "float32")
            vision_mask = tf.zeros_like(vision_mask)
            indices = tf.ones([tf.shape(token_ids)[0], 0], tf.int32)
        else:
            images = images_tensor(images, batched, self.image_converter, self.max_images_per_prompt)
            indices = vision_indices(vision_mask, self.max_images_per_prompt * self.num_vision_tokens_per_image)
        x = {"images": images, **x, "vision_indices": indices, "vision_mask": vision_mask}
        return {key: x[key] for key in ("images", "token_ids", "vision_indices", "vision_mask", "padding_mask")}

    def call(self, x: Any, y: Any = None, sample_weight: Any = None, sequence_length: int | None = None) -> Any:
        sequence_length = sequence_length or self.sequence_length
        x_in = x
        prompts, responses = self._text(x)
        if responses is None:
            raise ValueError(
                f"Gemma3CausalLMPreprocessor '{self.name}': training needs responses: pass "
                '{"prompts": ..., "responses": ...} or plain strings (responses with empty prompts)'
            )
        responses, batched = _batched(responses)
        if prompts is None:
            prompts = tf.fill(tf.shape(tf.convert_to_tensor(responses)), "")
        else:
            prompts, _ = _batched(prompts)
        prompts = self._prompts(prompts)
        token_ids, segment_ids = self._pack((prompts, responses), sequence_length + 1, self.add_end_token)
        response_mask = segment_ids == 1
        padding_mask = token_ids != self.tokenizer.pad_token_id
        x = {"token_ids": token_ids[..., :-1], "padding_mask": padding_mask[..., :-1]}
        images = x_images(x_in)
        x = self._with_images(x, images, x["token_ids"], batched)
        y, sample_weight = token_ids[..., 1:], response_mask[..., 1:]
        if not batched:
            x = {key: tf.squeeze(value, axis=0) for key, value in x.items()}
            y, sample_weight = tf.squeeze(y, axis=0), tf.squeeze(sample_weight, axis=0)
        return pack_x_y_sample_weight(x, y, sample_weight)

    def generate_preprocess(self, x: Any, sequence_length: int | None = None) -> dict[str, Any]:
        """Prompts (or `{"prompts", "responses"}`) to the inputs of generation, with no end token.

        Args:
            x: A string, a list of strings or a string tensor; or a dict with
                `"prompts"` (and optionally `"responses"`, packed after them).
            sequence_length: The padded length (`sequence_length` if `None`).

        Returns:
            `{"token_ids", "padding_mask"}` (the mask is boolean, as KerasHub's);
            a multimodal model's also `"images"`, `"vision_indices"` and
            `"vision_mask"`.

        Raises:
            ValueError: If images are passed to a text model's preprocessor.
        """
        prompts, responses = self._text(x) if isinstance(x, dict) else (x, None)
        prompts, batched = _batched(prompts)
        prompts = self._prompts(prompts)
        segments = (prompts,) if responses is None else (prompts, _batched(responses)[0])
        token_ids, _ = self._pack(segments, sequence_length or self.sequence_length, False)
        padding_mask = token_ids != self.tokenizer.pad_token_id
        inputs = self._with_images(
            {"token_ids": token_ids, "padding_mask": padding_mask}, x_images(x), token_ids, batched
        )
        if not batched:
            inputs = {key: tf.squeeze(value, axis=0) for key, value in inputs.items()}
        return inputs

    def generate_postprocess(self, x: dict[str, Any]) -> Any:
        """Generated ids back to strings, padding and special tokens stripped (`<start_of_image>` kept).

        Args:
            x: `{"token_ids", "padding_mask"}` as `generate_step` returns them.

        Returns:
            The strings.
        """
        ids_to_strip = [i for i in self.tokenizer.special_token_ids if i != self.tokenizer.start_of_image_token_id]
        return self.tokenizer.detokenize(strip_to_ragged(x["token_ids"], x["padding_mask"], ids_to_strip))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_vision_tokens_per_image=self.num_vision_tokens_per_image,
            max_images_per_prompt=self.max_images_per_prompt,
        )
        return config
