"""Byte-level byte-pair encoding in TensorFlow ops: words to token ids by merge rules, and ids back to bytes.

    tables = BytePairTables(vocabulary={"a": 0, "b": 1, "ab": 2}, merges=["a b"], special_tokens=[])
    tables.encode(tf.constant(["ab", "ba"]))          # symbols per word: [[2], [1, 0]] as vocabulary ids
    tables.decode(tf.ragged.constant([[2, 0]]))        # [b'aba']

GPT-2's byte level: every byte of a word becomes a printable character
(``bytes_to_unicode``: the printable bytes stand for themselves, the others
for the characters from U+0100 on, a space becoming ``Ġ``), so any text
tokenizes with a vocabulary of those 256 characters and their merges.

Words are merged all at once, as symbol ids in one flat tensor: each round
looks every adjacent pair of a word up in a hash table of merge ranks, and
merges, in every word that has a mergeable pair, the leftmost pair of the
lowest rank (as KerasHub's TensorFlow path and Hugging Face ``tokenizers``
do), until no word has one. A ``tf.while_loop`` runs the rounds, so the same
code runs eagerly, in ``tf.data`` and in a SavedModel; nothing is cached
between calls. Symbols are ids into the tokenizer's own table: the
vocabulary's tokens, the byte characters and the result of every merge
(a merge result missing from the vocabulary gives id -1, as in KerasHub).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import tensorflow as tf

_NO_MERGE = np.iinfo(np.int64).max  # the rank of a pair no rule merges


def bytes_to_unicode() -> list[str]:
    """GPT-2's byte-level alphabet: the character standing for each byte value, by byte value."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    characters, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            characters[byte] = chr(byte)
        else:
            characters[byte] = chr(256 + extra)
            extra += 1
    return [characters[byte] for byte in range(256)]


def merge_rules(merges: Sequence[str], vocabulary: dict[str, int], who: str) -> list[tuple[str, str]]:
    """The ``(left, right)`` pair of each rule, in rank order (``#version`` header lines skipped).

    Raises ``ValueError`` naming a rule that is not two tokens separated by a
    space, or names a token missing from the vocabulary.
    """
    pairs = []
    for merge in merges:
        if "#version:" in merge.lstrip():
            continue
        parts = merge.split(" ")
        if len(parts) != 2:
            raise ValueError(f"{who}: merge rule {merge!r} must be two tokens separated by one space")
        left, right = parts
        if left not in vocabulary or right not in vocabulary:
            raise ValueError(f"{who}: merge rule {merge!r} names token {left!r} or {right!r}, not in the vocabulary")
        pairs.append((left, right))
    return pairs


def _static_table(keys: np.ndarray, values: np.ndarray, default: object) -> tf.lookup.StaticHashTable:
    with tf.init_scope():  # created once, eagerly: graphs and exports capture it as a resource
        return tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.constant(keys), tf.constant(values)), default_value=default
        )


