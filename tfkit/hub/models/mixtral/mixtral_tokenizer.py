"""``MixtralTokenizer``: Mixtral's SentencePiece tokenizer, ``<s>`` its start token and ``</s>`` its end token."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.mixtral.mixtral_backbone import MixtralBackbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MixtralTokenizer(SentencePieceTokenizer):
    """Mixtral tokenizer layer based on SentencePiece.

    A `SentencePieceTokenizer` that checks the model has Mixtral's special
    tokens: `<s>` (start) and `</s>` (end); the padding id is 0. It runs in
    TensorFlow ops (`tf.data`, SavedModels) and reads and writes KerasHub's
    asset (`vocabulary.spm`).

    Args:
        proto: The SentencePiece model: a file path, or the serialized model
            as `bytes`; `None` when a preset's assets load it later.
        **kwargs: `SentencePieceTokenizer` keyword arguments, such as
            `sequence_length`.

    Raises:
        ValueError: If the model lacks `<s>` or `</s>`.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=9, model_type="word", minloglevel=2)
        >>> tokenizer = keras_hub.models.MixtralTokenizer(proto=model.getvalue())
        >>> tokenizer.start_token_id, tokenizer.end_token_id, tokenizer.pad_token_id
        (1, 2, 0)
        >>> tokenizer.detokenize(tokenizer(["the lazy fox"]))
        ['the lazy fox']
    """

    backbone_cls = MixtralBackbone

    def __init__(self, proto: Any, **kwargs: Any) -> None:
        self._add_special_token("<s>", "start_token")
        self._add_special_token("</s>", "end_token")
        self.pad_token_id = 0
        super().__init__(proto=proto, **kwargs)
