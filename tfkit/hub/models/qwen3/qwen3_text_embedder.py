"""``Qwen3TextEmbedder``: Qwen 3 with a last-token (or mean) pooling and L2 normalization head (harrier-oss)."""

from __future__ import annotations

from tfkit.hub.models.qwen3.qwen3_backbone import Qwen3Backbone
from tfkit.hub.models.qwen3.qwen3_text_embedder_preprocessor import Qwen3TextEmbedderPreprocessor
from tfkit.hub.models.text_embedder import LastTokenTextEmbedder
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3TextEmbedder(LastTokenTextEmbedder):
    """An end-to-end Qwen 3 model for generating sentence embeddings.

    The backbone's token vectors are pooled (by default the vector of each
    sequence's last unpadded token, the usual choice for a decoder, as
    Microsoft's harrier-oss models do) and, by default, L2-normalized. The
    head has no weights.

    Args:
        backbone: A `Qwen3Backbone`.
        preprocessor: A `Qwen3TextEmbedderPreprocessor`, or `None` (the
            model then takes `{"token_ids", "padding_mask"}`). Defaults to
            `None`.
        pooling_mode: `"last"` (the last unpadded position) or `"mean"`.
            Defaults to `"last"`.
        normalize: Whether to scale the embeddings to unit L2 norm.
            Defaults to `True`.
        **kwargs: `TextEmbedder` keyword arguments, such as `name`.

    Raises:
        ValueError: If `pooling_mode` is neither `"last"` nor `"mean"`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Qwen3Backbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, head_dim=6, hidden_dim=8, intermediate_dim=16)
        >>> embedder = keras_hub.models.Qwen3TextEmbedder(backbone)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "padding_mask": np.array([[1, 1, 1, 0, 0]] * 2)}
        >>> embedder(inputs).shape
        TensorShape([2, 8])
    """

    backbone_cls = Qwen3Backbone
    preprocessor_cls = Qwen3TextEmbedderPreprocessor
