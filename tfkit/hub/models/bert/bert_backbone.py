"""``BertBackbone``: Google's BERT encoder (token, position and segment embeddings, post-norm blocks, a pooler).

backbone = BertBackbone(vocabulary_size=30522, num_layers=12, num_heads=12, hidden_dim=768,
                        intermediate_dim=3072, max_sequence_length=512)
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


def bert_kernel_initializer(stddev: float = 0.02) -> Any:
    """BERT's initializer of kernels and embeddings, as KerasHub's BERT layers use it.

    Args:
        stddev: The standard deviation of the truncated normal. Defaults to
            `0.02`.

    Returns:
        A `tfkit.initializers.TruncatedNormal`.

    Example:
        >>> from tfkit.hub.models.bert.bert_backbone import bert_kernel_initializer
        >>> bert_kernel_initializer().get_config()["stddev"]
        0.02
    """
    return initializers.TruncatedNormal(stddev=stddev)


@register_keras_serializable(package="keras_hub")
class BertBackbone(Backbone):
    """A BERT encoder network.

    The bidirectional transformer encoder of "BERT: Pre-training of Deep
    Bidirectional Transformers for Language Understanding" (Devlin et al.,
    2018): token, learned position and segment embeddings, summed and
    layer-normalized, then `num_layers` transformer encoder blocks (layer
    norm after each residual, tanh-approximated GELU). It outputs the
    `sequence_output` of the last block and the `pooled_output`, the first
    (`[CLS]`) position through a tanh dense layer. Layer names and weights
    are KerasHub's, so KerasHub's BERT presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of transformer encoder blocks.
        num_heads: The number of attention heads of each block; `hidden_dim`
            must be divisible by it.
        hidden_dim: The size of the hidden states and of the pooler.
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
        >>> backbone = keras_hub.models.BertBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> inputs = {"token_ids": np.ones((1, 5), "int32"), "segment_ids": np.zeros((1, 5), "int32"),
        ...     "padding_mask": np.ones((1, 5), "int32")}
        >>> outputs = backbone(inputs)
        >>> outputs["sequence_output"].shape, outputs["pooled_output"].shape
        (TensorShape([1, 5, 8]), TensorShape([1, 8]))
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
        num_segments: int = 2,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=hidden_dim,
            embeddings_initializer=bert_kernel_initializer(),
            dtype=dtype,
            name="token_embedding",
        )
        self.position_embedding = PositionEmbedding(
            initializer=bert_kernel_initializer(),
            sequence_length=max_sequence_length,
            dtype=dtype,
            name="position_embedding",
        )
        self.segment_embedding = layers.Embedding(
            input_dim=num_segments,
            output_dim=hidden_dim,
            embeddings_initializer=bert_kernel_initializer(),
            dtype=dtype,
            name="segment_embedding",
        )
        self.embeddings_add = layers.Add(dtype=dtype, name="embeddings_add")
        self.embeddings_layer_norm = layers.LayerNormalization(
            axis=-1, epsilon=1e-12, dtype=dtype, name="embeddings_layer_norm"
        )
        self.embeddings_dropout = layers.Dropout(dropout, dtype=dtype, name="embeddings_dropout")
        self.transformer_layers = [
            TransformerEncoder(
                num_heads=num_heads,
                intermediate_dim=intermediate_dim,
                activation=gelu_approximate,
                dropout=dropout,
                layer_norm_epsilon=1e-12,
                kernel_initializer=bert_kernel_initializer(),
                dtype=dtype,
                name=f"transformer_layer_{i}",
            )
            for i in range(num_layers)
        ]
        self.pooled_dense = layers.Dense(
            hidden_dim,
            kernel_initializer=bert_kernel_initializer(),
            activation="tanh",
            dtype=dtype,
            name="pooled_dense",
        )

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        segment_ids = Input(shape=(None,), dtype="int32", name="segment_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        tokens = self.token_embedding(token_ids)
        positions = self.position_embedding(tokens)
        segments = self.segment_embedding(segment_ids)
        x = self.embeddings_add((tokens, positions, segments))
        x = self.embeddings_layer_norm(x)
        x = self.embeddings_dropout(x)
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
