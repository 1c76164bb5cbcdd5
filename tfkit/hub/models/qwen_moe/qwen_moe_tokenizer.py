"""``QwenMoeTokenizer``: Qwen's byte-level byte-pair tokenizer, ``<|endoftext|>`` its end token, no start token."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.qwen_moe.qwen_moe_backbone import QwenMoeBackbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class QwenMoeTokenizer(BytePairTokenizer):
    """Tokenizer for Qwen Moe model.

    A `BytePairTokenizer` (byte-level BPE) with Qwen's special tokens:
    `<|endoftext|>` ends a sequence, there is no start token, and the padding
    id is 0, as in KerasHub. It reads and writes KerasHub's assets
    (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        **kwargs: `BytePairTokenizer` keyword arguments, such as
            `unsplittable_tokens`.

    Raises:
        ValueError: If the vocabulary lacks `<|endoftext|>`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3}
        >>> tokenizer = keras_hub.models.QwenMoeTokenizer(vocabulary=vocab, merges=["a b"])
        >>> tokenizer("ab<|endoftext|>").numpy().tolist(), tokenizer.end_token_id, tokenizer.start_token_id
        ([2, 3], 3, None)
    """

    backbone_cls = QwenMoeBackbone

    def __init__(self, vocabulary: Any = None, merges: Any = None, **kwargs: Any) -> None:
        self._add_special_token("<|endoftext|>", "end_token")
        self.start_token_id = None
        self.start_token = None
        self.pad_token_id = 0
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)
