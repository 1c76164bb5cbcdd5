"""``StringLookup`` and ``IntegerLookup``: map tokens to indices (and back) with a vocabulary.

    lookup = tfkit.layers.StringLookup()
    lookup.adapt(["a", "b", "a", "c"])       # vocabulary by frequency: ['[UNK]', 'a', 'b', 'c']
    lookup(tf.constant(["a", "z"]))          # [1, 0]: unknown tokens go to the OOV index

Index layout as in Keras: the mask token (if any) is 0, then ``num_oov_indices``
out-of-vocabulary slots, then the vocabulary. The vocabulary is part of the
layer's config, so it is saved with the model; the lookup is a TensorFlow hash
table, so exports carry it.
"""

from __future__ import annotations

import collections
import os
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.layer import Layer
from tfkit.layers.preprocessing.vocabulary_rules import vocabulary_terms

__all__ = ["StringLookup", "IntegerLookup"]
_MODES = ("int", "one_hot", "multi_hot", "count")


class IndexLookup(Layer):
    """Shared by the string and integer lookups; ``key_dtype`` is tf.string or tf.int64."""

    key_dtype = tf.string

    def __init__(self, max_tokens: int | None = None, num_oov_indices: int = 1, mask_token: Any = None,
                 oov_token: Any = None, vocabulary: Any = None, idf_weights: Any = None, invert: bool = False,
                 output_mode: str = "int", pad_to_max_tokens: bool = False, sparse: bool = False,
                 oov_method: str = "floormod", salt: Any = None, **kwargs: Any) -> None:
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        who = f"{type(self).__name__} layer '{self.name}'"
        if output_mode not in _MODES:
            raise ValueError(f"{who}: output_mode must be one of {_MODES} (tf_idf is not implemented), "
                             f"got {output_mode!r}")
        if sparse:
            raise ValueError(f"{who}: sparse=True is not supported (tfkit works with dense tensors)")
        if invert and output_mode != "int":
            raise ValueError(f"{who}: invert=True needs output_mode='int', got {output_mode!r}")
        if idf_weights is not None:
            raise ValueError(f"{who}: idf_weights (output_mode='tf_idf') is not implemented")
        self.oov_method, self.salt = oov_method_and_salt(oov_method, salt, self.key_dtype, who)
        self.max_tokens, self.num_oov_indices = max_tokens, int(num_oov_indices)
        self.mask_token, self.oov_token = mask_token, oov_token
        self.invert, self.output_mode, self.pad_to_max_tokens = invert, output_mode, pad_to_max_tokens
        self._tfkit_vocabulary: list[Any] = []
        self._tfkit_tables: tuple[Any, Any] | None = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)

    # -- vocabulary

    def _special(self) -> list[Any]:
        mask = [] if self.mask_token is None else [self.mask_token]
        return mask + [self.oov_token] * self.num_oov_indices

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[Any]:
        return (self._special() if include_special_tokens else []) + list(self._tfkit_vocabulary)

    def vocabulary_size(self) -> int:
        return len(self._special()) + len(self._tfkit_vocabulary)

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """The tokens (a list or array), or a text file's path with one token per line, as in Keras."""
        if isinstance(vocabulary, (str, os.PathLike)):
            vocabulary = read_vocabulary_file(vocabulary, f"{type(self).__name__} layer '{self.name}'")
        tokens = [self._token(t) for t in (np.asarray(vocabulary).ravel().tolist()
                                            if not isinstance(vocabulary, list) else vocabulary)]
        tokens = vocabulary_terms(tokens, self._special(), self.mask_token, self.oov_token, self.invert,
                                  f"{type(self).__name__} layer '{self.name}'")
        if self.max_tokens is not None and len(tokens) + len(self._special()) > self.max_tokens:
            tokens = tokens[: self.max_tokens - len(self._special())]
        self._tfkit_vocabulary = tokens
        self._tfkit_tables = None

    def _token(self, value: Any) -> Any:
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "IndexLookup":
        refuse_vocabulary_path(cls, config)
        return super().from_config(config)

    def adapt(self, data: Any, steps: int | None = None) -> None:
        """The vocabulary from ``data``: tokens by descending frequency (ties in descending token order, as Keras)."""
        counts: collections.Counter = collections.Counter()
        batches = data if isinstance(data, tf.data.Dataset) else [data]
        for step, batch in enumerate(batches):
            if steps is not None and step >= steps:
                break
            counts.update(self._token(v) for v in _flat_tokens(batch))
        for token in self._special():
            counts.pop(token, None)
        ordered = [token for token, _ in sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)]
        self.set_vocabulary(ordered)

    # -- lookup

    def _keys(self, tokens: list[Any]) -> tf.Tensor:
        return tf.constant(tokens, dtype=self.key_dtype)

    def _tables(self) -> tuple[Any, Any]:
        if self._tfkit_tables is None:
            with tf.init_scope():
                offset = len(self._special())
                vocabulary = self._tfkit_vocabulary
                values = tf.range(offset, offset + len(vocabulary), dtype=tf.int64)
                forward = tf.lookup.StaticHashTable(
                    tf.lookup.KeyValueTensorInitializer(self._keys(vocabulary or [self._placeholder()]),
                                                        values if vocabulary else tf.constant([-1], tf.int64)), -1)
                inverse_keys = tf.range(len(self._special()) + len(vocabulary), dtype=tf.int64)
                inverse = tf.lookup.StaticHashTable(
                    tf.lookup.KeyValueTensorInitializer(inverse_keys, self._keys(self.get_vocabulary())),
                    self._keys([self.oov_token])[0])
            self._tfkit_tables = (forward, inverse)
            self._tfkit_forward, self._tfkit_inverse = forward, inverse
            self.lookup_table, self.inverse_table = forward, inverse   # tracked: exports carry the tables
        return self._tfkit_tables

    def _placeholder(self) -> Any:
        return "\x00tfkit-empty\x00"

    def call(self, inputs: Any) -> tf.Tensor:
        inputs = tf.convert_to_tensor(inputs)
        if self.invert:
            return self._tables()[1].lookup(tf.cast(inputs, tf.int64))
        indices = self.lookup_indices(inputs)
        if self.output_mode == "int":
            return indices
        depth = self.max_tokens if self.pad_to_max_tokens and self.max_tokens else self.vocabulary_size()
        hot = tf.one_hot(indices, depth, dtype=tf.float32)
        if self.output_mode == "one_hot" or len(indices.shape) <= 1:
            return hot
        combined = tf.reduce_sum(hot, axis=-2)
        return tf.minimum(combined, 1.0) if self.output_mode == "multi_hot" else combined

    def lookup_indices(self, inputs: Any) -> tf.Tensor:
        """The int64 index of every token (mask 0, OOV slots, then the vocabulary), whatever ``output_mode`` is."""
        forward, _ = self._tables()
        inputs = tf.convert_to_tensor(inputs)
        keys = tf.cast(inputs, self.key_dtype) if self.key_dtype != tf.string else inputs
        indices = forward.lookup(keys)
        mask_offset = 0 if self.mask_token is None else 1
        if self.num_oov_indices > 1:
            oov = mask_offset + self._oov_buckets(keys)
        else:
            oov = tf.fill(tf.shape(indices), tf.cast(mask_offset, tf.int64))
        if self.num_oov_indices == 0:    # as Keras: unseen tokens are an error, not index 0
            unseen = tf.gather_nd(inputs, tf.where(indices < 0))
            check = tf.debugging.Assert(tf.equal(tf.size(unseen), 0), [tf.strings.format(
                f"{type(self).__name__} layer '{self.name}': with num_oov_indices=0 every input must be in the "
                f"vocabulary; found out-of-vocabulary values {{}}. Set num_oov_indices=1 to map them to an OOV "
                f"index.", (unseen,))])
            with tf.control_dependencies([check]):
                indices = tf.identity(indices)
        indices = tf.where(indices < 0, oov, indices)
        if self.mask_token is not None:
            indices = tf.where(tf.equal(keys, self._keys([self.mask_token])[0]), tf.zeros_like(indices), indices)
        return indices

    def _oov_buckets(self, keys: tf.Tensor) -> tf.Tensor:
        """Keras's OOV slot of each key: ``key % n`` for integers (``oov_method="floormod"``), else FarmHash64 of
        its text, or SipHash64 keyed by ``salt``."""
        if self.key_dtype != tf.string and self.oov_method != "farmhash":
            return tf.math.floormod(keys, tf.cast(self.num_oov_indices, keys.dtype))
        text = keys if self.key_dtype == tf.string else tf.strings.as_string(keys)
        if self.salt is not None:
            return tf.strings.to_hash_bucket_strong(text, self.num_oov_indices, key=self.salt)
        return tf.strings.to_hash_bucket_fast(text, self.num_oov_indices)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if self.mask_token is None or self.output_mode != "int" or self.invert:
            return None
        return tf.not_equal(tf.convert_to_tensor(inputs), self._keys([self.mask_token])[0])

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "max_tokens": self.max_tokens, "num_oov_indices": self.num_oov_indices,
                "mask_token": self.mask_token, "oov_token": self.oov_token, "invert": self.invert,
                "output_mode": self.output_mode, "pad_to_max_tokens": self.pad_to_max_tokens, "sparse": False,
                "vocabulary": self._saved_vocabulary(), "idf_weights": None, "oov_method": self.oov_method,
                "salt": self.salt}

    def _saved_vocabulary(self) -> list[Any]:
        """The terms; with the special tokens before them when the terms themselves start like the special block
        (an OOV token kept as a term), so that loading strips exactly the special block again."""
        terms, special = list(self._tfkit_vocabulary), self._special()
        return special + terms if special and terms[:len(special)] == special else terms


