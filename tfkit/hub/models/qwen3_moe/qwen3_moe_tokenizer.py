"""``Qwen3MoeTokenizer``: Qwen 3 MoE's byte-level byte-pair tokenizer, ``<|im_end|>`` its end token, no start token."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.qwen3_moe.qwen3_moe_backbone import Qwen3MoeBackbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3MoeTokenizer(BytePairTokenizer):
    """Tokenizer for Qwen 3 MoE models.

    A `BytePairTokenizer` (byte-level BPE) with Qwen 3 MoE's special tokens:
    `<|im_end|>` ends a sequence (the end of a chat turn), `<|endoftext|>`
    pads, and there is no start token, as in KerasHub. It reads and writes
    KerasHub's assets (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        **kwargs: `BytePairTokenizer` keyword arguments, such as
            `unsplittable_tokens`.

    Raises:
        ValueError: If the vocabulary lacks `<|im_end|>` or `<|endoftext|>`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3, "<|im_end|>": 4}
        >>> tokenizer = keras_hub.models.Qwen3MoeTokenizer(vocabulary=vocab, merges=["a b"])
        >>> tokenizer("ab<|im_end|>").numpy().tolist(), tokenizer.end_token_id, tokenizer.pad_token_id
        ([2, 4], 4, 3)
    """

    backbone_cls = Qwen3MoeBackbone

    def __init__(self, vocabulary: Any = None, merges: Any = None, **kwargs: Any) -> None:
        self._add_special_token("<|im_end|>", "end_token")
        self._add_special_token("<|endoftext|>", "pad_token")
        self.start_token_id = None
        self.start_token = None
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)
