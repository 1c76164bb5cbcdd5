"""``Gemma3InterleaveEmbeddings``: an image's soft tokens written over the ``<img>`` placeholders of a prompt.

    x = Gemma3InterleaveEmbeddings(num_vision_tokens_per_image=256)(
        image_embeddings=soft_tokens, text_embeddings=token_embeddings, vision_indices=indices)

``vision_indices`` holds, for each row, the positions of its placeholders,
padded with ``0`` (the preprocessor's ``_get_vision_indices``); position 0
(``<bos>``) keeps its text embedding.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig


class Gemma3InterleaveEmbeddings(DeclaredConfig, Layer):
    """Places image embeddings in the correct position in an embedding sequence, as KerasHub's layer.

    Args:
        num_vision_tokens_per_image: The soft tokens of each image.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        image_embeddings: `(batch * images, num_vision_tokens_per_image,
            hidden_dim)`, as `Gemma3VisionEncoder` gives them.
        text_embeddings: `(batch, length, hidden_dim)`.
        vision_indices: int `(batch, images * num_vision_tokens_per_image)`:
            the position of each soft token in its row (padding is `0`).

    Returns:
        `(batch, length, hidden_dim)`: the text embeddings, the image's at
        its positions.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_interleave_embeddings import Gemma3InterleaveEmbeddings
        >>> text, image = np.zeros((1, 4, 2), "float32"), np.ones((1, 2, 2), "float32")
        >>> layer = Gemma3InterleaveEmbeddings(num_vision_tokens_per_image=2)
        >>> layer(image_embeddings=image, text_embeddings=text, vision_indices=np.array([[1, 2]]))[0, :, 0].numpy()
        array([0., 1., 1., 0.], dtype=float32)
    """

    def __init__(self, num_vision_tokens_per_image: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_vision_tokens_per_image = num_vision_tokens_per_image

    def call(self, image_embeddings: Any, text_embeddings: Any, vision_indices: Any) -> tf.Tensor:
        shape = tf.shape(text_embeddings)
        batch, length, hidden_dim = shape[0], shape[1], shape[2]
        flat_text = tf.reshape(text_embeddings, [batch * length, hidden_dim])
        flat_images = tf.reshape(
            image_embeddings, [tf.shape(image_embeddings)[0] * self.num_vision_tokens_per_image, hidden_dim]
        )
        row_starts = tf.range(batch, dtype=tf.int32) * length  # each row's position 0 in the flat sequence
        indices = tf.reshape(tf.cast(vision_indices, tf.int32) + row_starts[:, tf.newaxis], [-1, 1])
        first_tokens = tf.gather(flat_text, row_starts)
        x = tf.tensor_scatter_nd_update(flat_text, indices, tf.cast(flat_images, flat_text.dtype))
        x = tf.tensor_scatter_nd_update(x, row_starts[:, tf.newaxis], first_tokens)  # the padding's writes undone
        return tf.reshape(x, shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
