"""Training a vocabulary, as KerasHub's ``tokenizers`` do: WordPiece from word counts, SentencePiece with its trainer.

    vocabulary = compute_word_piece_vocabulary(dataset_of_strings, vocabulary_size=8000, lowercase=True)
    tokenizer = WordPieceTokenizer(vocabulary=vocabulary, lowercase=True)
    proto = compute_sentence_piece_proto(["corpus.txt"], vocabulary_size=8000)   # a serialized model
    tokenizer = SentencePieceTokenizer(proto=proto)

The WordPiece learner is TensorFlow Text's (``tensorflow_text.tools.wordpiece_vocab``) on
words split by tfkit's own pre-tokenizer, the one ``WordPieceTokenizer`` runs; the
SentencePiece trainer is the ``sentencepiece`` package's, with KerasHub's special ids
(padding 0, unknown 1, start 2, end 3). Both are in the ``hub`` extra and imported
only here. An output file is written atomically, and nothing else is.
"""

from __future__ import annotations

import io
from typing import Any, Sequence

import tensorflow as tf

from tfkit.files import atomic
from tfkit.hub.layers.preprocessing_tensors import tensorflow_text
from tfkit.hub.tokenizers.word_piece_splitting import pretokenize

MODEL_TYPES = ("unigram", "bpe", "word", "char")


def compute_word_piece_vocabulary(
    data: Any,
    vocabulary_size: int,
    vocabulary_output_file: str | None = None,
    lowercase: bool = False,
    strip_accents: bool = False,
    split: bool = True,
    split_on_cjk: bool = True,
    suffix_indicator: str = "##",
    reserved_tokens: Sequence[str] = ("[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"),
) -> list[str] | None:
    """Learns a WordPiece vocabulary from text, as KerasHub's `compute_word_piece_vocabulary`.

    The text is split into words as `WordPieceTokenizer` splits it (with the
    same `lowercase`, `strip_accents`, `split` and `split_on_cjk`), the words
    are counted, and TensorFlow Text's WordPiece learner picks the pieces,
    reserved tokens first.

    Args:
        data: A `tf.data.Dataset` of strings, or a list of text file paths
            (each file read whole; then `split` must be `True`).
        vocabulary_size: The most tokens the vocabulary holds.
        vocabulary_output_file: A file to write the vocabulary to, one token a
            line, instead of returning it. Defaults to `None`.
        lowercase: Whether to lowercase the text first. Defaults to `False`.
        strip_accents: Whether to remove accent marks. Defaults to `False`.
        split: Whether to split on whitespace and punctuation; `False` for
            data already split into words. Defaults to `True`.
        split_on_cjk: Whether CJK characters are words of their own.
            Defaults to `True`.
        suffix_indicator: The prefix of pieces that continue a word.
            Defaults to `"##"`.
        reserved_tokens: Tokens put first, never split. Defaults to BERT's
            `["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"]`.

    Returns:
        The vocabulary (a list of tokens), or `None` when it was written to
        `vocabulary_output_file`.

    Raises:
        ValueError: If `data` is neither a dataset nor a list, or files are
            given with `split=False`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> data = tf.data.Dataset.from_tensor_slices(["the quick fox", "the lazy dog"])
        >>> vocabulary = keras_hub.tokenizers.compute_word_piece_vocabulary(data, 60, reserved_tokens=["[UNK]"])
        >>> vocabulary[:4], vocabulary[-1]
        (['[UNK]', 'a', 'c', 'd'], '##z')
        >>> tokenizer = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=vocabulary)
        >>> tokenizer.detokenize(tokenizer("the fox"))
        'the fox'
    """
    tensorflow_text("compute_word_piece_vocabulary")  # a clear ImportError first
    from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib as learner

    if not isinstance(data, (list, tf.data.Dataset)):
        raise ValueError(f"The `data` argument must be either `tf.data.Dataset` or `list`. Received: {type(data)}.")
    if isinstance(data, list):
        if not split:
            raise ValueError(
                "When learning a vocabulary from files, `split` must be `True`. To compute a vocabulary with custom "
                "split rules, load your data as a dataset, split it, and pass it with split=False."
            )
        data = tf.data.Dataset.from_tensor_slices(data).map(tf.io.read_file)
    words = data.map(lambda text: pretokenize(text, lowercase, strip_accents, split, split_on_cjk, None))
    vocabulary = learner.learn(
        learner.count_words(words),
        vocab_size=vocabulary_size,
        reserved_tokens=list(reserved_tokens),
        include_joiner_token=True,
        joiner=suffix_indicator,
    )[:vocabulary_size]
    if vocabulary_output_file is None:
        return vocabulary
    with atomic.atomic_file(vocabulary_output_file) as tmp, open(tmp, "w", encoding="utf-8") as handle:
        handle.write("".join(token + "\n" for token in vocabulary))
    return None


