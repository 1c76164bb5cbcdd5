"""BERT's basic pre-tokenization, in TensorFlow ops: text to the words WordPiece splits into pieces.

    words = pretokenize(tf.constant(["Héllo, 世界!"]), lowercase=True, strip_accents=True, split=True,
                        split_on_cjk=True, special_tokens=None)
    # [[b'hello', b',', b'\xe4\xb8\x96', b'\xe7\x95\x8c', b'!']]

The rules are the original BERT tokenizer's, as KerasHub 0.32's
``WordPieceTokenizer`` applies them on its TensorFlow path: CJK ideographs
become words of their own; accents are stripped by decomposing to NFD and
dropping nonspacing marks; text splits on whitespace and invisible control
characters (dropped) and on punctuation (kept, one word per mark, where
ASCII symbols such as ``$`` and ``^`` count as punctuation); words are case
folded (Unicode NFKC case folding). Special tokens listed for splitting are
never split or case folded. RE2 (TensorFlow's regex engine) reads ``\\s`` as
ASCII whitespace only.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.hub.layers.preprocessing_tensors import tensorflow_text
from tfkit.hub.tokenizers.special_tokens import special_tokens_pattern

# Dropped between words: ASCII whitespace, control (Cc) and format (Cf) characters.
_SPACE = r"\s|\p{Cc}|\p{Cf}"
# Kept as one-character words: ASCII symbols in the ranges !-/ :-@ [-` {-~, and Unicode punctuation (P*).
_PUNCTUATION = r"[!-/]|[:-@]|[\[-`]|[{-~]|[\p{P}]"
# The CJK Unified Ideographs blocks and their extensions, and the compatibility ideographs (as BERT lists them).
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
_CJK = "|".join(f"[\\x{{{low:X}}}-\\x{{{high:X}}}]" for low, high in _CJK_RANGES)


def pretokenize(
    text: Any,
    lowercase: bool,
    strip_accents: bool,
    split: bool,
    split_on_cjk: bool,
    special_tokens: Sequence[str] | None,
) -> Any:
    """The words of ``text`` (a string tensor; a scalar counts as a batch of one), ready for WordPiece.

    Args:
        text: A string `tf.Tensor` or `tf.RaggedTensor`.
        lowercase: Whether words are case folded (special tokens are not).
        strip_accents: Whether accent marks are removed.
        split: Whether to split on whitespace, punctuation (and CJK); if not,
            each string is one word.
        split_on_cjk: Whether CJK ideographs are words of their own (with
            `split` only).
        special_tokens: Strings kept whole and as they are, or `None`.

    Returns:
        The words: the input's shape with one more, ragged, axis when
        `split` (else the input, normalized).
    """
    tf_text = tensorflow_text("WordPieceTokenizer")
    if text.shape.rank == 0:
        text = tf.expand_dims(text, 0)
    if split and split_on_cjk:
        text = tf.strings.regex_replace(text, _CJK, r" \0 ")
    if strip_accents:
        text = tf_text.normalize_utf8(text, "NFD")
        text = tf.strings.regex_replace(text, r"\p{Mn}", "")
    specials = special_tokens_pattern(special_tokens) if split else None
    if split:
        delimiters = [_SPACE, _PUNCTUATION] + ([_CJK] if split_on_cjk else [])
        kept = [_PUNCTUATION] + ([_CJK] if split_on_cjk else [])
        if specials:  # first, so that a special token wins over the punctuation inside it ("[CLS]")
            delimiters.insert(0, specials)
            kept.insert(0, specials)
        text = tf_text.regex_split(
            text, delim_regex_pattern="|".join(delimiters), keep_delim_regex_pattern="|".join(kept)
        )
    if lowercase:
        flat = text.flat_values if isinstance(text, tf.RaggedTensor) else text
        folded = tf_text.case_fold_utf8(flat)
        if specials:  # on the flat words: a ragged where would add validation ops to every trace
            folded = tf.where(tf.strings.regex_full_match(flat, specials), flat, folded)
        text = text.with_flat_values(folded) if isinstance(text, tf.RaggedTensor) else folded
    return text
