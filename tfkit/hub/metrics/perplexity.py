"""``Perplexity``: KerasHub's language-model metric, the exponential of the mean token cross-entropy.

perplexity = keras_hub.metrics.Perplexity(from_logits=True, mask_token_id=0)
perplexity.update_state(token_ids, logits)          # padding (id 0) left out
causal_lm.compile(..., metrics=[perplexity])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import losses
from tfkit.metrics.base import Metric
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Perplexity(Metric):
    """Perplexity: `exp` of the summed token cross-entropy over the number of tokens counted.

    Over all batches seen, it sums the sparse categorical cross-entropy of
    each token (weighted by `sample_weight`, with tokens equal to
    `mask_token_id` left out) and divides by the weight counted, then takes
    the exponential; `0.0` before any token. KerasHub 0.32's metric.

    Args:
        from_logits: Whether `y_pred` holds logits (else probabilities).
            Defaults to `False`.
        mask_token_id: A token id whose positions are not counted (padding),
            or `None`. Defaults to `None`.
        dtype: A floating dtype for the state and the result. Defaults to
            `"float32"`.
        name: The metric's name. Defaults to `"perplexity"`.
        **kwargs: Other `Metric` keyword arguments.

    Raises:
        ValueError: If `dtype` is not a floating dtype.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> perplexity = keras_hub.metrics.Perplexity(from_logits=True, mask_token_id=0)
        >>> logits = np.log(np.array([[[0.5, 0.5], [0.25, 0.75]]], "float32"))
        >>> perplexity.update_state(np.array([[1, 0]]), logits)
        >>> round(float(perplexity.result()), 4)  # exp(-log(0.5)): the padding is left out
        2.0
    """

    def __init__(
        self,
        from_logits: bool = False,
        mask_token_id: int | None = None,
        dtype: Any = "float32",
        name: str = "perplexity",
        **kwargs: Any,
    ) -> None:
        if not tf.as_dtype(dtype or "float32").is_floating:
            raise ValueError(f"Perplexity: `dtype` must be a floating point type. Received: dtype={dtype}")
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.from_logits = from_logits
        self.mask_token_id = mask_token_id
        self._crossentropy = losses.SparseCategoricalCrossentropy(from_logits=from_logits, reduction="sum")
        self._aggregate_crossentropy = self.add_variable((), name="aggregate_crossentropy")
        self._number_of_samples = self.add_variable((), name="number_of_samples")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true = tf.cast(y_true, self.dtype)
        y_pred = tf.cast(y_pred, self.dtype)
        if sample_weight is not None:
            sample_weight = tf.cast(sample_weight, self.dtype)
        if self.mask_token_id is not None:
            mask = tf.cast(tf.not_equal(y_true, tf.cast(self.mask_token_id, self.dtype)), self.dtype)
            sample_weight = mask if sample_weight is None else mask * sample_weight
        crossentropy = tf.cast(self._crossentropy(y_true, y_pred, sample_weight=sample_weight), self.dtype)
        if sample_weight is not None:
            tokens = tf.reduce_sum(sample_weight)
        else:
            tokens = tf.cast(tf.size(y_true), self.dtype)
        self._aggregate_crossentropy.assign_add(crossentropy)
        self._number_of_samples.assign_add(tokens)

    def result(self) -> tf.Tensor:
        count = tf.convert_to_tensor(self._number_of_samples)
        safe = tf.where(tf.equal(count, 0.0), tf.ones_like(count), count)
        return tf.where(tf.equal(count, 0.0), tf.zeros_like(count), tf.exp(self._aggregate_crossentropy / safe))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(from_logits=self.from_logits, mask_token_id=self.mask_token_id)
        return config
