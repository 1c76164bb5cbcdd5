"""TF-IDF for the lookup layers (``output_mode="tf_idf"``), computed as Keras 3 computes it.

    counts = DocumentCounts()
    counts.update([["a", "b", "a"], ["a", "c"]])          # two documents (``documents(batch)`` splits a batch)
    counts.idf(["a", "b", "c"])        # log(1 + 2 / (1 + [2, 1, 1])) = [0.511, 0.693, 0.693]

A document is a row of an ``adapt`` batch, every term under it counted once
(a 1-D batch from a dataset or a generator is one document; a 1-D array
passed to ``adapt`` whole is a column of one-term documents, as in Keras).
A term's weight is ``log(1 + num_documents / (1 + documents_with_term))``;
each OOV slot gets the mean of the terms' weights, and ``pad_to_max_tokens``
pads zeros up to ``max_tokens``. ``call`` multiplies each sample's term
counts (the last axis is the sample) by the weights.
"""

from __future__ import annotations

import collections
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import tensorflow as tf

__all__ = [
    "DocumentCounts",
    "adapt_batches",
    "checked_weights",
    "documents",
    "layer_weights",
    "one_hot_elements",
    "term_counts",
    "weighted_term_counts",
]


class DocumentCounts:
    """How many documents were seen, and how many of them hold each term."""

    def __init__(self) -> None:
        self.documents = 0
        self.counts: collections.Counter = collections.Counter()

    def update(self, docs: Iterable[Iterable[Any]]) -> None:
        for doc in docs:
            self.documents += 1
            self.counts.update(set(doc))

    def idf(self, terms: Sequence[Any]) -> np.ndarray:
        """float64 ``log(1 + documents / (1 + document count))`` of each term (Keras's formula)."""
        held = np.array([self.counts.get(term, 0) for term in terms], dtype=np.float64)
        return np.log(1.0 + self.documents / (1.0 + held))


def adapt_batches(data: Any, steps: int | None) -> Iterator[tuple[Any, bool]]:
    """``(batch, whole)`` for each batch ``adapt`` reads, as Keras reads them: a dataset's elements or a generator's
    items one by one (``whole=False``), an array, tensor or list as one batch (``whole=True``)."""
    if isinstance(data, (list, tuple, np.ndarray, tf.Tensor, tf.RaggedTensor, tf.SparseTensor)) or not hasattr(
        data, "__iter__"
    ):
        yield as_batch(data), True
        return
    for step, batch in enumerate(data):
        if steps is not None and step >= steps:
            break
        yield as_batch(batch), False


def as_batch(value: Any) -> Any:
    """A tensor (ragged when a nested list's rows differ in length) or an array, as given otherwise."""
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(row, (list, tuple)) for row in value)
        and len({len(row) for row in value}) > 1
    ):
        return tf.ragged.constant(value)
    return value


def documents(batch: Any, whole: bool = False) -> list[np.ndarray]:
    """The documents of one ``adapt`` batch: its rows, each flattened (ragged and sparse batches included).

    A scalar is one document; a 1-D batch is one document, or (``whole=True``: an array passed to ``adapt``
    whole) one document per element."""
    if isinstance(batch, tf.RaggedTensor):
        if batch.shape.rank > 2:
            batch = batch.merge_dims(1, -1)
        values, splits = batch.flat_values.numpy(), batch.row_splits.numpy()
        return [values[start:end] for start, end in zip(splits[:-1], splits[1:])]
    if isinstance(batch, tf.SparseTensor):
        rows, values = batch.indices.numpy()[:, 0], batch.values.numpy()
        if batch.dense_shape.shape[0] < 2:
            return [values]
        return [values[rows == row] for row in range(int(batch.dense_shape[0]))]
    array = np.asarray(batch.numpy() if hasattr(batch, "numpy") else batch)
    if array.ndim == 0:
        return [array.reshape(1)]
    if array.ndim == 1:
        return [array[i : i + 1] for i in range(len(array))] if whole else [array]
    return [row.ravel() for row in array]


