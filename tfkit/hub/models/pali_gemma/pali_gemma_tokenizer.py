"""``PaliGemmaTokenizer``: PaliGemma's SentencePiece tokenizer (Gemma's, found by ``from_preset`` for PaliGemma)."""

from __future__ import annotations

from tfkit.hub.models.gemma.gemma_tokenizer import GemmaTokenizer
from tfkit.hub.models.pali_gemma.pali_gemma_backbone import PaliGemmaBackbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class PaliGemmaTokenizer(GemmaTokenizer):
    """PaliGemma tokenizer layer based on SentencePiece.

    `GemmaTokenizer` for PaliGemma presets: it requires `<bos>` (start),
    `<eos>` (end) and `<pad>` (padding) in its model and exposes their ids.

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
        >>> tokenizer = keras_hub.models.PaliGemmaTokenizer(proto=model.getvalue())
        >>> tokenizer.start_token_id, tokenizer.detokenize(tokenizer(["the lazy fox"]))
        (2, ['the lazy fox'])
    """

    backbone_cls = PaliGemmaBackbone
