"""``CLIPTokenizer``: CLIP's byte-level byte-pair tokenizer, whose word pieces mark a word's end with ``</w>``.

    tokenizer = CLIPTokenizer(vocabulary="vocabulary.json", merges="merges.txt")
    tokenizer(["a photo of a cat"])                 # [[320, 1125, 539, 320, 2368]] with CLIP's vocabulary
    tokenizer.detokenize([[320, 1125]])             # ['a photo']

Words are split as GPT-2's are (``byte_pair_splitting``), then stripped of
spaces (whitespace words vanish), and the last byte of each word is its
``</w>`` form (``t`` becomes ``t</w>``) before the merges run, as in KerasHub
0.32's TensorFlow path; special tokens stay whole.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.hub.models.clip.clip_backbone import CLIPBackbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.hub.tokenizers.byte_pair_merging import BytePairTables, bytes_to_unicode
from tfkit.saving import register_keras_serializable

END_OF_WORD = "</w>"


class CLIPTables(BytePairTables):
    """``BytePairTables`` for CLIP: words stripped, each word's last byte in its ``</w>`` form, and ``</w>``
    decoded as a space between words."""

    def __init__(self, vocabulary: dict[str, int], merges: Sequence[str], special_tokens: Sequence[str], who: str):
        alphabet = bytes_to_unicode()
        word_ends = [character + END_OF_WORD for character in alphabet]
        # Word ends are symbols whether or not the vocabulary has them (an id of -1 if not, as in KerasHub); no
        # word is one of them (the splitting cuts "<" from a letter), so listing them with the specials is safe.
        super().__init__(vocabulary, merges, [*special_tokens, *word_ends], who)
        index = {token.decode("utf-8"): i for i, token in enumerate(self._symbol_strings.numpy())}
        end_of = np.arange(len(index), dtype=np.int64)
        for character, word_end in zip(alphabet, word_ends):
            end_of[index[character]] = index[word_end]
        self._end_of = tf.constant(end_of)
        byte_of = {character: bytes([byte]) for byte, character in enumerate(alphabet)}
        bytes_of_id: dict[int, bytes] = {}
        for token, token_id in vocabulary.items():
            pieces = token.split(END_OF_WORD)
            text = b" ".join(b"".join(byte_of.get(character, b"") for character in piece) for piece in pieces)
            bytes_of_id.setdefault(token_id, text)
        if bytes_of_id:
            ids = np.array(list(bytes_of_id), dtype=np.int64)
            self._bytes_of_id = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(
                    tf.constant(ids), tf.constant(np.array(list(bytes_of_id.values()), dtype=object))
                ),
                default_value=b"",
            )

    def _initial_symbols(self, words: tf.Tensor) -> tf.RaggedTensor:
        symbols = super()._initial_symbols(tf.strings.strip(words))
        values = symbols.flat_values
        positions = tf.range(tf.size(values, out_type=tf.int64))
        is_last = tf.equal(positions, tf.gather(symbols.row_limits() - 1, symbols.value_rowids()))
        return symbols.with_flat_values(tf.where(is_last, tf.gather(self._end_of, values), values))

    def decode(self, ids: tf.RaggedTensor) -> tf.Tensor:
        return tf.strings.strip(super().decode(ids))


@register_keras_serializable(package="keras_hub")
class CLIPTokenizer(BytePairTokenizer):
    """A CLIP tokenizer using Byte-Pair Encoding subword segmentation.

    `<|startoftext|>` and `<|endoftext|>` are its start and end tokens; the
    padding id is 0, or the end token's with `pad_with_end_token`. A word's
    last piece carries `</w>` (`"cat</w>"`), and `detokenize` turns those
    back into spaces (KerasHub 0.32's drops them, joining the words). The
    tokenizer does not lowercase: `CLIPPreprocessor` does (`to_lower`), as in
    KerasHub's TensorFlow path. It reads and writes KerasHub's assets
    (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        pad_with_end_token: Whether to pad with the end token's id instead
            of 0. Defaults to `False`.
        **kwargs: `BytePairTokenizer` keyword arguments, such as
            `sequence_length`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"a": 0, "c": 1, "t": 2, "a</w>": 3, "t</w>": 4, "ca": 5, "cat</w>": 6,
        ...     "<|startoftext|>": 7, "<|endoftext|>": 8}
        >>> tokenizer = keras_hub.models.CLIPTokenizer(vocabulary=vocab, merges=["c a", "ca t</w>"])
        >>> tokenizer(["a cat", "a cat a"])
        [[3, 6], [3, 6, 3]]
        >>> tokenizer.detokenize([[3, 6]])
        ['a cat']
    """

    backbone_cls = CLIPBackbone

    def __init__(
        self, vocabulary: Any = None, merges: Any = None, pad_with_end_token: bool = False, **kwargs: Any
    ) -> None:
        self._add_special_token("<|startoftext|>", "start_token")
        self._add_special_token("<|endoftext|>", "end_token")
        self.pad_token_id = 0
        self.pad_with_end_token = pad_with_end_token
        kwargs.pop("unsplittable_tokens", None)  # always the two special tokens
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)

    def set_vocabulary_and_merges(self, vocabulary: Any, merges: Any) -> None:
        """Sets the vocabulary and merge rules, from data or files; either `None` clears both.

        Args:
            vocabulary: A token -> id dict, or a JSON file's path.
            merges: A list of merge rules, or a text file's path.

        Raises:
            ValueError: If they are not valid.
        """
        super().set_vocabulary_and_merges(vocabulary, merges)
        if self.vocabulary is not None:
            self._tables = CLIPTables(self.vocabulary, self.merges, self.unsplittable_tokens, self._who())
            if self.pad_with_end_token:
                self.pad_token_id = self.end_token_id

    def get_config(self) -> dict[str, Any]:
        """The config: KerasHub's keys (no `unsplittable_tokens`: always the special tokens).

        Returns:
            A dict, serializable to JSON.
        """
        config = super().get_config()
        del config["unsplittable_tokens"]
        config["pad_with_end_token"] = self.pad_with_end_token
        return config
