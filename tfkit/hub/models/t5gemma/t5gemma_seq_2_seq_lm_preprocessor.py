"""``T5GemmaSeq2SeqLMPreprocessor``: T5Gemma's seq2seq preprocessing (no encoder ``<bos>``, the decoder's first).

preprocessor = T5GemmaSeq2SeqLMPreprocessor(tokenizer, encoder_sequence_length=8, decoder_sequence_length=8)
x, y, sample_weight = preprocessor({"encoder_text": ["a b"], "decoder_text": ["c d"]})
prompt = preprocessor.generate_preprocess(["a b"])     # encoder: no end token; decoder: <bos> alone
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.seq_2_seq_lm_preprocessor import Seq2SeqLMPreprocessor
from tfkit.hub.models.t5gemma.t5gemma_backbone import T5GemmaBackbone
from tfkit.hub.models.t5gemma.t5gemma_tokenizer import T5GemmaTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class T5GemmaSeq2SeqLMPreprocessor(Seq2SeqLMPreprocessor):
    """T5Gemma's preprocessor for seq2seq language modeling: `Seq2SeqLMPreprocessor` with a `T5GemmaTokenizer`.

    For training, the encoder's tokens are packed as `... <eos> <pad> ...`
    (`<bos>` first with `add_start_token=True`) and the decoder's as
    `<bos> ... <eos> <pad> ...` (no `<eos>` for either with
    `add_end_token=False`); the labels are the decoder's tokens shifted left
    by one. For generation (`generate_preprocess`), as KerasHub's, neither
    side ends with `<eos>` and the encoder is packed to
    `encoder_sequence_length`.

    Args:
        tokenizer: A `T5GemmaTokenizer`.
        encoder_sequence_length: The encoder inputs' padded length. Defaults
            to `512`.
        decoder_sequence_length: The decoder inputs' padded length. Defaults
            to `512`.
        add_start_token: Whether the encoder's tokens start with `<bos>`.
            Defaults to `False`.
        add_end_token: Whether both sides end with `<eos>` (training).
            Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Called as `Seq2SeqLMPreprocessor` is, it returns `(x, y, sample_weight)`:
    the four model inputs, the next decoder tokens and their padding mask.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", pad_id=0, eos_id=1, bos_id=2, unk_id=3, pad_piece="<pad>",
        ...     eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>", minloglevel=2)
        >>> tokenizer = keras_hub.models.T5GemmaTokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.T5GemmaSeq2SeqLMPreprocessor(
        ...     tokenizer, encoder_sequence_length=4, decoder_sequence_length=4)
        >>> x, y, sample_weight = preprocessor({"encoder_text": ["the fox"], "decoder_text": ["lazy dog"]})
        >>> [tokenizer.id_to_token(i) for i in x["encoder_token_ids"][0].numpy().tolist()]
        ['▁the', '▁fox', '<eos>', '<pad>']
        >>> [tokenizer.id_to_token(i) for i in x["decoder_token_ids"][0].numpy().tolist()]
        ['<bos>', '▁lazy', '▁dog', '<eos>']
        >>> [tokenizer.id_to_token(i) for i in y[0].numpy().tolist()]
        ['▁lazy', '▁dog', '<eos>', '<pad>']
    """

    backbone_cls = T5GemmaBackbone
    tokenizer_cls = T5GemmaTokenizer

    def __init__(
        self,
        tokenizer: Any,
        encoder_sequence_length: int = 512,
        decoder_sequence_length: int = 512,
        add_start_token: bool = False,
        add_end_token: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            tokenizer=tokenizer,
            encoder_sequence_length=encoder_sequence_length,
            decoder_sequence_length=decoder_sequence_length,
            **kwargs,
        )
        self.add_start_token = add_start_token
        self.add_end_token = add_end_token

    def packer_flags(self, side: str, add_end_value: bool) -> dict[str, bool]:
        """The encoder's `<bos>` as `add_start_token` says, the decoder's always; `<eos>` where both
        `add_end_value` and `add_end_token` ask for it.

        Args:
            side: `"encoder"` or `"decoder"`.
            add_end_value: Whether the caller asks for `<eos>`.

        Returns:
            `{"add_start_value", "add_end_value"}`.
        """
        add_start_value = self.add_start_token if side == "encoder" else True
        return {"add_start_value": add_start_value, "add_end_value": add_end_value and self.add_end_token}

    def generate_encoder_features(self, encoder_input: Any, sequence_length: int | None) -> dict[str, Any]:
        """The encoder's inputs of generation: no `<eos>`, packed to `encoder_sequence_length` (KerasHub 0.32
        leaves `generate_preprocess`'s argument of that name unused).

        Args:
            encoder_input: The encoder's texts.
            sequence_length: Unused, as in KerasHub.

        Returns:
            `{"encoder_token_ids", "encoder_padding_mask"}`.
        """
        token_ids, padding_mask = self.pack("encoder", encoder_input, None, add_end_value=False)
        return {"encoder_token_ids": token_ids, "encoder_padding_mask": padding_mask}

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(add_start_token=self.add_start_token, add_end_token=self.add_end_token)
        return config
