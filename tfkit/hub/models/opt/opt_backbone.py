"""``OPTBackbone``: Meta's OPT decoder stack (learned positions, pre-norm ReLU blocks), KerasHub's layout.

backbone = OPTBackbone(vocabulary_size=50272, num_layers=12, num_heads=12, hidden_dim=768,
                       intermediate_dim=3072, max_sequence_length=2048)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import TokenAndPositionEmbedding, TransformerDecoder
from tfkit.hub.models.backbone import Backbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class OPTBackbone(Backbone):
    """The OPT core network, with hyperparameters.

    One `TokenAndPositionEmbedding` (token plus learned position
    embeddings) feeds `num_layers` pre-layer-norm transformer decoder blocks
    (causal self-attention, ReLU feedforward), then a final layer norm. Its
    outputs are the last hidden states; `OPTCausalLM` ties the token
    embedding back to the vocabulary for logits. Layer names and weights are
    KerasHub's, so KerasHub's OPT presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of transformer decoder blocks.
        num_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of each feedforward network's hidden layer.
        dropout: The dropout rate. Defaults to `0.1`.
        max_sequence_length: The longest sequence the position embedding
            covers. Defaults to `2048`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.OPTBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    positions_argument = "max_sequence_length"

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        dropout: float = 0.1,
        max_sequence_length: int = 2048,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.embeddings = TokenAndPositionEmbedding(
            vocabulary_size=vocabulary_size,
            sequence_length=max_sequence_length,
            embedding_dim=hidden_dim,
            embeddings_initializer=initializers.TruncatedNormal(stddev=0.02),
            dtype=dtype,
            name="embeddings",
        )
        self.token_embedding = self.embeddings.token_embedding
        self.transformer_layers = [
            TransformerDecoder(
                intermediate_dim=intermediate_dim,
                num_heads=num_heads,
                dropout=dropout,
                activation="relu",
                layer_norm_epsilon=1e-5,
                normalize_first=True,
                kernel_initializer=initializers.TruncatedNormal(stddev=0.02),
                dtype=dtype,
                name=f"transformer_layer_{i}",
            )
            for i in range(num_layers)
        ]
        self.layer_norm = layers.LayerNormalization(axis=-1, epsilon=1e-5, dtype=dtype, name="layer_norm")

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.embeddings(token_ids)
        for block in self.transformer_layers:
            x = block(x, decoder_padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask},
            outputs=self.layer_norm(x),
            dtype=dtype,
            **kwargs,
        )
