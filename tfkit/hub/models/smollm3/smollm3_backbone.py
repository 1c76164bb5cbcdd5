"""``SmolLM3Backbone``: SmolLM3's decoder stack (grouped-query attention, rotary in most layers, "NoPE" in the
others), KerasHub's layout.

    backbone = SmolLM3Backbone(vocabulary_size=128256, hidden_dim=2048, intermediate_dim=11008, num_layers=36,
                               num_attention_heads=16, num_key_value_heads=4, attention_bias=False,
                               attention_dropout=0.0, rope_layer_enabled_list=[i % 4 != 3 for i in range(36)],
                               layer_types=["attention"] * 36, mlp_bias=False, layer_norm_epsilon=1e-6,
                               max_position_embeddings=65536, rope_theta=5e6, partial_rotary_factor=1.0)
    hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit import layers
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.decoder_backbone import decoder_blocks, decoder_graph
from tfkit.hub.models.smollm3.smollm3_decoder import SmolLM3DecoderLayer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SmolLM3Backbone(Backbone):
    """SmolLM3 core network with hyperparameters.

    Token embeddings (tied to the output head) feed `num_layers`
    `SmolLM3DecoderLayer` blocks (RMS norm, causal grouped-query
    self-attention, RMS norm, gated SiLU MLP), then a final RMS norm; the
    outputs are the last hidden states. Layer `i` rotates its queries and
    keys only when `rope_layer_enabled_list[i]` is true: SmolLM3 leaves every
    fourth layer without position embeddings ("NoPE"). The layer names and
    weights are KerasHub's, so KerasHub's SmolLM3 presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each MLP.
        num_layers: The number of decoder blocks.
        num_attention_heads: The number of query heads of each block.
        num_key_value_heads: The number of key and value heads of each block.
        attention_bias: Whether the query, key and value projections have
            biases.
        attention_dropout: The attention's dropout rate.
        rope_layer_enabled_list: A list of booleans, whether each layer uses
            rotary embeddings (layers past its end do).
        layer_types: A list of strings, each layer's kind (`"attention"`).
        mlp_bias: Whether the MLPs' `Dense` layers have biases.
        layer_norm_epsilon: The RMS norms' epsilon.
        max_position_embeddings: The longest sequence the model was trained
            for.
        rope_theta: The rotary embedding's base.
        partial_rotary_factor: The share of each head that is rotated.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.SmolLM3Backbone(vocabulary_size=10, hidden_dim=8, intermediate_dim=16,
        ...     num_layers=2, num_attention_heads=2, num_key_value_heads=1, attention_bias=False,
        ...     attention_dropout=0.0, rope_layer_enabled_list=[True, False], layer_types=["attention"] * 2,
        ...     mlp_bias=False, layer_norm_epsilon=1e-6, max_position_embeddings=32, rope_theta=10000.0,
        ...     partial_rotary_factor=1.0)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    norm = StoredAs("layer_norm")  # KerasHub's name; the shared decoder code reads `layer_norm`

    def __init__(
        self,
        vocabulary_size: int,
        hidden_dim: int,
        intermediate_dim: int,
        num_layers: int,
        num_attention_heads: int,
        num_key_value_heads: int,
        attention_bias: bool,
        attention_dropout: float,
        rope_layer_enabled_list: list,
        layer_types: list,
        mlp_bias: bool,
        layer_norm_epsilon: float,
        max_position_embeddings: int,
        rope_theta: float,
        partial_rotary_factor: float,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size, output_dim=hidden_dim, dtype=dtype, name="token_embedding"
        )
        self.transformer_layers = decoder_blocks(
            SmolLM3DecoderLayer,
            num_layers,
            dtype,
            per_layer=lambda i: {"layer_idx": i},
            hidden_size=hidden_dim,
            num_attention_heads=num_attention_heads,
            num_key_value_heads=num_key_value_heads,
            attention_bias=attention_bias,
            attention_dropout=attention_dropout,
            rope_layer_enabled_list=rope_layer_enabled_list,
            layer_types=layer_types,
            intermediate_size=intermediate_dim,
            mlp_bias=mlp_bias,
            layer_norm_epsilon=layer_norm_epsilon,
            max_position_embeddings=max_position_embeddings,
            rope_theta=rope_theta,
            partial_rotary_factor=partial_rotary_factor,
        )
        self.layer_norm = layers.RMSNormalization(
            epsilon=layer_norm_epsilon, dtype=dtype, name="sequence_output_layernorm"
        )
        super().__init__(**decoder_graph(self), dtype=dtype, **kwargs)


SmolLMBackbone = SmolLM3Backbone  # KerasHub's other name of the class
