"""``FNetBackbone``: Google's FNet encoder (BERT's embeddings, Fourier mixing blocks instead of attention).

backbone = FNetBackbone(vocabulary_size=32000, num_layers=12, hidden_dim=768, intermediate_dim=3072)
outputs = backbone({"token_ids": ids, "segment_ids": segments})     # no padding mask: FNet mixes every position
outputs["sequence_output"]    # (batch, length, hidden_dim)
outputs["pooled_output"]      # (batch, hidden_dim): the [CLS] position through a tanh dense layer
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import FNetEncoder, PositionEmbedding
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.hub.models.backbone import Backbone
from tfkit.saving import register_keras_serializable


def f_net_kernel_initializer(stddev: float = 0.02) -> Any:
    """FNet's initializer of kernels, biases and embeddings, as KerasHub's FNet layers use it.

    Args:
        stddev: The standard deviation of the normal. Defaults to `0.02`.

    Returns:
        A `tfkit.initializers.RandomNormal`.

    Example:
        >>> from tfkit.hub.models.f_net.f_net_backbone import f_net_kernel_initializer
        >>> f_net_kernel_initializer().get_config()["stddev"]
        0.02
    """
    return initializers.RandomNormal(stddev=stddev)


@register_keras_serializable(package="keras_hub")
class FNetBackbone(Backbone):
    """An FNet encoder network.

    The encoder of "FNet: Mixing Tokens with Fourier Transforms"
    (Lee-Thorp et al., 2021): token, learned position and segment
    embeddings, summed, layer-normalized and projected
    (`embedding_projection`), then `num_layers` `FNetEncoder` blocks, whose
    token mixing is the real part of a 2-D Fourier transform (no weights, no
    attention) followed by a feedforward network (tanh-approximated GELU).
    It outputs the `sequence_output` of the last block and the
    `pooled_output`, the first (`[CLS]`) position through a tanh dense
    layer. There is no padding mask: `<pad>` is mixed in as any other
    token, as in KerasHub. Layer names and weights are KerasHub's, so
    KerasHub's FNet presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of FNet blocks.
        hidden_dim: The size of the embeddings, the hidden states and the
            pooler.
        intermediate_dim: The size of each feedforward network's hidden layer.
        dropout: The dropout rate of the embeddings and the blocks. Defaults
            to `0.1`.
        max_sequence_length: The longest sequence the position embedding
            covers. Defaults to `512`.
        num_segments: The number of segment ids (`segment_ids` values).
            Defaults to `4`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids", "segment_ids"}`, each int `(batch, length)`.

    Returns:
        `{"sequence_output": (batch, length, hidden_dim), "pooled_output": (batch, hidden_dim)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.FNetBackbone(vocabulary_size=10, num_layers=1, hidden_dim=8,
        ...     intermediate_dim=16, max_sequence_length=12)
        >>> inputs = {"token_ids": np.ones((1, 5), "int32"), "segment_ids": np.zeros((1, 5), "int32")}
        >>> outputs = backbone(inputs)
        >>> outputs["sequence_output"].shape, outputs["pooled_output"].shape
        (TensorShape([1, 5, 8]), TensorShape([1, 8]))
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        hidden_dim: int,
        intermediate_dim: int,
        dropout: float = 0.1,
        max_sequence_length: int = 512,
        num_segments: int = 4,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=hidden_dim,
            embeddings_initializer=f_net_kernel_initializer(),
            dtype=dtype,
            name="token_embedding",
        )
        self.position_embedding = PositionEmbedding(
            initializer=f_net_kernel_initializer(),
            sequence_length=max_sequence_length,
            dtype=dtype,
            name="position_embedding",
        )
        self.segment_embedding = layers.Embedding(
            input_dim=num_segments,
            output_dim=hidden_dim,
            embeddings_initializer=f_net_kernel_initializer(),
            dtype=dtype,
            name="segment_embedding",
        )
        self.embeddings_add = layers.Add(dtype=dtype, name="embeddings_add")
        self.embeddings_layer_norm = layers.LayerNormalization(
            axis=-1, epsilon=1e-12, dtype=dtype, name="embeddings_layer_norm"
        )
        self.embedding_projection = layers.Dense(
            hidden_dim,
            kernel_initializer=f_net_kernel_initializer(),
            bias_initializer=f_net_kernel_initializer(),
            dtype=dtype,
            name="embedding_projection",
        )
        self.embeddings_dropout = layers.Dropout(dropout, dtype=dtype, name="embeddings_dropout")
        self.transformer_layers = [
            FNetEncoder(
                intermediate_dim=intermediate_dim,
                activation=gelu_approximate,
                dropout=dropout,
                layer_norm_epsilon=1e-12,
                kernel_initializer=f_net_kernel_initializer(),
                bias_initializer=f_net_kernel_initializer(),
                dtype=dtype,
                name=f"f_net_layer_{i}",
            )
            for i in range(num_layers)
        ]
        self.pooled_dense = layers.Dense(
            hidden_dim,
            kernel_initializer=f_net_kernel_initializer(),
            bias_initializer=f_net_kernel_initializer(),
            activation="tanh",
            dtype=dtype,
            name="pooled_dense",
        )

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        segment_ids = Input(shape=(None,), dtype="int32", name="segment_ids")
        tokens = self.token_embedding(token_ids)
        x = self.embeddings_add((tokens, self.position_embedding(tokens), self.segment_embedding(segment_ids)))
        x = self.embeddings_dropout(self.embedding_projection(self.embeddings_layer_norm(x)))
        for block in self.transformer_layers:
            x = block(x)
        cls_token_index = 0
        pooled = self.pooled_dense(x[:, cls_token_index, :])
        super().__init__(
            inputs={"token_ids": token_ids, "segment_ids": segment_ids},
            outputs={"sequence_output": x, "pooled_output": pooled},
            dtype=dtype,
            **kwargs,
        )
        self.cls_token_index = cls_token_index
