"""GPT-2's pre-tokenization in RE2 (TensorFlow's regex engine): strings to the words byte-pair encoding merges in.

    words = split_words(tf.constant(["Hello  world!"]), special_tokens=None)
    # [[b'Hello', b' ', b' world', b'!']]

GPT-2 splits text with a Python regex: contractions (``'s``, ``'ll`` ...), a
letter run, a digit run or a run of other symbols, each with at most one
leading space, and whitespace runs, where a run followed by a word leaves its
last space to that word (``\\s+(?!\\S)``). RE2 has no look-ahead, so, as
KerasHub 0.32's TensorFlow path does, a mark (``६``, a Devanagari digit) is
written before each space that starts a word; the whitespace rule then ends
a run at a mark (or a line break), a second pass splits a trailing space (or
mark) off each piece, and the marks are dropped. These are KerasHub's rules
exactly, so the words, and the ids, are KerasHub's; they differ from OpenAI's
Python regex on some whitespace (a trailing run of spaces is split into
single spaces; consecutive line breaks before a word stay together), and a
``६`` in the input is lost, as in KerasHub.

Special tokens (``unsplittable_tokens``) are cut out first and kept whole.
KerasHub does that with a placeholder (``ĴA``) that text of its own could
collide with; here special pieces are set aside instead, so text containing
``ĴA`` tokenizes as any other.
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf

from tfkit.hub.layers.preprocessing_tensors import tensorflow_text
from tfkit.hub.tokenizers.special_tokens import special_tokens_pattern

MARK = "६"
# Spaces that Python's \s matches and RE2's \s does not: no-break, thin, narrow no-break, ideographic.
_WIDE_SPACES = r"\x{a0}\x{2009}\x{202f}\x{3000}"

# A space that starts a word (is followed by something that is not a space) gets the mark before it.
_SPACE_BEFORE_WORD = rf"( )([^\s{_WIDE_SPACES}])"
# KerasHub's rule for text ending in whitespace: as written there, it needs an ASCII space followed by the
# four wide spaces in that order, so it almost never applies; kept so that the words stay KerasHub's.
_TRAILING_SPACES = rf"(\s{_WIDE_SPACES})$"

_WORDS = "|".join(
    [
        r"'s|'t|'re|'ve|'m|'ll|'d",  # English contractions
        rf"[\s{_WIDE_SPACES}]+[\n\r\t\f{MARK}{_WIDE_SPACES}]",  # whitespace up to a mark or a line break
        r" ?\p{L}+",  # letters
        r" ?[\p{N}]+",  # digits
        rf" ?[^\s\p{{L}}\p{{N}}{_WIDE_SPACES}]+",  # anything else
    ]
)
# Splits one trailing space (not a line break) or mark off a piece.
_LAST_SPACE = rf"[ \t\r\f\v{MARK}{_WIDE_SPACES}]$"


def split_words(text: tf.Tensor, special_tokens: Sequence[str] | None) -> tf.RaggedTensor:
    """The words of each string of ``text`` (a 1-D string tensor), a ragged ``[batch, (words)]`` tensor.

    Works on flat tensors of pieces and words with the row each came from
    (ragged ``where`` and ``concat`` would add seconds of validation ops to
    every trace).
    """
    tf_text = tensorflow_text("BytePairTokenizer")
    text = tf.strings.regex_replace(text, _SPACE_BEFORE_WORD, rf"{MARK}\1\2")
    text = tf.strings.regex_replace(text, _TRAILING_SPACES, rf"\1{MARK}")
    specials = special_tokens_pattern(special_tokens)
    if specials:
        pieces = tf_text.regex_split(text, specials, specials)  # special tokens alone in their piece
        piece_rows, pieces = pieces.value_rowids(), pieces.flat_values
        is_special = tf.strings.regex_full_match(pieces, specials)
        pieces_to_split = tf.where(is_special, "a", pieces)  # "a": a stand-in that splits into one word
    else:
        piece_rows = tf.range(tf.size(text, out_type=tf.int64))
        pieces_to_split = pieces = text
    words = tf_text.regex_split(pieces_to_split, _WORDS, _WORDS)
    parts = tf_text.regex_split(words.flat_values, _LAST_SPACE, _LAST_SPACE)
    piece_of = tf.gather(words.value_rowids(), parts.value_rowids())
    words = parts.flat_values
    if specials:
        words = tf.where(tf.gather(is_special, piece_of), tf.gather(pieces, piece_of), words)
    rows = tf.gather(piece_rows, piece_of)
    keep = tf.not_equal(words, MARK)
    return tf.RaggedTensor.from_value_rowids(
        tf.boolean_mask(words, keep),
        tf.boolean_mask(rows, keep),
        nrows=tf.size(text, out_type=tf.int64),
        validate=False,
    )
