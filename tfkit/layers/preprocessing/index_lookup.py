"""``StringLookup`` and ``IntegerLookup``: map tokens to indices (and back) with a vocabulary.

    lookup = tfkit.layers.StringLookup()
    lookup.adapt(["a", "b", "a", "c"])       # vocabulary by frequency: ['[UNK]', 'a', 'b', 'c']
    lookup(tf.constant(["a", "z"]))          # [1, 0]: unknown tokens go to the OOV index

Index layout as in Keras: in ``output_mode="int"`` the mask token (if any) is 0,
then ``num_oov_indices`` out-of-vocabulary slots, then the vocabulary; in the
other modes the mask token has no index (masked tokens are left out of the
outputs) and the OOV slots start at 0. The vocabulary is part of the
layer's config, so it is saved with the model; the lookup is a TensorFlow hash
table, so exports carry it. ``output_mode="tf_idf"`` (``tf_idf.py``) weights
each sample's term counts by the idf weights that ``adapt`` learns or
``idf_weights`` gives; they are a non-trainable weight (``idf_weights``) and
are in the config beside the vocabulary.

Output shapes as Keras 3's (``compute_output_shape`` says the same):
"one_hot" encodes every element, ``(..., n) -> (..., n, depth)``, a last axis of
1 is replaced (``(b, 1) -> (b, depth)``) and a scalar is one element
(``(1, depth)``); "multi_hot", "count" and "tf_idf" take the last axis as the
sample, ``(..., n) -> (..., depth)``, so a 1-D input gives one vector
``(depth,)`` and a scalar is a one-token sample. Before ``adapt`` (or
``set_vocabulary``) ``depth`` is unknown (None) unless ``pad_to_max_tokens``
fixes it: a model is defined then, as in Keras, and its real calls wait for the
vocabulary (a RuntimeError before it, as Keras's).
"""

from __future__ import annotations

import collections
import os
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base import registry, settings, variable_roles
from tfkit.distribution import values as distribution_values
from tfkit.engine import shape_inference
from tfkit.engine.layer import Layer
from tfkit.layers.preprocessing import tf_idf
from tfkit.layers.preprocessing.categorical import current_output_mode
from tfkit.layers.preprocessing.vocabulary_rules import vocabulary_terms

__all__ = ["StringLookup", "IntegerLookup"]
_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
_DROPPED = tf.int64.max  # the index of a masked token outside "int" mode: left out of the outputs, as in Keras


