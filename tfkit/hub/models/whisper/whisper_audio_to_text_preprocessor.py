"""``WhisperAudioToTextPreprocessor``: audio and transcripts to ``WhisperAudioToText``'s inputs, with Whisper's
decoder prefix (start of transcript, language, task, no timestamps).

    preprocessor = WhisperAudioToTextPreprocessor(WhisperAudioConverter(), tokenizer, language="en")
    x, y, sample_weight = preprocessor({"audio": audio, "text": [" the quick brown fox"]})
    # decoder: <|startoftranscript|> <|en|> <|transcribe|> <|notimestamps|> ... <|endoftext|>

KerasHub 0.32 has no Whisper task; this one follows OpenAI's decoding prompt.
"""

from __future__ import annotations

from typing import Any

from tfkit.engine import call_context
from tfkit.hub.models.audio_to_text_preprocessor import AudioToTextPreprocessor
from tfkit.hub.models.causal_lm_preprocessor import strip_to_ragged
from tfkit.hub.models.whisper.whisper_audio_converter import WhisperAudioConverter
from tfkit.hub.models.whisper.whisper_backbone import WhisperBackbone
from tfkit.hub.models.whisper.whisper_tokenizer import WhisperTokenizer
from tfkit.saving import register_keras_serializable

_TASKS = ("transcribe", "translate")


@register_keras_serializable(package="keras_hub")
class WhisperAudioToTextPreprocessor(AudioToTextPreprocessor):
    """Whisper audio-to-text preprocessor.

    The audio becomes log-mel features (`WhisperAudioConverter`,
    `"encoder_features"`); the transcripts are packed after Whisper's prefix
    (`<|startoftranscript|>`, the language token of a multilingual
    tokenizer, the task token, `<|notimestamps|>`) and before
    `<|endoftext|>`, which also pads.

    Args:
        audio_converter: A `WhisperAudioConverter`.
        tokenizer: A `WhisperTokenizer`.
        decoder_sequence_length: The decoder inputs' padded length, prefix
            included. Defaults to `448`.
        language: The spoken language: `"en"`, `"<|en|>"`, or `None` (the
            default: no language token, as English-only models read).
        task: `"transcribe"` (the default), `"translate"` (to English), or
            `None` for no task token.
        no_timestamps: Whether the prefix ends with `<|notimestamps|>`.
            Defaults to `True`.
        **kwargs: `AudioToTextPreprocessor` keyword arguments.

    Call arguments:
        x: `{"audio": (batch, samples), "text": ...}`.
        y: Must be `None`.
        sample_weight: Must be `None`.
        decoder_sequence_length: Overrides `decoder_sequence_length`.
        sequence_length: An alias of `decoder_sequence_length`.

    Returns:
        `(x, y, sample_weight)`: `x` holds `"encoder_features"`,
        `"decoder_token_ids"` and `"decoder_padding_mask"`.

    Raises:
        ValueError: If `task` is not one of the above, or `language` is
            given to an English-only tokenizer or is not one of its languages.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> special = {"<|endoftext|>": 4, "<|startoftranscript|>": 5, "<|translate|>": 6,
        ...     "<|transcribe|>": 7, "<|notimestamps|>": 8}
        >>> tokenizer = keras_hub.models.WhisperTokenizer(vocabulary={"a": 0, "b": 1, "ab": 2, "Ġ": 3},
        ...     merges=["a b"], special_tokens=special, language_tokens={"<|en|>": 9})
        >>> from tfkit.hub.models.whisper.whisper_audio_converter import WhisperAudioConverter
        >>> converter = WhisperAudioConverter(num_mels=8, max_audio_length=1)
        >>> preprocessor = keras_hub.models.WhisperAudioToTextPreprocessor(converter, tokenizer,
        ...     decoder_sequence_length=8, language="en")
        >>> x, y, weights = preprocessor({"audio": np.zeros((1, 800), "float32"), "text": ["ab"]})
        >>> x["encoder_features"].shape, x["decoder_token_ids"].numpy().tolist()
        (TensorShape([1, 100, 8]), [[5, 9, 7, 8, 2, 4, 4, 4]])
    """

    backbone_cls = WhisperBackbone
    tokenizer_cls = WhisperTokenizer
    audio_converter_cls = WhisperAudioConverter

    def __init__(
        self,
        audio_converter: Any = None,
        tokenizer: Any = None,
        decoder_sequence_length: int = 448,
        language: str | None = None,
        task: str | None = "transcribe",
        no_timestamps: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            audio_converter=audio_converter,
            tokenizer=tokenizer,
            decoder_sequence_length=decoder_sequence_length,
            **kwargs,
        )
        if task is not None and task not in _TASKS:
            raise ValueError(f"{type(self).__name__} '{self.name}': task must be one of {_TASKS} or None, got {task!r}")
        self.language = language
        self.task = task
        self.no_timestamps = no_timestamps

    def prefix_ids(self) -> list[int]:
        """The decoder's prefix: start of transcript, language, task and no-timestamps token ids.

        Returns:
            A list of ints.

        Raises:
            ValueError: If the language is not the tokenizer's.
        """
        tokenizer = self.tokenizer
        ids = [tokenizer.bos_token_id]
        if self.language is not None:
            token = self.language if self.language.startswith("<|") else f"<|{self.language}|>"
            languages = tokenizer.language_tokens or {}
            if token not in languages:
                raise ValueError(
                    f"{type(self).__name__} '{self.name}': language {self.language!r} is not among the tokenizer's "
                    f"language tokens ({'none: it is English-only' if not languages else sorted(languages)[:8]})"
                )
            ids.append(languages[token])
        if self.task is not None:
            ids.append(tokenizer.transcribe_token_id if self.task == "transcribe" else tokenizer.translate_token_id)
        if self.no_timestamps:
            ids.append(tokenizer.no_timestamps_token_id)
        return ids

    def decoder_packer_arguments(self) -> dict[str, Any]:
        return {**self.encoder_packer_arguments(), "start_value": self.prefix_ids()}

    def encoder_features(self, encoder_input: Any, sequence_length: int | None = None) -> dict[str, Any]:
        """`{"encoder_features"}`: the audio's log-mel features.

        Args:
            encoder_input: The audio.
            sequence_length: Unused.

        Returns:
            The encoder's inputs.
        """
        with call_context.enter(self, None):  # tensors back, not an outermost eager call's Python values
            return {"encoder_features": self.audio_converter(encoder_input)}

    def generate_postprocess(self, x: dict[str, Any]) -> Any:
        """Generated decoder ids back to strings: padding, special and language tokens stripped.

        Args:
            x: `{"decoder_token_ids", "decoder_padding_mask"}`.

        Returns:
            The strings.
        """
        tokenizer = self.tokenizer
        strip = list(tokenizer.special_token_ids) + list((tokenizer.language_tokens or {}).values())
        return tokenizer.detokenize(strip_to_ragged(x["decoder_token_ids"], x["decoder_padding_mask"], strip))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(language=self.language, task=self.task, no_timestamps=self.no_timestamps)
        return config
