"""``ReversibleEmbedding``: an ``Embedding`` that also projects hidden states back to vocabulary logits.

    embedding = tfkit.layers.ReversibleEmbedding(100, 32)
    hidden = embedding(token_ids)                     # (batch, length, 32)
    logits = embedding(hidden, reverse=True)          # (batch, length, 100): hidden @ embeddings^T

With ``tie_weights=False`` the reverse projection has its own weight
``reverse_embeddings`` ``(output_dim, input_dim)`` (after ``embeddings``, as in
Keras 3). ``logit_soft_cap`` squashes logits to ``cap * tanh(logits / cap)``;
``reverse_dtype`` computes the projection in another dtype (e.g. "float32"
under mixed precision). ``mask_zero`` masks the forward call only.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.layers.embedding import Embedding

__all__ = ["ReversibleEmbedding"]


@registry.builtin("layers")
class ReversibleEmbedding(Embedding):
    """Token ids -> vectors, and with ``reverse=True`` vectors -> logits over the ``input_dim`` tokens."""

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        tie_weights: bool = True,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        reverse_dtype: Any = None,
        logit_soft_cap: float | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("quantization_config", None)   # Keras writes it (None); quantize() refuses this layer
        super().__init__(
            input_dim, output_dim, embeddings_initializer=embeddings_initializer,
            embeddings_regularizer=embeddings_regularizer, embeddings_constraint=embeddings_constraint,
            mask_zero=mask_zero, **kwargs,
        )
        who = f"ReversibleEmbedding layer '{self.name}'"
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = None if reverse_dtype is None else tf.as_dtype(reverse_dtype).name
        if logit_soft_cap is not None:
            if isinstance(logit_soft_cap, bool) or not isinstance(logit_soft_cap, (int, float)) or logit_soft_cap <= 0:
                raise ValueError(f"{who} expected `logit_soft_cap` to be a positive number or None, "
                                 f"got {logit_soft_cap!r}")
            logit_soft_cap = float(logit_soft_cap)
        self.logit_soft_cap = logit_soft_cap

    def quantize(self, mode: str | None = None, type_check: bool = True, config: Any = None) -> None:
        """Not built in tfkit: the tied reverse projection has no int8 path yet."""
        raise NotImplementedError(f"ReversibleEmbedding layer '{self.path}': quantize() is not implemented in "
                                  "tfkit (its reverse projection reads the float table)")

    def build(self, input_shape: Any = None) -> None:
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                shape=(self.output_dim, self.input_dim),
                initializer=self.embeddings_initializer,
                name="reverse_embeddings",
            )

    def call(self, inputs: tf.Tensor, reverse: bool = False) -> tf.Tensor:
        if not reverse:
            return super().call(inputs)
        kernel = tf.transpose(self.embeddings) if self.tie_weights else tf.convert_to_tensor(self.reverse_embeddings)
        inputs = tf.convert_to_tensor(inputs)
        dtype = self.reverse_dtype or inputs.dtype
        inputs, kernel = tf.cast(inputs, dtype), tf.cast(kernel, dtype)
        if inputs.shape[-1] is not None and inputs.shape[-1] != self.output_dim:
            raise ValueError(
                f"ReversibleEmbedding layer '{self.name}' called with reverse=True expected inputs whose last "
                f"axis is output_dim={self.output_dim}, got shape {tuple(inputs.shape)}"
            )
        logits = tf.tensordot(inputs, kernel, axes=1)
        logits.set_shape(inputs.shape[:-1].concatenate([self.input_dim]))
        if self.logit_soft_cap is not None:
            logits = tf.tanh(logits / self.logit_soft_cap) * self.logit_soft_cap
        return logits

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        # Token ids are integers; a reverse call gets float hidden states and gives no mask (as in Keras).
        if not tf.as_dtype(getattr(inputs, "dtype", tf.int32)).is_integer:
            return None
        return super().compute_mask(inputs, mask)

    def compute_output_shape(self, input_shape: Any, reverse: bool = False) -> tuple:
        if reverse:
            return (*tuple(input_shape)[:-1], self.input_dim)
        return super().compute_output_shape(input_shape)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            tie_weights=self.tie_weights,
            reverse_dtype=self.reverse_dtype,
            logit_soft_cap=self.logit_soft_cap,
        )
        return config