@shape_inference.always_trace  # the output dtype follows output_mode/invert and the depth the vocabulary: trace call
class IndexLookup(Layer):
    """Shared by the string and integer lookups; ``key_dtype`` is tf.string or tf.int64."""

    key_dtype = tf.string
    _tfkit_runs_on_host = True  # its table is a host resource: eager inputs are not split over a mesh

    def __init__(
        self,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: Any = None,
        oov_token: Any = None,
        vocabulary: Any = None,
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        pad_to_max_tokens: bool = False,
        sparse: bool = False,
        oov_method: str = "floormod",
        salt: Any = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        who = f"{type(self).__name__} layer '{self.name}'"
        output_mode = current_output_mode(output_mode)  # Keras's older names: "binary", "tf-idf"
        if output_mode not in _MODES:
            raise ValueError(f"{who}: output_mode must be one of {_MODES}, got {output_mode!r}")
        if sparse:
            raise ValueError(f"{who}: sparse=True is not supported (tfkit works with dense tensors)")
        if invert and output_mode != "int":
            raise ValueError(f"{who}: invert=True needs output_mode='int', got {output_mode!r}")
        if max_tokens is not None and max_tokens <= 1:  # as Keras: a vocabulary of no tokens makes no sense
            raise ValueError(f"{who}: if set, max_tokens must be greater than 1, got {max_tokens!r}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"{who}: pad_to_max_tokens=True needs max_tokens")
        if num_oov_indices < 0:
            raise ValueError(f"{who}: num_oov_indices must be at least 0, got {num_oov_indices!r}")
        check_idf_arguments(output_mode, vocabulary, idf_weights, who)
        self.oov_method, self.salt = oov_method_and_salt(oov_method, salt, self.key_dtype, who)
        self.max_tokens, self.num_oov_indices = max_tokens, int(num_oov_indices)
        self.mask_token, self.oov_token = mask_token, oov_token
        self.invert, self.output_mode, self.pad_to_max_tokens = invert, output_mode, pad_to_max_tokens
        self._tfkit_vocabulary: list[Any] = []
        self._tfkit_vocabulary_set = False  # whether adapt() or set_vocabulary() gave one (it may hold no terms)
        self._tfkit_tables: tuple[Any, Any] | None = None
        self.idf_weights: tf.Variable | None = None  # output_mode="tf_idf": one weight per index
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- vocabulary

    def _mask_slot(self) -> bool:
        """Whether the mask token has index 0: only in "int" mode, as in Keras (in the other modes it has no index
        and masked tokens are left out of the outputs)."""
        return self.mask_token is not None and self.output_mode == "int"

    def _special(self) -> list[Any]:
        mask = [self.mask_token] if self._mask_slot() else []
        return mask + [self.oov_token] * self.num_oov_indices

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[Any]:
        return (self._special() if include_special_tokens else []) + list(self._tfkit_vocabulary)

    def vocabulary_size(self) -> int:
        return len(self._special()) + len(self._tfkit_vocabulary)

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """The tokens (a list or array), or a text file's path with one token per line, as in Keras; with
        ``output_mode="tf_idf"`` their ``idf_weights`` too, one per entry of ``vocabulary`` (OOV slots that
        ``vocabulary`` leaves out get the mean weight)."""
        who = f"{type(self).__name__} layer '{self.name}'"
        check_idf_arguments(self.output_mode, vocabulary, idf_weights, who, "set_vocabulary")
        if isinstance(vocabulary, (str, os.PathLike)):
            vocabulary = read_vocabulary_file(vocabulary, who)
        given = [
            self._token(t)
            for t in (np.asarray(vocabulary).ravel().tolist() if not isinstance(vocabulary, list) else vocabulary)
        ]
        tokens = vocabulary_terms(given, self._special(), self.mask_token, self.oov_token, self.invert, who)
        size = len(tokens) + len(self._special())
        if self.max_tokens is not None and size > self.max_tokens:  # as Keras: an error, never a silent cut
            raise ValueError(
                f"{who}: set_vocabulary got a vocabulary of {size} entries ({len(tokens)} tokens and "
                f"{len(self._special())} mask/OOV indices), more than max_tokens={self.max_tokens}; pass at most "
                f"{self.max_tokens - len(self._special())} tokens or raise max_tokens"
            )
        if self.output_mode == "tf_idf":
            weights = tf_idf.checked_weights(idf_weights, len(given), who)
            self._set_idf_weights(weights, front=len(self._special()) - (len(given) - len(tokens)))
        self._tfkit_vocabulary, self._tfkit_vocabulary_set = tokens, True
        self._tfkit_tables = None

    def _set_idf_weights(self, weights: np.ndarray, front: int) -> None:
        length = self.max_tokens if self.pad_to_max_tokens and self.max_tokens else None
        size = max(length or 0, front + weights.size)
        dtype = settings.floatx()

        def values() -> np.ndarray:  # run after a load's variable budget has seen the declared size
            return tf_idf.layer_weights(weights, front, length, dtype)

        with tf.init_scope():
            if (
                isinstance(self.idf_weights, tf.Variable)
                and tuple(self.idf_weights.shape) == (size,)
                and self.idf_weights.dtype == dtype
            ):
                self.idf_weights.assign(values())
                return
            with tf.name_scope(self.name), distribution_values.variable_scope():  # a mesh's layout, if one is set
                variable = tf.Variable(values, shape=(size,), dtype=dtype, trainable=False, name="idf_weights")
        self.idf_weights = variable_roles.mark_weight(variable, "idf_weights", autocast=False)

    def _token(self, value: Any) -> Any:
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "IndexLookup":
        refuse_vocabulary_path(cls, config)
        return super().from_config(config)

    def adapt(self, data: Any, steps: int | None = None) -> None:
        """The vocabulary from ``data``: tokens by descending frequency (ties in descending token order, as Keras);
        with ``output_mode="tf_idf"`` also each token's idf weight from the documents (rows) holding it."""
        counts: collections.Counter = collections.Counter()
        documents = tf_idf.DocumentCounts() if self.output_mode == "tf_idf" else None
        for batch, whole in tf_idf.adapt_batches(data, steps):
            counts.update(self._token(v) for v in _flat_tokens(batch))
            if documents is not None:
                documents.update([self._token(v) for v in doc] for doc in tf_idf.documents(batch, whole))
        for token in (self.mask_token, self.oov_token):  # never terms, as in Keras
            if token is not None:
                counts.pop(self._token(token), None)
        ordered = [token for token, _ in sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)]
        if self.max_tokens is not None:
            ordered = ordered[: max(0, self.max_tokens - len(self._special()))]
        if documents is None:
            self.set_vocabulary(ordered)
        elif not ordered:
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}': adapt() found no terms (besides mask and "
                f"OOV tokens), so there are no idf weights for output_mode='tf_idf'; pass data with terms"
            )
        else:
            self.set_vocabulary(ordered, documents.idf(ordered))

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
                    tf.lookup.KeyValueTensorInitializer(
                        self._keys(vocabulary or [self._placeholder()]),
                        values if vocabulary else tf.constant([-1], tf.int64),
                    ),
                    -1,
                )
                inverse_keys = tf.range(len(self._special()) + len(vocabulary), dtype=tf.int64)
                inverse = tf.lookup.StaticHashTable(
                    tf.lookup.KeyValueTensorInitializer(inverse_keys, self._keys(self.get_vocabulary())),
                    self._keys([self.oov_token])[0],
                )
            self._tfkit_tables = (forward, inverse)
            self._tfkit_forward, self._tfkit_inverse = forward, inverse
            self.lookup_table, self.inverse_table = forward, inverse  # tracked: exports carry the tables
        return self._tfkit_tables

    def _placeholder(self) -> Any:
        return "\x00tfkit-empty\x00"

    def call(self, inputs: Any) -> tf.Tensor:
        if distribution_values.on_mesh():
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}' cannot run inside a step on a tfkit.distribution mesh: "
                f"its lookup table lives on the host, and DTensor cannot lay out a table lookup. Apply it in the "
                f"input pipeline instead, as Keras 3 documents for preprocessing: "
                f"dataset.map(lambda x, y: ({self.name}(x), y))"
            )
        if not isinstance(inputs, tf.RaggedTensor):
            inputs = tf.convert_to_tensor(inputs)
        if self.invert:
            invert = lambda x: self._tables()[1].lookup(tf.cast(x, tf.int64))  # noqa: E731
            return tf.ragged.map_flat_values(invert, inputs) if isinstance(inputs, tf.RaggedTensor) else invert(inputs)
        if isinstance(inputs, tf.RaggedTensor):
            return self.encode(tf.ragged.map_flat_values(self.lookup_indices, inputs))
        return self.encode(self.lookup_indices(inputs))

    def _depth(self) -> int:
        return self.max_tokens if self.pad_to_max_tokens and self.max_tokens else self.vocabulary_size()

    def encode(self, indices: tf.Tensor | tf.RaggedTensor) -> tf.Tensor | tf.RaggedTensor:
        """``lookup_indices``'s indices in ``output_mode``'s form (the module docstring gives the shapes)."""
        if self.output_mode == "int":
            return indices
        if self.output_depth() is None or (self.output_mode == "tf_idf" and self.idf_weights is None):
            return self._before_vocabulary(indices)
        if self.output_mode == "tf_idf":
            return self.encode_tf_idf(indices)
        if self.output_mode == "one_hot":
            return tf_idf.one_hot_elements(indices, self._depth())
        counts = tf_idf.term_counts(indices, self._depth(), tf.float32, _DROPPED)
        return tf.minimum(counts, 1.0) if self.output_mode == "multi_hot" else counts

    def _before_vocabulary(self, indices: tf.Tensor | tf.RaggedTensor) -> tf.Tensor:
        """A non-"int" output before the vocabulary (or the idf weights) is there: in a symbolic trace, Keras 3's
        symbolic output (float32, an unknown width unless padded: a model is defined before ``adapt``, and runs
        after it); on a real call, Keras's RuntimeError."""
        if shape_inference.in_symbolic_trace():
            return shape_inference.stand_in(self.compute_output_shape(tuple(indices.shape)), tf.float32)
        who = f"{type(self).__name__} layer '{self.name}'"
        if self.output_mode == "tf_idf":
            raise RuntimeError(
                f"{who}: output_mode='tf_idf' needs a vocabulary and its idf weights before the "
                f"layer is called; call adapt(data) or set_vocabulary(vocabulary, idf_weights) first"
            )
        raise RuntimeError(
            f"{who}: output_mode={self.output_mode!r} with pad_to_max_tokens=False needs a vocabulary "
            f"before the layer is called (the output is as wide as the vocabulary); call adapt(data) "
            f"or set_vocabulary(vocabulary) first, or pass vocabulary= to the layer"
        )

    def encode_tf_idf(self, indices: tf.Tensor | tf.RaggedTensor) -> tf.Tensor:
        """``output_mode="tf_idf"``: each sample's term counts times ``idf_weights``, from ``lookup_indices``."""
        if self.idf_weights is None:
            return self._before_vocabulary(indices)
        idf = distribution_values.host_value(self.idf_weights, indices)  # a lookup runs on the host
        return tf_idf.weighted_term_counts(indices, self._depth(), idf, _DROPPED)

    def output_depth(self) -> int | None:
        """The last axis of a non-"int" output: ``max_tokens`` when padded, else the vocabulary size (None while
        there is no vocabulary yet)."""
        if self.pad_to_max_tokens and self.max_tokens:
            return self.max_tokens
        return self.vocabulary_size() if self._tfkit_vocabulary_set else None

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        """As Keras 3's, and as ``call`` gives. One difference, kept on purpose: Keras's compute_output_shape says
        ``(depth,)`` for a scalar in "one_hot" mode while its call gives ``(1, depth)`` (the scalar is upranked to
        one element); tfkit says what its call (and Keras's) gives."""
        shape = tuple(input_shape)
        if self.output_mode == "int":
            return shape
        depth = self.output_depth()
        if self.output_mode == "one_hot":
            if not shape:
                return (1, depth)
            return shape[:-1] + (depth,) if len(shape) > 1 and shape[-1] == 1 else shape + (depth,)
        return shape[:-1] + (depth,)

    def lookup_indices(self, inputs: Any) -> tf.Tensor:
        """The int64 index of every token (mask 0 in "int" mode, OOV slots, then the vocabulary); outside "int"
        mode the mask token has no index (``tf.int64.max``: left out of the outputs)."""
        forward, _ = self._tables()
        inputs = tf.convert_to_tensor(inputs)
        keys = tf.cast(inputs, self.key_dtype) if self.key_dtype != tf.string else inputs
        indices = forward.lookup(keys)
        mask_offset = 1 if self._mask_slot() else 0
        if self.num_oov_indices > 1:
            oov = mask_offset + self._oov_buckets(keys)
        else:
            oov = tf.fill(tf.shape(indices), tf.cast(mask_offset, tf.int64))
        if self.num_oov_indices == 0:  # as Keras: unseen tokens are an error, not index 0
            unseen = tf.gather_nd(inputs, tf.where(indices < 0))
            check = tf.debugging.Assert(
                tf.equal(tf.size(unseen), 0),
                [
                    tf.strings.format(
                        f"{type(self).__name__} layer '{self.name}': with num_oov_indices=0 every input must be in the "
                        f"vocabulary; found out-of-vocabulary values {{}}. Set num_oov_indices=1 to map them to an OOV "
                        f"index.",
                        (unseen,),
                    )
                ],
            )
            with tf.control_dependencies([check]):
                indices = tf.identity(indices)
        indices = tf.where(indices < 0, oov, indices)
        if self.mask_token is not None:
            masked = tf.constant(0 if self._mask_slot() else _DROPPED, tf.int64)
            indices = tf.where(tf.equal(keys, self._keys([self.mask_token])[0]), masked, indices)
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
        vocabulary, idf_weights = self._saved_vocabulary() or None, None  # None before adapt, as Keras
        if self.output_mode == "tf_idf":  # the whole vocabulary, special block first, and a weight for each entry
            vocabulary = None if self.idf_weights is None else self.get_vocabulary()
            idf_weights = None if vocabulary is None else self.idf_weights.numpy()[: len(vocabulary)].tolist()
        return {
            **Layer.get_config(self),
            "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices,
            "mask_token": self.mask_token,
            "oov_token": self.oov_token,
            "invert": self.invert,
            "output_mode": self.output_mode,
            "pad_to_max_tokens": self.pad_to_max_tokens,
            "sparse": False,
            "vocabulary": vocabulary,
            "idf_weights": idf_weights,
            "oov_method": self.oov_method,
            "salt": self.salt,
        }

    def _saved_vocabulary(self) -> list[Any]:
        """The terms; with the special tokens before them when the terms themselves start like the special block
        (an OOV token kept as a term), so that loading strips exactly the special block again."""
        terms, special = list(self._tfkit_vocabulary), self._special()
        return special + terms if special and terms[: len(special)] == special else terms


