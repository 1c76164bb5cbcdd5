"""``CLIPTextEncoder``: CLIP's text tower (token and position embeddings, causal transformer), KerasHub's layout.

encoder = CLIPTextEncoder(vocabulary_size=49408, embedding_dim=512, hidden_dim=512, num_layers=12,
                          num_heads=8, intermediate_dim=2048)
hidden = encoder({"token_ids": token_ids})               # (batch, length, 512)
"""

from __future__ import annotations

from typing import Any

from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import TokenAndPositionEmbedding
from tfkit.hub.layers.vit_style_encoder import encoder_outputs
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.clip.clip_layers import CLIPEncoderLayer
from tfkit.layers import LayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class CLIPTextEncoder(Backbone):
    """CLIP text core network with hyperparameters.

    The text tower of CLIP (Radford et al., 2021): token and learned position
    embeddings, causal pre-layer-norm transformer blocks and a final layer
    norm. The output is every token's last hidden state (`CLIPBackbone`
    pools the end token's and projects it). Layer and weight names are
    KerasHub's.

    Args:
        vocabulary_size: The size of the token vocabulary.
        embedding_dim: The size of the token embeddings.
        hidden_dim: The size of the hidden states.
        num_layers: The number of transformer blocks.
        num_heads: The number of attention heads of each block.
        intermediate_dim: The size of each block's feedforward layer.
        intermediate_activation: The feedforward's activation. Defaults to
            `"quick_gelu"`.
        intermediate_output_index: If set, the output is a dict with
            `"sequence_output"` and `"intermediate_output"` (the hidden states
            after that block; negative counts from the end). Defaults to
            `None`.
        max_sequence_length: The longest input (the position table's
            length). Defaults to `77`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name` (it also
            prefixes the layers' names, as in KerasHub).

    Example:
        >>> import tfkit.hub as keras_hub
        >>> encoder = keras_hub.models.CLIPTextEncoder(vocabulary_size=10, embedding_dim=8, hidden_dim=8,
        ...     num_layers=1, num_heads=2, intermediate_dim=16, max_sequence_length=4)
        >>> encoder({"token_ids": np.array([[1, 2, 9, 0]])}).shape
        TensorShape([1, 4, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        embedding_dim: int,
        hidden_dim: int,
        num_layers: int,
        num_heads: int,
        intermediate_dim: int,
        intermediate_activation: Any = "quick_gelu",
        intermediate_output_index: int | None = None,
        max_sequence_length: int = 77,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if intermediate_output_index is not None and intermediate_output_index < 0:
            intermediate_output_index += num_layers
        prefix = f"{kwargs['name']}_" if kwargs.get("name") else ""  # KerasHub's names (two CLIPs in one model)
        self.embedding = TokenAndPositionEmbedding(
            vocabulary_size=vocabulary_size,
            sequence_length=max_sequence_length,
            embedding_dim=embedding_dim,
            dtype=dtype,
            name=f"{prefix}embedding",
        )
        self.encoder_layers = [
            CLIPEncoderLayer(
                hidden_dim,
                num_heads,
                intermediate_dim,
                intermediate_activation,
                dtype=dtype,
                name=f"{prefix}encoder_block_{index}",
            )
            for index in range(num_layers)
        ]
        self.layer_norm = LayerNormalization(epsilon=1e-6, dtype=dtype, name=f"{prefix}layer_norm")
        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        x = self.embedding(token_ids)
        outputs = encoder_outputs(x, self.encoder_layers, self.layer_norm, intermediate_output_index)
        super().__init__(inputs={"token_ids": token_ids}, outputs=outputs, dtype=dtype, **kwargs)
        self.intermediate_output_index = intermediate_output_index