@registry.builtin("layers")
class StringLookup(IndexLookup):
    """Strings to indices (``invert=True``: indices to strings); OOV token ``"[UNK]"``."""

    key_dtype = tf.string

    def __init__(self, max_tokens: int | None = None, num_oov_indices: int = 1, mask_token: str | None = None,
                 oov_token: str = "[UNK]", vocabulary: Any = None, idf_weights: Any = None, invert: bool = False,
                 output_mode: str = "int", pad_to_max_tokens: bool = False, sparse: bool = False,
                 encoding: str = "utf-8", salt: Any = None, **kwargs: Any) -> None:
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, pad_to_max_tokens, sparse, salt=salt, **kwargs)
        self.encoding = encoding

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "encoding": self.encoding}


@registry.builtin("layers")
class IntegerLookup(IndexLookup):
    """Integers to indices (``invert=True``: back); OOV token ``-1``."""

    key_dtype = tf.int64

    def __init__(self, max_tokens: int | None = None, num_oov_indices: int = 1, mask_token: int | None = None,
                 oov_token: int = -1, vocabulary: Any = None, idf_weights: Any = None, invert: bool = False,
                 output_mode: str = "int", pad_to_max_tokens: bool = False, sparse: bool = False,
                 vocabulary_dtype: str = "int64", **kwargs: Any) -> None:
        if vocabulary_dtype != "int64":
            raise ValueError(f"IntegerLookup: only vocabulary_dtype='int64' is supported (as in Keras), "
                             f"got {vocabulary_dtype!r}")
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, pad_to_max_tokens, sparse, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "vocabulary_dtype": "int64"}

    def _token(self, value: Any) -> Any:
        return int(value)

    def _placeholder(self) -> Any:
        return -(2 ** 62)

    def call(self, inputs: Any) -> tf.Tensor:
        return super().call(tf.cast(tf.convert_to_tensor(inputs), tf.int64) if not self.invert else inputs)


