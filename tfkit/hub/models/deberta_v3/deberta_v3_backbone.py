"""``DebertaV3Backbone``: Microsoft's DeBERTa-v3 encoder (token embeddings, relative position buckets,
disentangled attention), KerasHub's layout.

backbone = DebertaV3Backbone(vocabulary_size=128100, num_layers=12, num_heads=12, hidden_dim=768,
                             intermediate_dim=3072, max_sequence_length=512, bucket_size=256)
sequence_output = backbone({"token_ids": ids, "padding_mask": mask})     # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit import activations, initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.deberta_v3.disentangled_attention_encoder import DisentangledAttentionEncoder
from tfkit.hub.models.deberta_v3.relative_embedding import RelativeEmbedding
from tfkit.saving import register_keras_serializable


def deberta_kernel_initializer(stddev: float = 0.02) -> Any:
    """DeBERTa's initializer of kernels and embeddings, as KerasHub's DeBERTa-v3 layers use it.

    Args:
        stddev: The standard deviation of the truncated normal. Defaults to
            `0.02`.

    Returns:
        A `tfkit.initializers.TruncatedNormal`.

    Example:
        >>> from tfkit.hub.models.deberta_v3.deberta_v3_backbone import deberta_kernel_initializer
        >>> deberta_kernel_initializer().get_config()["stddev"]
        0.02
    """
    return initializers.TruncatedNormal(stddev=stddev)


@register_keras_serializable(package="keras_hub")
class DebertaV3Backbone(Backbone):
    """DeBERTa encoder network.

    Token embeddings (no absolute positions), a layer norm and dropout feed
    `num_layers` `DisentangledAttentionEncoder` blocks, which share one
    table of relative position embeddings (`RelativeEmbedding`, `2 *
    bucket_size` rows); the output is the last block's hidden states. The
    layer names and weights are KerasHub's, so KerasHub's DeBERTa-v3 presets
    load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of encoder blocks.
        num_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each feedforward network.
        dropout: The dropout rate. Defaults to `0.1`.
        max_sequence_length: The longest distance the logarithmic position
            buckets reach. Defaults to `512`.
        bucket_size: The number of relative distance buckets on each side.
            Defaults to `256`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.DebertaV3Backbone(vocabulary_size=10, num_layers=2, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=16, bucket_size=4)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        dropout: float = 0.1,
        max_sequence_length: int = 512,
        bucket_size: int = 256,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=hidden_dim,
            embeddings_initializer=deberta_kernel_initializer(),
            dtype=dtype,
            name="token_embedding",
        )
        self.embeddings_layer_norm = layers.LayerNormalization(epsilon=1e-7, dtype=dtype, name="embeddings_layer_norm")
        self.embeddings_dropout = layers.Dropout(dropout, dtype=dtype, name="embeddings_dropout")
        self.relative_embeddings = RelativeEmbedding(
            hidden_dim=hidden_dim,
            bucket_size=bucket_size,
            layer_norm_epsilon=1e-7,
            kernel_initializer=deberta_kernel_initializer(),
            dtype=dtype,
            name="rel_embedding",
        )
        self.transformer_layers = [
            DisentangledAttentionEncoder(
                num_heads=num_heads,
                intermediate_dim=intermediate_dim,
                max_position_embeddings=max_sequence_length,
                bucket_size=bucket_size,
                dropout=dropout,
                activation=activations.gelu,
                layer_norm_epsilon=1e-7,
                kernel_initializer=deberta_kernel_initializer(),
                dtype=dtype,
                name=f"disentangled_attention_encoder_layer_{i}",
            )
            for i in range(num_layers)
        ]
        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.embeddings_dropout(self.embeddings_layer_norm(self.token_embedding(token_ids)))
        rel_embeddings = self.relative_embeddings(x)
        for block in self.transformer_layers:
            x = block(x, rel_embeddings=rel_embeddings, padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask}, outputs=x, dtype=dtype, **kwargs
        )
        self.start_token_index = 0
