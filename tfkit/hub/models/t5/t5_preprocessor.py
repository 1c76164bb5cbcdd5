"""``T5Preprocessor``: strings to T5's ``{"token_ids", "padding_mask"}``, each sequence ended by ``</s>``."""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers import StartEndPacker
from tfkit.hub.models.preprocessor import Preprocessor
from tfkit.hub.models.t5.t5_tokenizer import T5Tokenizer
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


@register_keras_serializable(package="keras_hub")
class T5Preprocessor(Preprocessor):
    """A T5 preprocessing layer: tokenizes strings, adds `</s>` and pads with `<pad>`.

    Args:
        tokenizer: A `T5Tokenizer`.
        sequence_length: The length of the packed sequences. Defaults to
            `256`.
        add_start_token: Whether to start each sequence with the start token
            (T5 has none of its own: `</s>`). Defaults to `False`.
        add_end_token: Whether to end each sequence with `</s>`. Defaults to
            `True`.
        **kwargs: Layer keyword arguments, such as `name`.

    Call arguments:
        x: A string, a list of strings or a string tensor.
        y: Labels, passed through.
        sample_weight: Sample weights, passed through.
        sequence_length: Overrides `sequence_length` for this call.

    Returns:
        `{"token_ids", "padding_mask"}`, packed with `y` and `sample_weight`
        when they are given.

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
        >>> x = keras_hub.models.T5Preprocessor(tokenizer, sequence_length=5)(["the fox"])
        >>> [tokenizer.id_to_token(i) for i in x["token_ids"][0].numpy().tolist()], x["padding_mask"].numpy().tolist()
        (['▁the', '▁fox', '</s>', '<pad>', '<pad>'], [[True, True, True, False, False]])
    """

    tokenizer_cls = T5Tokenizer

    def __init__(
        self,
        tokenizer: Any,
        sequence_length: int = 256,
        add_start_token: bool = False,
        add_end_token: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.tokenizer = tokenizer
        self.packer = None
        self.sequence_length = sequence_length
        self.add_start_token = add_start_token
        self.add_end_token = add_end_token

    def call(self, x: Any, y: Any = None, sample_weight: Any = None, sequence_length: int | None = None) -> Any:
        if self.packer is None:
            self.packer = StartEndPacker(
                start_value=self.tokenizer.start_token_id,
                end_value=self.tokenizer.end_token_id,
                pad_value=self.tokenizer.pad_token_id,
                sequence_length=self.sequence_length,
                return_padding_mask=True,
            )
        token_ids, padding_mask = self.packer(
            self.tokenizer(x),
            sequence_length=sequence_length or self.sequence_length,
            add_start_value=self.add_start_token,
            add_end_value=self.add_end_token,
        )
        return pack_x_y_sample_weight({"token_ids": token_ids, "padding_mask": padding_mask}, y, sample_weight)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            sequence_length=self.sequence_length, add_start_token=self.add_start_token, add_end_token=self.add_end_token
        )
        return config