def oov_method_and_salt(oov_method: Any, salt: Any, key_dtype: tf.DType, who: str) -> tuple[str, list[int] | None]:
    """Keras's checks: ``oov_method`` is "floormod" or "farmhash"; ``salt`` (an int or two) needs "farmhash" for
    integer keys (strings are always hashed) and becomes the two-part SipHash key."""
    if oov_method not in ("floormod", "farmhash"):
        raise ValueError(f"{who}: oov_method must be 'floormod' or 'farmhash', got {oov_method!r}")
    if salt is None:
        return oov_method, None
    if key_dtype != tf.string and oov_method != "farmhash":
        raise ValueError(f"{who}: salt can only be used with oov_method='farmhash', got oov_method={oov_method!r}")
    if isinstance(salt, (tuple, list)) and len(salt) == 2 and all(isinstance(v, int) for v in salt):
        return oov_method, [int(v) for v in salt]
    if isinstance(salt, int) and not isinstance(salt, bool):
        return oov_method, [salt, salt]
    raise ValueError(f"{who}: salt must be an integer or a pair of integers, got {salt!r}")


def read_vocabulary_file(path: Any, who: str) -> list[str]:
    """The lines of a UTF-8 text file, one token each (Keras's vocabulary files)."""
    try:
        with open(os.fspath(path), encoding="utf-8") as handle:
            return [line.rstrip("\r\n") for line in handle if line.rstrip("\r\n")]
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{who}: cannot read the vocabulary file {os.fspath(path)!r} ({error}); "
                         f"expected a UTF-8 text file with one token per line") from error


def refuse_vocabulary_path(cls: type, config: dict[str, Any]) -> None:
    """A saved config names its tokens; a file path there would make loading read files a model file names."""
    if isinstance(config.get("vocabulary"), str):
        raise ValueError(
            f"{cls.__name__} config: 'vocabulary' is a file path ({config['vocabulary']!r}), not a list of tokens. "
            f"tfkit never reads files that a saved config names; save the model with its vocabulary as a list "
            f"(tfkit and Keras 3 archives do), or set it after loading with layer.set_vocabulary(path).")


def _flat_tokens(batch: Any) -> list[Any]:
    """Every token of an adapt batch: the terms of a ragged or sparse tensor, not its rows."""
    if isinstance(batch, tf.RaggedTensor):
        batch = batch.flat_values
    elif isinstance(batch, tf.SparseTensor):
        batch = batch.values
    values = batch.numpy() if hasattr(batch, "numpy") else np.asarray(batch)
    return np.asarray(values).ravel().tolist()
