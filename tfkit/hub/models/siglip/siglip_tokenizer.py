"""``SigLIPTokenizer``: SigLIP's SentencePiece tokenizer, ``</s>`` its end and padding token, ``<unk>`` its unknown."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.siglip.siglip_backbone import SigLIPBackbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SigLIPTokenizer(SentencePieceTokenizer):
    """SigLIP tokenizer layer based on SentencePiece.

    `</s>` is the end and padding token and `<unk>` the unknown one; there is
    no start token. It reads and writes KerasHub's tokenizer asset
    (`vocabulary.spm`).

    Args:
        proto: A SentencePiece model: the path of a `.spm` file, or its bytes.
            Defaults to `None` (loaded from a preset).
        **kwargs: `SentencePieceTokenizer` keyword arguments, such as
            `sequence_length`.

    Raises:
        ValueError: If the model lacks `</s>` or `<unk>`.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["a photo of a cat", "a photo of a dog"] * 5), model_writer=model,
        ...     vocab_size=8, model_type="word", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, minloglevel=2)
        >>> tokenizer = keras_hub.models.SigLIPTokenizer(proto=model.getvalue())
        >>> tokenizer.end_token_id, tokenizer.pad_token_id, tokenizer.unknown_token_id
        (1, 1, 2)
        >>> tokenizer.detokenize(tokenizer(["a photo of a cat"]))
        ['a photo of a cat']
    """

    backbone_cls = SigLIPBackbone

    def __init__(self, proto: Any = None, **kwargs: Any) -> None:
        self._add_special_token("<unk>", "unknown_token")
        self._add_special_token("</s>", "end_token")
        self._add_special_token("</s>", "pad_token")
        super().__init__(proto=proto, **kwargs)
