"""``XLMRobertaTextEmbedder``: XLM-RoBERTa with a pooling and L2 normalization head (bge-m3, multilingual-e5)."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.text_embedder import TextEmbedder
from tfkit.hub.models.xlm_roberta.xlm_roberta_backbone import XLMRobertaBackbone
from tfkit.hub.models.xlm_roberta.xlm_roberta_text_embedder_preprocessor import XLMRobertaTextEmbedderPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class XLMRobertaTextEmbedder(TextEmbedder):
    """An end-to-end XLM-RoBERTa model for generating sentence embeddings.

    The backbone's token vectors are pooled over the unpadded positions and,
    by default, L2-normalized: multilingual sentence-transformers models
    such as `BAAI/bge-m3` and `intfloat/multilingual-e5-*`. The head has no
    weights.

    Args:
        backbone: An `XLMRobertaBackbone`.
        preprocessor: An `XLMRobertaTextEmbedderPreprocessor`, or `None`
            (the model then takes `{"token_ids", "padding_mask"}`). Defaults
            to `None`.
        pooling_mode: `"mean"`, `"cls"` (the `<s>` position) or `"max"`.
            Defaults to `"mean"`.
        normalize: Whether to scale the embeddings to unit L2 norm.
            Defaults to `True`.
        **kwargs: `TextEmbedder` keyword arguments, such as `name`.

    Raises:
        ValueError: If `pooling_mode` is none of the three.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.XLMRobertaBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> embedder = keras_hub.models.XLMRobertaTextEmbedder(backbone, pooling_mode="cls", normalize=False)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "padding_mask": np.ones((2, 5), "int32")}
        >>> embedder(inputs).shape
        TensorShape([2, 8])
    """

    backbone_cls = XLMRobertaBackbone
    preprocessor_cls = XLMRobertaTextEmbedderPreprocessor
    mean_pooling_epsilon = 1e-5  # KerasHub's XLM-RoBERTa embedder (BERT's is 1e-9)

    def __init__(
        self,
        backbone: XLMRobertaBackbone,
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