def checked_weights(idf_weights: Any, entries: int, who: str) -> np.ndarray:
    """``idf_weights`` as a float64 vector with one weight per vocabulary entry, or ``ValueError``."""
    try:
        weights = np.asarray(idf_weights, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{who}: idf_weights must be numbers, one per vocabulary entry; got {_shown(idf_weights)} ({error})"
        ) from None
    if weights.ndim != 1 or weights.size != entries:
        raise ValueError(
            f"{who}: idf_weights must be a 1-D list or array with one weight per vocabulary entry "
            f"({entries} entries), got shape {weights.shape}"
        )
    return weights


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def layer_weights(idf: Any, front: int, length: int | None, dtype: str) -> np.ndarray:
    """The layer's weights: ``front`` OOV slots holding the mean of ``idf``, then ``idf``, then zeros up to
    ``length`` (``pad_to_max_tokens``)."""
    idf = np.asarray(idf, dtype=np.float64)
    mean = float(idf.mean()) if idf.size else 0.0
    back = max(0, (length or 0) - front - idf.size)
    return np.concatenate([np.full(front, mean), idf, np.zeros(back)]).astype(dtype)


def weighted_term_counts(indices: tf.Tensor | tf.RaggedTensor, depth: int, idf: tf.Variable, dropped: int) -> tf.Tensor:
    """Each sample's count of every index below ``depth`` times ``idf`` (``term_counts``)."""
    return term_counts(indices, depth, idf.dtype, dropped) * idf


def term_counts(indices: tf.Tensor | tf.RaggedTensor, depth: int, dtype: Any, dropped: int) -> tf.Tensor:
    """Each sample's count of every index below ``depth``: ``(..., n)`` indices give ``(..., depth)`` (the last axis
    is the sample; a scalar or 1-D input is one sample, as in Keras). ``dropped`` (>= depth) marks entries left
    out: masked tokens, and the padding of a ragged input.

    Keras 3 agrees for inputs of rank 0 to 2; for rank 3 and up its call sums over axis 1 instead (its bincount
    fast path stops at rank 2 and the fallback reduces axis 1), against its own compute_output_shape and docs
    (the last axis is the sample). tfkit keeps the documented last-axis rule."""
    if isinstance(indices, tf.RaggedTensor):
        indices = indices.to_tensor(default_value=dropped)
    indices = tf.convert_to_tensor(indices)
    if indices.shape.rank == 0:
        indices = tf.reshape(indices, [1])
    if indices.shape.rank == 1:
        counts = tf.math.bincount(indices, minlength=depth, maxlength=depth, dtype=dtype)
        return tf.ensure_shape(counts, [depth])
    outer = tf.shape(indices)[:-1]
    rows = tf.reshape(indices, tf.stack([-1, tf.shape(indices)[-1]]))
    counts = tf.math.bincount(rows, minlength=depth, maxlength=depth, axis=-1, dtype=dtype)
    counts = tf.reshape(counts, tf.concat([outer, [depth]], 0))
    counts.set_shape(indices.shape[:-1].concatenate([depth]))
    return counts


def one_hot_elements(indices: tf.Tensor | tf.RaggedTensor, depth: int, dtype: Any = tf.float32) -> tf.Tensor:
    """Keras's "one_hot" output: every element one-hot, ``(..., n) -> (..., n, depth)``; a last axis of 1 is
    replaced (``(b, 1) -> (b, depth)``) and a scalar is one element (``(1, depth)``, as Keras's call gives).
    Indices at or past ``depth`` (masked tokens) give all-zero rows."""
    if isinstance(indices, tf.RaggedTensor):
        return tf.ragged.map_flat_values(tf.one_hot, indices, depth, dtype=dtype)
    if indices.shape.rank == 0:
        indices = tf.reshape(indices, [1])
    elif indices.shape.rank > 1 and indices.shape[-1] == 1:
        indices = tf.squeeze(indices, -1)
    return tf.one_hot(indices, depth, dtype=dtype)