def compute_sentence_piece_proto(
    data: Any,
    vocabulary_size: int,
    model_type: str = "unigram",
    proto_output_file: str | None = None,
    lowercase: bool = False,
) -> bytes | None:
    """Trains a SentencePiece model, as KerasHub's `compute_sentence_piece_proto`.

    Runs the `sentencepiece` package's trainer with KerasHub's settings:
    NFKC normalization (case folded with `lowercase`), and the ids padding
    0, unknown 1, start 2 and end 3.

    Args:
        data: A `tf.data.Dataset` of strings, or a list (or tuple) of text
            file paths, one sentence a line.
        vocabulary_size: The number of pieces.
        model_type: `"unigram"`, `"bpe"`, `"word"` or `"char"`. Defaults to
            `"unigram"`.
        proto_output_file: A file to write the model to instead of
            returning it. Defaults to `None`.
        lowercase: Whether to case fold the text. Defaults to `False`.

    Returns:
        The serialized model (bytes, for `SentencePieceTokenizer(proto=...)`),
        or `None` when it was written to `proto_output_file`.

    Raises:
        ValueError: If `data` is not a dataset, list or tuple, `model_type`
            is not one of the four, or the trainer refuses the data (a
            `vocabulary_size` smaller than the characters it must hold).
        ImportError: If `sentencepiece` is not installed.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> data = tf.data.Dataset.from_tensor_slices(["the quick brown fox", "the lazy dog"] * 20)
        >>> proto = keras_hub.tokenizers.compute_sentence_piece_proto(data, 20, model_type="char")
        >>> tokenizer = keras_hub.tokenizers.SentencePieceTokenizer(proto=proto)
        >>> tokenizer.detokenize(tokenizer("the dog"))
        'the dog'
    """
    if not isinstance(data, (list, tuple, tf.data.Dataset)):
        raise ValueError(
            f"The `data` argument must be either `tf.data.Dataset` or `tuple` or `list`. Received: type(data)={type(data)}."
        )
    if model_type not in MODEL_TYPES:
        raise ValueError(
            f"The `model_type` argument must be one of `unigram`, `bpe`, `word` or `char`. Received: model_type={model_type}."
        )
    try:
        import sentencepiece as spm
    except ImportError as error:
        raise ImportError(
            "compute_sentence_piece_proto needs the sentencepiece package: pip install tfkit[hub] "
            "(or pip install sentencepiece)"
        ) from error
    source = {"sentence_iterator": data.as_numpy_iterator()} if isinstance(data, tf.data.Dataset) else {"input": data}
    writer = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            **source,
            model_writer=writer,
            vocab_size=vocabulary_size,
            model_type=model_type,
            normalization_rule_name="nmt_nfkc_cf" if lowercase else "nmt_nfkc",
            pad_id=0,
            unk_id=1,
            bos_id=2,
            eos_id=3,
            minloglevel=2,  # the trainer's progress log stays quiet
        )
    except RuntimeError as error:  # the trainer's own checks (too small a vocabulary_size for the characters, ...)
        raise ValueError(f"compute_sentence_piece_proto(vocabulary_size={vocabulary_size}): {error}") from None
    if proto_output_file is None:
        return writer.getvalue()
    with atomic.atomic_file(proto_output_file) as tmp, open(tmp, "wb") as handle:
        handle.write(writer.getvalue())
    return None
