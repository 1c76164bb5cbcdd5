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
from tfkit.layers.embedding_reversible_quantized import ReverseQuantization

__all__ = ["ReversibleEmbedding"]


@registry.builtin("layers")
class ReversibleEmbedding(ReverseQuantization, Embedding):
    """An embedding layer which can project backwards to the input dimension.

    Called on token ids, it is an `Embedding`. Called with `reverse=True` on
    hidden states of size `output_dim`, it projects them back to logits over
    the `input_dim` tokens: `hidden @ transpose(embeddings)` when the weights
    are tied, else `hidden @ reverse_embeddings`, a separate
    `(output_dim, input_dim)` weight created after `embeddings` (as in
    Keras 3). This is the usual tied input/output embedding of language
    models. `mask_zero` masks the forward call only. `quantize("int8")` and
    `quantize("int4")` quantize the table and the head as Keras does (the
    tied head reads the quantized table; the reverse call quantizes the
    hidden states per row), with Keras's weights, numbers and files.

    Args:
        input_dim: Positive integer, the size of the vocabulary.
        output_dim: Positive integer, the dimension of the dense embedding.
        tie_weights: Whether the reverse projection uses the transposed
            `embeddings` (`True`, the default) or its own
            `reverse_embeddings` weight.
        embeddings_initializer: Initializer for the `embeddings` (and
            `reverse_embeddings`) matrix. Defaults to `"uniform"`.
        embeddings_regularizer: Regularizer applied to the `embeddings`
            matrix. Defaults to `None`.
        embeddings_constraint: Constraint applied to the `embeddings` matrix.
            Defaults to `None`.
        mask_zero: Whether input index 0 is padding to be masked out (forward
            calls only). Defaults to `False`.
        reverse_dtype: Optional dtype the reverse projection is computed in,
            e.g. `"float32"` under mixed precision. `None` (the default) uses
            the dtype of the inputs.
        logit_soft_cap: Optional positive number: reverse logits are squashed
            to `logit_soft_cap * tanh(logits / logit_soft_cap)`. Defaults to
            `None` (no cap).
        **kwargs: `Embedding` keyword arguments, such as `name`, `dtype` and
            `quantization_config` (the config the layer was quantized with).

    Call arguments:
        inputs: Integer token ids, or with `reverse=True` hidden states whose
            last axis is `output_dim`.
        reverse: Whether to project hidden states back to logits. Defaults to
            `False`.

    Input shape:
        Forward: `(batch_size, ...)` integer ids. Reverse:
        `(batch_size, ..., output_dim)`.

    Output shape:
        Forward: `(batch_size, ..., output_dim)`. Reverse:
        `(batch_size, ..., input_dim)`.

    Raises:
        ValueError: If `logit_soft_cap` is not a positive number, or a reverse
            call gets inputs whose last axis is not `output_dim`.

    Example:
        >>> layer = tfkit.layers.ReversibleEmbedding(10, 4)
        >>> hidden = layer(tf.constant([[1, 2, 3]]))
        >>> hidden.shape
        TensorShape([1, 3, 4])
        >>> layer(hidden, reverse=True).shape
        TensorShape([1, 3, 10])
    """

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
        super().__init__(
            input_dim,
            output_dim,
            embeddings_initializer=embeddings_initializer,
            embeddings_regularizer=embeddings_regularizer,
            embeddings_constraint=embeddings_constraint,
            mask_zero=mask_zero,
            **kwargs,
        )
        who = f"ReversibleEmbedding layer '{self.name}'"
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = None if reverse_dtype is None else tf.as_dtype(reverse_dtype).name
        if logit_soft_cap is not None:
            if isinstance(logit_soft_cap, bool) or not isinstance(logit_soft_cap, (int, float)) or logit_soft_cap <= 0:
                raise ValueError(
                    f"{who} expected `logit_soft_cap` to be a positive number or None, got {logit_soft_cap!r}"
                )
            logit_soft_cap = float(logit_soft_cap)
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape: Any = None) -> None:
        super().build(input_shape)
        if not self.tie_weights and not self.quantization_mode:  # quantized: built with the table
            self.reverse_embeddings = self.add_weight(
                shape=(self.output_dim, self.input_dim),
                initializer=self.embeddings_initializer,
                name="reverse_embeddings",
            )

    def call(self, inputs: tf.Tensor, reverse: bool = False) -> tf.Tensor:
        if not reverse:
            return super().call(inputs)
        inputs = tf.convert_to_tensor(inputs)
        if inputs.shape[-1] is not None and inputs.shape[-1] != self.output_dim:
            raise ValueError(
                f"ReversibleEmbedding layer '{self.name}' called with reverse=True expected inputs whose last "
                f"axis is output_dim={self.output_dim}, got shape {tuple(inputs.shape)}"
            )
        if self.quantization_mode:
            logits = self._quantized_logits(inputs)
        else:
            kernel = (
                tf.transpose(self.embeddings) if self.tie_weights else tf.convert_to_tensor(self.reverse_embeddings)
            )
            dtype = self.reverse_dtype or inputs.dtype
            inputs, kernel = tf.cast(inputs, dtype), tf.cast(kernel, dtype)
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
            tie_weights=self.tie_weights, reverse_dtype=self.reverse_dtype, logit_soft_cap=self.logit_soft_cap
        )
        return config
