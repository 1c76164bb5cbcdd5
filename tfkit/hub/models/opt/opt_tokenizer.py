"""``OPTTokenizer``: OPT's byte-level byte-pair tokenizer (``</s>`` its start and end token, ``<pad>`` padding)."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.opt.opt_backbone import OPTBackbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class OPTTokenizer(BytePairTokenizer):
    """An OPT tokenizer using byte-level byte-pair encoding (GPT-2's scheme).

    `</s>` is the start and end token and `<pad>` the padding token, as in
    KerasHub; both must be in the vocabulary. It reads and writes KerasHub's
    tokenizer assets (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        **kwargs: `BytePairTokenizer` keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"<pad>": 0, "</s>": 1, "a": 2, "b": 3, "ab": 4}
        >>> tokenizer = keras_hub.models.OPTTokenizer(vocabulary=vocab, merges=["a b"])
        >>> tokenizer("ab").numpy().tolist(), tokenizer.start_token_id, tokenizer.pad_token_id
        ([4], 1, 0)
    """

    backbone_cls = OPTBackbone

    def __init__(self, vocabulary: Any = None, merges: Any = None, **kwargs: Any) -> None:
        self._add_special_token("</s>", "end_token")
        self._add_special_token("</s>", "start_token")
        self._add_special_token("<pad>", "pad_token")
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)
