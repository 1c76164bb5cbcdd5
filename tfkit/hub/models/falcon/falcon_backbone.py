"""``FalconBackbone``: TII's Falcon-RW decoder stack (ALiBi blocks, exact GELU), KerasHub's layout.

backbone = FalconBackbone(vocabulary_size=50304, num_layers=24, num_attention_heads=32, hidden_dim=2048,
                          intermediate_dim=8192)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit import layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.falcon.falcon_transformer_decoder import FalconTransformerDecoder
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class FalconBackbone(Backbone):
    """The Falcon core network, with hyperparameters.

    Token embeddings feed `num_layers` `FalconTransformerDecoder` blocks
    (positions enter as ALiBi biases), then a final layer norm
    (`final_layernorm`, which the shared decoding loop reads as
    `layer_norm`). `FalconCausalLM` ties the token embedding back to the
    vocabulary for logits. Layer names and weights are KerasHub's.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of decoder blocks.
        num_attention_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of each feedforward network's hidden layer.
        layer_norm_epsilon: The final layer norm's epsilon (KerasHub's blocks
            keep their default, `1e-5`). Defaults to `1e-5`.
        attention_dropout_rate: The attention's dropout rate. Defaults to `0`.
        feedforward_dropout_rate: The feedforward dropout rate. Defaults to
            `0`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.FalconBackbone(vocabulary_size=10, num_layers=1, num_attention_heads=2,
        ...     hidden_dim=8, intermediate_dim=16)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    layer_norm = StoredAs("final_layernorm")

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_attention_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        layer_norm_epsilon: float = 1e-5,
        attention_dropout_rate: float = 0,
        feedforward_dropout_rate: float = 0,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size, output_dim=hidden_dim, dtype=dtype, name="token_embedding"
        )
        self.transformer_layers = [
            FalconTransformerDecoder(
                num_attention_heads=num_attention_heads,
                intermediate_dim=intermediate_dim,
                attention_dropout_rate=attention_dropout_rate,
                feedforward_dropout_rate=feedforward_dropout_rate,
                dtype=dtype,
                name=f"transformer_layer_{i}",
            )
            for i in range(num_layers)
        ]
        self.final_layernorm = layers.LayerNormalization(
            epsilon=layer_norm_epsilon, dtype=dtype, name="final_layernorm"
        )

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.token_embedding(token_ids)
        for block in self.transformer_layers:
            x = block(x, decoder_padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask},
            outputs=self.final_layernorm(x),
            dtype=dtype,
            **kwargs,
        )