@registry.builtin("layers")
class StringLookup(IndexLookup):
    """A preprocessing layer that maps strings to (possibly encoded) indices.

    This layer translates a set of arbitrary strings into integer outputs
    via a table-based vocabulary lookup. With `invert=True` it maps indices
    back to strings. Unknown strings go to the OOV indices, chosen by
    FarmHash64 of the string (or SipHash64 keyed by `salt`) when there are
    several.

    The vocabulary can be given (`vocabulary`) or learned by `adapt()`: the
    tokens by descending frequency (ties in descending token order, as
    Keras). Index layout as in Keras: in `"int"` mode the mask token (if
    any) is 0, then the `num_oov_indices` out-of-vocabulary (OOV) slots,
    then the vocabulary; in the other modes the mask token has no index
    (masked tokens are left out of the outputs) and the OOV slots start at 0.
    The lookup is a TensorFlow hash table, so exports carry it.

    Args:
        max_tokens: Maximum size of the vocabulary for this layer, including
            the OOV and mask indices. This should only be specified when
            adapting the vocabulary or when setting `pad_to_max_tokens=True`.
            If `None`, there is no cap on the size of the vocabulary. Setting
            a vocabulary larger than `max_tokens` raises an error. Defaults to
            `None`.
        num_oov_indices: The number of out-of-vocabulary tokens to use. If
            this value is more than 1, OOV inputs are hashed to
            determine their OOV value. If this value is 0, OOV inputs cause an
            error when calling the layer. Defaults to `1`.
        mask_token: A token that represents masked inputs. When `output_mode`
            is `"int"`, the token is included in the vocabulary and mapped to
            index 0. In other output modes, the token does not appear in the
            vocabulary and instances of the mask token in the input are
            dropped. If `None`, no mask term is added. Defaults to `None`.
        oov_token: Only used when `invert` is `True`: the token to return for
            OOV indices. Defaults to `"[UNK]"`.
        vocabulary: Optional. Either an array of tokens or a string path to a
            text file (one token per line). If passing an array, it can be a
            tuple, list, 1D NumPy array, or 1D tensor containing the
            vocabulary terms. If this argument is set, there is no need to
            `adapt()` the layer. The vocabulary is part of the layer's
            config, so it is saved with the model. Defaults to `None`.
        idf_weights: Only valid when `output_mode` is `"tf_idf"` (and then
            required with a `vocabulary`): a tuple, list, 1D NumPy array, or
            1D tensor of the same length as the vocabulary, containing the
            floating point inverse document frequency weights, which are
            multiplied by per-sample term counts for the final TF-IDF weight.
            Defaults to `None`.
        invert: Only valid when `output_mode` is `"int"`. If `True`, this layer
            maps indices to vocabulary items instead of mapping vocabulary
            items to indices. Defaults to `False`.
        output_mode: Specification for the output of the layer. Values can be
            `"int"`, `"one_hot"`, `"multi_hot"`, `"count"` or `"tf_idf"`,
            configuring the layer as follows:

            - `"int"`: return the vocabulary indices of the input tokens
              (int64).
            - `"one_hot"`: encodes each individual element in the input into
              an array the same size as the vocabulary, containing a 1 at the
              element index. If the last dimension is size 1, it encodes on
              that dimension; otherwise a new dimension is appended.
            - `"multi_hot"`: encodes each sample in the input (the last axis)
              into a single array the same size as the vocabulary, containing
              a 1 for each vocabulary term present in the sample.
            - `"count"`: as `"multi_hot"`, but the array contains a count of
              the number of times the token at that index appeared in the
              sample.
            - `"tf_idf"`: as `"multi_hot"`, but the TF-IDF algorithm is
              applied to find the value in each token slot.

            Keras's older names are taken too: `"binary"` for `"multi_hot"`
            and `"tf-idf"` for `"tf_idf"` (the layer and its config then hold
            the current name). Defaults to `"int"`.
        pad_to_max_tokens: Only applicable when `output_mode` is
            `"multi_hot"`, `"count"`, or `"tf_idf"`. If `True`, the output has
            its feature axis padded to `max_tokens` even if the number of
            unique tokens in the vocabulary is less than `max_tokens`.
            Defaults to `False`.
        sparse: Must be `False`: sparse outputs are not supported by tfkit
            (it works with dense tensors). Defaults to `False`.
        encoding: Text encoding of the inputs, kept in the config for Keras
            compatibility. Defaults to `"utf-8"`.
        salt: Optional int or pair of ints, the key of the SipHash64 used to
            choose the OOV index of unknown strings when `num_oov_indices`
            is more than 1. Defaults to `None` (FarmHash64).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor, array or list of strings (or of int indices with
            `invert=True`), or a ragged tensor.

    Input shape:
        Arbitrary (for the encoding modes, the last axis is the sample's
        tokens).

    Output shape:
        Same as the input for `"int"`; `(..., n, vocab_size)` for
        `"one_hot"` (a last axis of size 1 is replaced); `(..., vocab_size)`
        for `"multi_hot"`, `"count"` and `"tf_idf"` (the last axis is
        reduced). `vocab_size` is `max_tokens` with `pad_to_max_tokens`.

    Raises:
        ValueError: If `output_mode` is unknown, `sparse=True`, `invert=True`
            with another mode than `"int"`, `idf_weights` are given without
            `"tf_idf"` (or missing with it and a `vocabulary`), `salt` is not
            an int or two, or the vocabulary is larger than `max_tokens`, holds
            duplicates or cannot be read; from `adapt()`, if it finds no
            terms.
        RuntimeError: On a call in `"one_hot"`, `"multi_hot"`, `"count"`
            or `"tf_idf"` mode before there is a vocabulary (and, for
            `"tf_idf"`, its idf weights), unless `pad_to_max_tokens=True`
            fixes the width. A model can be defined before `adapt()`, as in
            Keras: the layer's symbolic output then has an unknown last axis.

    Example:
        >>> vocab = ["a", "b", "c", "d"]
        >>> data = [["a", "c", "d"], ["d", "z", "b"]]
        >>> layer = tfkit.layers.StringLookup(vocabulary=vocab)
        >>> layer(data).numpy()
        array([[1, 3, 4],
               [4, 0, 2]])
        >>> layer.get_vocabulary()
        ['[UNK]', 'a', 'b', 'c', 'd']

        Learning the vocabulary with `adapt()`, and counting tokens:

        >>> layer = tfkit.layers.StringLookup(output_mode="count")
        >>> layer.adapt(["a", "b", "a", "c"])
        >>> layer.get_vocabulary()
        ['[UNK]', 'a', 'c', 'b']
        >>> layer([["a", "a", "z"]]).numpy()
        array([[1., 2., 0., 0.]], dtype=float32)

        Mapping indices back to strings:

        >>> inverse = tfkit.layers.StringLookup(vocabulary=vocab, invert=True)
        >>> inverse([[1, 3, 4]]).numpy()
        array([[b'a', b'c', b'd']], dtype=object)
    """

    key_dtype = tf.string

    def __init__(
        self,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: str | None = None,
        oov_token: str = "[UNK]",
        vocabulary: Any = None,
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        pad_to_max_tokens: bool = False,
        sparse: bool = False,
        encoding: str = "utf-8",
        salt: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            max_tokens,
            num_oov_indices,
            mask_token,
            oov_token,
            vocabulary,
            idf_weights,
            invert,
            output_mode,
            pad_to_max_tokens,
            sparse,
            salt=salt,
            **kwargs,
        )
        self.encoding = encoding

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "encoding": self.encoding}


