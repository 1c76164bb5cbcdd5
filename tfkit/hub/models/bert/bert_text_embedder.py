"""``BertTextEmbedder``: BERT with a pooling and L2 normalization head, sentence-transformers' MiniLM layout."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.bert.bert_backbone import BertBackbone
from tfkit.hub.models.bert.bert_text_embedder_preprocessor import BertTextEmbedderPreprocessor
from tfkit.hub.models.text_embedder import TextEmbedder
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BertTextEmbedder(TextEmbedder):
    """An end-to-end BERT model for generating sentence embeddings.

    The backbone's `sequence_output` is pooled over the unpadded positions
    and, by default, L2-normalized: sentence-transformers models such as
    `all-MiniLM-L6-v2`. The head has no weights.

    Args:
        backbone: A `BertBackbone`.
        preprocessor: A `BertTextEmbedderPreprocessor`, or `None` (the model
            then takes `{"token_ids", "segment_ids", "padding_mask"}`).
            Defaults to `None`.
        pooling_mode: `"mean"` (the mean of the unpadded positions),
            `"cls"` (the `[CLS]` position) or `"max"` (the largest value of
            each feature over the unpadded positions). Defaults to `"mean"`.
        normalize: Whether to scale the embeddings to unit L2 norm.
            Defaults to `True`.
        **kwargs: `TextEmbedder` keyword arguments, such as `name`.

    Raises:
        ValueError: If `pooling_mode` is none of the three.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.BertBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> embedder = keras_hub.models.BertTextEmbedder(backbone)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "segment_ids": np.zeros((2, 5), "int32"),
        ...     "padding_mask": np.array([[1, 1, 1, 0, 0]] * 2)}
        >>> embeddings = embedder(inputs)
        >>> embeddings.shape, np.round(np.linalg.norm(embeddings, axis=-1), 4).tolist()
        (TensorShape([2, 8]), [1.0, 1.0])
    """

    backbone_cls = BertBackbone
    preprocessor_cls = BertTextEmbedderPreprocessor

    def __init__(
        self,
        backbone: BertBackbone,
        preprocessor: Any = None,
        pooling_mode: str = "mean",
        normalize: bool = True,
        **kwargs: Any,
    ) -> None:
        self.build_pooling_head(backbone, preprocessor, pooling_mode, normalize, **kwargs)

    def encode_documents(self, documents: Any, **kwargs: Any) -> Any:
        """The embeddings of a document or a list of documents (`predict` on them).

        Args:
            documents: A string or a list of strings.
            **kwargs: `predict` keyword arguments.

        Returns:
            A NumPy array `(batch, embedding_dim)`.
        """
        return self.encode_text(documents, **kwargs)
