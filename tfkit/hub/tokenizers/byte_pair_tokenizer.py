"""``BytePairTokenizer``: GPT-2's byte-level byte-pair encoding, in TensorFlow ops.

    tokenizer = BytePairTokenizer(vocabulary={"Ġ": 0, "a": 1, ...}, merges=["Ġ a", ...])
    tokenizer(["a quick fox"])                 # [[...]]: ids, as KerasHub's tf.data path gives them
    tokenizer.detokenize([[...]])              # ['a quick fox']

Text is split into words (``byte_pair_splitting``), each word's bytes are
merged by rank (``byte_pair_merging``), and the merged tokens are looked up in
the vocabulary; ``detokenize`` joins the tokens' bytes. Everything is
TensorFlow ops and tables that the layer tracks, so the tokenizer runs in
``tf.data`` and in an exported SavedModel, eagerly giving the same ids.
"""

from __future__ import annotations

import json
from typing import Any

import tensorflow as tf

from tfkit.hub.tokenizers import asset_files, tensor_io
from tfkit.hub.tokenizers.byte_pair_merging import BytePairTables
from tfkit.hub.tokenizers.byte_pair_splitting import split_words
from tfkit.hub.tokenizers.tokenizer import Tokenizer
from tfkit.saving import register_keras_serializable

VOCAB_FILENAME = "vocabulary.json"
MERGES_FILENAME = "merges.txt"


