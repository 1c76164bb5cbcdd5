"""``SigLIPTextEncoder``: SigLIP's text tower (embeddings, transformer, last token projected), KerasHub's layout.

encoder = SigLIPTextEncoder(vocabulary_size=32000, embedding_dim=768, hidden_dim=768, num_layers=12,
                            num_heads=12, intermediate_dim=3072)
embeddings = encoder({"token_ids": token_ids})           # (batch, 768): the last token's, projected
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.siglip.siglip_layers import SigLIPEncoderLayer, SigLIPTextEmbedding
from tfkit.layers import Dense, LayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SigLIPTextEncoder(Backbone):
    """SigLIP text core network with hyperparameters.

    The text tower of SigLIP (Zhai et al., 2023): token and learned position
    embeddings, bidirectional pre-layer-norm transformer blocks, a final
    layer norm, and a dense projection of the last position's hidden state
    (inputs are padded to `max_sequence_length`). The output is one
    embedding per text. Layer and weight names are KerasHub's.

    Args:
        vocabulary_size: The size of the token vocabulary.
        embedding_dim: The size of the token embeddings.
        hidden_dim: The size of the hidden states.
        num_layers: The number of transformer blocks.
        num_heads: The number of attention heads of each block.
        intermediate_dim: The size of each block's feedforward layer.
        intermediate_activation: The feedforward's activation. Defaults to
            `"gelu_approximate"`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        max_sequence_length: The length of every input (the position
            table's). Defaults to `64`.
        projection_dim: The size of the output; `None` (the default) means
            `hidden_dim`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name` (it also
            prefixes the layers' names, as in KerasHub).

    Example:
        >>> import tfkit.hub as keras_hub
        >>> encoder = keras_hub.models.SigLIPTextEncoder(vocabulary_size=10, embedding_dim=8, hidden_dim=8,
        ...     num_layers=1, num_heads=2, intermediate_dim=16, max_sequence_length=4)
        >>> encoder({"token_ids": np.array([[3, 4, 1, 1]])}).shape
        TensorShape([1, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        embedding_dim: int,
        hidden_dim: int,
        num_layers: int,
        num_heads: int,
        intermediate_dim: int,
        intermediate_activation: Any = "gelu_approximate",
        layer_norm_epsilon: float = 1e-6,
        max_sequence_length: int = 64,
        projection_dim: int | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        projection_dim = projection_dim or hidden_dim
        prefix = f"{kwargs['name']}_" if kwargs.get("name") else ""  # KerasHub's names
        self.embedding = SigLIPTextEmbedding(
            vocabulary_size, max_sequence_length, embedding_dim, dtype=dtype, name=f"{prefix}embedding"
        )
        self.encoder_layers = [
            SigLIPEncoderLayer(
                hidden_dim,
                num_heads,
                intermediate_dim,
                intermediate_activation,
                layer_norm_epsilon=layer_norm_epsilon,
                dtype=dtype,
                name=f"{prefix}encoder_block_{index}",
            )
            for index in range(num_layers)
        ]
        self.post_layer_norm = LayerNormalization(
            epsilon=layer_norm_epsilon, dtype=dtype, name=f"{prefix}post_layer_norm"
        )
        self.head = Dense(
            projection_dim, kernel_initializer=initializers.LecunNormal(), dtype=dtype, name=f"{prefix}head"
        )
        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        x = self.embedding(token_ids)
        for block in self.encoder_layers:
            x = block(x)
        outputs = self.head(self.post_layer_norm(x)[:, -1, :])
        super().__init__(inputs={"token_ids": token_ids}, outputs=outputs, dtype=dtype, **kwargs)
        self.projection_dim = projection_dim
