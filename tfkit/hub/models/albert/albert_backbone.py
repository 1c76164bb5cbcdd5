"""``AlbertBackbone``: Google's ALBERT encoder (factorized embeddings, transformer blocks shared across layers).

backbone = AlbertBackbone(vocabulary_size=30000, num_layers=12, num_heads=12, embedding_dim=128, hidden_dim=768,
                          intermediate_dim=3072)
outputs = backbone({"token_ids": ids, "segment_ids": segments, "padding_mask": mask})
outputs["sequence_output"]    # (batch, length, hidden_dim)
outputs["pooled_output"]      # (batch, hidden_dim): the [CLS] position through a tanh dense layer

The embeddings are `embedding_dim` wide and projected to `hidden_dim`; the `num_layers` layers run
`num_groups` groups of `num_inner_repetitions` blocks, each group `num_layers // num_groups` times in a row,
so a model of 12 layers may hold the weights of one block.
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import PositionEmbedding, TransformerEncoder
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.hub.models.backbone import Backbone
from tfkit.saving import register_keras_serializable


def albert_kernel_initializer(stddev: float = 0.02) -> Any:
    """ALBERT's initializer of kernels and embeddings, as KerasHub's ALBERT layers use it.

    Args:
        stddev: The standard deviation of the truncated normal. Defaults to
            `0.02`.

    Returns:
        A `tfkit.initializers.TruncatedNormal`.

    Example:
        >>> from tfkit.hub.models.albert.albert_backbone import albert_kernel_initializer
        >>> albert_kernel_initializer().get_config()["stddev"]
        0.02
    """
    return initializers.TruncatedNormal(stddev=stddev)


@register_keras_serializable(package="keras_hub")
class AlbertBackbone(Backbone):
    """An ALBERT encoder network.

    The encoder of "ALBERT: A Lite BERT for Self-supervised Learning of
    Language Representations" (Lan et al., 2019): BERT's token, learned
    position and segment embeddings, summed and layer-normalized, but
    `embedding_dim` wide and projected to `hidden_dim` (a factorized
    embedding), then `num_layers` transformer encoder blocks (layer norm
    after each residual, tanh-approximated GELU) whose weights are shared:
    the blocks form `num_groups` groups of `num_inner_repetitions` blocks
    (`transformer_layers`, a list of groups), and each group runs
    `num_layers // num_groups` times in turn. It outputs the
    `sequence_output` of the last block and the `pooled_output`, the first
    (`[CLS]`) position through a tanh dense layer. Layer names and weights
    are KerasHub's, so KerasHub's ALBERT presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of blocks run, a multiple of `num_groups`.
        num_heads: The number of attention heads of each block; `hidden_dim`
            must be divisible by it.
        embedding_dim: The size of the embeddings.
        hidden_dim: The size of the hidden states and of the pooler.
        intermediate_dim: The size of each feedforward network's hidden layer.
        num_groups: The number of groups of blocks with their own weights.
            Defaults to `1`.
        num_inner_repetitions: The number of blocks in each group. Defaults
            to `1`.
        dropout: The dropout rate of the embeddings and the blocks. Defaults
            to `0.0`.
        max_sequence_length: The longest sequence the position embedding
            covers. Defaults to `512`.
        num_segments: The number of segment ids (`segment_ids` values).
            Defaults to `2`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids", "segment_ids", "padding_mask"}`, each int
            `(batch, length)`.

    Returns:
        `{"sequence_output": (batch, length, hidden_dim), "pooled_output": (batch, hidden_dim)}`.

    Raises:
        ValueError: If `num_layers` is not a multiple of `num_groups`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.AlbertBackbone(vocabulary_size=10, num_layers=4, num_heads=2,
        ...     embedding_dim=4, hidden_dim=8, intermediate_dim=16, num_groups=2, max_sequence_length=12)
        >>> inputs = {"token_ids": np.ones((1, 5), "int32"), "segment_ids": np.zeros((1, 5), "int32"),
        ...     "padding_mask": np.ones((1, 5), "int32")}
        >>> outputs = backbone(inputs)
        >>> outputs["sequence_output"].shape, outputs["pooled_output"].shape
        (TensorShape([1, 5, 8]), TensorShape([1, 8]))
        >>> [[block.name for block in group] for group in backbone.transformer_layers]
        [['group_0_inner_layer_0'], ['group_1_inner_layer_0']]
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_heads: int,
        embedding_dim: int,
        hidden_dim: int,
        intermediate_dim: int,
        num_groups: int = 1,
        num_inner_repetitions: int = 1,
        dropout: float = 0.0,
        max_sequence_length: int = 512,
        num_segments: int = 2,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if num_layers % num_groups != 0:
            raise ValueError(
                f"AlbertBackbone: num_layers={num_layers} is not a multiple of num_groups={num_groups} "
                f"(each group runs num_layers // num_groups times)"
            )
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=embedding_dim,
            embeddings_initializer=albert_kernel_initializer(),
            dtype=dtype,
            name="token_embedding",
        )
        self.position_embedding = PositionEmbedding(
            initializer=albert_kernel_initializer(),
            sequence_length=max_sequence_length,
            dtype=dtype,
            name="position_embedding",
        )
        self.segment_embedding = layers.Embedding(
            input_dim=num_segments,
            output_dim=embedding_dim,
            embeddings_initializer=albert_kernel_initializer(),
            dtype=dtype,
            name="segment_embedding",
        )
        self.embeddings_add = layers.Add(dtype=dtype, name="embeddings_add")
        self.embeddings_layer_norm = layers.LayerNormalization(
            axis=-1, epsilon=1e-12, dtype=dtype, name="embeddings_layer_norm"
        )
        self.embeddings_dropout = layers.Dropout(dropout, dtype=dtype, name="embeddings_dropout")
        self.embeddings_projection = layers.Dense(
            hidden_dim, kernel_initializer=albert_kernel_initializer(), dtype=dtype, name="embedding_projection"
        )
        self.transformer_layers = [
            [
                TransformerEncoder(
                    num_heads=num_heads,
                    intermediate_dim=intermediate_dim,
                    activation=gelu_approximate,
                    dropout=dropout,
                    layer_norm_epsilon=1e-12,
                    kernel_initializer=albert_kernel_initializer(),
                    dtype=dtype,
                    name=f"group_{group}_inner_layer_{inner}",
                )
                for inner in range(num_inner_repetitions)
            ]
            for group in range(num_groups)
        ]
        self.pooled_dense = layers.Dense(
            hidden_dim,
            kernel_initializer=albert_kernel_initializer(),
            activation="tanh",
            dtype=dtype,
            name="pooled_dense",
        )

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        segment_ids = Input(shape=(None,), dtype="int32", name="segment_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        tokens = self.token_embedding(token_ids)
        x = self.embeddings_add((tokens, self.position_embedding(tokens), self.segment_embedding(segment_ids)))
        x = self.embeddings_projection(self.embeddings_dropout(self.embeddings_layer_norm(x)))
        for group in self.transformer_layers:
            for _ in range(num_layers // num_groups):
                for block in group:
                    x = block(x, padding_mask=padding_mask)
        cls_token_index = 0
        pooled = self.pooled_dense(x[:, cls_token_index, :])
        super().__init__(
            inputs={"token_ids": token_ids, "segment_ids": segment_ids, "padding_mask": padding_mask},
            outputs={"sequence_output": x, "pooled_output": pooled},
            dtype=dtype,
            **kwargs,
        )
        self.cls_token_index = cls_token_index
