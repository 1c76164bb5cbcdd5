"""``GemmaTokenizer``: Gemma's SentencePiece tokenizer, with ``<bos>``, ``<eos>`` and ``<pad>`` as its special tokens."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.gemma.gemma_backbone import GemmaBackbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable

GEMMA_SPECIAL_TOKENS = (("<bos>", "start_token"), ("<eos>", "end_token"), ("<pad>", "pad_token"))


def add_gemma_special_tokens(tokenizer: SentencePieceTokenizer) -> None:
    """Declares Gemma's special tokens on a SentencePiece tokenizer being made (Gemma's, PaliGemma's,
    T5Gemma's): `<bos>` as `start_token`, `<eos>` as `end_token`, `<pad>` as `pad_token`, their ids read from
    the vocabulary once it is set (a `ValueError` then if one is missing).

    Args:
        tokenizer: The tokenizer, in its `__init__`.

    Example:
        >>> from tfkit.hub.models.gemma.gemma_tokenizer import add_gemma_special_tokens
        >>> from tfkit.hub.tokenizers import SentencePieceTokenizer
        >>> tokenizer = SentencePieceTokenizer()
        >>> add_gemma_special_tokens(tokenizer)
        >>> tokenizer.start_token, tokenizer.end_token, tokenizer.pad_token
        ('<bos>', '<eos>', '<pad>')
    """
    for token, name in GEMMA_SPECIAL_TOKENS:
        tokenizer._add_special_token(token, name)


@register_keras_serializable(package="keras_hub")
class GemmaTokenizer(SentencePieceTokenizer):
    """Gemma tokenizer layer based on SentencePiece.

    A `SentencePieceTokenizer` that requires Gemma's special tokens in its
    model: `<bos>` (start), `<eos>` (end) and `<pad>` (padding), whose ids it
    exposes as `start_token_id`, `end_token_id` and `pad_token_id`. It reads
    and writes KerasHub's asset (`vocabulary.spm`), and a Hugging Face
    checkpoint's `tokenizer.model`. It runs in TensorFlow ops (`tf.data`,
    SavedModels).

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
        >>> tokenizer = keras_hub.models.GemmaTokenizer(proto=model.getvalue())
        >>> tokenizer.start_token_id, tokenizer.end_token_id, tokenizer.pad_token_id
        (2, 1, 0)
        >>> tokenizer.detokenize(tokenizer(["the lazy fox"]))
        ['the lazy fox']
    """

    backbone_cls = GemmaBackbone

    def __init__(self, proto: Any = None, **kwargs: Any) -> None:
        add_gemma_special_tokens(self)
        super().__init__(proto=proto, **kwargs)
