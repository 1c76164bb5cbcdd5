"""The parts every Llama-style decoder backbone builds the same way: its embedding, its blocks, its graph.

    self.token_embedding = token_embedding(vocabulary_size, hidden_dim, tie_weights=False, dtype=dtype)
    self.transformer_layers = decoder_blocks(MistralTransformerDecoder, num_layers, dtype, intermediate_dim=...)
    self.layer_norm = MistralLayerNormalization(epsilon=..., dtype=dtype, name="sequence_output_layernorm")
    super().__init__(**decoder_graph(self), dtype=dtype, **kwargs)

Token ids go through the embedding, the blocks (each reading the padding mask) and the
final norm: KerasHub's ``LlamaBackbone``, ``MistralBackbone``, ``QwenBackbone`` and
``Qwen3Backbone`` build this graph, with these layer names and initializers, each in
its own file; here a family writes only what differs (its block class and arguments).
"""

from __future__ import annotations

from typing import Any, Callable

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.engine.layer import Layer


def token_embedding(vocabulary_size: int, hidden_dim: int, tie_weights: bool, dtype: Any) -> Layer:
    """The `"token_embedding"` layer: a `ReversibleEmbedding`, normal(0.01) at first, tied or not.

    Args:
        vocabulary_size: The number of token ids.
        hidden_dim: The size of each embedding.
        tie_weights: Whether the output head reuses the embedding matrix.
        dtype: The dtype policy, or `None` (global).

    Returns:
        The embedding layer, not built.

    Example:
        >>> from tfkit.hub.models.decoder_backbone import token_embedding
        >>> token_embedding(10, 4, tie_weights=False, dtype=None)(np.array([[1, 2]])).shape
        TensorShape([1, 2, 4])
    """
    return layers.ReversibleEmbedding(
        input_dim=vocabulary_size,
        output_dim=hidden_dim,
        tie_weights=tie_weights,
        embeddings_initializer=initializers.RandomNormal(stddev=0.01),
        dtype=dtype,
        name="token_embedding",
    )


def decoder_blocks(
    block_class: type[Layer],
    num_layers: int,
    dtype: Any,
    per_layer: Callable[[int], dict[str, Any]] | None = None,
    **arguments: Any,
) -> list[Layer]:
    """`num_layers` blocks named `"transformer_layer_{i}"`, kernels normal(0.02) at first, as KerasHub's.

    Args:
        block_class: The family's decoder block class.
        num_layers: How many blocks.
        dtype: The dtype policy, or `None` (global).
        per_layer: Optional function of a block's index giving the arguments
            that differ between blocks (Qwen 3 MoE's experts or dense MLP).
        **arguments: The block's other constructor arguments.

    Returns:
        The list of blocks, not built.

    Example:
        >>> from tfkit.hub.models.decoder_backbone import decoder_blocks
        >>> from tfkit.hub.models.mistral.mistral_transformer_decoder import MistralTransformerDecoder
        >>> blocks = decoder_blocks(MistralTransformerDecoder, 2, None, intermediate_dim=8, num_query_heads=2,
        ...     num_key_value_heads=1)
        >>> [block.name for block in blocks]
        ['transformer_layer_0', 'transformer_layer_1']
    """
    return [
        block_class(
            **arguments,
            **(per_layer(i) if per_layer is not None else {}),
            kernel_initializer=initializers.RandomNormal(stddev=0.02),
            dtype=dtype,
            name=f"transformer_layer_{i}",
        )
        for i in range(num_layers)
    ]


def decoder_graph(backbone: Any) -> dict[str, Any]:
    """The functional graph through `backbone`'s `token_embedding`, `transformer_layers` and `layer_norm`.

    Args:
        backbone: The backbone being constructed, its three parts set.

    Returns:
        `{"inputs": {"token_ids", "padding_mask"}, "outputs": hidden states}`,
        the arguments of `Backbone.__init__`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.MistralBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, num_key_value_heads=1)
        >>> sorted(backbone.input)
        ['padding_mask', 'token_ids']
    """
    token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
    padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
    x = backbone.token_embedding(token_ids)
    for block in backbone.transformer_layers:
        x = block(x, decoder_padding_mask=padding_mask)
    return {"inputs": {"token_ids": token_ids, "padding_mask": padding_mask}, "outputs": backbone.layer_norm(x)}
