"""``Seq2SeqLMPreprocessor``: encoder and decoder texts to token ids, padding masks and next-token labels.

    preprocessor = BartSeq2SeqLMPreprocessor.from_preset("./bart_tiny", decoder_sequence_length=8)
    x, y, sample_weight = preprocessor({"encoder_text": ["a b"], "decoder_text": ["c d"]})
    prompt = preprocessor.generate_preprocess(["a b"])            # an empty decoder prompt, no end token
    text = preprocessor.generate_postprocess(generated)           # the decoder's ids back to strings

A family declares only what differs (KerasHub's families override ``build``
for the same purpose):

- ``encoder_packer_arguments()``, ``decoder_packer_arguments()``: the
  ``StartEndPacker`` values of each side (``start_value``, ``end_value``,
  ``pad_value``); by default the tokenizer's start, end and padding ids. BART
  starts the decoder with ``[end, start]``; T5 starts it with the padding id
  and the encoder with nothing;
- ``pack(side, text, sequence_length, add_end_value)``: how one side is
  tokenized and packed; ``packer_flags(side, add_end_value)``: the packer
  call's ``add_start_value`` and ``add_end_value`` (a family adding its own
  ``add_start_token`` and ``add_end_token`` flags overrides it);
- ``encoder_text_key``, ``decoder_text_key``: the input dict's keys;
- ``encoder_features(encoder_input, sequence_length)``: the encoder's part of
  the model inputs (`{"encoder_token_ids", "encoder_padding_mask"}` here; an
  audio family returns its features and mask);
  ``generate_encoder_features(encoder_input, sequence_length)``: the same for
  ``generate_preprocess`` (T5Gemma's has no end token).
"""

from __future__ import annotations

from typing import Any, ClassVar

import tensorflow as tf

from tfkit.engine import call_context
from tfkit.hub.layers import StartEndPacker
from tfkit.hub.models.causal_lm_preprocessor import strip_to_ragged
from tfkit.hub.models.preprocessor import Preprocessor
from tfkit.saving import register_keras_serializable
from tfkit.utils import pack_x_y_sample_weight


