"""``T5GemmaTokenizer``: T5Gemma's SentencePiece tokenizer (Gemma's), with ``<bos>``, ``<eos>`` and ``<pad>``."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.gemma.gemma_tokenizer import add_gemma_special_tokens
from tfkit.hub.models.t5gemma.t5gemma_backbone import T5GemmaBackbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class T5GemmaTokenizer(SentencePieceTokenizer):
    """T5Gemma tokenizer layer based on SentencePiece.

    Gemma's tokenizer (`GemmaTokenizer`, KerasHub's separate class here
    too): a `SentencePieceTokenizer` whose model must hold `<bos>` (start:
    the decoder's first token), `<eos>` (end) and `<pad>` (padding), their
    ids exposed as `start_token_id`, `end_token_id` and `pad_token_id`. It
    reads and writes KerasHub's asset (`vocabulary.spm`), and a Hugging Face
    checkpoint's `tokenizer.model`.

    Args:
        proto: A SentencePiece model file's path, or its bytes. Defaults to
            `None` (a preset's).
        **kwargs: `SentencePieceTokenizer` keyword arguments.

    Raises:
        ValueError: If a special token is missing from the model.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> tokenizer = keras_hub.models.T5GemmaTokenizer()  # its vocabulary comes with a preset
        >>> tokenizer.start_token, tokenizer.end_token, tokenizer.pad_token
        ('<bos>', '<eos>', '<pad>')
    """

    backbone_cls = T5GemmaBackbone

    def __init__(self, proto: Any = None, **kwargs: Any) -> None:
        add_gemma_special_tokens(self)
        super().__init__(proto=proto, **kwargs)
