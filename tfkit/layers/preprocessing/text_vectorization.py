"""``TextVectorization``: raw strings to token indices (or multi-hot / count / tf-idf vectors) inside the graph.

    vectorize = tfkit.layers.TextVectorization(max_tokens=20000, output_sequence_length=200)
    vectorize.adapt(texts)                               # a list, an array or a dataset of strings
    model = tfkit.Sequential([tfkit.Input((1,), dtype="string"), vectorize, ...])

Standardization (``"lower_and_strip_punctuation"``, ``"lower"``,
``"strip_punctuation"`` or None) and splitting (``"whitespace"``,
``"character"`` or None) are TensorFlow string ops, so exports take raw text.
Index 0 is padding and 1 the out-of-vocabulary token, as in Keras; in the
"multi_hot", "count" and "tf_idf" modes there is no padding index (the OOV
token is 0, empty tokens are left out, as Keras's mask token ``""``), each text
gives one ``(depth,)`` vector, and with "tf_idf" each text is one document for
``adapt``'s idf weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.layer import Layer
from tfkit.layers.preprocessing.categorical import current_output_mode
from tfkit.layers.preprocessing.index_lookup import StringLookup, check_idf_arguments, refuse_vocabulary_path

__all__ = ["TextVectorization"]
_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


@registry.builtin("layers")
class TextVectorization(Layer):
    """A preprocessing layer which maps text features to integer sequences.

    This layer has basic options for managing text in a model. It
    transforms a batch of strings (one example = one string) into either a
    list of token indices (one example = 1D tensor of integer token indices)
    or a dense representation (one example = 1D tensor of float values
    representing data about the example's tokens).

    The vocabulary for the layer must be either supplied on construction or
    learned via `adapt()`. When this layer is adapted, it analyzes the
    dataset, determines the frequency of individual string values, and
    creates a vocabulary from them. The processing of each example contains
    the following steps:

    1. Standardize each example (usually lowercasing + punctuation
       stripping).
    2. Split each example into substrings (usually words).
    3. Recombine substrings into tokens (usually n-grams).
    4. Index tokens (associate a unique int value with each token).
    5. Transform each example using this index, either into a vector of ints
       or a dense float vector.

    Standardization and splitting are TensorFlow string ops, so exports take
    raw text. Index 0 is padding and 1 the out-of-vocabulary (OOV) token, as
    in Keras; in the `"multi_hot"`, `"count"` and `"tf_idf"` modes there is
    no padding index (the OOV token is 0 and empty tokens are left out), and
    each text gives one vector.

    Args:
        max_tokens: Maximum size of the vocabulary for this layer, including
            the padding and OOV tokens. This should only be specified when
            adapting a vocabulary or when setting `pad_to_max_tokens=True`.
            If `None`, there is no cap on the size of the vocabulary.
            Defaults to `None`.
        standardize: Optional specification for standardization to apply to
            the input text: `None` (no standardization), `"lower"`,
            `"strip_punctuation"`, `"lower_and_strip_punctuation"`, or a
            callable taking and returning a string tensor (such a layer
            cannot be saved in a config). Defaults to
            `"lower_and_strip_punctuation"`.
        split: Optional specification for splitting the input text: `None`
            (no splitting: each text is one token), `"whitespace"`,
            `"character"` (Unicode characters), or a callable taking a string
            tensor and returning a ragged tensor of tokens. Defaults to
            `"whitespace"`.
        ngrams: Optional positive integer. If set, the layer creates all
            n-grams from 1 up to `ngrams` (joined by a space). Only an
            integer is supported (not Keras's tuple form). Defaults to
            `None`.
        output_mode: Optional specification for the output of the layer.
            Values can be `"int"`, `"multi_hot"`, `"count"` or `"tf_idf"`,
            configuring the layer as follows:

            - `"int"`: outputs integer indices, one integer index per split
              string token, padded with 0 to the longest text (or to
              `output_sequence_length`).
            - `"multi_hot"`: outputs a single int array per text, of either
              vocabulary size or `max_tokens` size, containing 1s in all
              elements where the token mapped to that index exists at least
              once in the text.
            - `"count"`: like `"multi_hot"`, but the int array contains a
              count of the number of times the token at that index appeared
              in the text.
            - `"tf_idf"`: like `"multi_hot"`, but the TF-IDF algorithm is
              applied to find the value in each token slot (each text is one
              document for `adapt()`'s idf weights).

            Keras's older names are taken too: `"binary"` for `"multi_hot"`
            and `"tf-idf"` for `"tf_idf"` (the layer and its config then hold
            the current name). Defaults to `"int"`.
        output_sequence_length: Only valid in `"int"` mode. If set, the
            output has its time dimension padded or truncated to exactly
            `output_sequence_length` values. Defaults to `None`.
        pad_to_max_tokens: Only valid in `"multi_hot"`, `"count"` and
            `"tf_idf"` modes. If `True`, the output has its feature axis
            padded to `max_tokens` even if the number of unique tokens in the
            vocabulary is less than `max_tokens`. Defaults to `False`.
        vocabulary: Optional. Either an array of strings or a string path to
            a text file (one token per line). If this argument is set, there
            is no need to `adapt()` the layer. Defaults to `None`.
        idf_weights: Only valid (and then required with a `vocabulary`) when
            `output_mode` is `"tf_idf"`: an array of the same length as the
            vocabulary, containing the inverse document frequency weights.
            Defaults to `None`.
        sparse: Must be `False`: sparse outputs are not supported by tfkit.
            Defaults to `False`.
        ragged: Must be `False`: ragged outputs are not supported by tfkit
            (it works with dense tensors). Defaults to `False`.
        encoding: Text encoding of the inputs, kept in the config for Keras
            compatibility. Defaults to `"utf-8"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor, array or list of strings: `(batch_size,)` or
            `(batch_size, 1)` texts, or a single scalar text.

    Input shape:
        `(batch_size,)` or `(batch_size, 1)`.

    Output shape:
        `(batch_size, sequence_length)` int64 indices in `"int"` mode
        (`sequence_length` is `output_sequence_length` when set);
        `(batch_size, vocab_size)` floats in the other modes.

    Raises:
        ValueError: If `standardize`, `split` or `output_mode` is unknown,
            `ngrams` is not a positive int, `sparse` or `ragged` is `True`,
            `idf_weights` do not fit `output_mode` and `vocabulary`, or the
            vocabulary is invalid (too large for `max_tokens`, repeated
            terms).
        RuntimeError: On a call in `"multi_hot"`, `"count"` or `"tf_idf"`
            mode before there is a vocabulary (unless `pad_to_max_tokens=True`
            fixes the width); a model can be defined before `adapt()`, as in
            Keras, with an unknown last axis.

    Example:
        >>> layer = tfkit.layers.TextVectorization(output_sequence_length=4)
        >>> layer.adapt(["The cat sat.", "The dog sat on the cat!"])
        >>> layer.get_vocabulary()
        ['', '[UNK]', 'the', 'sat', 'cat', 'on', 'dog']
        >>> layer(["the cat ran", "The dog sat on the mat"]).numpy()
        array([[2, 4, 1, 0],
               [2, 6, 3, 5]])

        With a given vocabulary, counting tokens:

        >>> layer = tfkit.layers.TextVectorization(vocabulary=["a", "b"], output_mode="count")
        >>> layer(["a b a c"]).numpy()
        array([[1., 2., 1.]], dtype=float32)
    """

    def __init__(
        self,
        max_tokens: int | None = None,
        standardize: Any = "lower_and_strip_punctuation",
        split: Any = "whitespace",
        ngrams: int | None = None,
        output_mode: str = "int",
        output_sequence_length: int | None = None,
        pad_to_max_tokens: bool = False,
        vocabulary: Any = None,
        idf_weights: Any = None,
        sparse: bool = False,
        ragged: bool = False,
        encoding: str = "utf-8",
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        who = f"TextVectorization layer '{self.name}'"
        if standardize not in ("lower_and_strip_punctuation", "lower", "strip_punctuation", None) and not callable(
            standardize
        ):
            raise ValueError(f"{who}: unknown standardize {standardize!r}")
        if split not in ("whitespace", "character", None) and not callable(split):
            raise ValueError(f"{who}: unknown split {split!r}")
        output_mode = current_output_mode(output_mode)  # Keras's older names: "binary", "tf-idf"
        if output_mode not in ("int", "multi_hot", "count", "tf_idf"):
            raise ValueError(f"{who}: output_mode must be 'int', 'multi_hot', 'count' or 'tf_idf', got {output_mode!r}")
        check_idf_arguments(output_mode, vocabulary, idf_weights, who)
        if ragged or sparse:
            raise ValueError(f"{who}: ragged and sparse outputs are not supported (tfkit works with dense tensors)")
        if ngrams is not None and (not isinstance(ngrams, int) or ngrams < 1):
            raise ValueError(f"{who}: ngrams must be a positive int or None, got {ngrams!r}")
        self.max_tokens, self.standardize, self.split, self.ngrams = max_tokens, standardize, split, ngrams
        self.output_mode, self.output_sequence_length = output_mode, output_sequence_length
        self.pad_to_max_tokens, self.encoding = pad_to_max_tokens, encoding
        self.lookup = StringLookup(
            max_tokens=max_tokens,
            mask_token="",  # as Keras: "" has index 0 only in "int" mode
            output_mode=output_mode,
            pad_to_max_tokens=pad_to_max_tokens,
            name=f"{self.name}_lookup",
        )
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        self.built = True

    def _tokens(self, inputs: tf.Tensor) -> tf.RaggedTensor:
        text = tf.convert_to_tensor(inputs)
        if text.shape.rank == 2 and text.shape[-1] == 1:
            text = tf.squeeze(text, -1)
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            text = tf.strings.lower(text)
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            text = tf.strings.regex_replace(text, _PUNCTUATION, "")
        elif callable(self.standardize):
            text = self.standardize(text)
        if self.split == "whitespace":
            tokens = tf.strings.split(text)
        elif self.split == "character":
            tokens = tf.strings.unicode_split(text, "UTF-8")
        elif callable(self.split):
            tokens = self.split(text)
        else:
            tokens = tf.RaggedTensor.from_tensor(tf.expand_dims(text, -1))
        if self.ngrams:
            tokens = tf.concat([tf.strings.ngrams(tokens, n, separator=" ") for n in range(1, self.ngrams + 1)], 1)
        return tokens

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Build the vocabulary from ``data`` (strings; a dataset of batches of strings)."""
        batches = data if isinstance(data, tf.data.Dataset) else [np.asarray(data, dtype=object).astype(str)]
        tokens = []
        for step, batch in enumerate(batches):
            if steps is not None and step >= steps:
                break
            tokens.append(self._tokens(batch))
        if self.output_mode == "tf_idf":  # each text (a row of a batch) is one document
            self.lookup.adapt(batch for batch in tokens)
            return
        tokens = [batch.flat_values.numpy() for batch in tokens]
        self.lookup.adapt(np.concatenate(tokens) if tokens else np.array([], dtype=object))

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[str]:
        return self.lookup.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        return self.lookup.vocabulary_size()

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        try:
            self.lookup.set_vocabulary(vocabulary, idf_weights)
        except ValueError as error:  # name this layer, not only its inner lookup
            raise ValueError(f"TextVectorization layer '{self.name}': {error}") from None

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "TextVectorization":
        refuse_vocabulary_path(cls, config)
        return super().from_config(config)

    def call(self, inputs: Any) -> tf.Tensor:
        tokens = self._tokens(inputs)
        indices = tf.ragged.map_flat_values(self.lookup.lookup_indices, tokens)
        if self.output_mode == "int":
            length = self.output_sequence_length
            if length is None:
                return indices.to_tensor(0)
            return tf.ensure_shape(indices.to_tensor(0, shape=[None, length]), [None, length])
        # each text's tokens are one sample: (batch,) or (batch, 1) texts give (batch, depth), a scalar (depth,).
        # (Keras 3's call gives one summed vector for a (batch,) input with split=None, and its
        # compute_output_shape says (batch, 1, depth) for (batch, 1) texts while its call gives (batch, depth);
        # tfkit keeps one vector per text, as Keras documents.)
        return self.lookup.encode(indices)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self.output_mode == "int":
            return (input_shape[0], self.output_sequence_length)
        return (input_shape[0], self.lookup.output_depth()) if tuple(input_shape) else (self.lookup.output_depth(),)

    def get_config(self) -> dict[str, Any]:
        for what, value in (("standardize", self.standardize), ("split", self.split)):
            if callable(value):
                raise NotImplementedError(
                    f"TextVectorization layer '{self.name}': a callable {what} cannot be saved in a config "
                    f"(configs are data, never code); use one of the built-in {what} names"
                )
        vocabulary, idf_weights = self.lookup.get_vocabulary(include_special_tokens=False) or None, None
        if self.output_mode == "tf_idf":  # the lookup's: the whole vocabulary and a weight for each entry
            lookup = self.lookup.get_config()
            vocabulary, idf_weights = lookup["vocabulary"], lookup["idf_weights"]
        return {
            **Layer.get_config(self),
            "max_tokens": self.max_tokens,
            "standardize": self.standardize,
            "split": self.split,
            "ngrams": self.ngrams,
            "output_mode": self.output_mode,
            "output_sequence_length": self.output_sequence_length,
            "pad_to_max_tokens": self.pad_to_max_tokens,
            "vocabulary": vocabulary,
            "idf_weights": idf_weights,
            "sparse": False,
            "ragged": False,
            "encoding": self.encoding,
        }
