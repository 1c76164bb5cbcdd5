"""``WordPieceTokenizer``: BERT's tokenizer (basic pre-tokenization, then greedy longest-match WordPiece).

    tokenizer = WordPieceTokenizer(vocabulary=["[UNK]", "the", "qu", "##ick"], lowercase=True)
    tokenizer("The quick")                      # [1, 2, 3]
    tokenizer.detokenize([1, 2, 3])             # 'the quick'

Pre-tokenization is ``word_piece_splitting.pretokenize``; the WordPiece step
is TensorFlow Text's ``FastWordpieceTokenizer``, built once from the
vocabulary, whose model is a constant of the graph: the tokenizer runs in
``tf.data`` and in a SavedModel that ``tensorflow_text`` is imported beside.
"""

from __future__ import annotations

from typing import Any, Iterable

import tensorflow as tf

from tfkit.hub.layers.preprocessing_tensors import tensorflow_text
from tfkit.hub.tokenizers import asset_files, tensor_io
from tfkit.hub.tokenizers.tokenizer import Tokenizer
from tfkit.hub.tokenizers.word_piece_splitting import pretokenize
from tfkit.saving import register_keras_serializable

VOCAB_FILENAME = "vocabulary.txt"


@register_keras_serializable(package="keras_hub")
class WordPieceTokenizer(Tokenizer):
    """A WordPiece tokenizer layer, as BERT and KerasHub's `WordPieceTokenizer` tokenize.

    The layer pre-tokenizes its input (optionally lowercasing, stripping
    accents, and splitting on whitespace, punctuation and CJK characters),
    then splits each word into the longest pieces found in the vocabulary,
    pieces after the first carrying `suffix_indicator` (`"##ick"`); a word
    that cannot be split so (or is longer than 100 bytes) becomes
    `oov_token`. Pre-tokenization cannot be undone: `detokenize` joins words
    with a space.

    For a batch of strings the output is ragged (a Python list of lists when
    called eagerly), or a dense tensor padded with 0 and truncated to
    `sequence_length` when that is set; a single string gives one dense
    sequence. With `split=False` the input is taken as words already split
    (a tensor of words), and the output has one axis less.

    KerasHub 0.32 leaves `split_on_cjk` out of its config, so its configs
    rebuild with the default; tfkit writes it (KerasHub reads it back).

    Args:
        vocabulary: A list of token strings (the id of each is its
            position), or the path of a text file with one token a line.
            Defaults to `None` (set one later with `set_vocabulary` or
            `load_assets`).
        sequence_length: If set, outputs are padded or truncated to this
            length. Defaults to `None`.
        lowercase: Whether to case fold the input. Defaults to `False`.
        strip_accents: Whether to remove accent marks. Defaults to `False`.
        split: Whether to split the input on whitespace and punctuation
            (kept as tokens). Defaults to `True`.
        split_on_cjk: Whether CJK characters are words of their own (with
            `split` only). Defaults to `True`.
        suffix_indicator: The prefix of pieces that continue a word.
            Defaults to `"##"`.
        oov_token: The token for words that cannot be split into
            vocabulary pieces; it must be in the vocabulary. Defaults to
            `"[UNK]"`.
        special_tokens: Extra tokens kept whole when
            `special_tokens_in_strings` is `True`. Defaults to `None`.
        special_tokens_in_strings: Whether special tokens (the subclass's
            and `special_tokens`) written in the input strings are kept whole
            and mapped to their ids. Defaults to `False`.
        dtype: The output dtype: an integer type for ids, or `"string"` for
            the token strings. Defaults to `"int32"`.
        **kwargs: Tokenizer keyword arguments, such as `name`.

    Raises:
        ValueError: If `dtype` is not an integer type or `"string"`,
            `oov_token` is `None` or not in the vocabulary, or the vocabulary
            is neither a list nor a file path.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = ["[UNK]", "the", "qu", "##ick", "br", "##own", "fox", "."]
        >>> tokenizer = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=vocab, lowercase=True)
        >>> tokenizer("The quick brown fox.").numpy()
        array([1, 2, 3, 4, 5, 6, 7], dtype=int32)
        >>> tokenizer(["The fox.", "quick"])
        [[1, 6, 7], [2, 3]]
        >>> tokenizer.detokenize([1, 2, 3, 6])
        'the quick fox'
        >>> padded = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=vocab, sequence_length=5, lowercase=True)
        >>> padded(["The fox."]).numpy()
        array([[1, 6, 7, 0, 0]], dtype=int32)
    """

    def __init__(
        self,
        vocabulary: Any = None,
        sequence_length: int | None = None,
        lowercase: bool = False,
        strip_accents: bool = False,
        split: bool = True,
        split_on_cjk: bool = True,
        suffix_indicator: str = "##",
        oov_token: str = "[UNK]",
        special_tokens: list[str] | None = None,
        special_tokens_in_strings: bool = False,
        dtype: Any = "int32",
        **kwargs: Any,
    ) -> None:
        tensor_io.check_output_dtype(dtype, f"WordPieceTokenizer {kwargs.get('name') or ''}".strip())
        super().__init__(dtype=dtype, **kwargs)
        if oov_token is None:
            raise ValueError(f"{self._who()}: `oov_token` cannot be None")
        self.sequence_length = sequence_length
        self.lowercase = lowercase
        self.strip_accents = strip_accents
        self.split = split
        self.split_on_cjk = split_on_cjk
        self.suffix_indicator = suffix_indicator
        self.oov_token = oov_token
        self._init_special_tokens = special_tokens
        self.special_tokens_in_strings = special_tokens_in_strings
        self.set_vocabulary(vocabulary)
        self.file_assets = [VOCAB_FILENAME]

    # --------------------------------------------------------------- vocabulary

    def set_vocabulary(self, vocabulary: Any) -> None:
        """Sets the vocabulary: a list of token strings, a text file's path (one token a line), or `None`.

        Args:
            vocabulary: The tokens, in id order, or a file path.

        Raises:
            ValueError: If it is neither, or lacks `oov_token` or a special
                token.
        """
        if vocabulary is None:
            object.__setattr__(self, "vocabulary", None)
            object.__setattr__(self, "_token_to_id_map", None)
            self._fast_word_piece = None
            return
        what = f"{self._who()}: vocabulary"
        if isinstance(vocabulary, str):
            tokens = asset_files.read_lines(vocabulary, what)
        elif isinstance(vocabulary, Iterable) and not isinstance(vocabulary, (bytes, dict)):
            tokens = asset_files.checked_lines(vocabulary, what)
        else:
            raise ValueError(f"{what} must be a file path or a list of tokens, got {type(vocabulary).__name__}")
        if self.oov_token not in tokens:
            raise ValueError(
                f"{what} has no oov_token {self.oov_token!r}. Add {self.oov_token!r} to the vocabulary, or pass "
                f"the oov_token it has."
            )
        object.__setattr__(self, "vocabulary", tokens)  # a plain list: no tf.Module tracking wrapper
        object.__setattr__(self, "_token_to_id_map", {token: index for index, token in enumerate(tokens)})
        tf_text = tensorflow_text(type(self).__name__)
        with tf.init_scope():  # built eagerly, once: its model is a constant that graphs and exports capture
            self._fast_word_piece = tf_text.FastWordpieceTokenizer(
                vocab=tokens,
                suffix_indicator=self.suffix_indicator,
                token_out_type=tf.as_dtype(self.compute_dtype),
                unknown_token=self.oov_token,
                no_pretokenization=True,
                support_detokenization=True,
            )
        self._update_special_token_ids()

    def save_assets(self, dir_path: str) -> None:
        """Writes `vocabulary.txt` (one token a line) into folder `dir_path`, as KerasHub does.

        Args:
            dir_path: An existing folder.
        """
        asset_files.write_lines(f"{dir_path}/{VOCAB_FILENAME}", self.get_vocabulary())

    def load_assets(self, dir_path: str) -> None:
        """Reads the vocabulary from `vocabulary.txt` in folder `dir_path`.

        Args:
            dir_path: A folder holding `vocabulary.txt`.
        """
        self.set_vocabulary(f"{dir_path}/{VOCAB_FILENAME}")

    vocabulary_setter = "pass `vocabulary` when creating it, or call set_vocabulary()"

    def _vocabulary_tables(self) -> tuple[Any, Any, dict[str, int]] | None:
        if getattr(self, "vocabulary", None) is None:
            return None
        return self.vocabulary, self.vocabulary, self._token_to_id_map

    # ------------------------------------------------------------- tokenizing

    def _special_tokens_for_splitting(self) -> list[str] | None:
        if not (self.split and self.special_tokens_in_strings):
            return None
        return self.special_tokens + list(self._init_special_tokens or [])

    def tokenize(self, inputs: Any) -> Any:
        """Splits strings into WordPiece tokens (ids, or strings with `dtype="string"`).

        Args:
            inputs: A string, a list of strings, or a string tensor (of
                words, with `split=False`).

        Returns:
            Per string, its tokens: ragged (a list of lists when called
            eagerly), or dense with `sequence_length`; one sequence for a
            single string.

        Raises:
            ValueError: If no vocabulary is set or the inputs are not strings.
        """
        self._check_vocabulary()
        text = tensor_io.string_input(inputs, self._who())
        unbatched = text.shape.rank == 0
        with tf.device("/cpu:0"):
            words = pretokenize(
                text,
                self.lowercase,
                self.strip_accents,
                self.split,
                self.split_on_cjk,
                self._special_tokens_for_splitting(),
            )
            tokens = self._fast_word_piece.tokenize(words).merge_dims(-2, -1)
            pad = "" if tokens.dtype == tf.string else 0
            tokens = tensor_io.shaped_output(tokens, self.sequence_length, unbatched, pad)
        return self._returned(tokens)

    def detokenize(self, inputs: Any) -> Any:
        """Joins token ids back into text: pieces of a word joined, words separated by a space.

        Args:
            inputs: Token ids: an int, a list (of lists) of ints, or an
                integer tensor, dense or ragged.

        Returns:
            One string per sequence (a `str`, or a list of them when called
            eagerly).

        Raises:
            ValueError: If no vocabulary is set, the inputs are not integer
                ids, or an id is outside the vocabulary.
        """
        self._check_vocabulary()
        ids, rank = tensor_io.id_batch(inputs, self._who())
        ids = tensor_io.ids_in_range(ids, self.vocabulary_size(), self._who())
        with tf.device("/cpu:0"):
            text = self._fast_word_piece.detokenize(ids)
        return self._returned(tensor_io.unbatched_strings(text, rank))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The output's shape: the input's with a last axis of `sequence_length` (`None` when ragged).

        Args:
            input_shape: The shape of the string input.

        Returns:
            A shape tuple.
        """
        return (*tuple(input_shape), self.sequence_length)

    def get_config(self) -> dict[str, Any]:
        """The config: KerasHub's keys (with `vocabulary` `None`: it is saved as an asset), plus `split_on_cjk`.

        Returns:
            A dict, serializable to JSON.
        """
        return {
            **super().get_config(),
            "vocabulary": None,
            "sequence_length": self.sequence_length,
            "lowercase": self.lowercase,
            "strip_accents": self.strip_accents,
            "split": self.split,
            "split_on_cjk": self.split_on_cjk,
            "suffix_indicator": self.suffix_indicator,
            "oov_token": self.oov_token,
            "special_tokens": self._init_special_tokens,
            "special_tokens_in_strings": self.special_tokens_in_strings,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "WordPieceTokenizer":
        """Rebuilds the tokenizer from `get_config`'s output (a file path as `vocabulary` only out of safe mode).

        Args:
            config: A dict, as `get_config` returns it.

        Returns:
            A new tokenizer.

        Raises:
            ValueError: If the config names a vocabulary file and safe mode is
                on.
        """
        asset_files.refuse_path_in_safe_mode(config, ("vocabulary",), cls.__name__)
        return super().from_config(config)
