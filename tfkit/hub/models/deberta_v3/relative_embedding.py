"""``RelativeEmbedding``: DeBERTa's table of relative position embeddings, layer-normalized, one per example.

relative = RelativeEmbedding(hidden_dim=768, bucket_size=256, layer_norm_epsilon=1e-7, name="rel_embedding")
table = relative(x)          # (batch, 2 * bucket_size, hidden_dim), whatever x's length
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.layers import LayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RelativeEmbedding(DeclaredConfig, Layer):
    """Relative embedding layer: DeBERTa's embeddings of the relative distance buckets.

    A `(2 * bucket_size, hidden_dim)` weight (`rel_embedding`, made with the
    layer, as in KerasHub), layer-normalized and repeated for each example of
    the input; the disentangled attention projects it into position queries
    and keys.

    Args:
        hidden_dim: Integer, the size of each embedding.
        bucket_size: Integer, the number of relative distance buckets on
            each side.
        layer_norm_epsilon: Float, the layer norm's epsilon. Defaults to
            `1e-5`.
        kernel_initializer: Initializer of the table. Defaults to
            `"glorot_uniform"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Tensor `(batch, ...)`; only its batch size is used.

    Returns:
        Tensor `(batch, 2 * bucket_size, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.deberta_v3.relative_embedding import RelativeEmbedding
        >>> RelativeEmbedding(hidden_dim=8, bucket_size=4)(np.zeros((3, 5, 8), "float32")).shape
        TensorShape([3, 8, 8])
    """

    def __init__(
        self,
        hidden_dim: int,
        bucket_size: int,
        layer_norm_epsilon: float = 1e-05,
        kernel_initializer: Any = "glorot_uniform",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_dim = hidden_dim
        self.bucket_size = bucket_size
        self.layer_norm_epsilon = layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.rel_embeddings = self.add_weight(
            shape=(bucket_size * 2, hidden_dim), initializer=self.kernel_initializer, name="rel_embedding"
        )
        self.layer_norm = LayerNormalization(
            epsilon=layer_norm_epsilon, dtype=self.dtype_policy, name="rel_embeddings_layer_norm"
        )

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        table = self.layer_norm(tf.convert_to_tensor(self.rel_embeddings)[None])
        return tf.repeat(table, tf.shape(inputs)[0], axis=0)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.bucket_size * 2, self.hidden_dim)