class BytePairTables(tf.Module):
    """The lookup tables of one vocabulary and merge list, and the TensorFlow code that uses them.

    A ``tf.Module``: set as a layer's attribute, its hash tables and
    constants are tracked, so ``tf.saved_model.save`` writes them with the
    functions that use them.
    """

    def __init__(self, vocabulary: dict[str, int], merges: Sequence[str], special_tokens: Sequence[str], who: str):
        super().__init__(name="byte_pair_tables")
        pairs = merge_rules(merges, vocabulary, who)
        alphabet = bytes_to_unicode()
        symbols: dict[str, int] = {}
        for token in [*vocabulary, *alphabet, *special_tokens, *(left + right for left, right in pairs)]:
            symbols.setdefault(token, len(symbols))
        width = len(symbols)
        rank_of: dict[int, int] = {}  # rule key (left * width + right) -> rank; the first rule for a pair wins
        for rank, (left, right) in enumerate(pairs):
            rank_of.setdefault(symbols[left] * width + symbols[right], rank)
        self._width = width
        self._has_merges = bool(rank_of)
        if rank_of:
            keys, ranks = np.array(list(rank_of), dtype=np.int64), np.array(list(rank_of.values()), dtype=np.int64)
            self._ranks = _static_table(keys, ranks, _NO_MERGE)
        self._merged = tf.constant([symbols[left + right] for left, right in pairs] or [0], dtype=tf.int64)
        self._byte_symbols = tf.constant([symbols[character] for character in alphabet], dtype=tf.int64)
        ordered = list(symbols)
        self._symbol_ids = tf.constant([vocabulary.get(token, -1) for token in ordered], dtype=tf.int64)
        self._symbol_strings = tf.constant(ordered, dtype=tf.string)
        specials = list(dict.fromkeys(special_tokens))
        self._has_specials = bool(specials)
        if specials:
            self._specials = _static_table(
                np.array(specials, dtype=object), np.array([symbols[t] for t in specials], dtype=np.int64), -1
            )
        byte_of = {character: bytes([byte]) for byte, character in enumerate(alphabet)}
        bytes_of_id: dict[int, bytes] = {}  # a character outside the byte alphabet adds nothing, as in KerasHub
        for token, index in vocabulary.items():
            bytes_of_id.setdefault(index, b"".join(byte_of.get(character, b"") for character in token))
        self._bytes_of_id = None
        if bytes_of_id:
            ids = np.array(list(bytes_of_id), dtype=np.int64)
            self._bytes_of_id = _static_table(ids, np.array(list(bytes_of_id.values()), dtype=object), b"")

    def _initial_symbols(self, words: tf.Tensor) -> tf.RaggedTensor:
        """Each word as its byte characters' symbols, or as its own symbol if it is a special token."""
        if not self._has_specials:
            return tf.gather(self._byte_symbols, tf.strings.unicode_decode(words, "ISO-8859-1"))
        special = self._specials.lookup(words)
        is_special = special >= 0
        spelled = tf.strings.unicode_decode(tf.where(is_special, "a", words), "ISO-8859-1")  # one byte each
        rows = spelled.value_rowids()
        values = tf.where(
            tf.gather(is_special, rows), tf.gather(special, rows), tf.gather(self._byte_symbols, spelled.flat_values)
        )
        return spelled.with_flat_values(values)

    def _merge_round(self, values: tf.Tensor, rows: tf.Tensor, num_rows: tf.Tensor) -> tuple:
        """One round: in each word, merge the leftmost of its lowest-ranked mergeable pairs."""
        size = tf.size(values, out_type=tf.int64)
        left, right = values[:-1], values[1:]
        pair_rows = rows[:-1]
        ranks = self._ranks.lookup(left * self._width + right)
        ranks = tf.where(tf.equal(pair_rows, rows[1:]), ranks, _NO_MERGE)
        lowest = tf.math.unsorted_segment_min(ranks, pair_rows, num_rows)
        candidate = tf.equal(ranks, tf.gather(lowest, pair_rows)) & (ranks < _NO_MERGE)
        positions = tf.range(tf.maximum(size - 1, 0), dtype=tf.int64)  # no pairs in an empty batch
        leftmost = tf.math.unsorted_segment_min(tf.where(candidate, positions, _NO_MERGE), pair_rows, num_rows)
        merge_at = candidate & tf.equal(positions, tf.gather(leftmost, pair_rows))
        merged = tf.gather(self._merged, tf.where(merge_at, ranks, 0))
        values = tf.concat([tf.where(merge_at, merged, left), values[size - 1 :]], axis=0)
        dropped = tf.concat([[False], merge_at], axis=0)[:size]  # the right half of each merged pair
        keep = tf.logical_not(dropped)
        return tf.boolean_mask(values, keep), tf.boolean_mask(rows, keep), tf.reduce_any(merge_at)

    def encode(self, words: tf.Tensor) -> tf.RaggedTensor:
        """The symbols of each word (a 1-D string tensor) after all merges: a ragged ``[words, (symbols)]``."""
        symbols = self._initial_symbols(words)
        if not self._has_merges:
            return symbols
        num_rows = symbols.nrows(out_type=tf.int64)
        values, rows, _ = tf.while_loop(
            lambda values, rows, merged: merged,
            lambda values, rows, merged: self._merge_round(values, rows, num_rows),
            [symbols.flat_values, symbols.value_rowids(), tf.constant(True)],
            shape_invariants=[tf.TensorShape([None]), tf.TensorShape([None]), tf.TensorShape([])],
        )
        return tf.RaggedTensor.from_value_rowids(values, rows, nrows=num_rows, validate=False)

    def symbol_ids(self, symbols: tf.RaggedTensor) -> tf.RaggedTensor:
        """Vocabulary ids of symbols (-1 for a merge result missing from the vocabulary)."""
        return tf.gather(self._symbol_ids, symbols)

    def symbol_strings(self, symbols: tf.RaggedTensor) -> tf.RaggedTensor:
        """The token strings of symbols (``"Ġquick"``)."""
        return tf.gather(self._symbol_strings, symbols)

    def decode(self, ids: tf.RaggedTensor) -> tf.Tensor:
        """The text of each row of token ids: their tokens' bytes, joined (unknown ids add nothing)."""
        if self._bytes_of_id is None:
            return tf.fill([ids.nrows()], "")
        return tf.strings.reduce_join(self._bytes_of_id.lookup(tf.cast(ids, tf.int64)), axis=-1)
