"""``AudioToTextPreprocessor``: audio and transcripts to a speech model's inputs, next-token labels and weights.

    preprocessor = AudioToTextPreprocessor.from_preset("./moonshine_tiny", decoder_sequence_length=8)
    x, y, sample_weight = preprocessor({"audio": audio, "text": ["the quick brown fox"]})
    prompt = preprocessor.generate_preprocess({"audio": audio})          # the decoder's start tokens only

A ``Seq2SeqLMPreprocessor`` whose encoder side is audio (the input dict's
``"audio"``, converted by its ``audio_converter``) and whose decoder side is the
transcript (``"text"``). A family declares ``encoder_features`` (what its
encoder reads: Whisper's log-mel features, Moonshine's samples and their mask)
and, where they differ from the tokenizer's, its decoder's packer values.
"""

from __future__ import annotations

from typing import Any, ClassVar

from tfkit.hub.models.seq_2_seq_lm_preprocessor import Seq2SeqLMPreprocessor
from tfkit.hub.presets.preset_loader import get_preset_loader
from tfkit.saving import deserialize, register_keras_serializable, serialize


@register_keras_serializable(package="keras_hub")
class AudioToTextPreprocessor(Seq2SeqLMPreprocessor):
    """Base class for audio-to-text preprocessing layers.

    It wraps an audio converter (specific to the family) and a tokenizer:
    the input dict's `"audio"` becomes the encoder's inputs, its `"text"`
    the decoder's token ids. Calling it (for training) gives
    `(x, y, sample_weight)`: `x` the encoder's inputs with
    `"decoder_token_ids"` and `"decoder_padding_mask"`, `y` the decoder's
    tokens shifted left by one and `sample_weight` their padding mask.
    `generate_preprocess` takes audio and an optional `"text"` prompt;
    `generate_postprocess` turns generated ids into strings. Called on this
    base class, `from_preset` returns the family's own.

    Args:
        audio_converter: The family's `AudioConverter`.
        tokenizer: The family's tokenizer.
        decoder_sequence_length: The decoder inputs' padded length. Defaults
            to `1024`.
        **kwargs: `Seq2SeqLMPreprocessor` keyword arguments, such as `name`.

    Call arguments:
        x: `{"audio": ..., "text": ...}`: a batch of audio and its
            transcripts.
        y: Must be `None`: the labels come from `x`.
        sample_weight: Must be `None`.
        decoder_sequence_length: Overrides `decoder_sequence_length`.
        sequence_length: An alias of `decoder_sequence_length`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.AudioToTextPreprocessor, keras_hub.models.Seq2SeqLMPreprocessor)
        True
    """

    encoder_text_key: ClassVar[str] = "audio"
    decoder_text_key: ClassVar[str] = "text"
    audio_converter_cls: Any = None

    def __init__(
        self, audio_converter: Any = None, tokenizer: Any = None, decoder_sequence_length: int = 1024, **kwargs: Any
    ) -> None:
        super().__init__(tokenizer=tokenizer, decoder_sequence_length=decoder_sequence_length, **kwargs)
        self.audio_converter = audio_converter

    def encoder_features(self, encoder_input: Any, sequence_length: int | None) -> dict[str, Any]:
        """The encoder's part of the model inputs for a batch of audio (a hook: the family's).

        Args:
            encoder_input: The input dict's `"audio"`.
            sequence_length: Unused by audio families.

        Returns:
            The encoder's inputs, by name.
        """
        raise NotImplementedError(f"{type(self).__name__} must define encoder_features")

    def generate_preprocess(
        self, x: Any, *, decoder_sequence_length: int | None = None, sequence_length: int | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The inputs of generation: the audio's features and the decoder prompt, without an end token.

        Args:
            x: `{"audio": ..., "text": ...}` (`"text"`, a prompt, optional:
                without it the decoder starts from its start tokens), or the
                audio alone.
            decoder_sequence_length: Overrides `decoder_sequence_length`.
            sequence_length: An alias of `decoder_sequence_length`.
            **kwargs: Ignored (`encoder_sequence_length`).

        Returns:
            The model's inputs.
        """
        if isinstance(x, dict):
            audio = x[self.encoder_text_key]
            text = x.get(self.decoder_text_key)
        else:
            audio, text = x, None
        if text is None:
            text = [""] * int(len(audio))
        elif isinstance(text, (str, bytes)):
            text = [text] * int(len(audio))
        return super().generate_preprocess(
            {self.encoder_text_key: audio, self.decoder_text_key: text},
            decoder_sequence_length=decoder_sequence_length,
            sequence_length=sequence_length,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        if self.audio_converter is not None:
            config["audio_converter"] = serialize(self.audio_converter)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "AudioToTextPreprocessor":
        config = dict(config)
        if isinstance(config.get("audio_converter"), dict):
            config["audio_converter"] = deserialize(config["audio_converter"])
        return super().from_config(config)

    @classmethod
    def from_preset(cls, preset: str, **kwargs: Any) -> Any:
        """Instantiates the preprocessor of a preset, with its tokenizer and audio converter.

        Args:
            preset: A preset folder or an `hf://` / `kaggle://` handle.
            **kwargs: Constructor arguments that replace the preset's, such as
                `decoder_sequence_length`.

        Returns:
            The preprocessor (the family's class).
        """
        source = get_preset_loader(preset)
        family = source.matching_class(cls)
        if "audio_converter" not in kwargs and family.audio_converter_cls is not None:
            if not source.has_file("preprocessor.json"):
                kwargs["audio_converter"] = family.audio_converter_cls.from_preset(source)
        return super().from_preset(source, **kwargs)

    def save_to_preset(self, preset_dir: str) -> None:
        """Saves the preprocessor, its tokenizer (with its assets) and its audio converter to a preset folder.

        Args:
            preset_dir: The folder to write (created if missing).
        """
        super().save_to_preset(preset_dir)
        if self.audio_converter is not None:
            self.audio_converter.save_to_preset(preset_dir)
