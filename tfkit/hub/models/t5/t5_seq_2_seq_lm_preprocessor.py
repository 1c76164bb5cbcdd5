"""``T5Seq2SeqLMPreprocessor``: T5's seq2seq preprocessing, the encoder with no start token, the decoder's ``<pad>``."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.seq_2_seq_lm_preprocessor import Seq2SeqLMPreprocessor
from tfkit.hub.models.t5.t5_backbone import T5Backbone
from tfkit.hub.models.t5.t5_tokenizer import T5Tokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class T5Seq2SeqLMPreprocessor(Seq2SeqLMPreprocessor):
    """T5's preprocessor for seq2seq language modeling: `Seq2SeqLMPreprocessor` with a `T5Tokenizer`.

    T5 has no start token: the encoder's tokens are packed as
    `... </s> <pad> ...`, and the decoder's are shifted right by T5's
    decoder start token, the padding token: `<pad> ... </s> <pad> ...`. The
    labels are the decoder's tokens shifted left by one.

    Args:
        tokenizer: A `T5Tokenizer`.
        encoder_sequence_length: The encoder inputs' padded length. Defaults
            to `1024`.
        decoder_sequence_length: The decoder inputs' padded length. Defaults
            to `1024`.
        **kwargs: Layer keyword arguments.

    Call arguments:
        x: `{"encoder_text", "decoder_text"}`, strings or string tensors.
        y: Must be `None`: the labels come from `x`.
        sample_weight: Must be `None`: the weights are the padding mask.
        encoder_sequence_length: Overrides `encoder_sequence_length`.
        decoder_sequence_length: Overrides `decoder_sequence_length`.
        sequence_length: An alias of `decoder_sequence_length`.

    Returns:
        `(x, y, sample_weight)`: `x` the four model inputs, `y` the next
        decoder tokens, `sample_weight` their padding mask.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=9, model_type="word", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, pad_piece="<pad>",
        ...     eos_piece="</s>", unk_piece="<unk>", minloglevel=2)
        >>> tokenizer = keras_hub.models.T5Tokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.T5Seq2SeqLMPreprocessor(
        ...     tokenizer, encoder_sequence_length=4, decoder_sequence_length=4)
        >>> x, y, sample_weight = preprocessor({"encoder_text": ["the fox"], "decoder_text": ["lazy dog"]})
        >>> [tokenizer.id_to_token(i) for i in x["encoder_token_ids"][0].numpy().tolist()]
        ['▁the', '▁fox', '</s>', '<pad>']
        >>> [tokenizer.id_to_token(i) for i in x["decoder_token_ids"][0].numpy().tolist()]
        ['<pad>', '▁lazy', '▁dog', '</s>']
        >>> [tokenizer.id_to_token(i) for i in y[0].numpy().tolist()]
        ['▁lazy', '▁dog', '</s>', '<pad>']
    """

    backbone_cls = T5Backbone
    tokenizer_cls = T5Tokenizer

    def encoder_packer_arguments(self) -> dict[str, Any]:
        tokenizer = self.tokenizer
        return {"start_value": None, "end_value": tokenizer.end_token_id, "pad_value": tokenizer.pad_token_id}

    def decoder_packer_arguments(self) -> dict[str, Any]:
        return {**self.encoder_packer_arguments(), "start_value": self.tokenizer.pad_token_id}
