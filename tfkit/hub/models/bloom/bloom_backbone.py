"""``BloomBackbone``: BigScience's Bloom decoder stack (an embedding layer norm, ALiBi blocks), KerasHub's layout.

backbone = BloomBackbone(vocabulary_size=250880, num_layers=24, num_heads=16, hidden_dim=1024,
                         intermediate_dim=4096)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.bloom.bloom_decoder import BloomDecoder
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BloomBackbone(Backbone):
    """The Bloom core network, with hyperparameters.

    Token embeddings go through a layer norm ("embedding_layernorm"), then
    `num_layers` `BloomDecoder` blocks (positions enter as ALiBi biases on the
    attention scores, so any length runs), then a final layer norm
    ("final_layernorm"). `BloomCausalLM` ties the token embedding back to the
    vocabulary for logits. Layer names and weights are KerasHub's.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of decoder blocks.
        num_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of each feedforward network's hidden layer.
        dropout: The dropout rate. Defaults to `0.0`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-5`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.BloomBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16)
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
        dropout: float = 0.0,
        layer_norm_epsilon: float = 1e-5,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=hidden_dim,
            embeddings_initializer=initializers.RandomNormal(stddev=0.02),
            dtype=dtype,
            name="token_embedding",
        )
        self.embeddings_layer_norm = layers.LayerNormalization(
            epsilon=layer_norm_epsilon, dtype=dtype, name="embedding_layernorm"
        )
        self.transformer_layers = [
            BloomDecoder(
                num_heads=num_heads,
                intermediate_dim=intermediate_dim,
                dropout=dropout,
                layer_norm_epsilon=layer_norm_epsilon,
                dtype=dtype,
                name=f"transformer_layer_{i}",
            )
            for i in range(num_layers)
        ]
        self.layer_norm = layers.LayerNormalization(epsilon=layer_norm_epsilon, dtype=dtype, name="final_layernorm")

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.embeddings_layer_norm(self.token_embedding(token_ids))
        for block in self.transformer_layers:
            x = block(x, decoder_padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask},
            outputs=self.layer_norm(x),
            dtype=dtype,
            **kwargs,
        )
