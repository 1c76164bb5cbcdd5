"""``PositionEmbedding``: a learned embedding per position, added to token embeddings (BERT, GPT-2).

    positions = PositionEmbedding(sequence_length=512)(token_embeddings)   # (batch, length, dim)
    step = PositionEmbedding(...)(x, start_index=index)                    # cached decoding, one position

The table is ``position_embeddings`` (stored as ``embeddings``,
``(sequence_length, dim)``); a call takes the rows for positions
``start_index, start_index + 1, ...`` (or for ``positions``) and broadcasts
them to the input's shape.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class PositionEmbedding(Layer):
    """A layer which learns a position embedding for inputs sequences.

    The last axis of the inputs is the features, the one before it the
    sequence; only the input's shape is used. Add the output to token
    embeddings (or use `TokenAndPositionEmbedding`). This layer passes no mask
    on.

    Args:
        sequence_length: Integer, the longest sequence the table covers.
        initializer: Initializer of the table. Defaults to
            `"glorot_uniform"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor `(batch_size, sequence_length, hidden_dim)` (or any
            rank with the sequence before the features).
        start_index: An int or int tensor: the position of the first input
            step, for cached decoding. Defaults to `0`.
        positions: Optional int tensor `(sequence_length,)` or
            `(batch_size, sequence_length)` of positions to look up instead;
            `start_index` is then ignored.

    Returns:
        The position embeddings, broadcast to the shape of `inputs`.

    Raises:
        ValueError: If `sequence_length` is None.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> layer = keras_hub.layers.PositionEmbedding(sequence_length=10)
        >>> layer(np.zeros((8, 4, 16))).shape
        TensorShape([8, 4, 16])
        >>> bool(np.all(layer(np.zeros((1, 1, 16)), start_index=2)[0, 0] == layer.position_embeddings[2]))
        True
    """

    def __init__(self, sequence_length: int, initializer: Any = "glorot_uniform", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if sequence_length is None:
            raise ValueError(f"PositionEmbedding layer '{self.name}': `sequence_length` must be an integer, got None")
        self.sequence_length = int(sequence_length)
        self.initializer = initializers.get(initializer)

    def build(self, inputs_shape: Any) -> None:
        self.position_embeddings = self.add_weight(
            name="embeddings",
            shape=[self.sequence_length, inputs_shape[-1]],
            initializer=self.initializer,
            trainable=True,
        )

    def call(self, inputs: tf.Tensor, start_index: Any = 0, positions: Any = None) -> tf.Tensor:
        shape = tf.shape(inputs)
        table = tf.convert_to_tensor(self.position_embeddings)
        if positions is not None:
            positions = tf.convert_to_tensor(positions)
            if positions.shape.rank == 1:
                positions = positions[tf.newaxis]
            embeddings = tf.gather(table, positions)
        else:
            start = tf.cast(start_index, tf.int32)
            embeddings = tf.slice(table, tf.stack([start, 0]), tf.stack([shape[-2], shape[-1]]))
        outputs = tf.broadcast_to(embeddings, shape)
        outputs.set_shape(inputs.shape)
        return outputs

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(sequence_length=self.sequence_length, initializer=initializers.serialize(self.initializer))
        return config

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
