"""``PaliGemmaCausalLMPreprocessor``: images, prompts and responses to PaliGemma's inputs, the loss on the responses.

    preprocessor = PaliGemmaCausalLMPreprocessor(tokenizer, image_converter, sequence_length=64)
    x, y, sample_weight = preprocessor({"images": images, "prompts": ["caption en\\n"], "responses": ["a cat"]})
    prompt = preprocessor.generate_preprocess({"images": images, "prompts": ["caption en\\n"]})

Prompt and response are packed as ``<bos> prompt response <eos>`` (a
``MultiSegmentPacker`` with no separator); ``response_mask`` marks the
response, which the backbone decodes causally while image and prompt attend
to each other; ``sample_weight`` is 1 on the response's next tokens only. The
images go through the image converter (resize, then ``[-1, 1]``).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers import MultiSegmentPacker
from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.pali_gemma.pali_gemma_backbone import PaliGemmaBackbone
from tfkit.hub.models.pali_gemma.pali_gemma_image_converter import PaliGemmaImageConverter
from tfkit.hub.models.pali_gemma.pali_gemma_tokenizer import PaliGemmaTokenizer
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (str, bytes)) or (tf.is_tensor(value) and value.shape.rank == 0)


@register_keras_serializable(package="keras_hub")
class PaliGemmaCausalLMPreprocessor(CausalLMPreprocessor):
    """PaliGemma's preprocessor: images, prompts and responses to the backbone's inputs, as KerasHub's.

    Called for training on `{"images", "prompts", "responses"}`, it converts
    the images, packs `<bos> prompt response <eos>` to `sequence_length + 1`
    tokens and returns `(x, y, sample_weight)`: `x` the images and the token
    ids, padding mask and response mask of all tokens but the last, `y` the
    ids of all but the first, and `sample_weight` 1 where `y` is a response
    token. `generate_preprocess` takes `{"images", "prompts"}` (and
    optionally `"responses"`, packed after the prompts) and adds no end token.
    One image with one prompt string is taken as a batch of one.

    Args:
        tokenizer: A `PaliGemmaTokenizer`.
        image_converter: A `PaliGemmaImageConverter`, or `None` (images pass
            unchanged). Defaults to `None`.
        sequence_length: The length of the packed text. Defaults to `1024`.
        add_start_token: Whether to start with `<bos>`. Defaults to `True`.
        add_end_token: Whether to end with `<eos>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Call arguments:
        x: `{"images", "prompts", "responses"}`.
        y: Must be `None`: the labels come from `x`.
        sample_weight: Must be `None`: the weights are the response mask.
        sequence_length: Overrides `sequence_length` for this call.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", pad_id=0, eos_id=1, bos_id=2, unk_id=3, pad_piece="<pad>",
        ...     eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>", minloglevel=2)
        >>> tokenizer = keras_hub.models.PaliGemmaTokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.PaliGemmaCausalLMPreprocessor(tokenizer, sequence_length=6)
        >>> x, y, sample_weight = preprocessor(
        ...     {"images": np.zeros((1, 4, 4, 3)), "prompts": ["the fox"], "responses": ["the dog"]})
        >>> x["token_ids"].numpy().tolist(), sample_weight.numpy().tolist()
        ([[2, 4, 7, 4, 6, 1]], [[False, False, True, True, True, False]])
    """

    backbone_cls = PaliGemmaBackbone
    tokenizer_cls = PaliGemmaTokenizer
    image_converter_cls = PaliGemmaImageConverter

    def __init__(
        self,
        tokenizer: Any,
        image_converter: Any = None,
        sequence_length: int = 1024,
        add_start_token: bool = True,
        add_end_token: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            tokenizer=tokenizer,
            sequence_length=sequence_length,
            add_start_token=add_start_token,
            add_end_token=add_end_token,
            **kwargs,
        )
        self.image_converter = image_converter

    def _make_packer(self) -> None:
        self.packer = MultiSegmentPacker(
            start_value=self.tokenizer.start_token_id,
            end_value=self.tokenizer.end_token_id,
            pad_value=self.tokenizer.pad_token_id,
            sep_value=[],
            sequence_length=self.sequence_length,
        )

    def _pack_inputs(
        self, x: dict[str, Any], keys: tuple, sequence_length: int, add_end_value: bool
    ) -> tuple[dict[str, Any], bool]:
        """The converted images and the packed text of ``x[keys]``, with a batch axis (and whether ``x`` had one)."""
        if self.packer is None:
            self._make_packer()
        scalar = _is_scalar(x["prompts"])
        segments = tuple(tf.reshape(x[key], [1]) if scalar else x[key] for key in keys)
        images = tf.convert_to_tensor(x["images"])
        if scalar and images.shape.rank == 3:
            images = images[tf.newaxis]
        if self.image_converter is not None:
            images = self.image_converter(images)
        token_ids, segment_ids = self.packer(
            tuple(self.tokenizer(segment) for segment in segments),
            sequence_length=sequence_length,
            add_start_value=self.add_start_token,
            add_end_value=add_end_value,
        )
        packed = {
            "images": images,
            "token_ids": token_ids,
            "response_mask": segment_ids == 1,
            "padding_mask": token_ids != self.tokenizer.pad_token_id,
        }
        return packed, scalar

    def call(self, x: Any, y: Any = None, sample_weight: Any = None, sequence_length: int | None = None) -> Any:
        sequence_length = sequence_length or self.sequence_length
        packed, scalar = self._pack_inputs(x, ("prompts", "responses"), sequence_length + 1, self.add_end_token)
        token_ids = packed["token_ids"]
        x = {key: packed[key][..., :-1] for key in ("token_ids", "response_mask", "padding_mask")}
        x["images"] = packed["images"]
        y, sample_weight = token_ids[..., 1:], packed["response_mask"][..., 1:]
        if scalar:
            x = {key: tf.squeeze(value, axis=0) for key, value in x.items()}
            y, sample_weight = tf.squeeze(y, axis=0), tf.squeeze(sample_weight, axis=0)
        return pack_x_y_sample_weight(x, y, sample_weight)

    def generate_preprocess(self, x: Any, sequence_length: int | None = None) -> dict[str, Any]:
        """Images and prompts (and optionally responses) to the inputs of generation, with no end token.

        Args:
            x: `{"images", "prompts"}`, optionally with `"responses"`.
            sequence_length: The padded length (`sequence_length` if `None`).

        Returns:
            `{"images", "token_ids", "response_mask", "padding_mask"}`, with a
            batch axis (one prompt string is a batch of one).
        """
        keys = ("prompts", "responses") if "responses" in x else ("prompts",)
        packed, _ = self._pack_inputs(x, keys, sequence_length or self.sequence_length, False)
        return packed
