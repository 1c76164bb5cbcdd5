"""``GPTNeoXBackbone``: EleutherAI's GPT-NeoX decoder stack (parallel residual blocks, partial rotary), KerasHub's.

backbone = GPTNeoXBackbone(vocabulary_size=50432, num_layers=6, num_heads=8, hidden_dim=512,
                           intermediate_dim=2048, max_sequence_length=2048)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_decoder import GPTNeoXDecoder
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GPTNeoXBackbone(Backbone):
    """The GPT-NeoX core network, with hyperparameters.

    Token embeddings (no position embeddings: queries and keys are rotated
    by position, in the first `rotary_percentage` of each head) feed
    `num_layers` `GPTNeoXDecoder` blocks, whose attention and feedforward
    branches read the same input, then a final layer norm. `GPTNeoXCausalLM`
    ties the token embedding back to the vocabulary for logits. Layer names
    and weights are KerasHub's, so KerasHub's presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of decoder blocks.
        num_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of each feedforward network's hidden layer.
        dropout: The dropout rate. Defaults to `0.0`.
        rotary_percentage: The part of each query and key head that is
            rotated. Defaults to `0.25`.
        rotary_max_wavelength: The rotary embedding's longest wavelength.
            Defaults to `10000`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-5`.
        max_sequence_length: The longest sequence. Defaults to `512`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.GPTNeoXBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=16, intermediate_dim=16, max_sequence_length=12)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 16])
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        dropout: float = 0.0,
        rotary_percentage: float = 0.25,
        rotary_max_wavelength: int = 10000,
        layer_norm_epsilon: float = 1e-5,
        max_sequence_length: int = 512,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=hidden_dim,
            embeddings_initializer=initializers.RandomNormal(stddev=0.01),
            dtype=dtype,
            name="token_embedding",
        )
        self.embeddings_dropout = layers.Dropout(dropout, dtype=dtype, name="embeddings_dropout")
        self.transformer_layers = [
            GPTNeoXDecoder(
                intermediate_dim=intermediate_dim,
                num_heads=num_heads,
                dropout=dropout,
                max_sequence_length=max_sequence_length,
                rotary_percentage=rotary_percentage,
                rotary_max_wavelength=rotary_max_wavelength,
                layer_norm_epsilon=layer_norm_epsilon,
                activation=gelu_approximate,
                kernel_initializer=initializers.RandomNormal(stddev=0.02),
                dtype=dtype,
                name=f"transformer_layer_{i}",
            )
            for i in range(num_layers)
        ]
        self.layer_norm = layers.LayerNormalization(axis=-1, epsilon=layer_norm_epsilon, dtype=dtype, name="layer_norm")

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.embeddings_dropout(self.token_embedding(token_ids))
        for block in self.transformer_layers:
            x = block(x, decoder_padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask},
            outputs=self.layer_norm(x),
            dtype=dtype,
            **kwargs,
        )
