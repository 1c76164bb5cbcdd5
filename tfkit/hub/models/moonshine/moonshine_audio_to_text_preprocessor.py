"""``MoonshineAudioToTextPreprocessor``: audio and transcripts to ``MoonshineAudioToText``'s inputs.

preprocessor = MoonshineAudioToTextPreprocessor(MoonshineAudioConverter(), tokenizer, decoder_sequence_length=64)
x, y, sample_weight = preprocessor({"audio": audio, "text": ["the quick brown fox"]})
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine import call_context
from tfkit.hub.models.audio_to_text_preprocessor import AudioToTextPreprocessor
from tfkit.hub.models.causal_lm_preprocessor import strip_to_ragged
from tfkit.hub.models.moonshine.moonshine_audio_converter import MoonshineAudioConverter
from tfkit.hub.models.moonshine.moonshine_backbone import MoonshineBackbone
from tfkit.hub.models.moonshine.moonshine_tokenizer import MoonshineTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MoonshineAudioToTextPreprocessor(AudioToTextPreprocessor):
    """Moonshine audio-to-text preprocessor.

    The audio is padded to the batch's longest clip (`padding="longest"`);
    samples equal to the converter's `padding_value` are padding. The
    transcripts are tokenized and packed between the tokenizer's start and
    end tokens.

    Args:
        audio_converter: A `MoonshineAudioConverter`.
        tokenizer: A `MoonshineTokenizer`.
        decoder_sequence_length: The decoder inputs' padded length. Defaults
            to `1024`.
        **kwargs: `AudioToTextPreprocessor` keyword arguments.

    Call arguments:
        x: `{"audio": (batch, samples) or (batch, samples, 1), "text": ...}`.
        y: Must be `None`.
        sample_weight: Must be `None`.
        decoder_sequence_length: Overrides `decoder_sequence_length`.
        sequence_length: An alias of `decoder_sequence_length`.

    Returns:
        `(x, y, sample_weight)`: `x` holds `"encoder_input_values"`,
        `"encoder_padding_mask"`, `"decoder_token_ids"` and
        `"decoder_padding_mask"`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.MoonshineAudioToTextPreprocessor, keras_hub.models.AudioToTextPreprocessor)
        True
    """

    backbone_cls = MoonshineBackbone
    tokenizer_cls = MoonshineTokenizer
    audio_converter_cls = MoonshineAudioConverter

    def encoder_features(self, encoder_input: Any, sequence_length: int | None = None) -> dict[str, Any]:
        """`{"encoder_input_values", "encoder_padding_mask"}`: the samples, padded to the longest, and which hold audio.

        Args:
            encoder_input: The audio.
            sequence_length: Unused.

        Returns:
            The encoder's inputs.
        """
        with call_context.enter(self, None):  # tensors back, not an outermost eager call's Python values
            values = self.audio_converter(encoder_input, padding="longest")
        if values.shape.rank == 2:
            values = values[..., tf.newaxis]
        padding_mask = tf.not_equal(values[:, :, 0], tf.cast(self.audio_converter.padding_value, values.dtype))
        return {"encoder_input_values": values, "encoder_padding_mask": padding_mask}

    def generate_preprocess(
        self, x: Any, *, decoder_sequence_length: int | None = None, sequence_length: int | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The inputs of generation; without a `"text"` prompt the decoder starts with two start tokens, as in
        KerasHub (whose prompt is then the start token, which the packer starts again).

        Args:
            x: `{"audio": ..., "text": ...}` (`"text"` optional), or the audio alone.
            decoder_sequence_length: Overrides `decoder_sequence_length`.
            sequence_length: An alias of `decoder_sequence_length`.
            **kwargs: Ignored.

        Returns:
            The model's inputs.
        """
        inputs = super().generate_preprocess(
            x, decoder_sequence_length=decoder_sequence_length, sequence_length=sequence_length
        )
        if isinstance(x, dict) and x.get(self.decoder_text_key) is not None:
            return inputs
        length = decoder_sequence_length or sequence_length or self.decoder_sequence_length
        start = tf.fill([tf.shape(inputs["decoder_token_ids"])[0], 1], self.tokenizer.start_token_id)
        with call_context.enter(self, None):
            token_ids, padding_mask = self.decoder_packer(start, sequence_length=length, add_end_value=False)
        inputs.update(decoder_token_ids=token_ids, decoder_padding_mask=padding_mask)
        return inputs

    def generate_postprocess(self, x: dict[str, Any]) -> Any:
        """Generated decoder ids back to strings: padding, special tokens and the padding id stripped.

        Args:
            x: `{"decoder_token_ids", "decoder_padding_mask"}`.

        Returns:
            The strings.
        """
        strip = list(self.tokenizer.special_token_ids) + [self.tokenizer.pad_token_id]
        return self.tokenizer.detokenize(strip_to_ragged(x["decoder_token_ids"], x["decoder_padding_mask"], strip))
