"""``DistilBertBackbone``: Hugging Face's DistilBERT encoder (BERT distilled: no segments, no pooler).

backbone = DistilBertBackbone(vocabulary_size=30522, num_layers=6, num_heads=12, hidden_dim=768,
                              intermediate_dim=3072, max_sequence_length=512)
sequence_output = backbone({"token_ids": ids, "padding_mask": mask})     # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import TokenAndPositionEmbedding, TransformerEncoder
from tfkit.hub.models.backbone import Backbone
from tfkit.saving import register_keras_serializable


def distilbert_kernel_initializer(stddev: float = 0.02) -> Any:
    """DistilBERT's initializer of kernels and embeddings, as KerasHub's DistilBERT layers use it.

    Args:
        stddev: The standard deviation of the truncated normal. Defaults to
            `0.02`.

    Returns:
        A `tfkit.initializers.TruncatedNormal`.

    Example:
        >>> from tfkit.hub.models.distil_bert.distil_bert_backbone import distilbert_kernel_initializer
        >>> distilbert_kernel_initializer().get_config()["stddev"]
        0.02
    """
    return initializers.TruncatedNormal(stddev=stddev)


@register_keras_serializable(package="keras_hub")
class DistilBertBackbone(Backbone):
    """A DistilBERT encoder network.

    The encoder of "DistilBERT, a distilled version of BERT: smaller, faster,
    cheaper and lighter" (Sanh et al., 2019): token and learned position
    embeddings (`token_and_position_embedding`), summed and
    layer-normalized, then `num_layers` transformer encoder blocks (layer
    norm after each residual, exact GELU, epsilon 1e-12). It has no segment
    embedding and no pooler: its output is the last block's hidden states,
    and the `[CLS]` position (`cls_token_index`) is what classifiers read.
    Layer names and weights are KerasHub's, so KerasHub's DistilBERT presets
    load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of transformer encoder blocks.
        num_heads: The number of attention heads of each block; `hidden_dim`
            must be divisible by it.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of each feedforward network's hidden layer.
        dropout: The dropout rate of the embeddings and the blocks. Defaults
            to `0.1`.
        max_sequence_length: The longest sequence the position embedding
            covers. Defaults to `512`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids", "padding_mask"}`, each int `(batch, length)`.

    Returns:
        The sequence output, `(batch, length, hidden_dim)`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.DistilBertBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> inputs = {"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}
        >>> backbone(inputs).shape
        TensorShape([1, 5, 8])
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
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.embeddings = TokenAndPositionEmbedding(
            vocabulary_size=vocabulary_size,
            sequence_length=max_sequence_length,
            embedding_dim=hidden_dim,
            embeddings_initializer=distilbert_kernel_initializer(),
            dtype=dtype,
            name="token_and_position_embedding",
        )
        self.token_embedding = self.embeddings.token_embedding
        self.embeddings_layer_norm = layers.LayerNormalization(
            axis=-1, epsilon=1e-12, dtype=dtype, name="embeddings_layer_norm"
        )
        self.embeddings_dropout = layers.Dropout(dropout, dtype=dtype, name="embeddings_dropout")
        self.transformer_layers = [
            TransformerEncoder(
                num_heads=num_heads,
                intermediate_dim=intermediate_dim,
                activation="gelu",
                dropout=dropout,
                layer_norm_epsilon=1e-12,
                kernel_initializer=distilbert_kernel_initializer(),
                dtype=dtype,
                name=f"transformer_layer_{i}",
            )
            for i in range(num_layers)
        ]

        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        x = self.embeddings_dropout(self.embeddings_layer_norm(self.embeddings(token_ids)))
        for block in self.transformer_layers:
            x = block(x, padding_mask=padding_mask)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask}, outputs=x, dtype=dtype, **kwargs
        )
        self.cls_token_index = 0