@register_keras_serializable(package="keras_hub")
class BytePairTokenizer(Tokenizer):
    """Byte-pair encoding tokenizer layer, as GPT-2's and KerasHub's `BytePairTokenizer`.

    Given a `vocabulary` (token -> id) and `merges` (the merge rules, best
    first), the layer splits text into words with GPT-2's rules, maps each
    word's bytes to GPT-2's byte-level characters (a space is `"Ġ"`), merges
    adjacent tokens by rule rank, and outputs the tokens' ids (or strings,
    with `dtype="string"`). `detokenize` turns ids back into the exact text.

    The ids are those KerasHub 0.32's tokenizer gives in `tf.data` (its
    TensorFlow path). KerasHub's eager calls run the Hugging Face
    `tokenizers` library with Llama 3's split pattern instead, and differ on
    some whitespace runs and digit runs; tfkit gives one answer everywhere.

    For a batch of strings the output is ragged (a Python list of lists when
    called eagerly), or a dense tensor padded with 0 and truncated to
    `sequence_length` when that is set; a single string gives one dense
    sequence.

    Args:
        vocabulary: A dict from token strings to integer ids, or the path of
            a JSON file holding one. Defaults to `None` (set one later with
            `set_vocabulary_and_merges` or `load_assets`).
        merges: A list of merge rules (`"Ġ t"`: two tokens and a space),
            best first, or the path of a text file with one rule a line.
            Defaults to `None`.
        sequence_length: If set, outputs are padded or truncated to this
            length. Defaults to `None`.
        add_prefix_space: Whether to add a space before each input, so that
            its first word tokenizes as the following ones do. Defaults to
            `False`.
        unsplittable_tokens: Strings never split by the word splitting
            (special tokens such as `"<|endoftext|>"`); they must be in the
            vocabulary. Defaults to `None`: the tokenizer's
            `special_tokens`.
        dtype: The output dtype: an integer type for ids, or `"string"` for
            the token strings. Defaults to `"int32"`.
        **kwargs: Tokenizer keyword arguments, such as `name`.

    Raises:
        ValueError: If `dtype` is not an integer type or `"string"`, or the
            vocabulary or merges are not valid (a merge naming a token the
            vocabulary lacks).

    Example:
        >>> import tfkit.hub as keras_hub
        >>> merges = ["b u", "t t", "e r", "bu tt", "butt er", "f l", "fl y"]
        >>> tokens = sorted({t for m in merges for t in (*m.split(" "), m.replace(" ", ""))})
        >>> vocab = {token: i for i, token in enumerate(tokens)}
        >>> tokenizer = keras_hub.tokenizers.BytePairTokenizer(vocab, merges)
        >>> tokenizer("butterfly").numpy()
        array([3, 8], dtype=int32)
        >>> tokenizer(["butterfly", "butter"])
        [[3, 8], [3]]
        >>> tokenizer.detokenize([[3, 8]])
        ['butterfly']
        >>> padded = keras_hub.tokenizers.BytePairTokenizer(vocab, merges, sequence_length=3)
        >>> padded(["butterfly"]).numpy()
        array([[3, 8, 0]], dtype=int32)
    """

    def __init__(
        self,
        vocabulary: Any = None,
        merges: Any = None,
        sequence_length: int | None = None,
        add_prefix_space: bool = False,
        unsplittable_tokens: list[str] | None = None,
        dtype: Any = "int32",
        **kwargs: Any,
    ) -> None:
        tensor_io.check_output_dtype(dtype, f"BytePairTokenizer {kwargs.get('name') or ''}".strip())
        super().__init__(dtype=dtype, **kwargs)
        self.sequence_length = sequence_length
        self.add_prefix_space = add_prefix_space
        if unsplittable_tokens is None:
            unsplittable_tokens = self.special_tokens
        object.__setattr__(self, "unsplittable_tokens", list(unsplittable_tokens))
        self.file_assets = [VOCAB_FILENAME, MERGES_FILENAME]
        self.set_vocabulary_and_merges(vocabulary, merges)

    # --------------------------------------------------------------- vocabulary

    def set_vocabulary_and_merges(self, vocabulary: Any, merges: Any) -> None:
        """Sets the vocabulary and merge rules, from data or files; either `None` clears both.

        Args:
            vocabulary: A token -> id dict, or a JSON file's path.
            merges: A list of merge rules, or a text file's path.

        Raises:
            ValueError: If they are not valid.
        """
        if vocabulary is None or merges is None:
            for name in ("vocabulary", "merges", "_id_to_token_map"):
                object.__setattr__(self, name, None)
            self._tables = None
            return
        who = self._who()
        if isinstance(vocabulary, str):
            vocabulary = asset_files.read_vocabulary_json(vocabulary, f"{who}: vocabulary")
        else:
            vocabulary = asset_files.checked_vocabulary(vocabulary, f"{who}: vocabulary")
        if isinstance(merges, str):
            merges = asset_files.read_lines(merges, f"{who}: merges")
        else:
            merges = asset_files.checked_lines(merges, f"{who}: merges")
        tables = BytePairTables(vocabulary, merges, self.unsplittable_tokens, who)
        object.__setattr__(self, "vocabulary", vocabulary)  # plain containers: no tf.Module tracking wrappers
        object.__setattr__(self, "merges", merges)
        id_to_token: dict[int, str] = {}
        for token, index in vocabulary.items():
            id_to_token.setdefault(index, token)
        object.__setattr__(self, "_id_to_token_map", id_to_token)
        self._tables = tables
        self._update_special_token_ids()

    def save_assets(self, dir_path: str) -> None:
        """Writes `vocabulary.json` and `merges.txt` into folder `dir_path`, as KerasHub does.

        Args:
            dir_path: An existing folder.
        """
        self._check_vocabulary()
        with open(f"{dir_path}/{VOCAB_FILENAME}", "w", encoding="utf-8") as handle:
            handle.write(json.dumps(dict(self.vocabulary)))
        asset_files.write_lines(f"{dir_path}/{MERGES_FILENAME}", self.merges)

    def load_assets(self, dir_path: str) -> None:
        """Reads the vocabulary and merges from `vocabulary.json` and `merges.txt` in folder `dir_path`.

        Args:
            dir_path: A folder holding the two files.
        """
        self.set_vocabulary_and_merges(f"{dir_path}/{VOCAB_FILENAME}", f"{dir_path}/{MERGES_FILENAME}")

    vocabulary_setter = "pass `vocabulary` and `merges` when creating it, or call set_vocabulary_and_merges()"

    def _vocabulary_tables(self) -> tuple[Any, Any, dict[str, int]] | None:
        if getattr(self, "vocabulary", None) is None:
            return None
        return self.vocabulary, self._id_to_token_map, self.vocabulary

    # ------------------------------------------------------------- tokenizing

    def tokenize(self, inputs: Any) -> Any:
        """Splits strings into byte-pair tokens (ids, or strings with `dtype="string"`).

        Args:
            inputs: A string, a list of strings, or a string tensor of rank
                0 or 1.

        Returns:
            Per string, its tokens: ragged (a list of lists when called
            eagerly), or dense with `sequence_length`; one sequence for a
            single string.

        Raises:
            ValueError: If no vocabulary is set, or the inputs are not
                strings of rank 0 or 1.
        """
        self._check_vocabulary()
        text = tensor_io.string_input(inputs, self._who())
        if text.shape.rank is None or text.shape.rank > 1 or isinstance(text, tf.RaggedTensor):
            raise ValueError(f"{self._who()}: tokenize() takes a string or a 1-D batch of strings, got {text.shape}")
        unbatched = text.shape.rank == 0
        with tf.device("/cpu:0"):
            if self.add_prefix_space:
                text = tf.strings.join([" ", text])
            if unbatched:
                text = tf.expand_dims(text, 0)
            words = split_words(text, self.unsplittable_tokens)
            symbols = self._tables.encode(words.flat_values)
            if tensor_io.is_string_dtype(self.compute_dtype):
                tokens, pad = self._tables.symbol_strings(symbols), ""
            else:
                tokens, pad = tf.cast(self._tables.symbol_ids(symbols), self.compute_dtype), 0
            splits = tf.gather(tokens.row_splits, words.row_splits)  # tokens per string: its words' tokens
            tokens = tf.RaggedTensor.from_row_splits(tokens.flat_values, splits, validate=False)
            tokens = tensor_io.shaped_output(tokens, self.sequence_length, unbatched, pad)
        return self._returned(tokens)

    def detokenize(self, inputs: Any) -> Any:
        """Turns token ids back into text (ids not in the vocabulary add nothing).

        Args:
            inputs: Token ids: an int, a list (of lists) of ints, or an
                integer tensor, dense or ragged.

        Returns:
            One string per sequence (a `str`, or a list of them when called
            eagerly).

        Raises:
            ValueError: If no vocabulary is set or the inputs are not integer
                ids.
        """
        self._check_vocabulary()
        ids, rank = tensor_io.id_batch(inputs, self._who())
        with tf.device("/cpu:0"):
            text = self._tables.decode(ids)
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
        """The config: KerasHub's keys (the vocabulary and merges are saved as assets, not here).

        Returns:
            A dict, serializable to JSON.
        """
        return {
            **super().get_config(),
            "sequence_length": self.sequence_length,
            "add_prefix_space": self.add_prefix_space,
            "unsplittable_tokens": list(self.unsplittable_tokens),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "BytePairTokenizer":
        """Rebuilds the tokenizer from `get_config`'s output (file paths as `vocabulary` or `merges` only out of
        safe mode).

        Args:
            config: A dict, as `get_config` returns it.

        Returns:
            A new tokenizer.

        Raises:
            ValueError: If the config names a vocabulary or merges file and
                safe mode is on.
        """
        asset_files.refuse_path_in_safe_mode(config, ("vocabulary", "merges"), cls.__name__)
        return super().from_config(config)
