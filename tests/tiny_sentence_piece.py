"""The tiny SentencePiece models the hub tests train: one call, the options a family's layout needs."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any


def train_sentence_piece(texts: Iterable[str], **options: Any) -> bytes:
    """A serialized SentencePiece model trained on ``texts`` with the trainer's ``options``, quietly.

    Args:
        texts: The training sentences.
        **options: ``SentencePieceTrainer.train`` options (``vocab_size``, ``model_type``, the special pieces' ids).

    Returns:
        The model proto's bytes, as tokenizers take them (``proto=``).
    """
    import sentencepiece

    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(texts), model_writer=model, minloglevel=2, **options
    )
    return model.getvalue()
