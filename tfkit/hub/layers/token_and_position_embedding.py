"""``TokenAndPositionEmbedding``: token embedding plus learned position embedding, summed.

    embed = TokenAndPositionEmbedding(vocabulary_size=100, sequence_length=16, embedding_dim=8, mask_zero=True)
    x = embed(token_ids)             # (batch, length, 8), carrying the padding mask of the ids

Sub-layers ``token_embedding`` (a ``ReversibleEmbedding``, so the same table
can turn hidden states back into logits) and ``position_embedding``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit import layers as core_layers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.position_embedding import PositionEmbedding
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class TokenAndPositionEmbedding(Layer):
    """A layer which sums a token and position embedding.

    Embeds token ids with a `tfkit.layers.ReversibleEmbedding`
    (`token_embedding`) and adds a `PositionEmbedding`
    (`position_embedding`) of the same width; the last input axis is the
    sequence. With `mask_zero=True` the output carries the padding mask of
    the ids (id 0 is padding), for the layers after it.

    Args:
        vocabulary_size: Integer, the size of the vocabulary.
        sequence_length: Integer, the longest input sequence.
        embedding_dim: Integer, the output dimension of both embeddings.
        tie_weights: Whether the token embedding's reverse projection uses the
            transposed embeddings. Defaults to `True`.
        embeddings_initializer: Initializer of both embedding tables (each
            gets its own copy). Defaults to `"uniform"`.
        mask_zero: Whether id 0 is padding, to be masked out downstream.
            Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Integer token ids `(batch_size, sequence_length)`.
        start_index: An int or int tensor, the position of the first id (for
            cached decoding). Defaults to `0`.
        positions: Optional positions to look up instead of
            `start_index, start_index + 1, ...`.

    Returns:
        `(batch_size, sequence_length, embedding_dim)` embeddings.

    Raises:
        ValueError: If `vocabulary_size`, `sequence_length` or
            `embedding_dim` is None.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> layer = keras_hub.layers.TokenAndPositionEmbedding(
        ...     vocabulary_size=10, sequence_length=5, embedding_dim=4, mask_zero=True
        ... )
        >>> x = layer(np.array([[3, 4, 0]]))
        >>> x.shape, x._keras_mask.numpy()
        (TensorShape([1, 3, 4]), array([[ True,  True, False]]))
    """

    def __init__(
        self,
        vocabulary_size: int,
        sequence_length: int,
        embedding_dim: int,
        tie_weights: bool = True,
        embeddings_initializer: Any = "uniform",
        mask_zero: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        for name, value in (
            ("vocabulary_size", vocabulary_size),
            ("sequence_length", sequence_length),
            ("embedding_dim", embedding_dim),
        ):
            if value is None:
                raise ValueError(
                    f"TokenAndPositionEmbedding layer '{self.name}': `{name}` must be an integer, got None"
                )
        self.vocabulary_size = int(vocabulary_size)
        self.sequence_length = int(sequence_length)
        self.embedding_dim = int(embedding_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.token_embedding = core_layers.ReversibleEmbedding(
            vocabulary_size,
            embedding_dim,
            tie_weights=tie_weights,
            embeddings_initializer=clone_initializer(self.embeddings_initializer),
            mask_zero=mask_zero,
            dtype=self.dtype_policy,
            name="token_embedding",
        )
        self.position_embedding = PositionEmbedding(
            sequence_length=sequence_length,
            initializer=clone_initializer(self.embeddings_initializer),
            dtype=self.dtype_policy,
            name="position_embedding",
        )
        self.supports_masking = self.token_embedding.supports_masking

    def build(self, input_shape: Any) -> None:
        input_shape = tuple(input_shape)
        self.token_embedding.build(input_shape)
        self.position_embedding.build(input_shape + (self.embedding_dim,))

    def call(self, inputs: tf.Tensor, start_index: Any = 0, positions: Any = None) -> tf.Tensor:
        embedded_tokens = self.token_embedding(inputs)
        embedded_positions = self.position_embedding(embedded_tokens, start_index=start_index, positions=positions)
        return embedded_tokens + embedded_positions

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return self.token_embedding.compute_mask(inputs, mask)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            vocabulary_size=self.vocabulary_size,
            sequence_length=self.sequence_length,
            embedding_dim=self.embedding_dim,
            embeddings_initializer=initializers.serialize(self.embeddings_initializer),
            tie_weights=self.token_embedding.tie_weights,
            mask_zero=self.token_embedding.mask_zero,
        )
        return config

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return tuple(input_shape) + (self.embedding_dim,)
