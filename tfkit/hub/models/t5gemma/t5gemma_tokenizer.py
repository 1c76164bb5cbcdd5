"""``T5GemmaTokenizer``: T5Gemma's SentencePiece tokenizer (Gemma's), with ``<bos>``, ``<eos>`` and ``<pad>``."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.t5gemma.t5gemma_backbone import T5GemmaBackbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class T5GemmaTokenizer(SentencePieceTokenizer):
    """T5Gemma tokenizer layer based on SentencePiece.

    A `SentencePieceTokenizer` that requires T5Gemma's special tokens in its
    model: `<bos>` (start: the decoder's first token), `<eos>` (end) and
    `<pad>` (padding), whose ids it exposes as `start_token_id`,
    `end_token_id` and `pad_token_id`. It reads and writes KerasHub's asset
    (`vocabulary.spm`), and a Hugging Face checkpoint's `tokenizer.model`.

    Args:
        proto: The SentencePiece model: a file path, or the serialized model
            as `bytes`. Defaults to `None` (loaded from a preset).
        **kwargs: `SentencePieceTokenizer` keyword arguments, such as
            `sequence_length`.

    Raises:
        ValueError: If the model lacks one of the special tokens.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", pad_id=0, eos_id=1, bos_id=2, unk_id=3, pad_piece="<pad>",
        ...     eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>", minloglevel=2)
        >>> tokenizer = keras_hub.models.T5GemmaTokenizer(proto=model.getvalue())
        >>> tokenizer.start_token_id, tokenizer.end_token_id, tokenizer.pad_token_id
        (2, 1, 0)
        >>> tokenizer.detokenize(tokenizer(["the lazy fox"]))
        ['the lazy fox']
    """

    backbone_cls = T5GemmaBackbone

    def __init__(self, proto: Any = None, **kwargs: Any) -> None:
        self._add_special_token("<bos>", "start_token")
        self._add_special_token("<eos>", "end_token")
        self._add_special_token("<pad>", "pad_token")
        super().__init__(proto=proto, **kwargs)