@register_keras_serializable(package="keras_hub")
class Seq2SeqLMPreprocessor(Preprocessor):
    """Base class for seq2seq language modeling preprocessing layers.

    It takes a dict `{"encoder_text", "decoder_text"}` of strings (one
    example, or batches), tokenizes and packs each side with the start and
    end tokens, and pads to the side's sequence length. Calling it (for
    training) gives `(x, y, sample_weight)`: `x` holds
    `"encoder_token_ids"`, `"encoder_padding_mask"`, `"decoder_token_ids"`
    and `"decoder_padding_mask"` (all decoder tokens but the last), `y` the
    decoder tokens shifted left by one (each next token) and
    `sample_weight` the padding mask of `y`. `generate_preprocess` packs
    for generation (an empty decoder prompt for encoder texts alone, no end
    token) and `generate_postprocess` turns generated ids back into strings.
    Called on this base class, `from_preset` returns the family's own.

    Args:
        tokenizer: The family's tokenizer.
        encoder_sequence_length: The encoder inputs' padded length. Defaults
            to `1024`.
        decoder_sequence_length: The decoder inputs' padded length. Defaults
            to `1024`.
        **kwargs: Layer keyword arguments, such as `name`.

    Call arguments:
        x: `{"encoder_text", "decoder_text"}`, strings or string tensors.
        y: Must be `None`: the labels come from `x`.
        sample_weight: Must be `None`: the weights are the padding mask.
        encoder_sequence_length: Overrides `encoder_sequence_length`.
        decoder_sequence_length: Overrides `decoder_sequence_length`.
        sequence_length: An alias of `decoder_sequence_length`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.Seq2SeqLMPreprocessor, keras_hub.models.Preprocessor)
        True
    """

    encoder_text_key: ClassVar[str] = "encoder_text"
    decoder_text_key: ClassVar[str] = "decoder_text"

    def __init__(
        self, tokenizer: Any, encoder_sequence_length: int = 1024, decoder_sequence_length: int = 1024, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.tokenizer = tokenizer
        self.encoder_packer = None
        self.decoder_packer = None
        self.encoder_sequence_length = encoder_sequence_length
        self.decoder_sequence_length = decoder_sequence_length

    # ---- the hooks a family declares -------------------------------------------------------------------------

    def encoder_packer_arguments(self) -> dict[str, Any]:
        """The encoder's `StartEndPacker` values (a hook): the tokenizer's start, end and padding ids."""
        tokenizer = self.tokenizer
        return {
            "start_value": tokenizer.start_token_id,
            "end_value": tokenizer.end_token_id,
            "pad_value": tokenizer.pad_token_id,
        }

    def decoder_packer_arguments(self) -> dict[str, Any]:
        """The decoder's `StartEndPacker` values (a hook): the encoder's unless overridden."""
        return self.encoder_packer_arguments()

    def pack(self, side: str, text: Any, sequence_length: int | None, add_end_value: bool = True) -> tuple[Any, Any]:
        """Tokenizes and packs one side (a hook).

        Args:
            side: `"encoder"` or `"decoder"`.
            text: Strings or a string tensor.
            sequence_length: The padded length.
            add_end_value: Whether to end with the end token. Defaults to
                `True`.

        Returns:
            `(token_ids, padding_mask)`.
        """
        if self.encoder_packer is None:
            self.build(None)
        packer = self.encoder_packer if side == "encoder" else self.decoder_packer
        with call_context.enter(self, None):  # tensors back, not the Python lists of an outermost eager call
            token_ids = self.tokenizer(text)
        return packer(token_ids, sequence_length=sequence_length, **self.packer_flags(side, add_end_value))

    def packer_flags(self, side: str, add_end_value: bool) -> dict[str, bool]:
        """The `StartEndPacker` call's flags for one side (a hook): the start token, and the end token where
        `add_end_value` asks for it.

        Args:
            side: `"encoder"` or `"decoder"`.
            add_end_value: Whether the caller asks for the end token.

        Returns:
            `{"add_end_value": ...}`, and `"add_start_value"` where a family sets it.
        """
        return {"add_end_value": add_end_value}

    def encoder_features(self, encoder_input: Any, sequence_length: int | None) -> dict[str, Any]:
        """The encoder's part of the model inputs (a hook).

        Args:
            encoder_input: The input dict's `encoder_text_key` value.
            sequence_length: The encoder's padded length.

        Returns:
            `{"encoder_token_ids", "encoder_padding_mask"}`.
        """
        token_ids, padding_mask = self.pack("encoder", encoder_input, sequence_length)
        return {"encoder_token_ids": token_ids, "encoder_padding_mask": padding_mask}

    def generate_encoder_features(self, encoder_input: Any, sequence_length: int | None) -> dict[str, Any]:
        """The encoder's part of `generate_preprocess`'s inputs (a hook): `encoder_features(encoder_input,
        sequence_length)` unless overridden."""
        return self.encoder_features(encoder_input, sequence_length)

    # ---- shared -----------------------------------------------------------------------------------------------

    def build(self, input_shape: Any) -> None:
        """Makes the two packers (once the tokenizer's vocabulary is loaded)."""
        self.encoder_packer = StartEndPacker(
            sequence_length=self.encoder_sequence_length, return_padding_mask=True, **self.encoder_packer_arguments()
        )
        self.decoder_packer = StartEndPacker(
            sequence_length=self.decoder_sequence_length, return_padding_mask=True, **self.decoder_packer_arguments()
        )
        self.built = True

    def _lengths(self, encoder_sequence_length: Any, decoder_sequence_length: Any, sequence_length: Any) -> tuple:
        encoder = encoder_sequence_length or self.encoder_sequence_length
        return encoder, decoder_sequence_length or sequence_length or self.decoder_sequence_length

    def _empty_decoder_text(self, encoder_input: Any) -> Any:
        """An empty decoder prompt for each encoder input."""
        if tf.is_tensor(encoder_input) and encoder_input.dtype == tf.string:
            return tf.fill(tf.shape(encoder_input), "")
        if isinstance(encoder_input, (str, bytes)):
            return ""
        return [""] * len(encoder_input)

    def call(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        *,
        encoder_sequence_length: int | None = None,
        decoder_sequence_length: int | None = None,
        sequence_length: int | None = None,
    ) -> Any:
        encoder_length, decoder_length = self._lengths(
            encoder_sequence_length, decoder_sequence_length, sequence_length
        )
        inputs = self.encoder_features(x[self.encoder_text_key], encoder_length)
        token_ids, padding_mask = self.pack("decoder", x[self.decoder_text_key], decoder_length + 1)
        inputs.update(decoder_token_ids=token_ids[..., :-1], decoder_padding_mask=padding_mask[..., :-1])
        return pack_x_y_sample_weight(inputs, token_ids[..., 1:], padding_mask[..., 1:])

    def generate_preprocess(
        self,
        x: Any,
        *,
        encoder_sequence_length: int | None = None,
        decoder_sequence_length: int | None = None,
        sequence_length: int | None = None,
    ) -> dict[str, Any]:
        """The inputs of generation: both sides packed, the decoder's with no end token (generation goes on).

        Args:
            x: `{"encoder_text", "decoder_text"}`, or the encoder's texts
                alone (the decoder prompt is then empty: its start tokens).
            encoder_sequence_length: Overrides `encoder_sequence_length`.
            decoder_sequence_length: Overrides `decoder_sequence_length`.
            sequence_length: An alias of `decoder_sequence_length`.

        Returns:
            `{"encoder_token_ids", "encoder_padding_mask",
            "decoder_token_ids", "decoder_padding_mask"}`.
        """
        if isinstance(x, dict):
            encoder_input, decoder_text = x[self.encoder_text_key], x[self.decoder_text_key]
        else:
            encoder_input, decoder_text = x, self._empty_decoder_text(x)
        encoder_length, decoder_length = self._lengths(
            encoder_sequence_length, decoder_sequence_length, sequence_length
        )
        inputs = self.generate_encoder_features(encoder_input, encoder_length)
        token_ids, padding_mask = self.pack("decoder", decoder_text, decoder_length, add_end_value=False)
        inputs.update(decoder_token_ids=token_ids, decoder_padding_mask=padding_mask)
        return inputs

    def generate_postprocess(self, x: dict[str, Any]) -> Any:
        """Generated decoder ids back to strings: padding and special tokens stripped, then detokenized.

        Args:
            x: `{"decoder_token_ids", "decoder_padding_mask"}` as
                `generate_step` returns them.

        Returns:
            The strings.
        """
        ids_to_strip = list(getattr(self.tokenizer, "special_token_ids", []) or [])
        token_ids = strip_to_ragged(x["decoder_token_ids"], x["decoder_padding_mask"], ids_to_strip)
        return self.tokenizer.detokenize(token_ids)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            encoder_sequence_length=self.encoder_sequence_length, decoder_sequence_length=self.decoder_sequence_length
        )
        return config

    @property
    def encoder_sequence_length(self) -> int:
        """The padded length of encoder input sequences."""
        return self._encoder_sequence_length

    @encoder_sequence_length.setter
    def encoder_sequence_length(self, value: int) -> None:
        self._encoder_sequence_length = value
        if self.encoder_packer is not None:
            self.encoder_packer.sequence_length = value

    @property
    def decoder_sequence_length(self) -> int:
        """The padded length of decoder input sequences."""
        return self._decoder_sequence_length

    @decoder_sequence_length.setter
    def decoder_sequence_length(self, value: int) -> None:
        self._decoder_sequence_length = value
        if self.decoder_packer is not None:
            self.decoder_packer.sequence_length = value

    @property
    def sequence_length(self) -> int:
        """An alias of `decoder_sequence_length`."""
        return self.decoder_sequence_length

    @sequence_length.setter
    def sequence_length(self, value: int) -> None:
        self.decoder_sequence_length = value
