"""``XLMRobertaBackbone``: the multilingual RoBERTa encoder, RoBERTa's network under its own name.

backbone = XLMRobertaBackbone(vocabulary_size=250002, num_layers=12, num_heads=12, hidden_dim=768,
                              intermediate_dim=3072, max_sequence_length=512)
sequence_output = backbone({"token_ids": ids, "padding_mask": mask})     # (batch, length, hidden_dim)
"""

from __future__ import annotations

from tfkit.hub.models.roberta.roberta_backbone import RobertaBackbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class XLMRobertaBackbone(RobertaBackbone):
    """An XLM-RoBERTa encoder network.

    The encoder of "Unsupervised Cross-lingual Representation Learning at
    Scale" (Conneau et al., 2019): RoBERTa's network (`RobertaBackbone`:
    token and position embeddings, post-norm transformer encoder blocks, no
    pooler) with a multilingual SentencePiece vocabulary
    (`XLMRobertaTokenizer`). Its arguments, layer names and weights are
    RoBERTa's, as in KerasHub, so KerasHub's XLM-RoBERTa presets load into
    it.

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
        >>> backbone = keras_hub.models.XLMRobertaBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> inputs = {"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}
        >>> backbone(inputs).shape
        TensorShape([1, 5, 8])
    """
