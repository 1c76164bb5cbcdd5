"""``Llama3Tokenizer``: Llama 3's byte-level byte-pair tokenizer and its special tokens.

    tokenizer = Llama3Tokenizer(vocabulary=vocab, merges=merges)        # vocab holds the special tokens too
    tokenizer("<|begin_of_text|>Hello")                                   # special tokens are never split

Llama 3 splits text as KerasHub's byte-pair tokenizers do (``BytePairTokenizer``) and keeps its
special tokens (``<|begin_of_text|>``, ``<|end_of_text|>``, the chat headers, ``<|eot_id|>``) whole.
"""

from __future__ import annotations

from typing import Any, Iterable

from tfkit.hub.models.llama3.llama3_backbone import Llama3Backbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable

BOS_TOKEN = "<|begin_of_text|>"
EOS_TOKEN = "<|end_of_text|>"
EOT_TOKEN = "<|eot_id|>"
HEADER_TOKENS = ("<|start_header_id|>", "<|end_header_id|>")


@register_keras_serializable(package="keras_hub")
class Llama3Tokenizer(BytePairTokenizer):
    """A Llama 3 tokenizer using byte-level byte-pair encoding.

    `bos_token` is the start token, `eos_token` the end token, the other
    `misc_special_tokens` are declared special (kept whole, stripped from
    generated text); every one must be in the vocabulary. With the base
    models' end token `"<|end_of_text|>"`, `"<|eot_id|>"` (the instruction
    models' end of turn) is a second end token (`end_token2`), so
    generation stops at either, as in KerasHub. The padding id is 0.

    The config also records `bos_token` and `eos_token`, which KerasHub's
    leaves out (so an instruction model's `"<|eot_id|>"` end token became
    `"<|end_of_text|>"` again when its preset was reloaded); KerasHub's
    constructor takes both. A set of `misc_special_tokens` is declared in
    sorted order (KerasHub's follows the set's iteration order).

    Args:
        vocabulary: A dict from tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one a line. Defaults to `None` (loaded from a preset).
        bos_token: The start token. Defaults to `"<|begin_of_text|>"`.
        eos_token: The end token. Defaults to `"<|end_of_text|>"`.
        misc_special_tokens: Other special tokens. Defaults to
            `{"<|start_header_id|>", "<|end_header_id|>"}`.
        **kwargs: `BytePairTokenizer` keyword arguments.

    Raises:
        ValueError: If a special token is not in the vocabulary.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
        ...     "<|eot_id|>"]
        >>> vocab = {token: i for i, token in enumerate(["a", "b", "ab", *specials])}
        >>> tokenizer = keras_hub.models.Llama3Tokenizer(vocabulary=vocab, merges=["a b"])
        >>> tokenizer("<|begin_of_text|>ab<|eot_id|>").numpy().tolist()
        [3, 2, 7]
        >>> tokenizer.end_token_id, tokenizer.end_token2_id
        (4, 7)
    """

    backbone_cls = Llama3Backbone

    def __init__(
        self,
        vocabulary: Any = None,
        merges: Any = None,
        bos_token: str = BOS_TOKEN,
        eos_token: str = EOS_TOKEN,
        misc_special_tokens: Iterable[str] = frozenset(HEADER_TOKENS),
        **kwargs: Any,
    ) -> None:
        self._add_special_token(bos_token, "start_token")
        self._add_special_token(eos_token, "end_token")
        if isinstance(misc_special_tokens, (set, frozenset)):
            misc_special_tokens = sorted(misc_special_tokens)
        others = [token for token in dict.fromkeys(misc_special_tokens) if token not in (bos_token, eos_token)]
        for i, token in enumerate(others):
            self._add_special_token(token, f"special_token_{i:03d}")
        if eos_token == EOS_TOKEN:  # base models end with <|end_of_text|>, instruction models' turns with <|eot_id|>
            self._add_special_token(EOT_TOKEN, "end_token2")
        self.pad_token_id = 0
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)

    def get_config(self) -> dict[str, Any]:
        """`BytePairTokenizer`'s config with `bos_token` and `eos_token`.

        Returns:
            A dict, serializable to JSON.
        """
        return {**super().get_config(), "bos_token": self.start_token, "eos_token": self.end_token}
