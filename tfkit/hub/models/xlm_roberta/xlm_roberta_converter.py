"""XLM-RoBERTa from a Hugging Face Transformers checkpoint (``model_type: xlm-roberta``): RoBERTa's layout.

    backbone = XLMRobertaBackbone.from_preset("./xlmr-hf")   # config.json, model.safetensors, sentencepiece.bpe.model

The weights are read as RoBERTa's (``roberta_converter``: BERT-style encoder blocks, the position rows
Transformers keeps first dropped, the token type row folded into the position embedding, as KerasHub 0.32's
converter does too); keys may carry the ``roberta.`` prefix of ``XLMRobertaFor...`` models. The tokenizer is
the SentencePiece model Transformers keeps beside them, ``sentencepiece.bpe.model``.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.roberta.roberta_converter import RobertaConverter
from tfkit.hub.models.xlm_roberta.xlm_roberta_backbone import XLMRobertaBackbone
from tfkit.hub.presets import files
from tfkit.hub.presets.transformers_checkpoints import register

SENTENCE_PIECE_FILE = "sentencepiece.bpe.model"


class XLMRobertaConverter(RobertaConverter):
    """How a Transformers XLM-RoBERTa checkpoint becomes an `XLMRobertaBackbone` and an `XLMRobertaTokenizer`."""

    backbone_cls = XLMRobertaBackbone
    reads_sentence_bert_config = True  # as KerasHub's XLM-RoBERTa converter (its RoBERTa one does not)

    @staticmethod
    def tokenizer(cls: type, directory: str, **arguments: Any) -> Any:
        if not files.has_file(directory, SENTENCE_PIECE_FILE):
            raise ValueError(
                f"{directory} has no {SENTENCE_PIECE_FILE}: XLMRobertaTokenizer reads XLM-RoBERTa's SentencePiece "
                f"model (a tokenizer.json alone is not read)"
            )
        return cls(proto=files.preset_file(directory, SENTENCE_PIECE_FILE), **arguments)


register("xlm-roberta", XLMRobertaConverter)