@registry.builtin("layers")
class IntegerLookup(IndexLookup):
    """A preprocessing layer that maps integers to (possibly encoded) indices.

    This layer maps a set of arbitrary integer input tokens into indexed
    integer output via a table-based vocabulary lookup. With `invert=True`
    it maps indices back to the integer tokens. Unknown integers go to the
    OOV indices, `key % num_oov_indices` when there are several.

    The vocabulary can be given (`vocabulary`) or learned by `adapt()`: the
    tokens by descending frequency (ties in descending token order, as
    Keras). Index layout as in Keras: in `"int"` mode the mask token (if
    any) is 0, then the `num_oov_indices` out-of-vocabulary (OOV) slots,
    then the vocabulary; in the other modes the mask token has no index
    (masked tokens are left out of the outputs) and the OOV slots start at 0.
    The lookup is a TensorFlow hash table, so exports carry it.

    Args:
        max_tokens: Maximum size of the vocabulary for this layer, including
            the OOV and mask indices. This should only be specified when
            adapting the vocabulary or when setting `pad_to_max_tokens=True`.
            If `None`, there is no cap on the size of the vocabulary. Setting
            a vocabulary larger than `max_tokens` raises an error. Defaults to
            `None`.
        num_oov_indices: The number of out-of-vocabulary integer tokens to use. If
            this value is more than 1, OOV inputs are modulated (`key % num_oov_indices`) to
            determine their OOV value. If this value is 0, OOV inputs cause an
            error when calling the layer. Defaults to `1`.
        mask_token: A integer token that represents masked inputs. When `output_mode`
            is `"int"`, the token is included in the vocabulary and mapped to
            index 0. In other output modes, the token does not appear in the
            vocabulary and instances of the mask token in the input are
            dropped. If `None`, no mask term is added. Defaults to `None`.
        oov_token: Only used when `invert` is `True`: the token to return for
            OOV indices. Defaults to `-1`.
        vocabulary: Optional. Either an array of integer tokens or a string path to a
            text file (one token per line). If passing an array, it can be a
            tuple, list, 1D NumPy array, or 1D tensor containing the
            vocabulary terms. If this argument is set, there is no need to
            `adapt()` the layer. The vocabulary is part of the layer's
            config, so it is saved with the model. Defaults to `None`.
        idf_weights: Only valid when `output_mode` is `"tf_idf"` (and then
            required with a `vocabulary`): a tuple, list, 1D NumPy array, or
            1D tensor of the same length as the vocabulary, containing the
            floating point inverse document frequency weights, which are
            multiplied by per-sample term counts for the final TF-IDF weight.
            Defaults to `None`.
        invert: Only valid when `output_mode` is `"int"`. If `True`, this layer
            maps indices to vocabulary items instead of mapping vocabulary
            items to indices. Defaults to `False`.
        output_mode: Specification for the output of the layer. Values can be
            `"int"`, `"one_hot"`, `"multi_hot"`, `"count"` or `"tf_idf"`,
            configuring the layer as follows:

            - `"int"`: return the vocabulary indices of the input tokens
              (int64).
            - `"one_hot"`: encodes each individual element in the input into
              an array the same size as the vocabulary, containing a 1 at the
              element index. If the last dimension is size 1, it encodes on
              that dimension; otherwise a new dimension is appended.
            - `"multi_hot"`: encodes each sample in the input (the last axis)
              into a single array the same size as the vocabulary, containing
              a 1 for each vocabulary term present in the sample.
            - `"count"`: as `"multi_hot"`, but the array contains a count of
              the number of times the token at that index appeared in the
              sample.
            - `"tf_idf"`: as `"multi_hot"`, but the TF-IDF algorithm is
              applied to find the value in each token slot.

            Keras's older names are taken too: `"binary"` for `"multi_hot"`
            and `"tf-idf"` for `"tf_idf"` (the layer and its config then hold
            the current name). Defaults to `"int"`.
        pad_to_max_tokens: Only applicable when `output_mode` is
            `"multi_hot"`, `"count"`, or `"tf_idf"`. If `True`, the output has
            its feature axis padded to `max_tokens` even if the number of
            unique tokens in the vocabulary is less than `max_tokens`.
            Defaults to `False`.
        sparse: Must be `False`: sparse outputs are not supported by tfkit
            (it works with dense tensors). Defaults to `False`.
        vocabulary_dtype: The dtype of the vocabulary terms; only `"int64"`
            is supported (as in Keras). Defaults to `"int64"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor, array or list of integers (cast to int64), or a
            ragged tensor.

    Input shape:
        Arbitrary (for the encoding modes, the last axis is the sample's
        tokens).

    Output shape:
        Same as the input for `"int"`; `(..., n, vocab_size)` for
        `"one_hot"` (a last axis of size 1 is replaced); `(..., vocab_size)`
        for `"multi_hot"`, `"count"` and `"tf_idf"` (the last axis is
        reduced). `vocab_size` is `max_tokens` with `pad_to_max_tokens`.

    Raises:
        ValueError: If `vocabulary_dtype` is not `"int64"`, `output_mode` is
            unknown, `sparse=True`, `invert=True` with another mode than
            `"int"`, `idf_weights` are given without `"tf_idf"` (or missing
            with it and a `vocabulary`), or the vocabulary is larger than
            `max_tokens`, holds duplicates or cannot be read; from `adapt()`,
            if it finds no terms.
        RuntimeError: On a call in `"one_hot"`, `"multi_hot"`, `"count"`
            or `"tf_idf"` mode before there is a vocabulary (and, for
            `"tf_idf"`, its idf weights), unless `pad_to_max_tokens=True`
            fixes the width. A model can be defined before `adapt()`, as in
            Keras: the layer's symbolic output then has an unknown last axis.

    Example:
        >>> vocab = [12, 36, 1138, 42]
        >>> data = np.array([[12, 1138, 42], [42, 1000, 36]])
        >>> layer = tfkit.layers.IntegerLookup(vocabulary=vocab)
        >>> layer(data).numpy()
        array([[1, 3, 4],
               [4, 0, 2]])

        Learning the vocabulary with `adapt()`:

        >>> layer = tfkit.layers.IntegerLookup()
        >>> layer.adapt(np.array([[12, 1138, 42], [42, 1000, 36]]))
        >>> layer.get_vocabulary()
        [-1, 42, 1138, 1000, 36, 12]

        Mapping indices back to integers:

        >>> inverse = tfkit.layers.IntegerLookup(vocabulary=vocab, invert=True)
        >>> inverse(np.array([[1, 3, 4]])).numpy()
        array([[  12, 1138,   42]])
    """

    key_dtype = tf.int64

    def __init__(
        self,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: int | None = None,
        oov_token: int = -1,
        vocabulary: Any = None,
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        pad_to_max_tokens: bool = False,
        sparse: bool = False,
        vocabulary_dtype: str = "int64",
        **kwargs: Any,
    ) -> None:
        if vocabulary_dtype != "int64":
            raise ValueError(
                f"IntegerLookup: only vocabulary_dtype='int64' is supported (as in Keras), got {vocabulary_dtype!r}"
            )
        super().__init__(
            max_tokens,
            num_oov_indices,
            mask_token,
            oov_token,
            vocabulary,
            idf_weights,
            invert,
            output_mode,
            pad_to_max_tokens,
            sparse,
            **kwargs,
        )

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "vocabulary_dtype": "int64"}

    def _token(self, value: Any) -> Any:
        return int(value)

    def _placeholder(self) -> Any:
        return -(2**62)

    def call(self, inputs: Any) -> tf.Tensor:
        if self.invert:
            return super().call(inputs)
        return super().call(
            tf.cast(inputs if isinstance(inputs, tf.RaggedTensor) else tf.convert_to_tensor(inputs), tf.int64)
        )


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


