"""``EditDistance``: KerasHub's Levenshtein distance between token sequences, the word error rate by default.

wer = keras_hub.metrics.EditDistance()                       # normalize=True: errors per reference token
wer.update_state([["the", "cat"]], [["the", "hat", "sat"]])
wer.result()                                                  # 2 edits / 2 reference tokens = 1.0
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.metrics.base import Metric
from tfkit.saving import register_keras_serializable


def _ragged_rows(inputs: Any, name: str) -> tf.RaggedTensor:
    """``inputs`` as a ragged batch of token sequences; one sequence (rank 1) becomes a batch of one."""
    if not isinstance(inputs, (tf.Tensor, tf.RaggedTensor)):
        inputs = tf.ragged.constant(inputs)
    if inputs.shape.rank == 1:
        inputs = inputs[tf.newaxis]
    elif inputs.shape.rank != 2:
        raise ValueError(f"EditDistance: {name} must be of rank 1 or 2. Found rank: {inputs.shape.rank}")
    if not isinstance(inputs, tf.RaggedTensor):
        inputs = tf.RaggedTensor.from_tensor(inputs)
    return inputs


def _sequences(rows: tf.RaggedTensor) -> tf.SparseTensor:
    """The rows as a sparse batch, zero tokens (`0`, `""`) left out as KerasHub's dense-to-sparse leaves them."""
    sparse = rows.to_sparse()
    zero = tf.zeros((), sparse.dtype) if sparse.dtype != tf.string else tf.constant("")
    return tf.sparse.retain(sparse, tf.not_equal(sparse.values, zero))


@register_keras_serializable(package="keras_hub")
class EditDistance(Metric):
    """Edit distance (Levenshtein) between reference and hypothesis token sequences.

    Each pair's distance is the number of insertions, deletions and
    substitutions that turn the hypothesis into the reference. With
    `normalize=True` (the word error rate) the result is the summed distance
    over the summed reference length; otherwise the mean distance per pair.
    Sequences are rows of tokens (strings or ids), ragged or padded; tokens
    equal to `0` or `""` are left out of the distance, as KerasHub 0.32's
    metric leaves them (the padding of a dense batch), while the reference
    length counts every token given.

    Args:
        normalize: Whether to divide by the reference length (`True`) or by
            the number of pairs. Defaults to `True`.
        dtype: A floating dtype for the state and result. Defaults to
            `"float32"`.
        name: The metric's name. Defaults to `"edit_distance"`.
        **kwargs: Other `Metric` keyword arguments.

    Raises:
        ValueError: If `dtype` is not a floating dtype, or on update, if an
            input is not of rank 1 or 2.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> wer = keras_hub.metrics.EditDistance()
        >>> wer.update_state([["the", "cat", "sat"]], [["the", "hat", "sat", "down"]])
        >>> round(float(wer.result()), 4)  # a substitution and an insertion over 3 reference words
        0.6667
    """

    def __init__(self, normalize: bool = True, dtype: Any = "float32", name: str = "edit_distance", **kwargs: Any):
        if not tf.as_dtype(dtype or "float32").is_floating:
            raise ValueError(f"EditDistance: `dtype` must be a floating point type. Received: dtype={dtype}")
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.normalize = normalize
        self._aggregate_unnormalized_edit_distance = self.add_variable((), name="aggregate_unnormalized_edit_distance")
        if normalize:
            self._aggregate_reference_length = self.add_variable((), name="aggregate_reference_length")
        else:
            self._number_of_samples = self.add_variable((), name="number_of_samples")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true, y_pred = _ragged_rows(y_true, "y_true"), _ragged_rows(y_pred, "y_pred")
        if self.normalize:
            self._aggregate_reference_length.assign_add(tf.cast(tf.size(y_true.flat_values), self.dtype))
        distances = tf.edit_distance(hypothesis=_sequences(y_pred), truth=_sequences(y_true), normalize=False)
        self._aggregate_unnormalized_edit_distance.assign_add(tf.cast(tf.reduce_sum(distances), self.dtype))
        if not self.normalize:
            self._number_of_samples.assign_add(tf.cast(tf.shape(distances)[0], self.dtype))

    def result(self) -> tf.Tensor:
        total = tf.convert_to_tensor(self._aggregate_reference_length if self.normalize else self._number_of_samples)
        safe = tf.where(tf.equal(total, 0.0), tf.ones_like(total), total)
        return tf.where(tf.equal(total, 0.0), tf.zeros_like(total), self._aggregate_unnormalized_edit_distance / safe)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(normalize=self.normalize)
        return config
