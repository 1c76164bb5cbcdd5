"""``ElectraBackbone``: Google's ELECTRA encoder (BERT's blocks on embeddings that may be narrower than them).

backbone = ElectraBackbone(vocab_size=30522, num_layers=12, num_heads=12, hidden_dim=768, embedding_dim=768,
                           intermediate_dim=3072)
outputs = backbone({"token_ids": ids, "segment_ids": segments, "padding_mask": mask})
outputs["sequence_output"]    # (batch, length, hidden_dim)
outputs["pooled_output"]      # (batch, hidden_dim): the [CLS] position through a tanh dense layer
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import PositionEmbedding, TransformerEncoder
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.hub.models.backbone import Backbone
from tfkit.saving import register_keras_serializable


def electra_kernel_initializer(stddev: float = 0.02) -> Any:
    """ELECTRA's initializer of kernels and embeddings, as KerasHub's ELECTRA layers use it.

    Args:
        stddev: The standard deviation of the truncated normal. Defaults to
            `0.02`.

    Returns:
        A `tfkit.initializers.TruncatedNormal`.

    Example:
        >>> from tfkit.hub.models.electra.electra_backbone import electra_kernel_initializer
        >>> electra_kernel_initializer().get_config()["stddev"]
        0.02
    """
    return initializers.TruncatedNormal(stddev=stddev)


@register_keras_serializable(package="keras_hub")
class ElectraBackbone(Backbone):
    """An ELECTRA encoder network.

    The encoder of "ELECTRA: Pre-training Text Encoders as Discriminators
    Rather Than Generators" (Clark et al., 2020): BERT's token, learned
    position and segment embeddings of `embedding_dim`, summed and
    layer-normalized, projected to `hidden_dim` (`embeddings_projection`,
    only where the two differ, as in ELECTRA's small generators), then
    `num_layers` transformer encoder blocks (layer norm after each residual,
    tanh-approximated GELU). It outputs the `sequence_output` of the last
    block and the `pooled_output`, the first (`[CLS]`) position through a
    tanh dense layer. Layer names and weights are KerasHub's, so KerasHub's
    ELECTRA presets load into it. As in KerasHub, the vocabulary's size is
    the argument `vocab_size`.

    Args:
        vocab_size: The size of the token vocabulary.
        num_layers: The number of transformer encoder blocks.
        num_heads: The number of attention heads of each block; `hidden_dim`
            must be divisible by it.
        hidden_dim: The size of the hidden states and of the pooler.
        embedding_dim: The size of the embeddings.
        intermediate_dim: The size of each feedforward network's hidden layer.
        dropout: The dropout rate of the embeddings and the blocks. Defaults
            to `0.1`.
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

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.ElectraBackbone(vocab_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, embedding_dim=4, intermediate_dim=16, max_sequence_length=12)
        >>> inputs = {"token_ids": np.ones((1, 5), "int32"), "segment_ids": np.zeros((1, 5), "int32"),
        ...     "padding_mask": np.ones((1, 5), "int32")}
        >>> outputs = backbone(inputs)
        >>> outputs["sequence_output"].shape, outputs["pooled_output"].shape
        (TensorShape([1, 5, 8]), TensorShape([1, 8]))
        >>> backbone.embeddings_projection.kernel.shape
        TensorShape([4, 8])
    """

    def __init__(
        self,
        vocab_size: int,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        embedding_dim: int,
        intermediate_dim: int,
        dropout: float = 0.1,
        max_sequence_length: int = 512,
        num_segments: int = 2,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocab_size,
            output_dim=embedding_dim,
            embeddings_initializer=electra_kernel_initializer(),
            dtype=dtype,
            name="token_embedding",
        )
        self.position_embedding = PositionEmbedding(
            initializer=electra_kernel_initializer(),
            sequence_length=max_sequence_length,
            dtype=dtype,
            name="position_embedding",
        )
        self.segment_embedding = layers.Embedding(
            input_dim=num_segments,
            output_dim=embedding_dim,
            embeddings_initializer=electra_kernel_initializer(),
            dtype=dtype,
            name="segment_embedding",
        )
        self.embeddings_add = layers.Add(dtype=dtype, name="embeddings_add")
        self.embeddings_layer_norm = layers.LayerNormalization(
            axis=-1, epsilon=1e-12, dtype=dtype, name="embeddings_layer_norm"
        )
        self.embeddings_dropout = layers.Dropout(dropout, dtype=dtype, name="embeddings_dropout")
        if hidden_dim != embedding_dim:
            self.embeddings_projection = layers.Dense(
                hidden_dim, kernel_initializer=electra_kernel_initializer(), dtype=dtype, name="embeddings_projection"
            )
        self.transformer_layers = [
            TransformerEncoder(
                num_heads=num_heads,
                intermediate_dim=intermediate_dim,
                activation=gelu_approximate,
                dropout=dropout,
                layer_norm_epsilon=1e-12,
                kernel_initializer=electra_kernel_initializer(),
                dtype=dtype,
                name=f"transformer_layer_{i}",
            )
            for i in range(num_layers)
        ]
        self.pooled_dense = layers.Dense(
            hidden_dim,
            kernel_initializer=electra_kernel_initializer(),
            activation="tanh",
            dtype=dtype,
            name="pooled_dense",
        )

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        segment_ids = Input(shape=(None,), dtype="int32", name="segment_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        tokens = self.token_embedding(token_ids)
        x = self.embeddings_add((tokens, self.position_embedding(tokens), self.segment_embedding(segment_ids)))
        x = self.embeddings_dropout(self.embeddings_layer_norm(x))
        if hidden_dim != embedding_dim:
            x = self.embeddings_projection(x)
        for block in self.transformer_layers:
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
