"""``Phi3Tokenizer``: Phi-3's SentencePiece tokenizer, ``<s>`` its start token and ``<|endoftext|>`` its end token."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.phi3.phi3_backbone import Phi3Backbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Phi3Tokenizer(SentencePieceTokenizer):
    """Phi3 tokenizer layer based on SentencePiece.

    A `SentencePieceTokenizer` that checks the model has Phi-3's special
    tokens: `<s>` (start) and `<|endoftext|>` (end); the padding id is 0. A
    batch of strings gives ragged ids, one string a dense sequence. It runs
    in TensorFlow ops and reads and writes KerasHub's asset
    (`vocabulary.spm`).

    Args:
        proto: The SentencePiece model: a file path, or the serialized model
            as `bytes`; `None` when a preset's assets load it later.
        **kwargs: `SentencePieceTokenizer` keyword arguments, such as
            `sequence_length`.

    Raises:
        ValueError: If the model lacks `<s>` or `<|endoftext|>`.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", user_defined_symbols=["<|endoftext|>"], minloglevel=2)
        >>> tokenizer = keras_hub.models.Phi3Tokenizer(proto=model.getvalue())
        >>> tokenizer.start_token_id, tokenizer.end_token_id, tokenizer.pad_token_id
        (1, 3, 0)
        >>> tokenizer.detokenize(tokenizer(["the lazy fox"]))
        ['the lazy fox']
    """

    backbone_cls = Phi3Backbone

    def __init__(self, proto: Any, **kwargs: Any) -> None:
        self._add_special_token("<s>", "start_token")
        self._add_special_token("<|endoftext|>", "end_token")
        self.pad_token_id = 0
        super().__init__(proto=proto, **kwargs)