def check_idf_arguments(output_mode: str, vocabulary: Any, idf_weights: Any, who: str, where: str = "") -> None:
    """Keras's rules: idf_weights only with output_mode="tf_idf", where a vocabulary needs them (and they it)."""
    call = f"{where}(vocabulary, idf_weights)" if where else "the layer(vocabulary=..., idf_weights=...)"
    if idf_weights is not None and output_mode != "tf_idf":
        raise ValueError(
            f"{who}: idf_weights are only used with output_mode='tf_idf', got "
            f"output_mode={output_mode!r}; leave idf_weights out"
        )
    if output_mode == "tf_idf" and vocabulary is not None and idf_weights is None:
        raise ValueError(
            f"{who}: with output_mode='tf_idf' a vocabulary needs its idf_weights (one per vocabulary "
            f"entry), got idf_weights=None; pass both, as {call}, or call adapt() instead"
        )
    if idf_weights is not None and vocabulary is None:
        raise ValueError(
            f"{who}: idf_weights need the vocabulary they weight, got vocabulary=None; pass both, as {call}"
        )


def read_vocabulary_file(path: Any, who: str) -> list[str]:
    """The lines of a UTF-8 text file, one token each (Keras's vocabulary files)."""
    try:
        with open(os.fspath(path), encoding="utf-8") as handle:
            return [line.rstrip("\r\n") for line in handle if line.rstrip("\r\n")]
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(
            f"{who}: cannot read the vocabulary file {os.fspath(path)!r} ({error}); "
            f"expected a UTF-8 text file with one token per line"
        ) from error


def refuse_vocabulary_path(cls: type, config: dict[str, Any]) -> None:
    """A saved config names its tokens; a file path there would make loading read files a model file names."""
    if isinstance(config.get("vocabulary"), str):
        raise ValueError(
            f"{cls.__name__} config: 'vocabulary' is a file path ({config['vocabulary']!r}), not a list of tokens. "
            f"tfkit never reads files that a saved config names; save the model with its vocabulary as a list "
            f"(tfkit and Keras 3 archives do), or set it after loading with layer.set_vocabulary(path)."
        )


def _flat_tokens(batch: Any) -> list[Any]:
    """Every token of an adapt batch: the terms of a ragged or sparse tensor, not its rows."""
    if isinstance(batch, tf.RaggedTensor):
        batch = batch.flat_values
    elif isinstance(batch, tf.SparseTensor):
        batch = batch.values
    values = batch.numpy() if hasattr(batch, "numpy") else np.asarray(batch)
    return np.asarray(values).ravel().tolist()
