"""``WhisperTokenizer``: Whisper's byte-level byte-pair tokenizer, with its special, task and language tokens.

    tokenizer = WhisperTokenizer(vocabulary, merges, special_tokens={"<|endoftext|>": 50256, ...},
                                 language_tokens={"<|en|>": 50259, ...})      # language tokens: multilingual
    tokenizer("<|startoftranscript|><|en|> hello")                             # special tokens stay whole

The special and language tokens are given apart from the byte-pair
vocabulary, as Whisper's files keep them; the tokenizer adds them to the
vocabulary it encodes and decodes with, and saves the vocabulary it was given.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.whisper.whisper_backbone import WhisperBackbone
from tfkit.hub.tokenizers import BytePairTokenizer, asset_files
from tfkit.saving import register_keras_serializable

_REQUIRED = {  # attribute: token
    "bos_token": "<|startoftranscript|>",
    "eos_token": "<|endoftext|>",
    "pad_token": "<|endoftext|>",  # KerasHub's choice for both English-only and multilingual tokenizers
    "no_timestamps_token": "<|notimestamps|>",
    "translate_token": "<|translate|>",
    "transcribe_token": "<|transcribe|>",
}


def _token_dict(value: Any, what: str) -> dict[str, int]:
    if isinstance(value, str):
        return asset_files.read_vocabulary_json(value, what)
    return asset_files.checked_vocabulary(value, what)


@register_keras_serializable(package="keras_hub")
class WhisperTokenizer(BytePairTokenizer):
    """Whisper text tokenizer using Byte-Pair Encoding subword segmentation.

    `<|startoftranscript|>` starts a transcript (`bos_token`),
    `<|endoftext|>` ends it and pads (`eos_token`, `pad_token`); the task
    tokens (`<|transcribe|>`, `<|translate|>`) and `<|notimestamps|>` are
    attributes too, with their ids (`transcribe_token_id`, ...); `start_token`
    and `end_token` (tfkit's generic names, which KerasHub's tokenizer lacks)
    are the start and end of a transcript. The special
    tokens are never split (the language tokens are, as in KerasHub: a
    prompt gives their ids directly); a tokenizer with `language_tokens` is
    multilingual (`<|en|>`, `<|de|>`, ...). It reads and writes KerasHub's
    assets (`vocabulary.json`, `merges.txt`), the vocabulary without the
    special and language tokens, as it was given.

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        special_tokens: A dict mapping special tokens to ids, or the path of
            a JSON file holding one; it must hold `<|startoftranscript|>`,
            `<|endoftext|>`, `<|notimestamps|>`, `<|translate|>` and
            `<|transcribe|>`.
        language_tokens: A dict mapping language tokens to ids, or the path
            of a JSON file holding one, for a multilingual tokenizer; `None`
            (the default) for an English-only one.
        **kwargs: `BytePairTokenizer` keyword arguments.

    Raises:
        ValueError: If a required special token is missing.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> special = {"<|endoftext|>": 4, "<|startoftranscript|>": 5, "<|translate|>": 6,
        ...     "<|transcribe|>": 7, "<|notimestamps|>": 8}
        >>> tokenizer = keras_hub.models.WhisperTokenizer(vocabulary={"a": 0, "b": 1, "ab": 2, "Ġ": 3},
        ...     merges=["a b"], special_tokens=special, language_tokens={"<|en|>": 9})
        >>> tokenizer("<|startoftranscript|>ab").numpy().tolist()
        [5, 2]
        >>> tokenizer.bos_token_id, tokenizer.eos_token_id, tokenizer.detokenize([2, 4])
        (5, 4, 'ab<|endoftext|>')
    """

    backbone_cls = WhisperBackbone

    def __init__(
        self,
        vocabulary: Any = None,
        merges: Any = None,
        special_tokens: Any = None,
        language_tokens: Any = None,
        **kwargs: Any,
    ) -> None:
        name = kwargs.get("name") or "whisper_tokenizer"
        special_tokens = _token_dict(special_tokens or {}, f"WhisperTokenizer '{name}': special_tokens")
        if language_tokens is not None:
            language_tokens = _token_dict(language_tokens, f"WhisperTokenizer '{name}': language_tokens")
        for attribute, token in _REQUIRED.items():
            if token not in special_tokens:
                raise ValueError(
                    f"WhisperTokenizer '{name}': cannot find token `'{token}'` in the provided `special_tokens`. "
                    f"Please provide `'{token}'` in your `special_tokens`."
                )
            object.__setattr__(self, attribute, token)
            object.__setattr__(self, f"{attribute}_id", special_tokens[token])
        # tfkit's generic names too, which packers and `generate`'s stop tokens read (KerasHub's has none)
        for generic, attribute in (("start_token", "bos_token"), ("end_token", "eos_token")):
            object.__setattr__(self, generic, _REQUIRED[attribute])
            object.__setattr__(self, f"{generic}_id", special_tokens[_REQUIRED[attribute]])
        object.__setattr__(self, "_special_token_dict", special_tokens)  # plain dicts: no tracking wrappers
        object.__setattr__(self, "language_tokens", language_tokens)
        object.__setattr__(self, "_initial_vocabulary", None)
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)

    @property
    def special_tokens(self) -> list[str]:
        """Every special token given (`language_tokens` apart)."""
        return list(self._special_token_dict)

    @property
    def special_token_ids(self) -> list[int]:
        """The ids of `special_tokens`."""
        return list(self._special_token_dict.values())

    def set_vocabulary_and_merges(self, vocabulary: Any, merges: Any) -> None:
        """Sets the byte-pair vocabulary and merges; the language and required special tokens join the
        vocabulary the tokenizer encodes and decodes with.

        Args:
            vocabulary: A token -> id dict, or a JSON file's path; `None` clears both.
            merges: A list of merge rules, or a text file's path.
        """
        if vocabulary is not None:
            vocabulary = _token_dict(vocabulary, f"{self._who()}: vocabulary")
            object.__setattr__(self, "_initial_vocabulary", dict(vocabulary))
            vocabulary = {**vocabulary, **(self.language_tokens or {})}
            for token in _REQUIRED.values():
                vocabulary[token] = self._special_token_dict[token]
        else:
            object.__setattr__(self, "_initial_vocabulary", None)
        super().set_vocabulary_and_merges(vocabulary, merges)

    def save_assets(self, dir_path: str) -> None:
        """Writes `vocabulary.json` (the vocabulary as given) and `merges.txt` into folder `dir_path`.

        Args:
            dir_path: An existing folder.
        """
        vocabulary = self.vocabulary
        object.__setattr__(self, "vocabulary", self._initial_vocabulary)
        try:
            super().save_assets(dir_path)
        finally:
            object.__setattr__(self, "vocabulary", vocabulary)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "special_tokens": dict(self._special_token_dict),
            "language_tokens": None if self.language_tokens is None else dict(self.language_tokens),
        }
