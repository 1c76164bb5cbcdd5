"""``T5Tokenizer``: T5's SentencePiece tokenizer, ``</s>`` its end (and start) token, ``<pad>`` its padding."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.t5.t5_backbone import T5Backbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class T5Tokenizer(SentencePieceTokenizer):
    """T5 tokenizer layer based on SentencePiece.

    A `SentencePieceTokenizer` that requires T5's special tokens in its
    model: `</s>` (the end token; also the start token, as KerasHub's,
    though T5 packs no start token) and `<pad>` (the padding token, and the
    decoder's start). It reads and writes KerasHub's asset
    (`vocabulary.spm`).

    Args:
        proto: The SentencePiece model: a file path, or the serialized model
            as `bytes`. Defaults to `None` (loaded from a preset).
        **kwargs: `SentencePieceTokenizer` keyword arguments, such as
            `sequence_length`.

    Raises:
        ValueError: If the model lacks one of T5's special tokens.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=9, model_type="word", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, pad_piece="<pad>",
        ...     eos_piece="</s>", unk_piece="<unk>", minloglevel=2)
        >>> tokenizer = keras_hub.models.T5Tokenizer(proto=model.getvalue())
        >>> tokenizer.end_token_id, tokenizer.start_token_id, tokenizer.pad_token_id
        (1, 1, 0)
        >>> tokenizer.detokenize(tokenizer(["the lazy fox"]))
        ['the lazy fox']
    """

    backbone_cls = T5Backbone

    def __init__(self, proto: Any = None, **kwargs: Any) -> None:
        self._add_special_token("</s>", "end_token")
        self._add_special_token("</s>", "start_token")
        self._add_special_token("<pad>", "pad_token")
        super().__init__(proto=proto, **kwargs)
