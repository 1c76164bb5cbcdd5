"""``Gemma3TextEmbedder``: Gemma 3 with a last-token (or mean) pooling and L2 normalization head (harrier-oss)."""

from __future__ import annotations

from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone
from tfkit.hub.models.gemma3.gemma3_text_embedder_preprocessor import Gemma3TextEmbedderPreprocessor
from tfkit.hub.models.text_embedder import LastTokenTextEmbedder
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Gemma3TextEmbedder(LastTokenTextEmbedder):
    """An end-to-end Gemma 3 model for generating sentence embeddings.

    The backbone's token vectors are pooled (by default the vector of each
    sequence's last unpadded token, the usual choice for a decoder, as
    Microsoft's harrier-oss-v1-270m does) and, by default, L2-normalized.
    The head has no weights. From a sentence-transformers checkpoint,
    `from_preset` pools by mean only when its pooling config asks for mean
    tokens, and keeps the preprocessor's default length, as KerasHub's
    Gemma 3 converter does.

    Args:
        backbone: A `Gemma3Backbone`.
        preprocessor: A `Gemma3TextEmbedderPreprocessor`, or `None` (the
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
        >>> backbone = keras_hub.models.Gemma3Backbone(vocabulary_size=10, image_size=None, num_layers=1,
        ...     num_query_heads=2, num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, head_dim=4)
        >>> embedder = keras_hub.models.Gemma3TextEmbedder(backbone)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "padding_mask": np.array([[1, 1, 1, 0, 0]] * 2)}
        >>> embedder(inputs).shape
        TensorShape([2, 8])
    """

    backbone_cls = Gemma3Backbone
    preprocessor_cls = Gemma3TextEmbedderPreprocessor
