"""``Gemma3Tokenizer``: Gemma 3's SentencePiece tokenizer, with its image tokens when the model has them."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable

START_OF_IMAGE_TOKEN = "<start_of_image>"
IMAGE_PLACEHOLDER_TOKEN = "<img>"
END_OF_IMAGE_TOKEN = "<end_of_image>"


@register_keras_serializable(package="keras_hub")
class Gemma3Tokenizer(SentencePieceTokenizer):
    """Gemma 3 tokenizer layer based on SentencePiece.

    A `SentencePieceTokenizer` that requires Gemma's special tokens (`<bos>`,
    `<eos>`, `<pad>`) and, with `has_vision_tokens`, the image tokens
    (`<img>`, `<start_of_image>`, `<end_of_image>`) of the multimodal models'
    prompts. Without them, the image token ids are `-1`, as in KerasHub.
    `generate` also stops on `<end_of_turn>` (see `Gemma3CausalLM`).

    Args:
        proto: The SentencePiece model: a file path, or the serialized model
            as `bytes`. Defaults to `None` (loaded from a preset).
        has_vision_tokens: Whether the model holds the image tokens. Defaults
            to `True`.
        **kwargs: `SentencePieceTokenizer` keyword arguments.

    Raises:
        ValueError: If the model lacks one of the required special tokens.

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
        >>> tokenizer.end_token_id, tokenizer.image_placeholder_id
        (1, -1)
        >>> tokenizer.detokenize(tokenizer(["the lazy fox"]))
        ['the lazy fox']
    """

    backbone_cls = Gemma3Backbone

    def __init__(self, proto: Any = None, has_vision_tokens: bool = True, **kwargs: Any) -> None:
        self.has_vision_tokens = has_vision_tokens
        self._add_special_token("<bos>", "start_token")
        self._add_special_token("<eos>", "end_token")
        self._add_special_token("<pad>", "pad_token")
        if has_vision_tokens:
            self._add_special_token(IMAGE_PLACEHOLDER_TOKEN, "image_placeholder")
            self._add_special_token(START_OF_IMAGE_TOKEN, "start_of_image_token")
            self._add_special_token(END_OF_IMAGE_TOKEN, "end_of_image_token")
        else:
            self.start_of_image_token_id = -1
            self.image_placeholder_token_id = -1
            self.image_placeholder_id = -1
            self.end_of_image_token_id = -1
        super().__init__(proto=proto, **kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(has_vision_tokens=self.has_vision_tokens)
        return config
