"""``BartSeq2SeqLMPreprocessor``: BART's seq2seq preprocessing, the decoder starting with ``</s> <s>``."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.bart.bart_backbone import BartBackbone
from tfkit.hub.models.bart.bart_tokenizer import BartTokenizer
from tfkit.hub.models.seq_2_seq_lm_preprocessor import Seq2SeqLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BartSeq2SeqLMPreprocessor(Seq2SeqLMPreprocessor):
    """BART's preprocessor for seq2seq language modeling: `Seq2SeqLMPreprocessor` with a `BartTokenizer`.

    The encoder's tokens are packed as `<s> ... </s>`, the decoder's as
    `</s> <s> ... </s>` (BART's decoder starts from the end token, then the
    start token), each padded with `<pad>`.

    Args:
        tokenizer: A `BartTokenizer`.
        encoder_sequence_length: The encoder inputs' padded length. Defaults
            to `1024`.
        decoder_sequence_length: The decoder inputs' padded length. Defaults
            to `1024`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "a": 3, "b": 4}
        >>> tokenizer = keras_hub.models.BartTokenizer(vocabulary=vocab, merges=[])
        >>> preprocessor = keras_hub.models.BartSeq2SeqLMPreprocessor(
        ...     tokenizer, encoder_sequence_length=4, decoder_sequence_length=5)
        >>> x, y, sample_weight = preprocessor({"encoder_text": ["a"], "decoder_text": ["b"]})
        >>> x["encoder_token_ids"].numpy().tolist(), x["decoder_token_ids"].numpy().tolist()
        ([[0, 3, 2, 1]], [[2, 0, 4, 2, 1]])
        >>> y.numpy().tolist()
        [[0, 4, 2, 1, 1]]
    """

    backbone_cls = BartBackbone
    tokenizer_cls = BartTokenizer

    def decoder_packer_arguments(self) -> dict[str, Any]:
        arguments = self.encoder_packer_arguments()
        arguments["start_value"] = [self.tokenizer.end_token_id, self.tokenizer.start_token_id]
        return arguments
