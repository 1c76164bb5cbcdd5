"""``LlamaTokenizer``: Llama (1 and 2)'s SentencePiece tokenizer, ``<s>`` and ``</s>`` its start and end tokens."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.llama.llama_backbone import LlamaBackbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class LlamaTokenizer(SentencePieceTokenizer):
    """Llama tokenizer layer based on SentencePiece.

    A `SentencePieceTokenizer` that checks for Llama's special tokens:
    `"<s>"` (start), `"</s>"` (end); the padding id is 0. A batch of strings
    gives ragged ids, one string a dense sequence.

    Args:
        proto: A SentencePiece model: the path of a `.model` file or its
            serialized bytes. `None` waits for a preset's assets.
        **kwargs: `SentencePieceTokenizer` keyword arguments.

    Raises:
        ValueError: If the model lacks `"<s>"` or `"</s>"`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.LlamaTokenizer, keras_hub.tokenizers.SentencePieceTokenizer)
        True
    """

    backbone_cls = LlamaBackbone

    def __init__(self, proto: Any, **kwargs: Any) -> None:
        self._add_special_token("<s>", "start_token")
        self._add_special_token("</s>", "end_token")
        self.pad_token_id = 0
        super().__init__(proto=proto, **kwargs)
