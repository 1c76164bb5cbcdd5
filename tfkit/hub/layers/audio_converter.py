"""``AudioConverter``: raw audio to a speech model's inputs (a spectrogram, padded samples), KerasHub's own.

    converter = AudioConverter.from_preset("./whisper_tiny")     # the preset's WhisperAudioConverter
    features = converter(np.zeros((2, 16000), "float32"))        # (2, frames, num_mels) log-mel features

The base class holds no weights and no assets: a family's converter is its
config (``audio_converter.json`` in a preset) and TensorFlow ops, so it runs
eagerly, in ``tf.data`` and in exported SavedModels.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.preprocessing_layer import PreprocessingLayer
from tfkit.hub.presets import files, saver
from tfkit.hub.presets.preset_loader import get_preset_loader
from tfkit.hub.presets.refusals import refuses_bad_presets
from tfkit.saving import register_keras_serializable

AUDIO_CONVERTER_CONFIG_FILE = "audio_converter.json"


@register_keras_serializable(package="keras_hub")
class AudioConverter(PreprocessingLayer):
    """Convert raw audio for models that support audio input.

    The layer takes raw audio of any length, `(num_samples,)` or
    `(batch_size, num_samples)`, and gives what a pretrained model takes
    (a log-mel spectrogram for Whisper, padded samples for Moonshine). It is
    the base of the families' converters: call `from_preset` on it to get the
    converter a preset's model was trained with, so preprocessing code need
    not change with the checkpoint.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.layers.audio_converter import AudioConverter
        >>> from tfkit.hub.models.whisper.whisper_audio_converter import WhisperAudioConverter
        >>> converter = WhisperAudioConverter(num_mels=8, max_audio_length=1)
        >>> isinstance(converter, AudioConverter), converter.audio_shape()
        (True, (1, 8))
    """

    backbone_cls: Any = None

    def audio_shape(self) -> tuple:
        """Returns the preprocessed size of a single audio sample."""
        return (None,)

    @classmethod
    @refuses_bad_presets
    def from_preset(cls, preset: str, **kwargs: Any) -> "AudioConverter":
        """Instantiates the audio converter of a preset (`audio_converter.json`).

        Called on `AudioConverter`, it builds the preset family's converter
        (`WhisperAudioConverter` for a Whisper preset).

        Args:
            preset: A preset folder, or an `hf://` / `kaggle://` handle.
            **kwargs: Constructor arguments that replace the preset's, such as
                `max_audio_length`.

        Returns:
            The audio converter.

        Raises:
            ValueError: If the preset's family has no audio converter, or the
                file describes another class.
            FileNotFoundError: If the preset has no `audio_converter.json`.
        """
        source = get_preset_loader(preset)
        if source.has_file(files.CONFIG_FILE):
            cls = source.matching_class(cls)
        return source.load_serialized(cls, AUDIO_CONVERTER_CONFIG_FILE, **kwargs)

    def save_to_preset(self, preset_dir: str) -> None:
        """Saves the converter's config as `audio_converter.json` of a preset folder (it has no assets).

        Args:
            preset_dir: The folder to write (created if missing).
        """
        saver.write_serialized(self, preset_dir, AUDIO_CONVERTER_CONFIG_FILE)
